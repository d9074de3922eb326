"""The failure classes still open on the blind held-out sets at round 37 (eval/RESULTS.md,
"Round 37"), each tested on variants of its own, both ways: work put off to a named later
time, where an interrupted session stopped, a correction's scope, and a retention count said
inside a request."""

from __future__ import annotations

import pytest
from test_heldout2_classes import PROJECT, captures, checkpoint, session
from test_heldout7_classes import remembered

# --------------------------------------------------------------------------- put off to later


@pytest.mark.parametrize(
    ("proposal", "deferral", "detail"),
    [
        (
            "It loads every row into memory. I'll stream the rows with a server-side cursor "
            "instead.",
            "ok, tackle it next week. Begin with exporter/stream.py.",
            "exporter/stream.py",
        ),
        (
            "The retries hammer the API. I'll add jittered backoff to the client.",
            "Sure, do that tomorrow.",
            "",
        ),
    ],
)
def test_work_put_off_to_a_named_later_time_is_the_next_step(
    proposal: str, deferral: str, detail: str
) -> None:
    cp = checkpoint(session("The nightly export is slow on big tenants.", proposal, deferral))
    assert cp is not None
    steps = " ".join(cp.next_actions)
    assert proposal.split(". ")[-1].rstrip(".") in steps, cp
    assert detail in steps
    assert not any(loop.startswith("Unanswered") for loop in cp.open_loops), cp.open_loops
    assert not cp.interrupted


def test_doing_it_now_is_no_next_step() -> None:
    cp = checkpoint(
        session(
            "The nightly export is slow on big tenants.",
            "I'll stream the rows with a server-side cursor instead.",
            "ok, do that now.",
        )
    )
    assert cp is not None and not cp.next_actions, cp


# --------------------------------------------------------------------------- where it stopped


@pytest.mark.parametrize(
    ("said", "instruction", "started"),
    [
        (
            (
                "the importer drops rows that start with a BOM",
                "The reader opens the file as utf-8, so the BOM sticks to the first header.",
                "switch it to utf-8-sig and log how many rows were skipped, at warning level",
                "OK, starting with importer/reader.py, then the skip counter.",
            ),
            "warning level",
            "importer/reader.py",
        ),
        (
            (
                "上传接口偶尔超时，看下 nginx 配置。",
                "client_max_body_size 只有 1m，大文件会被直接拒掉。",
                "改成 50m，超时也拉到 120 秒，别动 keepalive。",
                "好，我先改 deploy/nginx/upload.conf，再跑一遍压测。",
            ),
            "别动 keepalive",
            "deploy/nginx/upload.conf",
        ),
    ],
)
def test_an_interrupted_session_says_where_it_stopped(
    said: tuple[str, ...], instruction: str, started: str
) -> None:
    cp = checkpoint(session(*said))
    assert cp is not None and cp.interrupted
    stopped = [loop for loop in cp.open_loops if loop.startswith("Stopped at:")]
    assert stopped and instruction in stopped[0] and started in stopped[0], cp.open_loops


def test_a_session_that_ends_on_a_report_did_not_stop_mid_task() -> None:
    cp = checkpoint(
        session(
            "the importer drops rows that start with a BOM",
            "Switched the reader to utf-8-sig; all importer tests pass.",
        )
    )
    assert cp is not None and not cp.interrupted
    assert not any(loop.startswith("Stopped at:") for loop in cp.open_loops)


# --------------------------------------------------------------------------- correction scope


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "the exporter should default to region eu-central-1 when --region is not given",
            "change of plans on the default region. the real customer is in Ohio, Frankfurt "
            "was only for my tests. default is us-east-2 from now on",
            "eu-central-1",
            "us-east-2",
        ),
        (
            "the report job should default to timezone UTC when --tz is not given",
            "correction: the report timezone should be America/Chicago from now on, not UTC",
            "--tz is not given",
            "America/Chicago",
        ),
    ],
)
def test_a_correction_said_in_a_project_replaces_the_projects_rule_there(
    first: str, later: str, old: str, new: str
) -> None:
    active = remembered((first,), (later,))
    assert not any(old in m.text for m in active), [m.text for m in active]
    assert [m.scope for m in active if new in m.text] == [PROJECT], active


@pytest.mark.parametrize(
    "said",
    [
        "更正一下，默认分页大小以后用 50，不是 20",
        "correction: the report timezone should be America/Chicago from now on, not UTC",
    ],
)
def test_a_correction_of_a_project_setting_stays_in_the_project(said: str) -> None:
    assert [c.scope for c in captures(said)] == [PROJECT]


@pytest.mark.parametrize(
    "said",
    [
        "Actually, I prefer tabs over spaces, not the other way round.",
        "no, answers in English from now on, not Chinese",
        "correction: commit messages in the imperative from now on, not past tense",
    ],
)
def test_a_correction_of_the_users_own_style_stays_global(said: str) -> None:
    found = captures(said)
    assert found and {c.scope for c in found} == {"global"}, found


# --------------------------------------------------------------------------- retention counts


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "add the log shipping job to ops/ship.sh, keep the last 30 days (find -mtime +30 "
            "-delete after each upload)",
            "-mtime +30",
        ),
        ("set up the nightly pg_dump in cron/dump.sh and retain 10 dumps", "retain 10 dumps"),
        ("加个每周的快照任务，保留最近 6 份快照，脚本放 ops/snap.sh", "保留最近 6 份"),
    ],
)
def test_a_retention_count_inside_a_request_is_the_projects_rule(said: str, kept: str) -> None:
    found = captures(said)
    assert [c.scope for c in found] == [PROJECT], found
    assert kept in found[0].text


@pytest.mark.parametrize(
    "said",
    ["keep 2 spaces of indent", "I keep 3 monitors on my desk", "keep it under 5 minutes"],
)
def test_a_count_that_keeps_no_data_is_no_retention_rule(said: str) -> None:
    assert not any(c.rule == "preference.retain" for c in captures(said))


# --------------------------------------------------------------------------- long cases


def test_a_long_case_keeps_a_fix_said_without_i_and_drops_what_the_cause_led_to() -> None:
    from recallnest.continuity.compose import ITEM_MAX_CHARS, _cause_and_fix

    text = (
        "The runner image ships Node 16 while the lockfile in the web package needs Node 18 or "
        "newer, so npm ci aborts with EBADENGINE on every job of the matrix and nothing else "
        "runs. Bumped the CI image to node:18-bookworm in .github/workflows/ci.yml; the matrix "
        "is green again."
    )
    shown = _cause_and_fix(text)
    assert len(shown) <= ITEM_MAX_CHARS, shown
    assert "needs Node 18 or newer." in shown and "node:18-bookworm" in shown, shown
    assert "EBADENGINE" not in shown


def test_a_long_cause_with_room_for_it_stays_whole() -> None:
    from recallnest.continuity.compose import _cause_and_fix

    text = (
        "The cron job ran in UTC, so the nightly report missed the last two hours of sales. "
        "Set TZ=America/Chicago in the job spec."
    )
    assert _cause_and_fix(text) == text


# --------------------------------------------------------------------------- asks in other words


@pytest.mark.parametrize(
    ("said", "later"),
    [
        (
            (
                "Add the nightly invoice sync from the billing API.",
                "Added jobs/invoice_sync.py with a nightly schedule.",
                "Their webhooks only carry an invoice id, so after each webhook we fetch the "
                "invoice status from the billing API.",
                "Done: the job looks the invoice up by id before it marks the order paid.",
            ),
            "fetch the invoice status",
        ),
        (
            (
                "订单导出加个按月筛选。",
                "已经加了 month 参数，默认当月。",
                "导出文件名里带上月份，财务那边按文件名归档。",
                "已完成：文件名改成 orders-2024-05.csv 这种格式。",
            ),
            "财务那边按文件名归档",
        ),
    ],
)
def test_a_statement_the_assistant_acted_on_is_an_ask_of_the_session(
    said: tuple[str, ...], later: str
) -> None:
    cp = checkpoint(session(*said))
    assert cp is not None and later in cp.summary, cp.summary


def test_a_statement_answered_with_a_question_is_no_ask() -> None:
    cp = checkpoint(
        session(
            "Add the nightly invoice sync from the billing API.",
            "Added jobs/invoice_sync.py with a nightly schedule.",
            "The billing API pages with a cursor, by the way.",
            "Should the job keep the last cursor between runs?",
        )
    )
    assert cp is not None and "by the way" not in cp.summary, cp.summary


# --------------------------------------------------------------------------- a new duration


@pytest.mark.parametrize(
    ("first", "later", "old", "kept", "new"),
    [
        (
            (
                "会话 token 统一放 `sess:v3:{uid}` 这个前缀下，有效期定为 2h。",
                "好的，前缀 sess:v3:{uid}，TTL 设为 7200 秒。",
            ),
            "会话有效期那个值是我之前随手定的，安全那边要求 30 分钟，你改一下。",
            ("2h", "7200"),
            "sess:v3:",
            "30 分钟",
        ),
        (
            (
                "Uploads go to the `tmp-uploads/` prefix and expire after 24 hours.",
                "OK: tmp-uploads/ objects get a lifecycle rule of 86400 seconds.",
            ),
            "Correction on the upload expiry I gave you earlier: make it 3 days.",
            ("24 hours", "86400"),
            "tmp-uploads/",
            "3 days",
        ),
    ],
)
def test_a_new_duration_for_what_was_said_before_replaces_the_old_one_in_any_unit(
    first: tuple[str, ...], later: str, old: tuple[str, ...], kept: str, new: str
) -> None:
    got = " | ".join(m.text for m in remembered(first, (later,)))
    assert not any(o in got for o in old), got
    assert kept in got and new in got, got


@pytest.mark.parametrize(
    ("said", "about"),
    [
        (
            "the upload expiry I set before was a guess; product wants 3 days, change it.",
            "upload expiry",
        ),
        ("The retry limit I picked earlier is wrong. Make it 5 attempts.", "retry limit"),
    ],
)
def test_a_value_of_ones_own_declared_wrong_is_a_correction_of_its_thing(
    said: str, about: str
) -> None:
    found = captures(said)
    assert [c.rule.split(".")[0] for c in found] == ["correction"], found
    assert f"(correcting: what was said about {about})" in found[0].text


def test_an_english_change_of_a_duration_without_the_old_value_replaces_it() -> None:
    got = " | ".join(
        m.text
        for m in remembered(
            ("Uploads go to the `tmp-uploads/` prefix and expire after 24 hours.",),
            ("the upload expiry I set before was a guess; product wants 3 days, change it.",),
        )
    )
    assert "24 hours" not in got and "tmp-uploads/" in got and "3 days" in got, got


def test_a_duration_of_something_else_replaces_nothing() -> None:
    got = " | ".join(
        m.text
        for m in remembered(
            ("Uploads go to the `tmp-uploads/` prefix and expire after 24 hours.",),
            ("Reports should be kept for 3 days, change the report job.",),
        )
    )
    assert "24 hours" in got, got


def test_a_new_duration_said_without_looking_back_replaces_nothing() -> None:
    got = " | ".join(
        m.text
        for m in remembered(
            ("Uploads go to the `tmp-uploads/` prefix and expire after 24 hours.",),
            ("Thumbnails of uploads expire after 3 days, change the thumbnailer.",),
        )
    )
    assert "24 hours" in got, got


# --------------------------------------------------------------------------- praise and "this"


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        (
            "nice. keep redis-py as the client, don't switch to aioredis for this.",
            "keep redis-py as the client, don't switch to aioredis.",
        ),
        ("cool, use ruff for that, not flake8.", "use ruff, not flake8."),
        (
            "great. the API base URL is https://api.example.dev/v2 for staging.",
            "the API base URL is https://api.example.dev/v2 for staging.",
        ),
    ],
)
def test_praise_before_a_rule_and_a_dangling_this_are_not_stored(said: str, stored: str) -> None:
    assert [c.text for c in captures(said)] == [stored]


def test_a_name_that_starts_with_praise_stays() -> None:
    said = "Great Expectations is our data validation lib, configured in gx/great_expectations.yml."
    assert [c.text for c in captures(said)] == [said]

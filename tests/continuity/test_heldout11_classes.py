"""The failure classes the eleventh blind held-out set found (eval/continuity/e2e-heldout11,
eval/RESULTS.md round 38), each tested on variants of our own, both ways: work under way said
with a gerund, a plan about a failure mode, chit-chat a task word slipped into, an aside before
a next step, a setting reported at its new value, and what the "Last session" block holds;
a switch that names what goes, a change announced for a named thing in Chinese, a count with a
classifier corrected, and a duration changed for a setting the code names in English."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest
from test_heldout2_classes import PROJECT, T0, captures, checkpoint, session

from recallnest.capture.admission import Admitter
from recallnest.continuity.checkpoint import Checkpoint
from recallnest.core.models import Capture, Memory
from recallnest.evaluation.e2e import last_session_block

DAY = timedelta(days=1)


def built(*said: str) -> Checkpoint:
    cp = checkpoint(session(*said))
    assert cp is not None
    return cp


# --------------------------------------------------------------------------- interrupted


@pytest.mark.parametrize(
    "starting",
    [
        "Adding the totals row to invoices/export.py: summing net and VAT per currency…",
        "Wiring the retry queue into worker/consume.py, then the dead-letter topic",
        "Migrating the settings table to the new schema: copying rows in batches of 500…",
    ],
)
def test_a_turn_opening_on_a_gerund_of_work_is_work_under_way(starting: str) -> None:
    cp = built(
        "add a CSV export for the invoices page",
        "Added invoices/export.py with the column mapping.",
        "also the totals row and the retry queue, please",
        starting,
    )
    assert cp.interrupted
    assert cp.open_loops[0].startswith(f"Stopped at: {starting.split()[0]}"), cp.open_loops


@pytest.mark.parametrize(
    "final",
    [
        "Added the totals row to invoices/export.py; the export test passes.",
        "Writing is slow on the NFS mount, so the export goes to /tmp first.",
    ],
)
def test_a_report_or_a_gerund_subject_is_no_work_under_way(final: str) -> None:
    cp = built(
        "add a CSV export for the invoices page",
        "Added invoices/export.py with the column mapping.",
        "also the totals row, please",
        final,
    )
    assert not cp.interrupted


# --------------------------------------------------------------------------- plans


@pytest.mark.parametrize(
    "plan",
    [
        "next step: handle the upload timeout error, retry twice before giving up",
        "下一步做支付回调异常重试：回调失败就重放三次",
        "next time: the crash reporter for the desktop build",
    ],
)
def test_a_plan_about_a_failure_mode_is_a_next_step(plan: str) -> None:
    cp = built(
        "switch the uploads to presigned URLs",
        "Updated uploads/presign.py to issue presigned PUT URLs.",
        plan,
    )
    assert not any(loop.startswith("Unresolved") for loop in cp.open_loops), cp.open_loops
    assert plan in cp.next_actions


@pytest.mark.parametrize(
    "failure",
    [
        "the upload still fails with a 403 after your change",
        "上传还是报错，403",
        "the build is broken again, next I'll paste the log",
    ],
)
def test_a_failure_that_happened_stays_unresolved(failure: str) -> None:
    cp = built(
        "switch the uploads to presigned URLs",
        "Updated uploads/presign.py to issue presigned PUT URLs.",
        failure,
    )
    assert any(loop.startswith("Unresolved") for loop in cp.open_loops), cp.open_loops


# --------------------------------------------------------------------------- chit-chat


@pytest.mark.parametrize(
    ("aside", "reply", "word"),
    [
        ("昨天搬家把腰闪了，哈哈，今天坐着都疼", "多休息。", "腰"),
        ("ugh, rough night, the baby woke us at 3 and the coffee machine died lol", "Oof.", "baby"),
    ],
)
def test_chit_chat_nobody_acted_on_is_no_later_ask(aside: str, reply: str, word: str) -> None:
    cp = built(
        "把订单导出改成按月分文件",
        "已把 export/orders.py 改成按月写文件。",
        aside,
        reply,
        "下次把退款单也按月导出",
    )
    assert word not in cp.summary, cp.summary
    assert "Asked: 把订单导出改成按月分文件" in cp.summary


def test_a_task_beside_chit_chat_stays_the_ask() -> None:
    cp = built(
        "the dog kept barking all night lol. fix the login redirect loop on /admin",
        "Which browser shows it?",
        "firefox",
    )
    assert "fix the login redirect loop" in cp.summary, cp.summary


def test_an_ask_beside_chit_chat_stays_a_later_ask() -> None:
    cp = built(
        "add the monthly export for orders",
        "Added export/orders.py with one file per month.",
        "haha nice, can you also add a test for the March edge case",
        "Sure, which year should it use?",
        "2024 please",
    )
    assert "Later: haha nice, can you also add a test" in cp.summary, cp.summary


# --------------------------------------------------------------------------- next steps


def test_an_aside_before_a_next_step_stays_out_of_it() -> None:
    cp = built(
        "try the rust port of the parser",
        "Added parser-rs/ with the lexer; it is 3x faster on the corpus.",
        "sorry, my neighbour rang the bell. ok that's promising. next time port the error "
        "recovery before we compare again",
    )
    assert cp.next_actions == ("next time port the error recovery before we compare again",)


def test_a_bare_deferral_keeps_the_work_said_before_it() -> None:
    cp = built(
        "add login for the admin page",
        "Added admin/login.py with session cookies.",
        "still need the rate limiter on /login: five tries a minute. not today, next time",
    )
    assert any(step.startswith("still need the rate limiter") for step in cp.next_actions)


# --------------------------------------------------------------------------- done


@pytest.mark.parametrize(
    ("asked", "report"),
    [
        ("make the retry backoff 2 s", "RETRY_BACKOFF_S is now 2; the client test covers it."),
        ("把缓存过期时间调到 10 分钟", "cache_ttl 改为 600，相关单测同步调整。"),
        ("raise the page size", "pageSize is now 50 on the orders list."),
    ],
)
def test_a_setting_reported_at_its_new_value_is_what_was_done(asked: str, report: str) -> None:
    cp = built(asked, report, "ok")
    assert f"Done: {report.split()[0]}" in cp.summary, cp.summary


def test_a_plain_word_is_now_is_no_report() -> None:
    cp = built("why is the queue slow", "The queue is now the bottleneck, not the database.")
    assert "Done:" not in cp.summary


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(
    ("said", "why"),
    [
        (
            "search: move to meilisearch, drop the postgres trigram index. the trigram index "
            "took 4 s on 2M rows",
            "4 s",
        ),
        ("switch to pnpm, stop using npm; the lockfile churn was killing reviews", "churn"),
        # round 39 (e2e-heldout12): what goes named by "from"
        (
            "date handling: move from moment to date-fns. moment added 230 kB to the bundle",
            "230 kB",
        ),
        ("migrate the job queue from celery to dramatiq, celery kept losing acks", "acks"),
    ],
)
def test_a_switch_naming_what_goes_is_a_decision_with_its_reason(said: str, why: str) -> None:
    found = captures(said)
    assert [c.category for c in found] == ["events"], found
    assert why in found[0].text


@pytest.mark.parametrize(
    "said",
    [
        "switch to the other branch and run the tests",
        "move to the next file, it's fine",
        "switch from main to the release branch and run the linter",
        "move from the settings tab to the billing page",
    ],
)
def test_a_switch_of_what_to_look_at_is_no_decision(said: str) -> None:
    assert captures(said) == []


# --------------------------------------------------------------------------- corrections


def test_a_change_announced_for_a_named_thing_in_chinese_is_a_correction() -> None:
    found = captures("营业时间有变：周末改成早上 8 点开门")
    assert [c.rule.split(".")[0] for c in found] == ["correction"], found
    assert found[0].text.startswith("营业时间有变")


def project_facts(old: Sequence[str]) -> dict[str, Memory]:
    """The project facts `old`, stored at T0, by id."""
    held = {}
    for text in old:
        memory = Admitter._new(
            Capture("entities", text, 0.5, 0.8, "entity.fact", scope=PROJECT), T0, "test"
        )
        held[memory.id] = memory
    return held


def admitted(old: Sequence[str], new: str, rule: str = "entity.fact") -> str:
    """Admit `new` (a project fact, a day later) over the project facts `old`; the active texts."""
    held = project_facts(old)
    admitter = Admitter(lambda c: list(held.values()))
    admitter.admit(Capture("entities", new, 0.5, 0.8, rule, scope=PROJECT), T0 + DAY, "test")
    held.update(admitter.pending)
    return " | ".join(m.text for m in held.values() if m.status == "active")


def test_a_count_with_a_classifier_corrected_retires_the_old_count() -> None:
    text = admitted(
        ["机房一共 3 台服务器，操作系统统一 Ubuntu 22.04"],
        "服务器数量要改：退了一台，现在只剩 2 台",
        "correction.entity.fact",
    )
    assert "3 台" not in text, text
    assert "2 台" in text and "Ubuntu 22.04" in text, text


def test_a_count_of_something_else_stays() -> None:
    text = admitted(
        ["机房一共 3 台服务器，机柜在 B2"], "显示器数量要改：现在 5 台", "correction.entity.fact"
    )
    assert "3 台服务器" in text, text


@pytest.mark.parametrize(
    ("old", "new", "stale"),
    [
        (
            "Set lock_timeout=30s on the job runner; retries stay at three.",
            "锁超时改成 10 秒，原来那个太长了，任务卡住要等半天",
            "30s",
        ),
        (
            "已设置 refresh_interval=5s，前端每次刷新拉全量。",
            "刷新间隔改成 30 秒吧，原先那个值太频繁，nginx 扛不住",
            "5s",
        ),
    ],
)
def test_a_duration_changed_in_chinese_retires_the_english_setting(
    old: str, new: str, stale: str
) -> None:
    text = admitted([old], new)
    assert stale not in text, text
    assert new in text


@pytest.mark.parametrize(
    "old", ["Set lock_timeout=30s on the job runner.", "已设置 retry_interval=5s，最多重试 3 次。"]
)
def test_a_duration_of_another_setting_stays(old: str) -> None:
    text = admitted([old], "心跳间隔改成 10 秒，原来的太长")
    assert old.split()[1].split("，")[0] in text, text


# --------------------------------------------------------------------------- the eval's block

RESUME = """RECALLNEST RECALLED NOTES
~~~~
Last session (1d ago, codex): Asked: move the uplink.
Ran: pytest -q
Open loops:
- Unanswered: which antenna?
- Earlier: Unanswered: the old mast question
Next:
- next time add Doppler correction
This project:
- [12345678] the rotator sits behind rotctld (3d ago)
~~~~"""


def test_the_last_session_block_holds_its_own_loops_and_next_steps() -> None:
    block = last_session_block(RESUME)
    assert "Doppler" in block and "which antenna" in block
    assert "old mast" not in block  # carried from an older session
    assert "rotctld" not in block


def test_no_last_session_block_without_its_head() -> None:
    assert last_session_block(RESUME.replace("Last session", "Since this session")) == ""

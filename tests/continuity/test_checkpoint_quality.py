"""Checkpoint summaries say what was asked, what was done and what is left (issue 17, items 6
and 7): the fix rather than an incidental report, no small talk, no pasted logs, open loops
that name their object, never an empty summary, interrupted sessions flagged, and what an
older session left open carried into the next checkpoint until it is done."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from recallnest.continuity.checkpoint import Checkpoint, build_checkpoint
from recallnest.core.models import Turn

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
PROJECT = "/home/dev/shop"


def turn(i: int, role: str, text: str, session: str = "s1") -> Turn:
    return Turn(
        agent="claude",
        session_id=session,
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=T0 + timedelta(minutes=i),
        path="/tmp/s1.jsonl",
        record_id=f"{session}-r{i}",
        offset=i * 100,
        cwd=PROJECT,
    )


def built(
    *texts: tuple[str, str],
    reason: str = "session-end",
    earlier: Checkpoint | None = None,
    session: str = "s1",
) -> Checkpoint:
    turns = [turn(i, role, text, session) for i, (role, text) in enumerate(texts)]
    cp = build_checkpoint(session, "claude", PROJECT, turns, [], reason, T0, earlier=earlier)
    assert cp is not None
    return cp


def items(cp: Checkpoint) -> list[str]:
    return [*cp.open_loops, *cp.next_actions]


# --- what was done -----------------------------------------------------------------------


def test_done_is_the_fix_not_an_incidental_report() -> None:
    cp = built(
        ("user", "German users see English prices after switching language. Find out why."),
        ("assistant", "I found the cause: the price cache key ignored the locale."),
        ("assistant", "Fixed: the cache key now includes the locale, with a regression test."),
        ("assistant", "I've also updated the README badge."),
    )
    assert "cache key now includes the locale" in cp.summary
    assert "README badge" not in cp.summary


def test_done_knows_more_verbs_than_a_list_of_ten() -> None:
    for report in (
        "I raised the poll timeout to 5s in app/jobs.py.",
        "We bumped the chart to 1.4.0 and pinned the image digest.",
        "I lowered the batch size to 500 so the export no longer runs out of memory.",
    ):
        cp = built(
            ("user", "The export job keeps failing on big accounts, please fix it."),
            ("assistant", report),
        )
        assert report.split()[1] in cp.summary, (report, cp.summary)


# --- what was asked ----------------------------------------------------------------------


def test_small_talk_is_not_the_request() -> None:
    cp = built(
        ("user", "hi! how are you today? the weather here is awful, raining all week"),
        ("assistant", "Hi! Sorry about the weather. What are we working on?"),
        ("user", "The signup form accepts empty passwords. Fix that."),
        ("assistant", "Fixed: the signup form now requires at least 12 characters."),
    )
    assert "signup" in cp.summary.split("Done:")[0]
    assert "weather" not in cp.summary


def test_pasted_logs_are_neither_requests_nor_open_loops() -> None:
    log = (
        "CI is red again:\n"
        "Traceback (most recent call last):\n"
        '  File "app/jobs.py", line 41, in run\n'
        "TimeoutError: queue poll timed out\n"
        "FAILED tests/test_jobs.py::test_poll - TimeoutError\n"
        "npm ERR! missing script: build\n"
        "2026-11-20 09:01:02 ERROR worker crashed: connection reset"
    )
    cp = built(
        ("user", "Why do the job tests time out?"),
        ("assistant", "I raised the poll timeout to 5s; the tests pass now."),
        ("user", log),
        ("assistant", "That run predates the fix; the rerun is green."),
    )
    text = " ".join([cp.summary, *items(cp)])
    for line in ("npm ERR", 'File "app/jobs.py"', "worker crashed", "test_poll - Timeout"):
        assert line not in text, (line, text)


def test_a_session_with_content_never_has_an_empty_summary() -> None:
    cp = built(
        ("user", "We decided to use PostgreSQL 16 for the orders service."),
        ("assistant", "OK."),
        reason="idle",
    )
    assert cp.summary
    assert "PostgreSQL 16" in " ".join([cp.summary, *cp.decisions])


# --- what is left ------------------------------------------------------------------------


def test_an_open_loop_names_its_object() -> None:
    cp = built(
        ("user", "Add a webhook sender for order events."),
        (
            "assistant",
            "Done: app/webhooks.py sends order events. We could also add retries "
            "with jitter to the webhook sender.",
        ),
        ("user", "Let's do that next time."),
    )
    left = items(cp)
    assert not any(i.rstrip(".").endswith("Let's do that next time") for i in left), left
    assert any("retries with jitter" in i for i in left), left


def test_an_interrupted_session_is_flagged() -> None:
    cp = built(
        ("user", "Now migrate the invoices table to the new money type."),
        ("assistant", "Starting with the invoices model in app/models/invoice.py."),
        reason="idle",
    )
    assert cp.interrupted
    finished = built(
        ("user", "Now migrate the invoices table to the new money type."),
        ("assistant", "Done: invoices use the money type; migration 0044 converts old rows."),
        reason="idle",
    )
    assert not finished.interrupted
    assert Checkpoint.from_json(cp.to_json()).interrupted


STARTS_OF_WORK = [
    "先改 app/export.py 里的 export_csv，改成生成器逐行输出。",
    "我来看一下 app/models/invoice.py 的金额字段。",
    "我现在把 invoices 表迁移到新的金额类型。",
    "先看一下 app/models/invoice.py 里是怎么存金额的。",
    "正在处理 invoices 表的迁移。",
    "开始改 app/models/invoice.py。",
    "好的，我先从 invoice 模型入手。",
    "收到，先把迁移脚本写出来。",
    "I'll start with the invoices model in app/models/invoice.py.",
    "First I'll convert the invoice model, then the migration.",
    "I'm going to rewrite app/models/invoice.py to use the money type.",
]


@pytest.mark.parametrize("reason", ["idle", "session-end"])
@pytest.mark.parametrize("start", STARTS_OF_WORK)
def test_a_session_that_stops_after_starting_work_is_interrupted(start: str, reason: str) -> None:
    cp = built(
        ("user", "Now migrate the invoices table to the new money type."),
        ("assistant", start),
        reason=reason,
    )
    assert cp.interrupted, start


@pytest.mark.parametrize(
    "last", ["接着把导出改成流式。", "再加一个按日期筛选。", "Also handle the empty file case."]
)
def test_an_idle_session_ending_on_a_request_is_interrupted(last: str) -> None:
    cp = built(
        ("user", "加一个导出按钮。"), ("assistant", "已完成：加了导出按钮。"), ("user", last),
        reason="idle",
    )  # fmt: skip
    assert cp.interrupted, last


@pytest.mark.parametrize(
    "report",
    ["已完成：app/export.py 改成了逐行输出。", "先看了一下，金额字段已经改成 Decimal 了。",
     "我来总结一下：迁移已经完成，旧数据也转换了。"],
)  # fmt: skip
def test_a_session_that_reports_its_work_is_not_interrupted(report: str) -> None:
    cp = built(("user", "把 invoices 表迁移到新的金额类型。"), ("assistant", report), reason="idle")
    assert not cp.interrupted, report


def test_what_an_older_session_left_open_is_carried_until_done() -> None:
    old = built(
        ("user", "Add retries to the webhook sender."),
        ("assistant", "Done: 3 retries with backoff."),
        ("user", "TODO: rotate the staging TLS certificates before the 20th."),
        session="s0",
    )
    newer = built(
        ("user", "Fix the typo in the 404 page."),
        ("assistant", "Fixed the typo in templates/404.html."),
        earlier=old,
    )
    assert any("staging TLS certificates" in i for i in items(newer)), items(newer)
    done = built(
        ("user", "Rotate the staging TLS certificates please."),
        ("assistant", "Done: the staging TLS certificates are rotated, valid until 2027."),
        earlier=old,
    )
    assert not any("Earlier" in i and "certificates" in i for i in items(done)), items(done)


def test_done_in_chinese_is_not_a_decision() -> None:
    cp = built(
        ("user", "把单元测试里的 sleep 都去掉。"),
        ("assistant", "已经去掉了所有 sleep。"),
        ("user", "搞定了，谢谢！"),
    )
    assert not any("搞定" in d for d in cp.decisions), cp.decisions


def test_a_report_without_a_subject_is_a_report() -> None:
    cp = built(
        ("user", "Update the staging overlay to 3 replicas."),
        ("assistant", "Updated deploy/k8s/staging to 3 replicas."),
    )
    assert "Done: Updated deploy/k8s/staging to 3 replicas." in cp.summary

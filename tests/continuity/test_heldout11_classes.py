"""The failure classes the eleventh blind held-out set found (eval/continuity/e2e-heldout11,
eval/RESULTS.md round 38), each tested on variants of our own, both ways: work under way said
with a gerund, a plan about a failure mode, chit-chat a task word slipped into, an aside before
a next step, a setting reported at its new value, and what the "Last session" block holds."""

from __future__ import annotations

import pytest
from test_heldout2_classes import checkpoint, session

from recallnest.continuity.checkpoint import Checkpoint
from recallnest.evaluation.e2e import last_session_block


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

"""Checkpoint summaries say what was asked, what was done and what is left (issue 17, items 6
and 7): the fix rather than an incidental report, no small talk, no pasted logs, open loops
that name their object, never an empty summary, interrupted sessions flagged, and what an
older session left open carried into the next checkpoint until it is done."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from recallnest.checkpoint import Checkpoint, build_checkpoint
from recallnest.models import Turn

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

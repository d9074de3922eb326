"""The failure classes e2e-heldout25 left after round 46, each tested on variants of our own,
both ways.

- A setting the agent set by its code name (AUTO_APPROVE_LIMIT is now 1750) outdates the
  older note that gave its value in words ("auto-approve if the amount is under £1,200"), and
  the other way round; an amount of money is a value ("£1,200" before "£1,750").
- After a settled diagnosis, the next sentence saying how things stand now ("Transcodes now
  have their own queue") is the case's fix.
- An error at a position or with a code ("error @12:5-12:60: …", "error[E0308]: …") and an
  indented "at query x.flux" frame are pasted output.
"""

from __future__ import annotations

import pytest
import test_round44_e2e_classes as r44
from test_heldout2_classes import checkpoint, session

from recallnest.capture.chatter import pasted_kind
from recallnest.capture.heuristics import capture_turn
from recallnest.capture.salience import strip_noise
from recallnest.continuity.stale import named_in_prose, values

# --------------------------------------------------------------------------- names said in words


@pytest.mark.parametrize(
    ("older", "newer", "old", "new"),
    [
        (
            "for everything else: auto-approve if the amount is under £1,200 and fraud under 0.6",
            "AUTO_APPROVE_LIMIT is now 1750 (fraud cutoff unchanged at 0.6).",
            "1,200",
            "1750",
        ),
        (
            "Refunds above the manual review threshold of $300 need a second pair of eyes.",
            "Set MANUAL_REVIEW_THRESHOLD = 450 in billing/config.py.",
            "$300",
            "450",
        ),
        (
            "MAX_RETRIES = 3 in the uploader, after that the job goes to the dead letter queue.",
            "the uploader should give up later: max retries is 5 from today",
            "= 3",
            "5",
        ),
    ],
)
def test_a_value_said_in_words_is_outdated_by_the_named_setting(
    older: str, newer: str, old: str, new: str
) -> None:
    shown = r44.resume(
        r44.cp("s3", 3, "Asked: tidy up the docs. Done: README updated."),
        [r44.memory("a", 1, older), r44.memory("b", 2, newer)],
    )
    assert old not in shown and new in shown, shown


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # another thing of the same words: a count of runs, not the limit
        (
            "the auto-approve job runs 3 times a day from cron.",
            "AUTO_APPROVE_LIMIT is now 1750.",
        ),
        # the same value said both ways
        ("auto-approve anything under £1,750 that scores low.", "AUTO_APPROVE_LIMIT is 1750."),
        # words of another name
        ("the fraud cutoff is 0.6 for every claim.", "AUTO_APPROVE_LIMIT is now 1750."),
    ],
)
def test_a_note_that_gives_no_other_value_for_the_name_stays(older: str, newer: str) -> None:
    shown = r44.resume(
        r44.cp("s3", 3, "Asked: tidy up the docs. Done: README updated."),
        [r44.memory("a", 1, older), r44.memory("b", 2, newer)],
    )
    assert older.rstrip(".") in shown, shown


def test_a_name_is_read_in_words_only_as_its_own_phrase() -> None:
    names = frozenset({("name:auto_approve_limit", "1750"), ("name:max_retries", "3")})
    assert named_in_prose("auto approve limit is 2,000 now", names) == {
        "name:auto_approve_limit": {"2000"}
    }
    assert named_in_prose("we approve auto claims at 900", names) == {}
    assert named_in_prose("retries happen 5 times", names) == {}  # "retries" alone is no name


@pytest.mark.parametrize(
    ("text", "key", "amount"),
    [
        ("the limit is £1,200, not more", "money:gbp", "1200"),
        ("Pro costs $49.99 a month", "money:usd", "49.99"),
        ("代煎费每剂 8 元", "money:cny", "8"),
        ("EUR 20 per seat", "money:eur", "20"),
    ],
)
def test_an_amount_of_money_is_a_value(text: str, key: str, amount: str) -> None:
    assert values(text)[key] == {amount}


def test_numbers_in_a_list_are_no_money() -> None:
    assert not any(k.startswith("money:") for k in values("versions 1,2,3 and build 1,200"))


# ------------------------------------------------------------------ the fix said as a state


@pytest.mark.parametrize(
    ("said", "fix"),
    [
        (
            "Root cause: TranscodeJob ran on the default Sidekiq queue, so long transcodes held"
            " every worker and the mailer jobs waited behind them. Transcodes now have their own"
            " transcode queue with concurrency 2.",
            "own transcode queue",
        ),
        (
            "Root cause: celery_app.py read CELERY_BROKER_URL before load_dotenv() ran. The"
            " workers now connect to the broker from .env.",
            "now connect",
        ),
        (
            "原因是导出任务和推送任务共用一个线程池，导出一多推送就排队。现在推送走单独的线程池了。",
            "单独的线程池",
        ),
    ],
)
def test_the_state_said_after_a_diagnosis_is_its_fix(said: str, fix: str) -> None:
    turns = session("the mails are slow, why?", said)
    cases = [c for c in capture_turn(turns[1], turns[0]) if c.category == "cases"]
    assert cases and fix in cases[0].text, cases


def test_a_plan_after_a_diagnosis_is_no_fix() -> None:
    said = (
        "Root cause: the cron job runs in UTC, so the report is cut an hour early."
        " I'll move it to local time now if you agree?"
    )
    turns = session("why is the report short?", said)
    cases = [c for c in capture_turn(turns[1], turns[0]) if c.category == "cases"]
    assert cases and "move it" not in cases[0].text, cases


# --------------------------------------------------------------------------- pasted errors


@pytest.mark.parametrize(
    "line",
    [
        'error @12:5-12:60: runtime error: aggregateWindow: window boundaries for "UTC" overlap',
        "error[E0308]: mismatched types",
        "warning TS6133: 'x' is declared but its value is never read.",
        "  at query daily_energy.flux",
    ],
)
def test_positioned_errors_and_frames_are_pasted_output(line: str) -> None:
    assert pasted_kind(line) is not None


@pytest.mark.parametrize(
    "line",
    [
        "error handling is the part I want reviewed first",
        "at least run the tests before pushing",
        "  at home I use a mac.",
    ],
)
def test_prose_about_errors_stays_prose(line: str) -> None:
    assert pasted_kind(line) is None


def test_a_pasted_error_block_leaves_only_the_users_words() -> None:
    text = (
        "the daily chart has a hole at midnight, the console says:\n\n"
        "error @12:5-12:60: runtime error: aggregateWindow: boundaries overlap at 02:00\n"
        "  at query daily_energy.flux"
    )
    kept, noise = strip_noise(text)
    assert kept == "the daily chart has a hole at midnight, the console says:", kept
    assert noise["log"] + noise["stack_trace"] == 2


# --------------------------------------------------------------------------- work left half done


@pytest.mark.parametrize(
    ("said", "stopped"),
    [
        (
            "Starting on transcripts: adding a TranscriptJob that runs Whisper after transcoding."
            " Model wiring is half done.",
            "TranscriptJob",
        ),
        (
            "Working on the CSV export now: the query is written. The download button is not"
            " wired yet.",
            "not wired yet",
        ),
        ("好，我先把导出接口拆成异步任务。前端轮询还没写完。", "还没写完"),
    ],
)
def test_work_begun_and_left_unfinished_is_an_interrupted_session(said: str, stopped: str) -> None:
    cp = checkpoint(session("next: the export for every report", said))
    assert cp is not None and cp.interrupted, cp
    assert any(stopped in loop for loop in cp.open_loops), cp.open_loops


@pytest.mark.parametrize(
    "said",
    [
        # a report, with what is left for later
        "Added the CSV export and its download button. The PDF export is not done yet.",
        # no work begun in the turn
        "The nightly migration is in progress on the replica; it takes about six hours.",
    ],
)
def test_a_report_with_something_left_is_no_interruption(said: str) -> None:
    cp = checkpoint(session("next: the export for every report", said))
    assert cp is not None and not cp.interrupted, cp


@pytest.mark.parametrize(
    "pasted",
    [
        'psql: error: connection to server at "db" (10.0.0.5), port 5432 failed: FATAL: auth',
        "Uncaught TypeError: Cannot read properties of undefined (reading 'map')",
        "warn cfg.load: key `retry_ms` ignored: unknown at line 12:3",
    ],
)
def test_a_paste_in_a_format_no_pattern_knows_goes_after_an_output_intro(pasted: str) -> None:
    kept, _ = strip_noise(f"the console says:\n\n{pasted}")
    assert kept == "the console says:", kept


@pytest.mark.parametrize(
    "said",
    [
        "it says the fetchOrders call failed at 09:14",
        "we ship on Friday: QA signs off at 16:00",
        "the user_id column is empty for guests",
    ],
)
def test_the_users_own_words_after_an_output_intro_stay(said: str) -> None:
    kept, _ = strip_noise(f"the console says:\n\n{said}")
    assert said in kept, kept

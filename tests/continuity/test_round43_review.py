"""Round 43's review of its own capture and admission changes: each counter-example the review
found, kept as a test both ways (what the round's classes must still do is in
test_round43_classes, test_heldout16b_classes and test_heldout18b_classes)."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_heldout7_classes import kept

from recallnest.capture.chatter import is_pasted_line, is_small_talk
from recallnest.capture.salience import is_question
from recallnest.core.models import Capture


def none_of(found: list[Capture], category: str) -> None:
    assert [c for c in found if c.category == category] == [], found


def test_lines_of_a_file_are_no_range_given_anew() -> None:
    text = kept(
        ("Remember that lines 10-40 of settings.py hold the legacy config.", "ok."),
        ("ok", "MAX_UPLOAD_MB is now 50; the check lives in lines 88-95 of upload.py."),
    )
    assert "lines 10-40 of settings.py" in text, text


def test_only_the_range_the_setting_covers_moves() -> None:
    text = kept(
        ("remember that rounds 1 to 3 are played on Saturdays and courts 1 to 3 have lights", "ok"),
        ("ok", "FLOODLIT_COURTS now covers courts 1 to 5; rounds 4 to 6 move to the indoor hall."),
    )
    assert "rounds 1 to 3" in text and "courts 1 to 5" in text, text


def test_a_side_of_an_event_alone_names_no_setting() -> None:
    text = kept(
        ("remember that backups must finish 6 hours before the deploy window opens", "ok."),
        ("Change of plan: send them 2 hours before the visit.", "ok."),
    )
    assert "6 hours before the deploy" in text, text


def test_a_generic_word_shared_picks_no_value() -> None:
    text = kept(
        ("ok", "the reminder job runs at 18:00 and the digest job runs at 07:00."),
        ("ok", "The digest job is 06:00 now."),
    )
    assert "reminder job runs at 18:00" in text, text


def test_a_word_before_the_head_names_no_setting() -> None:
    text = kept(
        ("ok", "Unpaid invoices get a payment reminder after 14 days (REMINDER_DAYS = 14)."),
        ("FYI the payment provider now takes 3 days to settle.", "ok."),
    )
    assert "after 14 days" in text, text


def test_the_same_side_said_otherwise_is_the_same_side() -> None:
    text = kept(
        ("the clinic app is Django on Render; the reminder text goes out 48 hours ahead", "ok."),
        ("ok", "The reminder job now sends 2 hours before the visit (REMINDER_HOURS = 2)."),
    )
    assert "48 hours" not in text, text


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("Are you using Redis or Postgres?", "Postgres 16, the schema lives in db/schema.sql."),
        ("Which browsers do you have to support?", "Chrome and Safari only, the kiosk is an iPad."),
        ("你的系统是单体还是微服务？", "微服务，一共 6 个服务，网关用 Kong。"),
    ],
)
def test_a_question_about_the_project_is_answered_with_no_profile(asked: str, said: str) -> None:
    none_of(capture(said, previous=asked), "profile")


def test_a_rule_for_this_repo_stays_in_it() -> None:
    found = capture("For anything we ship in this repo: run make lint first.")
    assert all(c.scope != "global" for c in found), found


@pytest.mark.parametrize(
    "said",
    [
        "The progress bar moves from left to right as the upload runs.",
        "The order status moves from pending to shipped when the label prints.",
    ],
)
def test_a_state_moving_is_no_decision(said: str) -> None:
    none_of(capture(said), "events")


def test_regret_is_no_rule() -> None:
    none_of(capture("The migration should never have taken that long."), "preferences")


def test_the_rules_of_a_game_are_no_house_rule() -> None:
    found = capture("The rules: each player gets 3 lives and a round lasts 90 seconds.")
    assert not [c for c in found if c.rule == "preference.house_rule"], found


@pytest.mark.parametrize(
    "said",
    [
        "The dashboard is slow because every widget polls on its own; with a shared poller it"
        " would be fine now, but that is next sprint.",
        "Sales dropped because of the holiday; after adding the banner nobody clicked it again.",
    ],
)
def test_a_fix_that_would_help_or_did_not_is_no_solved_case(said: str) -> None:
    found = capture(said, role="assistant")
    assert not [c for c in found if c.rule == "case.cause_fix"], found


def test_not_having_known_is_no_hedge() -> None:
    found = capture("I had no idea the cache was per-process; sessions live in Redis now.")
    assert found, found


@pytest.mark.parametrize(
    "said", ["问题在哪找到了，是时区没设对", "他到底是什么意思我明白了，要按周统计"]
)
def test_a_chinese_statement_about_where_or_what_is_no_question(said: str) -> None:
    assert not is_question(said)


@pytest.mark.parametrize(
    "said", ["导出的时候又崩溃了", "气死了，支付回调又丢了", "我家闺女说首页颜色太丑了，换成蓝色吧"]
)
def test_a_bug_or_a_request_is_no_chit_chat(said: str) -> None:
    assert not is_small_talk(said)


def test_a_run_of_spaces_is_no_code_frame() -> None:
    assert not is_pasted_line(" " * 16000 + "x")

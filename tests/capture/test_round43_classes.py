"""Capture, round 43: the classes blind batch b34 showed, each tested on phrasings of our own
(not the batch's rows), both ways: the answer to "which OS are you on?", what the user's body
allows, a plan's own thing declined for what suffices, a way asked for then what not to do,
what may never happen to a thing, a pick of a multi-word option or under a condition, a group
moving over, a cause with its fix and outcome in one sentence, a routine under its name, "never
again", not knowing, and Chinese questions with no question mark."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

from recallnest.capture.salience import is_question


@pytest.mark.parametrize(
    ("asked", "said", "value"),
    [
        ("Which editor and OS are you using? I'll match the shortcuts.", "helix on Arch", "Arch"),
        ("Are you on Windows or macOS?", "FreeBSD 14 actually, so no brew", "FreeBSD"),
        ("你的电脑是 Mac 还是 Windows？", "统信 UOS，公司统一发的，装不了别的", "统信"),
    ],
)
def test_the_answer_to_which_setup_you_are_on_is_a_profile(
    asked: str, said: str, value: str
) -> None:
    found = capture(said, previous=asked)
    kept(found, "profile", value)
    none_of(found, "preferences")


def test_a_setup_named_without_being_asked_is_no_profile_answer() -> None:
    found = capture("FreeBSD 14 on the build box", previous="I'll add the build step to CI.")
    none_of(found, "profile")


def test_installed_uniformly_is_who_installed_it_not_a_rule() -> None:
    none_of(capture("这些电脑都是单位统一采购的，型号都一样"), "preferences")
    kept(capture("日志时间统一用 UTC"), "preferences", "UTC")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("我右手腕骨折了，这段时间只能左手打字，回复尽量短一点", "骨折"),
        ("我眼睛受伤了，屏幕字要大", "眼睛"),
        ("my right wrist is in a cast for six weeks, so keep the commands short", "wrist"),
        (
            "I can only type with one hand since the accident, so give me whole commands to paste",
            "one hand",
        ),
    ],
)
def test_what_the_users_body_allows_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_a_declined_thing_then_what_suffices_is_a_preference() -> None:
    found = capture(
        "no kafka here. a postgres table with SKIP LOCKED is plenty for our volume",
        previous="I'll add Kafka for the job queue.",
    )
    kept(found, "preferences", "SKIP LOCKED")


@pytest.mark.parametrize(
    ("plan", "said"),
    [
        ("I'll add Kafka for the job queue.", "no kafka here. we're out of budget this quarter"),
        ("I'll add Kafka for the job queue.", "no, rabbit is plenty"),
    ],
)
def test_a_declined_thing_without_what_suffices_is_no_such_preference(plan: str, said: str) -> None:
    found = capture(said, previous=plan)
    assert not [c for c in found if c.rule == "preference.counter_instruction"], found


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("for the seed scripts it's one table per file please, don't mix inserts", "one table"),
        ("receipts must never show the full card number, last four only", "card number"),
        ("the nightly export should never overwrite yesterday's file", "overwrite"),
    ],
)
def test_a_way_asked_for_or_a_never_for_a_thing_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    "said",
    [
        "I can never remember the order of the ffmpeg flags.",
        "we should never have shipped that on a friday lol",
        "fix the header pls, don't know why it broke",
    ],
)
def test_never_said_of_oneself_or_not_knowing_is_no_preference(said: str) -> None:
    none_of(capture(said), "preferences")


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (
            "Should the map use the OSM tiles or the satellite layer?",
            "satellite layer. the rangers navigate by tree cover, not roads",
        ),
        ("超时了是发短信还是打电话？", "超过十分钟就打电话，短信没人看"),
    ],
)
def test_a_named_option_said_as_a_phrase_or_under_a_condition_is_a_decision(
    asked: str, said: str
) -> None:
    found = capture(said, previous=asked)
    assert any(c.category == "events" for c in found), found


def test_a_phrase_the_question_did_not_offer_is_no_pick() -> None:
    found = capture(
        "good question. let me check with the rangers first",
        previous="Should the map use the OSM tiles or the satellite layer?",
    )
    none_of(found, "events")


def test_a_group_moving_from_one_thing_to_another_is_a_decision() -> None:
    found = capture("fyi the club switches from paper sign-up sheets to the app in april")
    kept(found, "events", "paper sign-up sheets")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "The labels printed half off the edge because the driver assumed A4; I set the page"
            " size to 62 mm and it now prints centred.",
            "62 mm",
        ),
        (
            "The scale readings drifted by a few grams because the tare ran before the bowl"
            " settled; I doubled the settle delay and the readings hold steady now.",
            "settle delay",
        ),
        ("会员积分对不上，原因是退款没扣积分；退款流程里加了扣回，现在和后台一致了。", "扣回"),
    ],
)
def test_a_cause_then_the_fix_and_its_outcome_in_one_sentence_is_a_case(
    said: str, value: str
) -> None:
    found = capture(said, role="assistant")
    assert any(c.rule == "case.cause_fix" and value in c.text for c in found), found


def test_a_cause_with_a_plan_but_no_outcome_is_no_such_case() -> None:
    found = capture(
        "The totals were off because the tax was rounded per line; I'll round on the total next.",
        role="assistant",
    )
    assert not [c for c in found if c.rule == "case.cause_fix"], found


def test_a_routine_under_its_name_is_a_workflow() -> None:
    said = (
        "Month-end checklist for the shop: export the orders, reconcile the card payouts,"
        " archive the receipts folder, then email the accountant."
    )
    kept(capture(said, role="assistant"), "patterns", "reconcile")


def test_never_again_does_not_make_a_routine_transient() -> None:
    said = (
        "every time a member leaves we export their loans first and only then delete the row."
        " lost a record once, never again"
    )
    kept(capture(said), "patterns", "export their loans")


def test_not_knowing_which_one_is_no_fact() -> None:
    none_of(capture("no idea which baud rate the scale uses tbh, leave it as it is"), "entities")


@pytest.mark.parametrize(
    "said",
    ["Postgres 的 jsonb 和 json 到底差在哪", "这两个库区别在哪", "这个字段究竟是谁在写"],
)
def test_a_chinese_question_without_a_question_mark_is_a_question(said: str) -> None:
    assert is_question(said)


def test_a_chinese_statement_with_where_is_no_question() -> None:
    assert not is_question("问题在于缓存没清")

"""Capture, round 42: the classes blind batch b33 showed, each tested on phrasings of our own
(not the batch's rows), both ways: prohibitions with the place after them, a plan declined
with how to work instead, naming conventions, rules for everything of a kind, a pick given
with its amount, a decision agreed to, solved cases in new words, routines, findings opened
by "I looked", "本人", rules for a kind of operation, and "across the codebase"."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

from recallnest.capture.salience import gate_turn


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("no mocks in the integration tests, they hit the real db", "mocks"),
        ("no print statements in the payment service pls", "print"),
    ],
)
def test_a_prohibition_with_its_place_after_it_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    "said",
    ["no tests in this PR, just the fix", "no luck in the logs either", "no errors in the console"],
)
def test_no_with_a_one_off_place_or_an_absence_is_no_rule(said: str) -> None:
    none_of(capture(said), "preferences")


def test_a_declined_plan_then_how_to_work_is_a_preference() -> None:
    found = capture(
        "nah keep the logs plain text, one event per line, no colours",
        previous="I'll add coloured rich output to the sync script.",
    )
    kept(found, "preferences", "plain text")


@pytest.mark.parametrize(
    ("plan", "said"),
    [
        ("I'll deploy the stack to us-east-1.", "nope, it's eu-central-1, not us-east-1"),
        ("I'll run the migration now.", "no, wait for the backup to finish first"),
    ],
)
def test_a_declined_plan_with_a_fact_or_a_one_off_is_no_preference(plan: str, said: str) -> None:
    none_of(capture(said, previous=plan), "preferences")


@pytest.mark.parametrize(
    "said",
    [
        "tag names: v plus the calendar date, like v2026.12.06, the deploy script sorts them",
        "commit subjects: component first then a colon, e.g. 'billing: round totals'",
        "分支命名规范：feature/工单号-简述，合并前 rebase",
    ],
)
def test_a_naming_convention_is_a_preference(said: str) -> None:
    found = capture(said)
    kept(found, "preferences")
    none_of(found, "patterns")


def test_e_g_does_not_end_a_sentence() -> None:
    assert (
        len(gate_turn('ids go at the end, e.g. "fix totals [B-12]". the bot parses them').sentences)
        == 1
    )


def test_a_rule_for_everything_of_a_kind_is_a_project_preference() -> None:
    found = capture("everything customers see in the booking app: 16px minimum and no grey text")
    kept(found, "preferences", "16px")
    assert all(c.scope == "shop" for c in found)


def test_a_pick_given_with_its_amount_is_a_decision() -> None:
    found = capture(
        "monthly €9, the yearly plan confused people last time",
        previous="Should the plan be billed monthly or yearly?",
    )
    kept(found, "events", "€9")


def test_a_decision_agreed_to_and_restated_is_an_event() -> None:
    found = capture(
        "Agreed: every kiosk will pull its menu from the one Redis on the till PC.",
        role="assistant",
    )
    kept(found, "events", "Redis")
    assert capture("Sounds good: I'll push the branch once CI passes.", role="assistant") == []


@pytest.mark.parametrize(
    ("said", "role", "value"),
    [
        (
            "the scanner dropping out every night ~02:00 was the NAS backup saturating the "
            "switch lol. moved the backup to 04:00 and it's been solid all week",
            "user",
            "04:00",
        ),
        (
            "The dashboard charts were blurry because the canvas ignored devicePixelRatio. "
            "Until the chart library is upgraded, we scale the canvas by hand on load.",
            "assistant",
            "devicePixelRatio",
        ),
        (
            "打印出来的标签是歪的：模板里的边距按英寸算了，打印机用的是毫米。现在统一按毫米排版，再出预览。",
            "assistant",
            "毫米",
        ),
    ],
)
def test_solved_cases_in_new_words(said: str, role: str, value: str) -> None:
    kept(capture(said, role=role), "cases", value)


@pytest.mark.parametrize(
    "said",
    [
        "my routine when a new member joins: add them to the rota, send the key code, book a tour",
        "whenever we open a new shop I copy shop-template, set SHOP_ID and run the seed",
    ],
)
def test_routines_are_patterns(said: str) -> None:
    kept(capture(said), "patterns")


def test_an_answer_to_what_steps_are_a_workflow() -> None:
    found = capture(
        "先在后台建门店拿到门店编码，再给收银机配账号，最后导入商品。",
        role="assistant",
        previous="新门店上线要做哪几步来着？",
    )
    kept(found, "patterns", "门店编码")


def test_a_finding_opened_by_i_looked_is_a_fact() -> None:
    found = capture(
        "看了一下：会员等级在 member_level 表里，按积分区间存；生日折扣是结账时另算的。",
        role="assistant",
    )
    kept(found, "entities", "member_level")


def test_asking_someone_else_is_no_request() -> None:
    kept(capture("新版上线前，我都会抽 10 个订单请财务同事核一遍，差错超过 1% 就回滚"), "patterns")


def test_benren_is_the_speaker() -> None:
    kept(capture("本人写了十年 Java，Kotlin 才用了一个月"), "profile", "Java")


def test_a_rule_for_a_kind_of_operation_is_a_preference() -> None:
    kept(capture("批量导出这类操作别同步等了，改成后台任务，做完发通知"), "preferences", "后台任务")


def test_across_the_codebase_is_this_project() -> None:
    assert all(
        c.scope == "shop"
        for c in capture("rename getUsr to getUser across the codebase + fix the tests pls")
    )

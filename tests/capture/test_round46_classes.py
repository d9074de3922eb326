"""Capture, round 46 (decision 0055): the classes blind batch b39 showed, each tested on
phrasings of our own (not the batch's rows), both ways."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- the user's machine


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "office pc is locked down by head office, no admin rights and no python installer",
            None,
            "no admin rights",
        ),
        (
            "it's an old intel nuc box under the bar running ubuntu 18.04, and no, I can't "
            "upgrade it, the landlord owns it",
            "Which OS is on the machine the till app runs on?",
            "ubuntu 18.04",
        ),
        ("店里的电脑还是 xp 系统，装不了 python3，只能用网页版", None, "xp 系统"),
        (
            "Oracle 11g，集团信息部不让升级，服务器上也不给装别的",
            "你们数据库用的是什么？版本多少？",
            "Oracle 11g",
        ),
    ],
)
def test_what_the_user_may_not_change_on_their_machine_is_a_profile(
    said: str, previous: str | None, value: str
) -> None:
    found = capture(said, previous=previous)
    kept(found, "profile", value)
    none_of(found, "entities")


@pytest.mark.parametrize(
    "said",
    [
        "the deploy user has no admin rights on the build box, that's on purpose",
        "I can't upgrade React to 19 until the date picker supports it",
        "the CI runner can't install system packages, so the image has them baked in",
    ],
)
def test_a_constraint_not_on_the_users_machine_is_no_profile(said: str) -> None:
    none_of(capture(said), "profile")


# --------------------------------------------------------------------------- who the user is


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "I'm 74, ex-merchant navy radio officer, the last code I wrote was Fortran.",
            "radio officer",
        ),
        ("I am 70, semi-retired surveyor who looks after the club's booking page.", "surveyor"),
        ("我自己开了家民宿，平时没空看代码，你改完直接告诉我结果就行", "民宿"),
        ("我一个人开面馆，中午最忙，别在中午找我确认", "面馆"),
    ],
)
def test_an_age_a_past_trade_or_the_business_run_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


@pytest.mark.parametrize(
    "said",
    [
        "I'm 30 minutes late for the standup, go ahead without me",
        "我开了个新分支，你先别合并",
        "the retired endpoints still get traffic from old apps",
    ],
)
def test_no_age_trade_or_business_is_no_profile(said: str) -> None:
    none_of(capture(said), "profile")


# --------------------------------------------------------------------------- a rule that goes on


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "Please write the changelog in plain English for the parents. No jargon like SSR or "
            "hydration.",
            ("plain English", "SSR"),
        ),
        (
            "Please use British spelling in all user-facing text. Not American spellings like "
            "color or center.",
            ("British spelling", "color"),
        ),
    ],
)
def test_a_short_sentence_ruling_something_out_joins_the_rule(
    said: str, values: tuple[str, ...]
) -> None:
    found = capture(said)
    kept(found, "preferences", *values)
    assert len(found) == 1, found


def test_a_pleasantry_after_a_rule_stays_out_of_it() -> None:
    found = capture(
        "Please write the changelog in plain English for the parents. No worries if you forget."
    )
    assert all("worries" not in c.text for c in found), found


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "weights in grams everywhere the shop shows them. the scales round oddly otherwise",
            "grams",
        ),
        ("times as 24h everywhere on the rota page", "24h"),
    ],
)
def test_how_a_kind_of_value_is_written_everywhere_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


def test_how_the_team_stores_a_value_stays_a_fact() -> None:
    none_of(
        capture("we store times as UTC everywhere, that's how the db was set up"), "preferences"
    )


def test_what_people_kept_doing_is_the_decisions_reason() -> None:
    found = capture(
        "Decided: the pool closes the lane booking 2 hours before each session. Parents kept "
        "booking lanes at the door and the lifeguards had no list."
    )
    kept(found, "events", "2 hours", "kept booking")
    none_of(found, "entities")


def test_a_fact_after_a_decision_that_gives_no_reason_stays_apart() -> None:
    found = capture(
        "Decided: the shop sends invoices on the 1st. The accountant emails them on the 3rd."
    )
    assert all("accountant" not in c.text for c in found if c.category == "events"), found


# --------------------------------------------------------------------------- routines


@pytest.mark.parametrize(
    ("said", "role", "value"),
    [
        (
            "weekly chore we run: friday noon, export the booking sheet, check the no-shows, "
            "text the coach the list",
            "user",
            "no-shows",
        ),
        (
            "我们店盘点是这样的：店员先清点货架，店长抽查三排，两边数对上了才算盘完",
            "user",
            "抽查三排",
        ),
        (
            "按你们的惯例，上线前我会：1) 跑一遍回归测试；2) 导出 users 表备份；"
            "3) 周五下午不发版。",
            "assistant",
            "users 表备份",
        ),
        (
            "Per your usual process, before each release I'll: 1) tag the commit, 2) run the "
            "smoke tests, 3) post in #ops.",
            "assistant",
            "smoke tests",
        ),
    ],
)
def test_a_routine_named_then_its_steps_is_a_workflow(said: str, role: str, value: str) -> None:
    kept(capture(said, role), "patterns", value)


@pytest.mark.parametrize(
    "said",
    [
        "Debugging this: I added logging, reran the job, looked at the output",
        "the thing i do not like: long functions, deep nesting, magic numbers",
        "我们的价格是这样的：成人 30，儿童 15，老人免费",
    ],
)
def test_progress_dislikes_and_prices_after_a_colon_are_no_workflow(said: str) -> None:
    none_of(capture(said), "patterns")


# ------------------------------------------------------------------- asked; where it is written


@pytest.mark.parametrize(
    "said",
    ["Django 的 select_related 和 prefetch_related 有啥不同", "那个测试服的地址是啥来着"],
)
def test_a_chinese_question_without_its_mark_is_no_memory(said: str) -> None:
    assert capture(said) == []


def test_a_fact_remembered_aloud_stays() -> None:
    kept(capture("我记得来着，端口是 8081"), "entities", "8081")


def test_a_layout_with_where_its_constants_are_written_is_a_fact() -> None:
    said = "会员卡的等级是 普通 → 银卡 → 金卡，等级常量定义在 member/levels.py。"
    kept(capture(said, "assistant"), "entities", "member/levels.py", "银卡")


def test_only_where_a_symbol_is_written_stays_code_navigation() -> None:
    assert capture("那个函数定义在 utils/date.py。", "assistant") == []

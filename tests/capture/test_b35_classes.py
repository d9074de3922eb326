"""Capture classes blind batch b35 showed (measured once at the end of round 43, then read),
each on phrasings of our own, both ways."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

from recallnest.capture.salience import gate_turn, is_question


@pytest.mark.parametrize(
    "said", ["Postgres 存金额用 numeric 还是 bigint，精度会不会有问题", "这个接口该不该加缓存"]
)
def test_a_chinese_a_not_a_question_without_a_mark_is_a_question(said: str) -> None:
    assert is_question(said)


def test_the_version_on_your_machine_is_asked_about_you() -> None:
    found = capture(
        "车间那台是 XP，Python 只能装 3.4，再新就装不上", previous="你电脑上 Python 是哪个版本？"
    )
    kept(found, "profile", "XP")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("we're moving the backups off Dropbox and onto our own B2 bucket next month", "B2"),
        (
            "scrap the sms login, we're going back to email magic links. nobody got the codes",
            "magic",
        ),
    ],
)
def test_moving_off_one_thing_or_back_to_another_is_a_decision(said: str, value: str) -> None:
    kept(capture(said), "events", value)


def test_a_state_moving_off_is_no_decision() -> None:
    none_of(capture("we're taking the dog off the lead and onto the beach lol"), "events")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("whatever you generate for the parent letters: one page, 12pt minimum, no jargon", "12pt"),
        (
            "when u give me sql make it postgres, not mysql. i paste it straight into psql",
            "postgres",
        ),
        ("提示框别光写“失败”，写清楚哪一步错了，比如“网络断开”", "失败"),
    ],
)
def test_what_the_agent_hands_over_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


def test_a_named_routine_listed_without_then_is_a_workflow() -> None:
    said = (
        "Backup routine for the shop server: dump the database, copy the dump to the NAS, and"
        " check the size against yesterday's before deleting anything."
    )
    kept(capture(said, role="assistant"), "patterns", "NAS")


@pytest.mark.parametrize(
    ("said", "category", "value"),
    [
        ("下个月开始报销不收纸质发票了，全走系统上传", "events", "纸质发票"),
        ("我们每周一早上固定两件事：对账、把上周的退款导出来", "patterns", "对账"),
    ],
)
def test_chinese_decisions_from_a_time_on_and_routines_by_count(
    said: str, category: str, value: str
) -> None:
    kept(capture(said), category, value)


def test_eslint_output_leaves_no_path_behind() -> None:
    said = (
        "$ npx eslint lib\n\n/home/bo/shop/lib/cart.ts\n  3:10  error  'x' is defined but never"
        " used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)"
    )
    assert gate_turn(said).sentences == ()

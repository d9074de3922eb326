"""Two classes e2e-heldout16 still showed, each tested on phrasings of our own, both ways: a
numbered range of things given anew ("courts 1 to 3" -> "courts 1 to 5") and a time of day
given anew by a code name or as "noon" ("check out at 11:00" -> "12:00")."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures
from test_heldout7_classes import kept

from recallnest.capture.heuristics import VALUE_CHANGED, Signal, _as_value_change


def test_a_code_name_covering_a_new_range_is_a_value_change() -> None:
    found = captures("ok", "HEATED_LANES now covers lanes 2 to 6; the map marks them red.")
    assert any(c.rule == VALUE_CHANGED for c in found), found


def test_every_memory_of_the_old_range_takes_the_new_one() -> None:
    text = kept(
        ("the pool app books lanes; lanes 2 to 4 are heated, sessions are 45 minutes", "ok."),
        (
            "ok",
            "Bookings are a Postgres table with a unique index on (lane, starts_at); evening"
            " swims are only offered on the heated lanes 2–4.",
        ),
        ("ok", "HEATED_LANES now covers lanes 2 to 6; the map marks them red."),
    )
    assert "2 to 4" not in text and "2–4" not in text, text
    assert "lanes 2 to 6 are heated" in text and "heated lanes 2–6" in text, text


def test_a_range_of_other_things_is_left_alone() -> None:
    text = kept(
        ("the pool app is Django + Postgres; lockers 10 to 40 are for members", "ok."),
        ("ok", "HEATED_LANES now covers lanes 2 to 6; the map marks them red."),
    )
    assert "lockers 10 to 40" in text, text


def test_a_time_of_day_given_anew_by_a_code_name_retires_the_old_time() -> None:
    text = kept(
        ("the gym app is Flask on Fly: members book classes, and the doors lock at 22:00.", "ok."),
        ("ok", "config.LockTime is 21:30 now; the app banner says 'doors lock at 21:30'."),
    )
    assert "22:00" not in text and "lock at 21:30" in text, text


def test_noon_is_twelve_oclock() -> None:
    text = kept(
        ("the cafe app shows the lunch menu from 11:30 each day", "ok."),
        ("ok", "The lunch menu now shows from noon; LUNCH_FROM = 12:00."),
    )
    assert "11:30" not in text, text


def test_a_time_of_another_thing_stays() -> None:
    text = kept(
        ("the gym app is Flask on Fly: members book classes, and the sauna opens at 07:00.", "ok."),
        ("ok", "config.LockTime is 21:30 now; the app banner says 'doors lock at 21:30'."),
    )
    assert "opens at 07:00" in text, text


def test_a_factor_given_anew_retires_the_old_factor() -> None:
    text = kept(
        ("ok", "加了 src/pricing/peak.ts：周末价格 × 1.2，周末日历从 data/weekends.json 读。"),
        ("ok", "周末系数改成 1.4，页面上的说明同步改成“周末上浮 40%”。"),
    )
    assert "1.2" not in text and "1.4" in text, text


def test_a_factor_of_another_thing_stays() -> None:
    text = kept(
        ("ok", "加了 src/pricing/peak.ts：周末价格 × 1.2，周末日历从 data/weekends.json 读。"),
        ("ok", "会员折扣系数改成 0.9，结算页同步显示“会员九折”。"),
    )
    assert "× 1.2" in text, text


@pytest.mark.parametrize(
    "rule", ["learned.events", "entity.fact.learned.events", "learned.entities"]
)
def test_a_change_the_model_heard_is_a_value_change(rule: str) -> None:
    said = "scrap the ten-day thing, nobody keeps up. bookings stay open for 14 days now"
    category = rule.rsplit(".", 1)[-1]
    signal = _as_value_change(Signal(rule, category, said, 0.6, 0.6))
    assert signal.rule == VALUE_CHANGED and signal.category == "events", signal


def test_a_preference_the_model_heard_stays_one() -> None:
    said = "keep answers short, 3 sentences max now"
    signal = _as_value_change(Signal("learned.preferences", "preferences", said, 0.6, 0.6))
    assert signal.category == "preferences", signal


def test_a_code_name_said_to_be_gone_retires_its_value() -> None:
    text = kept(
        ("ok", "排课在 app/schedule.py，每节课时长现在是常量 LESSON_MINUTES = 45。"),
        ("ok", "LESSON_MINUTES 常量去掉了，改成按年级取：低年级 35、高年级 45 分钟。"),
    )
    assert "LESSON_MINUTES = 45" not in text, text


def test_another_code_name_gone_leaves_the_value_alone() -> None:
    text = kept(
        ("ok", "排课在 app/schedule.py，每节课时长现在是常量 LESSON_MINUTES = 45。"),
        ("ok", "BREAK_MINUTES 常量去掉了，课间按铃声来。"),
    )
    assert "LESSON_MINUTES = 45" in text, text

"""A prompt asking for something shown to people (a chart, a report, an export, a format) and a
global convention about how values are shown (units, date formats, decimals): they share one
word, and the convention applies (issue 23, decision 0033, round 38 blind2)."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit

CELSIUS = "The user wants temperatures in Celsius with one decimal on every dashboard."
DATES = "所有报表里的日期必须统一用 YYYY-MM-DD 格式，不要用斜杠。"


def _memory(text: str, project: str | None = None, id: str = "m1") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


def test_a_global_units_rule_answers_a_chart_on_one_shared_word() -> None:
    prompt = "put a plot of greenhouse readings per sensor on the ops dashboard"
    assert chosen_ids(prompt, [_memory(CELSIUS)]) == ["m1"]


def test_a_global_format_rule_in_the_other_language_answers_a_format_question() -> None:
    prompt = "which format should the timestamps in the invoice export use?"
    assert chosen_ids(prompt, [_memory(DATES)]) == ["m1"]


def test_a_project_rule_still_needs_two_shared_words() -> None:
    prompt = "put a plot of greenhouse readings per sensor on the ops dashboard"
    assert chosen_ids(prompt, [_memory(CELSIUS, project="farm")]) == []


def test_a_global_rule_not_about_shown_values_still_needs_two_shared_words() -> None:
    prompt = "put a plot of greenhouse readings per sensor on the ops dashboard"
    rule = "The user wants every dashboard to load in under a second, never more."
    assert chosen_ids(prompt, [_memory(rule)]) == []


def test_a_prompt_asking_for_nothing_shown_does_not_take_a_units_rule() -> None:
    prompt = "restart the greenhouse gateway after the power cut"
    rule = "The user wants gateway temperatures in Celsius with one decimal."
    assert chosen_ids(prompt, [_memory(rule)]) == []


def test_a_global_clock_format_rule_is_a_presentation_convention() -> None:
    """The time of day is shown like a date or a unit: a 24-hour (or 12-hour) clock rule
    answers a prompt about formatting a time on a screen (round 39, blind3)."""
    prompt = "the status screen should list when each backup finished; how do I format that?"
    clock = "The user wants a 24-hour clock (17:05, never 5:05 PM) in every screen and log."
    assert chosen_ids(prompt, [_memory(clock)]) == ["m1"]
    zh = "时间一律用 24 小时制显示，不要出现上午/下午。"
    assert chosen_ids("报表里的完成时间用什么格式显示？", [_memory(zh)]) == ["m1"]

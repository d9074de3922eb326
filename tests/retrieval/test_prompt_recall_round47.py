"""Prompt recall, round 47 (issue 23, decision 0061): a note saying what its thing does not
share with the system is a note on a thing outside it; a person's age is a measure whose
limits notes state ("children under 6", "ages 6 to 15", 80 岁以上), and so is a percentage a
note words as a limit ("under 5.5% ABV"); a report, a count or a
total over the records is made by a query, and meets the rule on writing queries; a Chinese
request's object ends where what it is for begins (写个脚本统计…). Each class with notes of our
own wording it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval import limits, relevance
from recallnest.retrieval.artefact import produced
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


# --- a note on what the thing does not share with the system --------------------------------

BAKERY = _memory(
    "The bakery counter in the lobby uses its own card terminal and does not share orders or "
    "stock with the room booking app.",
    id="bakery",
)
VENDING = _memory(
    "走廊的自动售货机由饮料公司自己维护，售货机后台和排课系统没有任何对接。", id="vending"
)


def test_a_note_on_what_a_thing_does_not_share_is_read_as_outside() -> None:
    assert relevance.outside_of(BAKERY.text) == frozenset({"room", "book", "app"})
    assert "系统" in (relevance.outside_of(VENDING.text) or set())
    assert relevance.outside_of("The kiosk is not integrated with the scheduler.") == {"schedul"}
    assert relevance.outside_of("The till has no link to the booking site.") == {"book", "site"}


def test_doing_the_outside_work_gets_no_note_on_what_it_does_not_share() -> None:
    """The bakery's own price list shares bakery, counter, card and stock with the note; the
    note only says the booking app is not involved (before: injected on those words)."""
    prompt = "the bakery counter wants a card listing stock and prices, lay it out as a page"
    assert chosen_ids(prompt, [BAKERY]) == []
    assert chosen_ids("售货机想加几款新饮料，帮我做个价目表贴在售货机旁边", [VENDING]) == []


def test_a_prompt_about_the_system_still_gets_that_note() -> None:
    prompt = "can the room booking app show the bakery counter's orders too?"
    assert chosen_ids(prompt, [BAKERY]) == ["bakery"]


def test_a_rule_not_to_share_something_is_no_note_on_an_outside_thing() -> None:
    """ "Do not share ... with" is said to the reader, and "with anyone" names no system: such
    a rule still answers a prompt about what it rules on."""
    assert relevance.outside_of("Do not share API keys with the contractors.") is None
    assert relevance.outside_of("The user never shares passwords with anyone.") is None
    assert relevance.outside_of("It does not share passwords with anyone.") is None


# --- a person's age against an age limit ----------------------------------------------------

CAMP = _memory(
    "Kids under 8 join the camp free but still need a parent to sign them in; ages 8 to 14 pay "
    "the junior rate, checked against the registration form.",
    id="camp",
)
MEALS = _memory("社区午餐按年龄收费：65–74 岁每餐 6 元，75 岁以上每餐 3 元。", id="meals")


def test_an_age_the_prompt_states_is_a_quantity() -> None:
    assert analyse_prompt("is his 7yo ok on the climbing wall").quantities == (("7yo", "age", 7.0),)
    assert ("10", "age", 10.0) in analyse_prompt("can a 10 year old join alone").quantities
    assert ("9", "age", 9.0) in analyse_prompt("a 9-year-old wants to sign up").quantities
    assert ("77", "age", 77.0) in analyse_prompt("有位 77 岁的老人来吃饭，收多少").quantities


def test_a_note_states_age_limits_with_a_bare_number() -> None:
    assert limits.at_limit((("7yo", "age", 7.0),), CAMP.text) == {"7yo"}
    assert limits.at_limit((("u", "age", 16.0),), "under-16s train on Tuesdays") == {"u"}
    assert limits.at_limit((("u", "age", 15.0),), "junior anglers under 16 only") == {"u"}


def test_a_child_of_an_age_near_the_limit_gets_the_age_note() -> None:
    """The prompt shares one word with the note (need), or none; its age meets the limits
    (before: one shared word, nothing injected)."""
    prompt = "mum at the desk asking whether her 7yo needs anything, he'll just be watching"
    assert chosen_ids(prompt, [CAMP]) == ["camp"]
    assert chosen_ids("有位 77 岁的老人来吃午餐，一餐该收多少钱？", [MEALS]) == ["meals"]


def test_numbers_that_are_no_age_limit_get_nothing() -> None:
    """Years kept, a mass after "over", an age far from every limit."""
    assert limits.at_limit((("u", "age", 7.0),), "logs are kept for 7 years") == set()
    assert (
        limits.at_limit((("u", "age", 50.0),), "anyone over 50 kg needs the big harness") == set()
    )
    assert limits.at_limit((("u", "age", 40.0),), CAMP.text) == set()
    assert chosen_ids("my 40 year old brother wants to help at the camp", [CAMP]) == []


# --- figures over the records are made by a query --------------------------------------------

QUERIES = _memory(
    "The user wants every database query kept as a named SQL file under db/queries, never "
    "built with the query builder.",
    id="queries",
    project=None,
)
ZH_QUERIES = _memory(
    "用户要求：所有查询都写成存储过程，不要在代码里拼查询语句。", id="zh-queries", project=None
)


def test_a_report_per_day_reads_the_rule_on_queries() -> None:
    """ "A report of rentals per week" shares no word with the rule on queries; the rules lookup
    reads the rule's words for it (before: neither)."""
    plan = analyse_prompt("can you add a report of kayak rentals per week this summer")
    assert plan.aggregates == ("report",)
    assert {"queri", "查询"} <= plan.rules_about
    assert chosen_ids(plan, [QUERIES]) == ["queries"]


def test_counting_in_chinese_reads_the_rule_on_queries() -> None:
    plan = analyse_prompt("写个脚本统计一下上周每个门店各卖了多少杯")
    assert "统计" in plan.aggregates
    assert chosen_ids(plan, [ZH_QUERIES]) == ["zh-queries"]
    assert chosen_ids("帮我统计一下上个月各个门店的销量", [ZH_QUERIES]) == ["zh-queries"]


def test_a_chinese_request_object_ends_where_its_purpose_starts() -> None:
    """写个脚本统计… makes a script (before: 少件, the clause's last two characters); a compound
    noun (提交说明) stays whole."""
    assert produced("写个脚本统计一下昨天每个格口各分了多少件") == "脚本"
    assert produced("加个索引提速一下") == "索引"
    assert produced("帮我写个提交说明") == "说明"
    assert produced("写一个脚本把日志清掉") == "脚本"


def test_no_figures_over_records_reads_no_rule_on_queries() -> None:
    """A report that counts nothing, a count made of nothing, a query rule for a prompt making
    no figures, a fact about queries (no rule)."""
    for prompt in ("write a report template for the incident review", "how many kayaks left?"):
        assert getattr(analyse_prompt(prompt), "aggregates", ()) == ()  # (None before)
    assert chosen_ids("write a short welcome email for new kayak renters", [QUERIES]) == []
    fact = _memory("The query builder was upgraded to version 3 in March.", id="fact")
    assert chosen_ids("can you add a report of kayak rentals per week", [fact]) == []


# --- a percentage against a percentage limit -------------------------------------------------

STRENGTH = _memory(
    "blend.py sets the duty band per batch: batches under 5.5% ABV pay the low rate, anything "
    "at 5.5% or above the standard rate.",
    id="strength",
)


def test_a_percentage_near_a_worded_limit_gets_the_limit_note() -> None:
    """这批 5.8% 的啤酒 shares no word with the English note; its value meets the limit (before:
    percentages were no measure, nothing injected)."""
    assert limits.at_limit((("u", "percent", 5.8),), STRENGTH.text) == {"u"}
    assert chosen_ids("这批 5.8% 的啤酒，税按哪档算？", [STRENGTH]) == ["strength"]


def test_a_percentage_stated_or_far_is_no_limit() -> None:
    assert (
        limits.at_limit((("u", "percent", 40.0),), "a voucher worth 40% of a day ticket") == set()
    )
    assert limits.at_limit((("u", "percent", 60.0),), STRENGTH.text) == set()

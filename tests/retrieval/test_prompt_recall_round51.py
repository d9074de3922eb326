"""Prompt recall, round 51 (issue 23, decision 0070, test-blind20): a first time said as never
before meets a rule on a first time; a date put on a quote, a contract or a bill in other
words (which day it is valid until, 到哪天截止) meets the standing rule on how dates are
written. Notes of our own wording, and look-alikes that must get nothing."""

from __future__ import annotations

from collections.abc import Iterable

from support.recall import NOW, chosen_ids
from test_prompt_recall_round46b import _memory

from recallnest.continuity.recall import choose
from recallnest.retrieval import relevance
from recallnest.retrieval.relevance import IdfLookup, analyse_prompt

# --- a first time said as never before ---------------------------------------------------------

CLIMB = _memory(
    "Before anyone's first climbing session, a belay induction is booked the day before; the "
    "session is only confirmed once the induction is marked done.",
    id="climb",
)
DIVE = _memory("首次潜水前必须先做一次泳池体验课，体验课签字后才能约出海。", id="dive")
FIRST_MONDAY = _memory("Lessons must be invoiced on the first Monday of each month.", id="monday")
LESSONS = _memory("Lessons are invoiced on the first lesson of each term.", id="lessons")


def test_never_before_meets_a_rule_on_a_first_time() -> None:
    """The prompt shares the activity and nothing said of a first time (before: 0)."""
    prompt = "a walk-in says he's never been climbing before, can I just put him on the wall now?"
    assert chosen_ids(prompt, [CLIMB]) == ["climb"]
    assert chosen_ids("客人从来没潜过水，能直接约出海吗", [DIVE]) == ["dive"]


def test_the_prompt_says_first_only_when_it_says_never_before() -> None:
    links = analyse_prompt("she has never flown with us before, is the lounge included?").links
    assert any(("first",) in link.others for link in links)
    for prompt in (
        "a walk-in wants to go climbing now, can I just put him on the wall?",
        "we never book walk-ins on the wall, right?",
    ):
        assert not any(("first",) in link.others for link in analyse_prompt(prompt).links)
    assert (
        chosen_ids("a walk-in wants to go climbing now, can I just put him on the wall?", [CLIMB])
        == []
    )


def test_never_before_needs_a_first_time_in_a_standing_rule() -> None:
    """A rule's first Monday is no first time; a fact's first lesson counts as first only for
    a standing rule (a word of the same language)."""
    prompt = "she's never booked a lesson before, what does she pay?"
    assert chosen_ids(prompt, [FIRST_MONDAY]) == []
    assert chosen_ids(prompt, [LESSONS]) == []


# --- a date shown in other words -------------------------------------------------------------

DATES = _memory(
    "The user wants every date shown to customers written as YYYY-MM-DD, never 3/4 or 4 March.",
    id="dates",
    project=None,
)
DATES_ZH = _memory(
    "用户要求所有日期一律写成 YYYY-MM-DD 格式，不写几月几号。", id="dates-zh", project=None
)


def test_a_date_said_otherwise_on_a_quote_meets_the_date_rule() -> None:
    assert chosen_ids("add a line to the quote saying which day it's valid until", [DATES]) == [
        "dates"
    ]
    assert chosen_ids("合同末尾加一句，写明付款截止到哪天", [DATES_ZH]) == ["dates-zh"]


def _rare(unknown: Iterable[str]) -> IdfLookup:
    """Term weights where the words of `unknown` are held by no row (0.0), the rest 1.0."""
    zero = frozenset(unknown)

    def idf(terms: Iterable[str]) -> dict[str, float]:
        return {t: 0.0 if t in zero else 1.0 for t in terms}

    return idf


def test_the_prompts_word_for_the_date_weighs_what_the_rules_does() -> None:
    """有效期 is in no row (a Chinese pair no row holds counts for nothing); the rule's 日期 is,
    and the prompt's word for the date weighs as much (before: the bonus alone, 0.2)."""
    plan = analyse_prompt("报价单上加一行，写清楚这份报价有效期到哪天")
    assert [kind for kind, _ in plan.shown_kinds] == ["date"]
    unknown = {t for _, terms in plan.shown_kinds for t in terms}
    chosen = choose(
        plan,
        [DATES_ZH],
        _rare(unknown),
        excluded=frozenset(),
        session_id="s",
        session_turns=frozenset,
        now=NOW,
        max_tokens=160,
    )
    assert [c.id for c in chosen] == ["dates-zh"]


def test_a_date_said_otherwise_needs_something_shown_and_a_rule_on_dates() -> None:
    # nothing shown to anyone
    assert analyse_prompt("which day is the bin collection?").shown_kinds == ()
    assert chosen_ids("which day is the bin collection?", [DATES]) == []
    # a quote, but no date in it
    assert chosen_ids("add a line to the quote with the deposit", [DATES]) == []
    # quote as a verb is nothing shown
    assert not analyse_prompt("can you quote the failing line of the stack trace").presents
    # a rule that mentions an expiry rules on no date format
    plan = analyse_prompt("add a line to the quote saying when it expires")
    expiry = _memory("Session tokens must expire after 30 minutes of inactivity.", project=None)
    assert relevance._kind_shown(plan, expiry.text) is None

"""Prompt recall, the classes of test-blind10 (issue 23), read after its one measurement."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, project: str | None = None, id: str = "m1") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


def test_a_sentence_opening_with_a_code_keyword_is_prose() -> None:
    """'catch', 'if', 'for', 'let', 'from' open sentences too: a line of words with no code
    punctuation is searched, not skipped as pasted code (test-blind10: the catch report)."""
    for prompt in (
        "catch report says 212 fish last week, the bailiff reckons it was half that",
        "if the nightly deploy fails again what do we roll back to",
        "for the invoice export which currency symbol do we show",
        "let me know which queue the refund worker reads from",
    ):
        plan = analyse_prompt(prompt)
        assert plan.skip is None, prompt
        assert plan.terms


def test_code_opening_with_a_keyword_is_still_code() -> None:
    for line in (
        "import numpy as np",
        "from collections import defaultdict, OrderedDict, Counter, deque",
        "for i in range(10):",
        "return base // 2 if peg >= 25 else base",
        "def peg_price(peg: int, kind: str) -> int:",
    ):
        assert analyse_prompt(line).skip is not None, line


def test_a_keyword_led_question_reaches_its_case() -> None:
    case = _memory(
        "Weekly catch totals came out double because anglers filled in both the paper card "
        "and the web form; the import now dedupes on ticket number plus date."
    )
    prompt = "catch totals doubled again this week, didnt we fix the import dedupe once"
    assert chosen_ids(prompt, [case]) == ["m1"]


BARRIER_TURN = (
    "The barrier's Raspberry Pi lost its clock in last night's power cut and booted on "
    "yesterday's date, so every ticket for today looked not yet valid. I installed chrony so it "
    "syncs at boot."
)


def _turn(text: str, id: str = "t1") -> SearchHit:
    return SearchHit(kind="turn", id=id, text=text, score=1.0, project="p")


def test_a_prompt_saying_it_happened_again_takes_the_past_turn_at_the_memory_bar() -> None:
    """'again', 'last time', 又, 上次 point back at an earlier conversation: its raw turn needs
    no more than a memory would (test-blind10: the barrier after another power cut)."""
    prompt = (
        "the barrier is refusing early holders again after a power cut, "
        "drivers queueing on the lane"
    )
    assert chosen_ids(prompt, [_turn(BARRIER_TURN)]) == ["t1"]


def test_without_again_a_raw_turn_still_needs_the_turns_bar() -> None:
    prompt = "the barrier is refusing early holders after a power cut, drivers queueing on the lane"
    assert chosen_ids(prompt, [_turn(BARRIER_TURN)]) == []


PEGS = (
    "Main lake pegs are numbered 1 to 24 and the small lake pegs 25 to 30; pegs 25-30 are "
    "reserved for junior anglers under 16, and the adult has to book the neighbouring peg."
)


def test_a_number_in_a_range_the_note_states_for_its_noun_is_a_shared_word() -> None:
    """'peg 27' is one of 'pegs 25 to 30': the note says the prompt's number (test-blind10)."""
    assert chosen_ids("can my son fish peg 27 on his own?", [_memory(PEGS)]) == ["m1"]
    rooms = "Rooms 10-14 are on the second floor and have no lift access."
    assert chosen_ids("can a wheelchair user book room 12 for the weekend?", [_memory(rooms)]) == [
        "m1"
    ]


def test_a_number_outside_the_range_or_of_another_noun_is_not() -> None:
    assert chosen_ids("can my son fish peg 31 on his own?", [_memory(PEGS)]) == []
    rooms = "Rooms 10-14 are on the second floor and have no lift access."
    assert (
        chosen_ids("can a wheelchair user book table 12 for the weekend?", [_memory(rooms)]) == []
    )

"""Prompt-time recall dedup (issue 23): never what the session already received."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime

from recallnest.continuity.recall import choose, render
from recallnest.core.marker import CONTEXT_MARKER
from recallnest.core.models import SearchHit
from recallnest.retrieval.relevance import analyse_prompt

NOW = datetime(2026, 12, 1, tzinfo=UTC)
HIT = SearchHit(
    kind="memory", id="m1", text="We deploy the billing service with make ship", score=1.0
)


def flat(terms: Iterable[str]) -> dict[str, float]:
    return dict.fromkeys(terms, 1.0)


def pick(excluded: frozenset[str], hits: list[SearchHit], session: str = "s") -> list[str]:
    plan = analyse_prompt("how do we deploy the billing service")
    chosen = choose(
        plan,
        hits,
        flat,
        excluded=excluded,
        session_id=session,
        session_turns=lambda: frozenset({"t-own"}),
        now=NOW,
        max_tokens=160,
    )
    return [c.id for c in chosen]


def test_a_relevant_memory_is_chosen_and_framed_like_the_resume() -> None:
    plan = analyse_prompt("how do we deploy the billing service")
    chosen = choose(
        plan,
        [HIT],
        flat,
        excluded=frozenset(),
        session_id="s",
        session_turns=frozenset,
        now=NOW,
        max_tokens=160,
    )
    text = render(chosen)
    assert text.startswith(CONTEXT_MARKER) and "make ship" in text


def test_what_the_session_already_received_is_never_sent_again() -> None:
    assert pick(frozenset(), [HIT]) == ["m1"]
    assert pick(frozenset({"m1"}), [HIT]) == []


def test_turns_and_captures_of_the_session_itself_are_skipped() -> None:
    own_turn = replace(HIT, kind="turn", id="t1", session_id="s")
    captured_here = replace(HIT, id="m2", evidence=("t-own",))
    assert pick(frozenset(), [own_turn, captured_here]) == []

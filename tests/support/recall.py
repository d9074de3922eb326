"""Calling the prompt-recall gate (`continuity.recall.choose`) the way most unit tests do: a
flat term weight, one session with no turns of its own, a fixed clock."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from recallnest.continuity.recall import Chosen, choose
from recallnest.core.models import SearchHit
from recallnest.retrieval.relevance import PromptPlan, analyse_prompt

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def flat(terms: Iterable[str]) -> dict[str, float]:
    """Every term weighs the same."""
    return dict.fromkeys(terms, 1.0)


def chose(
    prompt: str | PromptPlan,
    hits: Sequence[SearchHit],
    *,
    excluded: Iterable[str] = (),
    affinity: Mapping[str, float] | None = None,
    max_tokens: int = 160,
) -> list[Chosen]:
    """What the gate injects for `prompt` (a text or an analysed plan) from `hits`."""
    plan = analyse_prompt(prompt) if isinstance(prompt, str) else prompt
    return choose(
        plan,
        hits,
        flat,
        excluded=frozenset(excluded),
        session_id="s",
        session_turns=frozenset,
        now=NOW,
        max_tokens=max_tokens,
        affinity=affinity,
    )


def chosen_ids(
    prompt: str | PromptPlan,
    hits: Sequence[SearchHit],
    *,
    excluded: Iterable[str] = (),
    affinity: Mapping[str, float] | None = None,
    max_tokens: int = 160,
) -> list[str]:
    """The ids of what the gate injects, best first."""
    return [
        c.id
        for c in chose(prompt, hits, excluded=excluded, affinity=affinity, max_tokens=max_tokens)
    ]

"""Prompt-time recall (issue 23, round 38): the gate compares a candidate with every candidate
the search found, those the session already received too; only fresh ones are chosen.

Written from two false injections of a held-out file, on phrasings of our own: a family of
look-alike facts of which the resume had shown some (the rest looked like a small family),
and a note that stood out in meaning only once a closer one, already shown, was left out."""

from __future__ import annotations

from collections.abc import Iterable

from support import recall

from recallnest.continuity.recall import SEMANTIC_MARGIN
from recallnest.core.models import SearchHit


def chosen_ids(
    prompt: str,
    hits: list[SearchHit],
    excluded: Iterable[str] = (),
    affinity: dict[str, float] | None = None,
) -> list[str]:
    return recall.chosen_ids(prompt, hits, excluded=excluded, affinity=affinity, max_tokens=400)


FAMILY_PROMPT = "point the staging cluster at the new mirror registry"
FAMILY = [
    SearchHit(kind="memory", id=f"f{i}", text=f"The {name} pulls from the mirror registry", score=1)
    for i, name in enumerate(
        ("billing worker", "mail relay", "auth proxy", "search api", "report builder")
    )
]


def test_a_family_of_look_alike_facts_stays_out_when_the_resume_showed_some_of_them() -> None:
    """Five facts share the prompt's two generic words alike; the resume showed two. The three
    left are the same family, not three answers (before: 3 close matches read as unambiguous,
    all three injected)."""
    assert chosen_ids(FAMILY_PROMPT, FAMILY) == []
    assert chosen_ids(FAMILY_PROMPT, FAMILY, excluded={"f0", "f1"}) == []


def test_a_small_family_still_answers_and_what_was_shown_is_still_not_resent() -> None:
    assert chosen_ids(FAMILY_PROMPT, FAMILY[:2]) == ["f0", "f1"]
    assert chosen_ids(FAMILY_PROMPT, FAMILY[:2], excluded={"f0"}) == ["f1"]


NEAR_PROMPT = "draft a purchase request for two more label printers"  # no word of the notes
SHOWN = SearchHit(kind="memory", id="shown", text="打印机的驱动装在共享盘", score=1)
RULE = SearchHit(kind="memory", id="rule", text="用户要求金额一律保留两位小数", score=1)
OTHERS = [
    SearchHit(kind="memory", id=f"o{i}", text=f"Unrelated fact number {i}", score=1)
    for i in range(2)
]


def test_a_note_is_not_the_closest_in_meaning_when_one_already_shown_is_closer() -> None:
    """The closest note was in the resume; the second closest stands out only against the
    rest (before: the margin was read without the shown note, and the second was injected
    on meaning alone)."""
    near = {"shown": 0.89, "rule": 0.87, "o0": 0.81, "o1": 0.80}
    hits = [SHOWN, RULE, *OTHERS]
    assert chosen_ids(NEAR_PROMPT, hits, excluded={"shown"}, affinity=near) == []


def test_the_closest_note_still_passes_on_meaning_when_it_is_fresh() -> None:
    margin = SEMANTIC_MARGIN + 0.01
    near = {"shown": 0.80, "rule": 0.81 + margin, "o0": 0.81, "o1": 0.80}
    hits = [SHOWN, RULE, *OTHERS]
    assert chosen_ids(NEAR_PROMPT, hits, excluded={"shown"}, affinity=near) == ["rule"]

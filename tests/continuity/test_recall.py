"""Prompt-time recall dedup (issue 23): never what the session already received."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime

from support.recall import chose, chosen_ids

from recallnest.continuity.recall import MIN_COMPARED, SEMANTIC_MARGIN, choose, render
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
    chosen = chose(plan, [HIT])
    text = render(chosen)
    assert text.startswith(CONTEXT_MARKER) and "make ship" in text


def test_what_the_session_already_received_is_never_sent_again() -> None:
    assert pick(frozenset(), [HIT]) == ["m1"]
    assert pick(frozenset({"m1"}), [HIT]) == []


def test_turns_and_captures_of_the_session_itself_are_skipped() -> None:
    own_turn = replace(HIT, kind="turn", id="t1", session_id="s")
    captured_here = replace(HIT, id="m2", evidence=("t-own",))
    assert pick(frozenset(), [own_turn, captured_here]) == []


def test_the_sessions_turns_are_read_once_however_many_memories_need_them() -> None:
    """Each memory with evidence is checked against the session's turns, a store read: one
    read a prompt, not one a candidate (issue 23)."""
    reads: list[int] = []

    def session_turns() -> frozenset[str]:
        reads.append(1)
        return frozenset({"t-own"})

    hits = [replace(HIT, id=f"m{k}", evidence=(f"t{k}",)) for k in range(4)]
    chosen = choose(
        analyse_prompt("how do we deploy the billing service"),
        [*hits, replace(HIT, id="mine", evidence=("t-own",))],
        flat,
        excluded=frozenset(),
        session_id="s",
        session_turns=session_turns,
        now=NOW,
        max_tokens=160,
    )
    assert reads == [1]
    assert "mine" not in [c.id for c in chosen]


# --------------------------------------------------------------------------- meaning, not words

PR_PROMPT = "write the description for this pull request"  # no word of the convention below
CONVENTION = SearchHit(
    kind="memory", id="conv", text="Commit messages follow Conventional Commits", score=0.5
)
OTHERS = [
    SearchHit(kind="memory", id=f"o{i}", text=f"Unrelated note {i}", score=0.4) for i in range(3)
]


def semantic_pick(affinity: dict[str, float], hits: list[SearchHit] | None = None) -> list[str]:
    return chosen_ids(PR_PROMPT, hits or [CONVENTION, *OTHERS], affinity=affinity)


def test_a_memory_far_closer_in_meaning_than_the_rest_is_chosen_without_shared_words() -> None:
    margin = SEMANTIC_MARGIN + 0.005
    near = {"conv": 0.86 + margin, "o0": 0.86, "o1": 0.85, "o2": 0.84}
    assert semantic_pick({}) == []  # the lexical gate alone refuses it
    assert semantic_pick(near) == ["conv"]


def test_a_small_margin_or_too_few_vectors_or_a_raw_turn_is_not_enough() -> None:
    close = {"conv": 0.86 + SEMANTIC_MARGIN - 0.005, "o0": 0.86, "o1": 0.85, "o2": 0.84}
    assert semantic_pick(close) == []
    assert semantic_pick({"conv": 0.95, "o0": 0.80}) == []  # fewer than MIN_COMPARED
    turn = replace(CONVENTION, kind="turn")
    near = {"conv": 0.95, "o0": 0.86, "o1": 0.85, "o2": 0.84}
    assert semantic_pick(near, [turn, *OTHERS]) == []
    assert MIN_COMPARED == 3


def test_the_one_note_in_the_prompts_language_does_not_stand_out_by_its_language() -> None:
    """e5 ranks the prompt's language first whatever it says: for a Chinese prompt about
    nothing stored, the one Chinese note among English ones tops them by ~0.05 (blind3's
    false injection). Its margin is over the next note in its own language; with two Chinese
    notes, the closer one still stands out when its margin over the other is clear."""
    prompt = "推荐一个好用的终端模拟器"
    rule = SearchHit(
        kind="memory", id="zh", text="提交说明只写一行，不超过七十二个字符。", score=0.5
    )
    english = [
        SearchHit(kind="memory", id=f"e{i}", text=f"The block {i} probe reports hourly", score=0.4)
        for i in range(4)
    ]
    alone = {"zh": 0.85, "e0": 0.80, "e1": 0.80, "e2": 0.79, "e3": 0.79}
    assert chosen_ids(prompt, [rule, *english], affinity=alone) == []
    other = SearchHit(kind="memory", id="zh2", text="洗衣机的状态通过四G模块上报。", score=0.4)
    pair = {**alone, "zh2": 0.85 - SEMANTIC_MARGIN - 0.005}
    assert chosen_ids(prompt, [rule, other, *english], affinity=pair) == ["zh"]


def test_a_rule_about_what_is_made_stands_apart_from_a_family_of_equal_matches() -> None:
    """ "Write a shell script that rotates the nginx logs" matches a dozen "X logs to a
    rotating file" facts alike (ambiguous: none is sent) and one shell-script rule, which is
    judged on its own. Before: the family's ambiguity refused everything."""
    family = [
        SearchHit(kind="memory", id=f"f{i}", text=f"The {name} logs to a rotating file", score=1.0)
        for i, name in enumerate(("billing worker", "mail relay", "auth proxy", "search api"))
    ]
    rule = SearchHit(
        kind="memory",
        id="rule",
        text="Shell 脚本开头必须加 set -euo pipefail，变量一律用双引号包起来。",
        score=0.5,
    )
    assert chosen_ids("Write a shell script that rotates the nginx logs", [*family, rule]) == [
        "rule"
    ]

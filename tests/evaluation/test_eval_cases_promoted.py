"""The promoted-memories measure of the case harness: the questions about memories the user
marked (eval/cases/actions.jsonl) are asked again over memories only, and the marked memory's
rank is reported. It must react to the importance stage's tier floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cases import NOTHING_CAPTURED, homes, minimal_report, subset, write_jsonl

from recallnest.core.config import Settings
from recallnest.evaluation.cases import (
    PROMOTED_DEPTH,
    rank_summary,
    run,
)

SESSIONS = ("s04", "s09")

# Two user statements with the same words in a different order: the same keyword and vector
# scores for any question (the test embedder hashes words), two memories (entity facts,
# importance x confidence 0.375, below the core floor 0.5), different meaning.
TWINS = (
    "the docs site installs with pnpm and the shop frontend with yarn, see package.json",
    "the docs site installs with yarn and the shop frontend with pnpm, see package.json",
)
QUESTION = "which package manager installs the docs site?"


def test_rank_summary() -> None:
    assert rank_summary([1, 2, None, 8, 40]) == {
        "n": 5,
        "ranks": [1, 2, None, 8, 40],
        "mrr": round((1 + 1 / 2 + 1 / 8 + 1 / 40) / 5, 3),
        "top1": 1,
        "top5": 2,
        "top10": 3,
    }
    assert rank_summary([])["mrr"] == 0.0


def test_the_harness_reports_the_promoted_memories(tmp_path: Path, settings: Settings) -> None:
    _, _, picked, marks = subset(tmp_path, SESSIONS, [NOTHING_CAPTURED])
    report = run(tmp_path / "cases", homes(settings))
    json.dumps(report)
    promoted = report["promoted_memories"]
    marked_turns = {a["turn"] for a in marks[:-1]}
    linked = [q["id"] for q in picked if marked_turns & set(q["relevant"])]
    assert linked and len(linked) < len(picked)
    assert [row["id"] for row in promoted["queries"]] == linked
    memories_of = {a["id"]: set(a["memories"]) for a in report["actions"]["applied"]}
    for row in promoted["queries"]:
        assert row["actions"] and row["memories"]
        assert set(row["memories"]) == set().union(*(memories_of[a["id"]] for a in row["actions"]))
        assert row["rank"] is None or 1 <= row["rank"] <= PROMOTED_DEPTH
    overall = promoted["overall"]
    assert overall["n"] == len(linked)
    assert overall["ranks"] == [row["rank"] for row in promoted["queries"]]
    assert overall["top1"] <= overall["top5"] <= overall["top10"] <= overall["n"]
    assert overall["top10"] > 0 and 0 < overall["mrr"] <= 1
    assert sum(m["n"] for m in promoted["by_type"].values()) == len(linked)
    assert promoted["unresolved"] == []  # no picked query points at s04-t15


def _twin_case(root: Path, promote: str) -> Path:
    cases = root / f"promote-{promote}"
    (cases / "corpus").mkdir(parents=True)
    texts = [TWINS[0], "ok, noted", TWINS[1], "ok"]
    turns = [
        {
            "session": "s01",
            "project": "/home/dev/web",
            "agent": "claude",
            "role": "user" if n % 2 else "assistant",
            "text": text,
            "ts": f"2025-05-20T10:0{n}:00Z",
            "id": f"s01-t0{n}",
        }
        for n, text in enumerate(texts, 1)
    ]
    write_jsonl(cases / "corpus/s01.jsonl", turns)
    query = {"id": "q1", "query": QUESTION, "kind": "all", "type": "promoted"}
    write_jsonl(cases / "queries.jsonl", [query | {"relevant": [promote]}])
    write_jsonl(cases / "actions.jsonl", [{"id": "a1", "turn": promote, "tier": "core"}])
    return cases


def test_the_measure_reacts_to_the_tier_floor(tmp_path: Path, settings: Settings) -> None:
    """Two memories equally close to the question, one promoted to core (each in turn): with
    the importance stage the promoted one ranks first whichever it is (MRR 1.0); without it
    their order no longer depends on the tier, so one of the two promotions loses first place
    (MRR 0.75 over the two)."""
    ranks: dict[bool, list[int | None]] = {True: [], False: []}
    for promote in ("s01-t01", "s01-t03"):
        cases = _twin_case(tmp_path, promote)
        for on in (True, False):
            disabled = frozenset() if on else frozenset({"importance"})
            report = run(cases, homes(settings), disabled=disabled)
            assert report["corpus"]["memories_captured"] == 2  # both twins, tier working
            assert [len(a["memories"]) for a in report["actions"]["applied"]] == [1]
            ranks[on] += report["promoted_memories"]["overall"]["ranks"]
    assert ranks[True] == [1, 1]
    assert rank_summary(ranks[True])["mrr"] == 1.0
    assert sorted(r or 0 for r in ranks[False]) == [1, 2]
    assert rank_summary(ranks[False])["mrr"] == 0.75


def test_the_human_report_shows_the_measure(capsys: pytest.CaptureFixture[str]) -> None:
    from recallnest.cli.eval_cases import print_report

    summary = rank_summary([1, None])
    report = minimal_report(
        promoted_memories={
            "depth": PROMOTED_DEPTH,
            "overall": summary,
            "by_type": {"promoted": summary},
            "queries": [{"id": "q113", "rank": 1}, {"id": "q114", "rank": None}],
            "unresolved": ["q119"],
        }
    )
    print_report(report)
    out = capsys.readouterr().out
    assert "promoted memories, memory search" in out
    assert "overall              n 2, MRR 0.5, top 5 1/2, top 10 1/2" in out
    assert "ranks: q113 1, q114 -" in out
    assert "not measured (action unresolved): q119" in out

"""The coding-agent case set is well formed, and its harness runs end to end (hash embedder)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from support.cases import CASES_DIR, homes, subset

from recallnest.core.config import Settings
from recallnest.evaluation.cases import (
    AS_OF,
    load_corpus,
    load_queries,
    problems,
    run,
    write_transcripts,
)

SUBSET = ("s01", "s05")  # one English and one Chinese session


def test_the_set_is_well_formed() -> None:
    turns, queries = load_corpus(CASES_DIR), load_queries(CASES_DIR)
    assert problems(turns, queries) == []
    assert len(turns) >= 300 and len({t["session"] for t in turns}) >= 12
    assert len({t["project"] for t in turns}) >= 4
    assert len(queries) >= 80


def test_every_relevant_key_exists_in_the_corpus() -> None:
    keys = {t["id"] for t in load_corpus(CASES_DIR)}
    for q in load_queries(CASES_DIR):
        assert q["relevant"], q["id"]
        assert set(q["relevant"]) <= keys, q["id"]


def test_problems_are_reported() -> None:
    turns = [{"session": "s", "project": "/p", "agent": "claude", "role": "user", "text": "x"}]
    turns[0] |= {"ts": "2025-01-01T00:00:00Z", "id": "s-t01"}
    queries = [{"id": "q", "query": "x", "kind": "turns", "type": "paraphrase"}]
    queries[0]["relevant"] = ["s-t02"]
    assert problems(turns, queries) == ["query 'q': unknown relevant turn(s) s-t02"]


def test_harness_runs_on_a_subset(tmp_path: Path, settings: Settings) -> None:
    cases, keys, picked, _ = subset(tmp_path, SUBSET)
    assert {q["kind"] for q in picked} >= {"turns", "memories"}
    messages: list[str] = []
    report = run(cases, homes(settings), log=messages.append, cache_dir=tmp_path / "vectors")
    json.dumps(report)
    assert report["embedder"] and messages
    assert report["corpus"]["turns"] == report["corpus"]["turns_stored"] == len(keys)
    overall = report["overall"]
    assert overall["n"] == len(picked)
    assert set(overall) == {"n", "hit@1", "hit@5", "hit@10", "mrr@10"}
    assert 0 <= overall["hit@1"] <= overall["hit@5"] <= overall["hit@10"] <= 100
    assert overall["hit@10"] > 0
    assert set(report["by_lang"]) == {"en", "zh"}
    assert sum(m["n"] for m in report["by_type"].values()) == len(picked)
    assert report["latency_ms"]["queries"] == len(picked)
    assert set(report["ranks"]) == {q["id"] for q in picked}
    for failure in report["failures"]:
        assert {"query", "expected", "got", "rank"} <= set(failure)
        assert len(failure["got"]) <= 3
    assert list((tmp_path / "vectors").glob("*.npz"))
    assert 0 < report["returned"]["mean"] <= 10


def test_transcripts_are_moved_to_the_query_time(tmp_path: Path) -> None:
    turns = [t for t in load_corpus(CASES_DIR) if t["session"] == "s14"]
    shift = datetime(2026, 1, 1, tzinfo=UTC) - AS_OF
    (path,) = write_transcripts(turns, tmp_path, shift)
    first = json.loads(path.read_text("utf-8").splitlines()[0])
    moved = datetime.fromisoformat(first["timestamp"].replace("Z", "+00:00"))
    original = datetime.fromisoformat(turns[0]["ts"].replace("Z", "+00:00"))
    assert moved - original == shift
    assert AS_OF - original < timedelta(days=7)  # the last session is days before AS_OF


def test_every_turn_is_before_the_query_time() -> None:
    for turn in load_corpus(CASES_DIR):
        assert datetime.fromisoformat(turn["ts"].replace("Z", "+00:00")) < AS_OF, turn["id"]

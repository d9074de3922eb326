"""The user-action step of the case harness (eval/cases/actions.jsonl): tiers and pins are set
after ingestion through the operation the CLI sends, on the memories captured from a turn."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import Cli
from support.cases import CASES_DIR, NOTHING_CAPTURED, homes, minimal_report, subset

from recallnest.core.config import Settings
from recallnest.core.errors import RecallnestError
from recallnest.engine import Engine, SearchRequest
from recallnest.evaluation.cases import (
    AS_OF,
    apply_actions,
    load_actions,
    load_corpus,
    load_queries,
    problems,
    run,
    write_transcripts,
)
from recallnest.ingest.pipeline import Source, ingest_file
from recallnest.retrieval.ranking import PROFILES, TIER_FLOOR

SESSIONS = ("s04", "s09")  # English and Chinese; both hold memories the action file marks


def _ingest(engine: Engine, turns: list[dict[str, object]], root: Path) -> None:
    for path in write_transcripts(turns, root, datetime.now(UTC) - AS_OF):
        ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)


def _turns(*sessions: str) -> list[dict[str, object]]:
    return [t for t in load_corpus(CASES_DIR) if t["session"] in sessions]


def test_the_action_file_is_well_formed() -> None:
    turns, queries, actions = (
        load_corpus(CASES_DIR),
        load_queries(CASES_DIR),
        load_actions(CASES_DIR),
    )
    assert actions
    assert problems(turns, queries, actions) == []
    assert any(a.get("tier") == "core" for a in actions)
    # Every query written for a promoted memory points at a turn an action marks.
    marked = {a["turn"] for a in actions}
    promoted = [q for q in queries if q["type"] == "promoted"]
    assert promoted
    for q in promoted:
        assert marked & set(q["relevant"]), q["id"]


def test_no_action_file_means_no_actions(tmp_path: Path) -> None:
    assert load_actions(tmp_path) == []


def test_action_problems_are_reported() -> None:
    turns = [{"session": "s", "project": "/p", "agent": "claude", "role": "user", "text": "x"}]
    turns[0] |= {"ts": "2025-01-01T00:00:00Z", "id": "s-t01"}
    actions = [
        {"id": "a1", "turn": "s-t01", "tier": "core"},
        {"id": "a1", "turn": "s-t02", "pinned": True},
        {"id": "a3", "turn": "s-t01"},
        {"id": "a4", "turn": "s-t01", "tier": "gold", "pinned": "yes"},
        {"turn": "s-t01", "tier": "core"},
    ]
    assert problems(turns, [], actions) == [
        "action id 'a1' is used twice",
        "action 'a1': unknown turn 's-t02'",
        "action 'a3' sets nothing (give tier or pinned)",
        "action 'a4' has tier 'gold'",
        "action 'a4' has pinned 'yes' (true or false)",
        "action None lacks id",
    ]


def test_actions_mark_the_captured_memory_as_the_cli_would(
    tmp_path: Path, settings: Settings, cli: Cli
) -> None:
    engine = Engine.open(settings)
    try:
        _ingest(engine, _turns(*SESSIONS), tmp_path / "claude")
        actions = [
            {"id": "a1", "turn": "s04-t13", "tier": "core"},  # "we use pnpm here, never npm"
            {"id": "a2", "turn": "s09-t15", "pinned": True},  # 提交前必须清空输出
            {"id": "a3", "turn": "s04-t15", "tier": "core"},  # "cool": nothing captured
            {"id": "a4", "turn": "s09-t03", "tier": "core", "pinned": True},
        ]
        result = apply_actions(engine, actions)
        assert result["unresolved"] == ["a3"]
        (core, pinned, both) = result["applied"]
        assert (core["id"], pinned["id"], both["id"]) == ("a1", "a2", "a4")
        for marked in (core, pinned, both):
            assert marked["memories"] and marked["changed"] == len(marked["memories"])
        ids = core["memories"] + pinned["memories"] + both["memories"]
        assert len(set(ids)) == len(ids)
        stored = {m.id: m for m in engine.store.memories(ids)}
        assert {stored[i].tier for i in core["memories"]} == {"core"}
        assert not any(stored[i].pinned for i in core["memories"])
        assert all(stored[i].pinned for i in pinned["memories"])
        assert {stored[i].tier for i in pinned["memories"]} == {"working"}  # pin only
        assert all(stored[i].pinned and stored[i].tier == "core" for i in both["memories"])
        # Applying again changes nothing: the marks are already there.
        again = apply_actions(engine, actions)
        assert [a["changed"] for a in again["applied"]] == [0, 0, 0]

        # Retrieval sees the tier at once: the core memory's importance part is the core
        # floor (its captured importance x confidence is below it).
        (mem_id,) = core["memories"]
        weight = stored[mem_id].importance * stored[mem_id].confidence
        assert weight < TIER_FLOOR["core"] * 0.5
        hits = engine.search(SearchRequest("pnpm npm yarn", kind="memories", explain=True))
        hit = next(h for h in hits if h.id == mem_id)
        expected = PROFILES["default"].importance * TIER_FLOOR["core"] * 0.5
        assert hit.explain.parts["importance"] == pytest.approx(expected)
    finally:
        engine.close()

    # The marks are in the store, where the CLI reads them.
    found = json.loads(cli(["memories", "find", "--tier", "core", "--json"]).output)
    assert {m["id"] for m in found} == set(core["memories"] + both["memories"])
    found = json.loads(cli(["memories", "find", "--pinned", "--json"]).output)
    assert {m["id"] for m in found} == set(pinned["memories"] + both["memories"])


def test_the_harness_applies_the_action_file(tmp_path: Path, settings: Settings) -> None:
    cases, _, picked, marks = subset(tmp_path, SESSIONS, [NOTHING_CAPTURED])
    assert picked and marks[:-1]
    messages: list[str] = []
    report = run(cases, homes(settings), log=messages.append)
    json.dumps(report)
    applied = report["actions"]
    assert [a["id"] for a in applied["applied"]] == [a["id"] for a in marks[:-1]]
    assert all(a["memories"] and a["changed"] for a in applied["applied"])
    assert applied["unresolved"] == ["nothing-captured"]
    assert any("nothing-captured" in m for m in messages)
    assert applied["embedded_after"] >= 0
    assert report["overall"]["n"] == len(picked)


def test_an_action_on_an_unknown_turn_stops_the_run(tmp_path: Path, settings: Settings) -> None:
    cases = tmp_path / "cases"
    (cases / "corpus").mkdir(parents=True)
    shutil.copy(CASES_DIR / "corpus" / "s04.jsonl", cases / "corpus")
    (cases / "queries.jsonl").write_text("", "utf-8")
    (cases / "actions.jsonl").write_text('{"id": "a", "turn": "s99-t01", "tier": "core"}\n')
    with pytest.raises(RecallnestError, match="unknown turn 's99-t01'"):
        run(cases, homes(settings))


def test_the_human_report_names_the_actions(capsys: pytest.CaptureFixture[str]) -> None:
    from recallnest.cli.eval_cases import print_report

    report = minimal_report(actions={"applied": [{"id": "a1"}, {"id": "a2"}], "unresolved": ["a3"]})
    print_report(report)
    assert "user actions: 2 applied, unresolved a3" in capsys.readouterr().out
    print_report(report | {"actions": {"applied": [], "unresolved": []}})
    assert "user actions" not in capsys.readouterr().out

"""End to end: a recorded session goes through ingestion and capture and yields exactly the
expected memories; a correction supersedes the fact it corrects; ingesting twice changes
nothing (issue 4 acceptance)."""

from __future__ import annotations

import json
from pathlib import Path

from support.paths import FIXTURES

from recallnest.core.config import Settings
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.server.control import backfill

SESSIONS = FIXTURES / "sessions"
EXPECTED = [
    # (category, scope, status, rule, text)
    (
        "cases",
        "/work/shop",
        "active",
        "case.error_then_fix",
        "The tests failed with ModuleNotFoundError: No module named 'yaml'. I fixed it by adding "
        "pyyaml to the dev dependencies, and the suite passes now.",
    ),
    ("entities", "/work/shop", "active", "correction.entity.fact", "The staging port is 8443."),
    (
        "entities",
        "/work/shop",
        "superseded",
        "entity.fact",
        "The staging server listens on port 8080.",
    ),
    (
        "preferences",
        "global",
        "active",
        "preference.always_never",
        "I always use uv instead of pip for Python projects.",
    ),
]


def _settings(tmp: Path) -> Settings:
    return Settings.load(
        flags={"home": str(tmp / "rn"), "embedder": "hash"}, env={"HOME": str(tmp / "user")}
    )


def _memories(settings: Settings) -> list[dict]:
    engine = Engine.open(settings)
    try:
        return jsonable(engine.export())
    finally:
        engine.close()


def test_session_yields_exactly_the_expected_memories(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    backfill(settings, "claude", [str(SESSIONS)], None)
    rows = _memories(settings)
    got = sorted((m["category"], m["scope"], m["status"], m["rule"], m["text"]) for m in rows)
    assert got == sorted(EXPECTED)
    by_text = {m["text"]: m for m in rows}
    old, new = by_text[EXPECTED[2][4]], by_text[EXPECTED[1][4]]
    assert old["superseded_by"] == new["id"]
    assert new["confidence"] > old["confidence"]
    assert all(m["evidence"] for m in rows)


def test_ingesting_the_same_session_twice_changes_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    backfill(settings, "claude", [str(SESSIONS)], None)
    first = json.dumps(_memories(settings), sort_keys=True)
    again = backfill(settings, "claude", [str(SESSIONS)], None).backfill
    assert again.new_turns == 0 and again.memories == 0
    assert json.dumps(_memories(settings), sort_keys=True) == first


def test_reingesting_from_scratch_gives_the_same_ids(tmp_path: Path) -> None:
    a, b = _settings(tmp_path / "a"), _settings(tmp_path / "b")
    backfill(a, "claude", [str(SESSIONS)], None)
    backfill(b, "claude", [str(SESSIONS)], None)
    assert sorted(m["id"] for m in _memories(a)) == sorted(m["id"] for m in _memories(b))

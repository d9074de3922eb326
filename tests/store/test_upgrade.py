"""Upgrades: a database written by an earlier release opens with the current code, its pending
migrations apply, and its rows survive (tests/fixtures/db/README.md: one fixture per schema
version)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from support.paths import TESTS

from recallnest.core.config import Settings
from recallnest.core.paths import db_path, ensure_home
from recallnest.engine import Engine, SearchRequest
from recallnest.store import Store
from recallnest.store.migrations import MIGRATIONS

FIXTURES = TESTS / "fixtures" / "db"
SESSION = "5b0c7c2e-0000-4000-8000-00000000a001"
TURNS = [
    "Why does the zebrafish migration fail on staging?",
    "Let me run the migration with verbose logging.",
    "Decision: we pin alembic to 1.13 until the zebrafish fix lands.",
    "Pinned alembic to 1.13 in pyproject.",
]
MEMORIES = {
    "05001e0a-c5ba-588c-aa4a-97c8d2ae608c": "I prefer tabs over spaces in Python files",
    "e2358af7-4c3e-5331-adc2-0178c7889d38": "The staging database listens on port 6543",
}


def fixtures() -> list[Path]:
    return sorted(FIXTURES.glob("schema-v*.duckdb.gz"))


def unpack(fixture: Path, target: Path) -> Path:
    """A private copy of the fixture (never open the committed file itself)."""
    with gzip.open(fixture, "rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


def version_of(fixture: Path) -> int:
    return int(fixture.name.removeprefix("schema-v").split(".")[0])


def test_there_is_a_fixture_for_schema_v1() -> None:
    assert [version_of(f) for f in fixtures()][:1] == [1]


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda p: p.name)
def test_fixture_is_the_schema_version_it_is_named_after(fixture: Path, tmp_path: Path) -> None:
    store = Store(unpack(fixture, tmp_path / "old.duckdb"), read_only=True)  # no migration
    try:
        applied = store.applied_migrations()
    finally:
        store.close()
    assert applied == [m.__name__ for m in MIGRATIONS[: version_of(fixture)]]


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda p: p.name)
def test_old_database_migrates_and_keeps_its_rows(fixture: Path, settings: Settings) -> None:
    unpack(fixture, db_path(ensure_home(settings.home)))
    engine = Engine.open(settings)
    try:
        store = engine.store
        assert store.applied_migrations() == sorted(m.__name__ for m in MIGRATIONS)
        assert [t.text for t in store.session_turns(SESSION)] == TURNS
        memories = {m.id: m.text for m in store.memories(list(MEMORIES))}
        assert memories == MEMORIES
        uses = store.session_tool_uses(SESSION)
        assert [(u.name, u.command) for u in uses] == [("Bash", "alembic upgrade head --verbose")]
        assert len(store.checkpoints(session_id=SESSION)) == 1
        cursor = next(iter(store.cursors().values()))
        assert cursor.agent == "claude" and cursor.byte_offset > 0
        # The upgraded store is fully usable: search (keyword index rebuilt from the old
        # postings) and a new write.
        hits = engine.search(SearchRequest(query="zebrafish migration", kind="turns"))
        assert hits and hits[0].session_id == SESSION
        engine.remember("Deploys go out on Tuesdays after the upgrade")
        found = engine.search(SearchRequest(query="port 6543", kind="memories"))
        assert found[0].id == "e2358af7-4c3e-5331-adc2-0178c7889d38"
    finally:
        engine.close()
    reopened = Store(db_path(settings.home), read_only=True)
    try:
        assert reopened.counts()["memories"] == 5  # four from v1 plus the new one
    finally:
        reopened.close()


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda p: p.name)
def test_doctor_reads_an_old_database_and_names_its_pending_migrations(
    fixture: Path, settings: Settings
) -> None:
    from recallnest.integrations.doctor import _database

    unpack(fixture, db_path(ensure_home(settings.home)))
    ok, message = _database(settings)  # read-only: nothing is migrated
    pending = [m.__name__ for m in MIGRATIONS[version_of(fixture) :]]
    if pending:
        assert not ok and "schema out of date" in message, message
        assert all(name in message for name in pending), message
    else:
        assert ok, message

"""The DuckDB store: schema and migrations, the batched write path, vectors, permissions and
the single-writer rule."""

from __future__ import annotations

import select
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import numpy as np
import pytest

from recallnest.core.config import Settings
from recallnest.core.errors import MigrationError, StoreLockedError
from recallnest.core.models import Memory, Turn
from recallnest.engine import Engine
from recallnest.store import Batch, Cursor, Store, loading
from recallnest.store import base as store_base
from recallnest.store import write as store_write
from recallnest.store.migrations import MIGRATIONS

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
CHILD_READY_SECONDS = 120.0  # bound on the child's startup (import duckdb + open)

EXPECTED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "_migrations": [("name", "VARCHAR"), ("applied_at", "TIMESTAMP")],
    "turns": [
        ("id", "VARCHAR"),
        ("doc", "BIGINT"),
        ("agent", "VARCHAR"),
        ("session_id", "VARCHAR"),
        ("parent_session_id", "VARCHAR"),
        ("project", "VARCHAR"),
        ("role", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("text", "VARCHAR"),
        ("ts", "TIMESTAMP"),
        ("path", "VARCHAR"),
        ("record_id", "VARCHAR"),
        ("byte_offset", "BIGINT"),
        ("cwd", "VARCHAR"),
        ("model", "VARCHAR"),
        ("git_branch", "VARCHAR"),
        ("length", "INTEGER"),
        ("ingested_at", "TIMESTAMP"),
    ],
    "memories": [
        ("id", "VARCHAR"),
        ("doc", "BIGINT"),
        ("scope", "VARCHAR"),
        ("category", "VARCHAR"),
        ("text", "VARCHAR"),
        ("importance", "DOUBLE"),
        ("confidence", "DOUBLE"),
        ("tier", "VARCHAR"),
        ("status", "VARCHAR"),
        ("evidence", "VARCHAR[]"),
        ("created_at", "TIMESTAMP"),
        ("updated_at", "TIMESTAMP"),
        ("last_accessed_at", "TIMESTAMP"),
        ("access_count", "INTEGER"),
        ("source", "VARCHAR"),
        ("rule", "VARCHAR"),
        ("superseded_by", "VARCHAR"),
        ("subject", "VARCHAR"),
        ("pinned", "BOOLEAN"),
        ("valid_until", "TIMESTAMP"),
        ("length", "INTEGER"),
    ],
    "postings": [("doc", "BIGINT"), ("tid", "INTEGER"), ("tf", "INTEGER")],
    "terms": [("tid", "INTEGER"), ("term", "VARCHAR")],
    "vectors": [("doc", "BIGINT"), ("model", "VARCHAR"), ("vec", "BLOB")],
    "embedding_models": [
        ("model", "VARCHAR"),
        ("dimensions", "INTEGER"),
        ("registered_at", "TIMESTAMP"),
    ],
    "cursors": [
        ("path", "VARCHAR"),
        ("agent", "VARCHAR"),
        ("byte_offset", "BIGINT"),
        ("inode", "BIGINT"),
        ("fingerprint", "VARCHAR"),
        ("parser_state", "VARCHAR"),
        ("skipped", "BIGINT"),
        ("updated_at", "TIMESTAMP"),
    ],
    "tool_uses": [
        ("id", "VARCHAR"),
        ("agent", "VARCHAR"),
        ("session_id", "VARCHAR"),
        ("name", "VARCHAR"),
        ("ts", "TIMESTAMP"),
        ("files", "VARCHAR[]"),
        ("command", "VARCHAR"),
        ("cwd", "VARCHAR"),
    ],
    "checkpoints": [
        ("id", "VARCHAR"),
        ("session_id", "VARCHAR"),
        ("agent", "VARCHAR"),
        ("project", "VARCHAR"),
        ("created_at", "TIMESTAMP"),
        ("reason", "VARCHAR"),
        ("body", "VARCHAR"),
    ],
    # m002_create_lifecycle
    "memory_events": [
        ("happened_at", "TIMESTAMP"),
        ("kind", "VARCHAR"),
        ("memory_id", "VARCHAR"),
        ("other_id", "VARCHAR"),
        ("undo_id", "BIGINT"),
    ],
    "undo_log": [
        ("id", "BIGINT"),
        ("kind", "VARCHAR"),
        ("created_at", "TIMESTAMP"),
        ("memory_ids", "VARCHAR[]"),
        ("before_rows", "VARCHAR"),
        ("after_rows", "VARCHAR"),
        ("summary", "VARCHAR"),
        ("undone_at", "TIMESTAMP"),
    ],
    "activity_days": [
        ("day", "DATE"),
        ("project", "VARCHAR"),
    ],
    "forget_log": [
        ("id", "BIGINT"),
        ("forgotten_at", "TIMESTAMP"),
        ("selector", "VARCHAR"),
        ("memory_ids", "VARCHAR[]"),
        ("memories", "INTEGER"),
        ("turns", "INTEGER"),
        ("tool_uses", "INTEGER"),
        ("checkpoints", "INTEGER"),
        ("purged", "BOOLEAN"),
    ],
    "conflicts": [
        ("id", "BIGINT"),
        ("a_id", "VARCHAR"),
        ("b_id", "VARCHAR"),
        ("scope", "VARCHAR"),
        ("category", "VARCHAR"),
        ("reason", "VARCHAR"),
        ("similarity", "DOUBLE"),
        ("status", "VARCHAR"),
        ("created_at", "TIMESTAMP"),
        ("resolved_at", "TIMESTAMP"),
        ("resolution", "VARCHAR"),
        ("undo_id", "BIGINT"),
    ],
    # m003_create_capture_queue
    "capture_queue": [
        ("flush", "BIGINT"),
        ("pos", "INTEGER"),
        ("turn_id", "VARCHAR"),
    ],
    # m005_session_captures
    "session_captures": [
        ("session_id", "VARCHAR"),
        ("captured", "INTEGER"),
    ],
    "sync_registers": [("memory_id", "VARCHAR"), ("state", "VARCHAR")],
    "sync_shadow": [("memory_id", "VARCHAR"), ("digest", "VARCHAR"), ("fields", "VARCHAR")],
    "sync_log": [
        ("remote", "VARCHAR"),
        ("bucket", "INTEGER"),
        ("memory_id", "VARCHAR"),
        ("stamp", "VARCHAR"),
        ("event", "VARCHAR"),
        ("line", "VARCHAR"),
    ],
    "sync_cursors": [("remote", "VARCHAR"), ("path", "VARCHAR"), ("version", "VARCHAR")],
    "sync_meta": [("remote", "VARCHAR"), ("key", "VARCHAR"), ("value", "VARCHAR")],
    "memory_id_map": [("old_id", "VARCHAR"), ("new_id", "VARCHAR"), ("mapped_at", "TIMESTAMP")],
    "project_ids": [("project", "VARCHAR"), ("basis", "VARCHAR"), ("computed_at", "TIMESTAMP")],
    "store_meta": [("key", "VARCHAR"), ("value", "VARCHAR")],
}


# ---- helpers --------------------------------------------------------------------------------


def turn(record_id: str, text: str, ts: datetime | None = T0, **kw: object) -> Turn:
    fields: dict[str, object] = {
        "agent": "claude",
        "session_id": "s1",
        "role": "user",
        "text": text,
        "timestamp": ts,
        "path": "/t/s1.jsonl",
        "record_id": record_id,
        "offset": 0,
        "project": "/repo",
    }
    fields.update(kw)
    return Turn(**fields)  # type: ignore[arg-type]


def memory(mem_id: str, text: str, updated: datetime = T0, **kw: object) -> Memory:
    return Memory(
        id=mem_id,
        scope="global",
        category="entities",
        text=text,
        created_at=T0,
        updated_at=updated,
        **kw,  # type: ignore[arg-type]
    )


def sql(s: Store, query: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    return s._cur().execute(query, params or []).fetchall()


def vector_counts(s: Store) -> dict[object, object]:
    return dict(sql(s, "SELECT model, count(*) FROM vectors GROUP BY model"))


def doc_of(s: Store, table: str, row_id: str) -> int:
    rows = sql(s, f"SELECT doc FROM {table} WHERE id = ?", [row_id])
    assert len(rows) == 1
    return int(rows[0][0])  # type: ignore[call-overload]


def postings_of(s: Store, doc: int) -> dict[str, int]:
    return {
        str(t): int(tf)  # type: ignore[call-overload]
        for t, tf in sql(
            s, "SELECT term, tf FROM postings JOIN terms USING (tid) WHERE doc = ?", [doc]
        )
    }


def columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    return {str(r[0]) for r in rows}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "rn.duckdb"


# ---- schema and migrations ------------------------------------------------------------------


def test_migrate_blank(db: Path) -> None:
    s = Store(db)
    try:
        con = s._cur()
        assert tables(con) == set(EXPECTED_COLUMNS)
        for table, expected in EXPECTED_COLUMNS.items():
            assert columns(con, table) == expected, table
        seqs = {
            r[0] for r in con.execute("SELECT sequence_name FROM duckdb_sequences()").fetchall()
        }
        assert seqs == {"doc_seq", "lifecycle_seq", "capture_flush_seq"}
        assert s.applied_migrations() == sorted(m.__name__ for m in MIGRATIONS)
    finally:
        s.close()


def test_reopen_applies_nothing_twice(db: Path) -> None:
    s = Store(db)
    first = sql(s, "SELECT name, applied_at FROM _migrations ORDER BY name")
    s.close()
    s = Store(db)
    try:
        assert sql(s, "SELECT name, applied_at FROM _migrations ORDER BY name") == first
        assert len(first) == len(MIGRATIONS)
    finally:
        s.close()


def test_upgrade_applies_only_the_missing_migrations(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An "older release" knew every migration but the newest.
    older = MIGRATIONS[:-1]
    monkeypatch.setattr(store_base, "MIGRATIONS", older)
    s = Store(db)
    before = sql(s, "SELECT name, applied_at FROM _migrations ORDER BY name")
    assert [r[0] for r in before] == sorted(m.__name__ for m in older)
    s.close()

    monkeypatch.setattr(store_base, "MIGRATIONS", MIGRATIONS)
    s = Store(db)
    try:
        assert s.applied_migrations() == sorted(m.__name__ for m in MIGRATIONS)
        after = sql(s, "SELECT name, applied_at FROM _migrations ORDER BY name")
        assert [r for r in after if r[0] in {m.__name__ for m in older}] == before
        assert tables(s._cur()) == set(EXPECTED_COLUMNS)
    finally:
        s.close()


def test_empty_migrations_table_without_tables_gets_migrated(db: Path) -> None:
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE _migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP)")
    con.close()
    s = Store(db)
    try:
        assert s.applied_migrations() == sorted(m.__name__ for m in MIGRATIONS)
        assert tables(s._cur()) == set(EXPECTED_COLUMNS)
    finally:
        s.close()


def test_failed_migration_rolls_back_and_is_not_recorded(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def m999_break_things(con: duckdb.DuckDBPyConnection) -> None:
        con.execute("CREATE TABLE half_done (x INTEGER)")
        con.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(store_base, "MIGRATIONS", (*MIGRATIONS, m999_break_things))
    with pytest.raises(MigrationError, match="m999_break_things"):
        Store(db)
    monkeypatch.setattr(store_base, "MIGRATIONS", MIGRATIONS)
    s = Store(db)
    try:
        assert "half_done" not in tables(s._cur())
        assert "m999_break_things" not in s.applied_migrations()
    finally:
        s.close()


# ---- memories -------------------------------------------------------------------------------


def test_memory_upsert_same_text_keeps_doc_and_postings(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "pnpm not npm")]))
    doc = doc_of(store, "memories", "m1")
    postings = postings_of(store, doc)
    result = store.write(Batch(memories=[memory("m1", "pnpm not npm", importance=0.9)]))
    assert sql(store, "SELECT count(*) FROM memories") == [(1,)]
    assert doc_of(store, "memories", "m1") == doc
    assert postings_of(store, doc) == postings
    assert result.removed == []
    # The row is re-announced to the index with its (possibly new) facets.
    assert [(d.doc, d.id) for d in result.added] == [(doc, "m1")]
    assert store.memories(["m1"])[0].importance == 0.9


def test_memory_upsert_new_text_replaces_postings(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "pnpm package manager")]))
    old = doc_of(store, "memories", "m1")
    result = store.write(Batch(memories=[memory("m1", "postgres database")]))
    new = doc_of(store, "memories", "m1")
    assert new != old
    assert postings_of(store, old) == {}
    assert set(postings_of(store, new)) == {"postgr", "databas"}
    assert result.removed == [old]
    assert sql(store, "SELECT count(*) FROM memories") == [(1,)]


def test_memory_same_id_twice_in_one_batch_is_one_row(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "first text"), memory("m1", "second text")]))
    assert [m.text for m in store.memories(["m1"])] == ["second text"]
    assert sql(store, "SELECT count(*) FROM memories") == [(1,)]
    assert "first" not in postings_of(store, doc_of(store, "memories", "m1"))


def test_memory_round_trips_every_field(store: Store) -> None:
    m = Memory(
        id="m1",
        scope="/repo",
        category="preferences",
        text="tabs, not spaces",
        importance=0.8,
        confidence=0.6,
        tier="core",
        status="superseded",
        evidence=("turn-a", "turn-b"),
        created_at=T0,
        updated_at=T0 + timedelta(hours=1),
        last_accessed_at=T0 + timedelta(hours=2),
        access_count=3,
        source="capture",
        rule="prefer",
        superseded_by="m2",
        subject="indent",
        pinned=True,
        valid_until=T0 + timedelta(days=30),
    )
    store.write(Batch(memories=[m]))
    assert store.memories(["m1"]) == [m]


def test_memories_keeps_asked_order_and_skips_unknown(store: Store) -> None:
    store.write(Batch(memories=[memory("a", "alpha"), memory("b", "beta")]))
    assert [m.id for m in store.memories(["b", "zzz", "a"])] == ["b", "a"]


def test_delete_memory_drops_postings_and_vectors(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "alpha beta")]))
    doc = doc_of(store, "memories", "m1")
    store.add_vectors("hash", [doc], np.ones((1, 4), dtype=np.float32))
    result = store.write(Batch(deleted_memory_ids=["m1", "unknown"]))
    assert result.removed == [doc]
    assert store.memories(["m1"]) == []
    assert postings_of(store, doc) == {}
    assert vector_counts(store) == {}


def term_names(s: Store) -> set[str]:
    return {str(r[0]) for r in sql(s, "SELECT term FROM terms")}


def test_a_term_keeps_one_id_across_batches(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "alpha beta")]))
    store.write(Batch(memories=[memory("m2", "beta gamma")]))
    assert sql(store, "SELECT count(*), count(DISTINCT term) FROM terms") == [(3, 3)]
    assert postings_of(store, doc_of(store, "memories", "m2")) == {"beta": 1, "gamma": 1}


def test_deleting_rows_deletes_the_terms_only_they_held(store: Store) -> None:
    store.write(
        Batch(
            memories=[memory("m1", "zebrafish ledger"), memory("m2", "ledger audit")],
            turns=[turn("t1", "quokka ledger")],
        )
    )
    store.write(Batch(deleted_memory_ids=["m1"], retracted_turn_ids=[turn("t1", "").id]))
    assert term_names(store) == {"ledger", "audit"}
    terms, _, _, _ = store.postings()
    assert {t for t in terms if t} == {"ledger", "audit"}


def test_replaced_text_leaves_its_old_terms_to_compaction(store: Store) -> None:
    store.write(Batch(memories=[memory("m1", "zebrafish ledger")]))
    store.write(Batch(memories=[memory("m1", "quokka ledger")]))
    assert "zebrafish" in term_names(store)  # no posting holds it: unused, not searchable
    assert "zebrafish" not in postings_of(store, doc_of(store, "memories", "m1"))
    store.compact()
    assert term_names(store) == {"quokka", "ledger"}
    store.write(Batch(memories=[memory("m2", "zebrafish harbour")]))  # ids stay unique
    assert postings_of(store, doc_of(store, "memories", "m2")) == {"zebrafish": 1, "harbour": 1}
    assert sql(store, "SELECT count(*) = count(DISTINCT tid) FROM terms") == [(True,)]


@pytest.mark.parametrize("top", [10, 70_000, 2**31 - 1])
def test_postings_group_by_term_id_in_write_order(top: int) -> None:
    from recallnest.store.postings import _grouping_order

    keys = np.random.default_rng(top).integers(0, top + 1, 5_000)
    order = _grouping_order(keys)
    assert order.tolist() == np.argsort(keys, kind="stable").tolist()


# ---- turns ----------------------------------------------------------------------------------


def test_turn_upsert_by_identity_with_merged_text(store: Store) -> None:
    first = store.write(Batch(turns=[turn("r1", "deploy the staging")]))
    assert first.new_turns == 1
    old = doc_of(store, "turns", turn("r1", "").id)
    merged = store.write(Batch(turns=[turn("r1", "deploy the staging server on port 8080")]))
    assert merged.new_turns == 0
    assert sql(store, "SELECT count(*) FROM turns") == [(1,)]
    new = doc_of(store, "turns", turn("r1", "").id)
    assert new != old
    assert merged.removed == [old]
    assert postings_of(store, old) == {}
    assert {"server", "port", "8080"} <= set(postings_of(store, new))
    row = store.turns([turn("r1", "").id])[0]
    assert row.text == "deploy the staging server on port 8080"
    assert row.timestamp == T0


def test_turn_repeated_in_one_batch_keeps_the_last_text(store: Store) -> None:
    result = store.write(Batch(turns=[turn("r1", "part one"), turn("r1", "part one part two")]))
    assert result.new_turns == 1
    assert [t.text for t in store.turns([turn("r1", "").id])] == ["part one part two"]


def test_rewriting_an_unchanged_turn_keeps_its_length(store: Store) -> None:
    t = turn("r1", "the staging server listens on port 8080")
    store.write(Batch(turns=[t]))
    before = sql(store, "SELECT doc, length FROM turns")
    result = store.write(Batch(turns=[t]))
    assert result.added == [] and result.removed == [] and result.new_turns == 0
    assert sql(store, "SELECT doc, length FROM turns") == before
    assert before[0][1] == 5  # "the" and "on" are stop words


def test_rewriting_a_mix_of_changed_and_unchanged_turns_keeps_lengths(store: Store) -> None:
    a, b = turn("a", "alpha beta gamma"), turn("b", "delta epsilon")
    store.write(Batch(turns=[a, b]))
    store.write(Batch(turns=[a, turn("b", "delta epsilon zeta eta")]))
    lengths = dict(sql(store, "SELECT record_id, length FROM turns"))
    assert lengths == {"a": 3, "b": 4}


def test_turn_optional_fields_round_trip(store: Store) -> None:
    t = turn(
        "r1",
        "hello",
        ts=None,
        cwd="/repo/sub",
        kind="summary",
        model="opus",
        git_branch="main",
        parent_session_id="s0",
        project=None,
    )
    store.write(Batch(turns=[t]))
    assert store.turns([t.id]) == [t]


def test_retraction_deletes_turns_postings_and_vectors(store: Store) -> None:
    keep, gone = turn("keep", "kept words"), turn("gone", "withdrawn words")
    store.write(Batch(turns=[keep, gone]))
    gone_doc, keep_doc = doc_of(store, "turns", gone.id), doc_of(store, "turns", keep.id)
    store.add_vectors("hash", [gone_doc, keep_doc], np.ones((2, 4), dtype=np.float32))
    result = store.write(Batch(retracted_turn_ids=[gone.id]))
    assert result.removed == [gone_doc]
    assert [t.id for t in store.turns([keep.id, gone.id])] == [keep.id]
    assert postings_of(store, gone_doc) == {}
    assert postings_of(store, keep_doc) != {}
    assert [r[0] for r in sql(store, "SELECT doc FROM vectors")] == [keep_doc]


# ---- cursors and atomicity ------------------------------------------------------------------


def test_cursor_round_trip_and_replace(store: Store) -> None:
    assert store.cursor("/t/a.jsonl") is None
    c = Cursor("/t/a.jsonl", "claude", 100, inode=7, fingerprint="f", parser_state="{}")
    store.write(Batch(cursors=[c]))
    assert store.cursor("/t/a.jsonl") == c
    c2 = Cursor("/t/a.jsonl", "claude", 250, inode=7, fingerprint="f", skipped=2)
    store.write(Batch(cursors=[c, c2]))
    assert store.cursor("/t/a.jsonl") == c2
    assert store.counts()["files"] == 1


def test_failed_batch_writes_nothing_and_keeps_the_cursor(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    c0 = Cursor("/t/a.jsonl", "claude", 10)
    store.write(Batch(turns=[turn("r0", "before")], cursors=[c0]))
    counts = store.counts()
    postings = sql(store, "SELECT count(*) FROM postings")

    def boom(*args: object) -> None:
        raise RuntimeError("disk on fire")

    # Turns, postings and memories are written before the tool uses: fail there.
    monkeypatch.setattr(store_write, "_write_tool_uses", boom)
    batch = Batch(
        turns=[turn("r1", "lost turn"), turn("r0", "changed before text")],
        memories=[memory("m1", "lost memory")],
        cursors=[Cursor("/t/a.jsonl", "claude", 999)],
    )
    with pytest.raises(RuntimeError, match="disk on fire"):
        store.write(batch)
    assert store.counts() == counts
    assert sql(store, "SELECT count(*) FROM postings") == postings
    assert store.cursor("/t/a.jsonl") == c0
    assert [t.text for t in store.turns([turn("r0", "").id])] == ["before"]

    # The store is still usable after the rollback.
    monkeypatch.undo()
    store.write(batch)
    assert store.cursor("/t/a.jsonl") == Cursor("/t/a.jsonl", "claude", 999)
    assert store.counts()["turns"] == 2


def test_tool_uses_are_upserted(store: Store) -> None:
    from recallnest.core.models import ToolUse

    use = ToolUse("claude", "s1", "Edit", T0, "r1", files=("a.py", "b.py"), command=None)
    store.write(Batch(tool_uses=[use, use]))
    store.write(Batch(tool_uses=[use]))
    assert store.counts()["tool_uses"] == 1
    assert sql(store, "SELECT files, command FROM tool_uses") == [(["a.py", "b.py"], None)]


# ---- vectors --------------------------------------------------------------------------------


def test_add_vectors_ignores_docs_deleted_meanwhile(store: Store) -> None:
    store.write(Batch(memories=[memory("a", "alpha"), memory("b", "beta")]))
    todo = store.missing_vectors("hash", 10)
    assert len(todo) == 2
    store.write(Batch(deleted_memory_ids=["b"]))
    docs = [d for d, _ in todo]
    matrix = np.arange(8, dtype=np.float32).reshape(2, 4)
    stored = store.add_vectors("hash", docs, matrix)
    assert stored == [doc_of(store, "memories", "a")]
    got_docs, got = store.vectors("hash")
    assert got_docs.tolist() == stored
    assert np.array_equal(got[0], matrix[docs.index(stored[0])])
    assert store.missing_vectors("hash", 10) == []


def test_add_vectors_replaces_the_same_model_only(store: Store) -> None:
    store.write(Batch(memories=[memory("a", "alpha")]))
    doc = doc_of(store, "memories", "a")
    store.add_vectors("m1", [doc], np.zeros((1, 2), dtype=np.float32))
    store.add_vectors("m1", [doc], np.ones((1, 2), dtype=np.float32))
    store.add_vectors("m2", [doc], np.ones((1, 3), dtype=np.float32))
    assert vector_counts(store) == {"m1": 1, "m2": 1}
    assert store.vectors("m1")[1].tolist() == [[1.0, 1.0]]
    assert store.drop_vectors(keep_model="m2") == 1
    assert vector_counts(store) == {"m2": 1}
    assert store.drop_vectors() == 1
    assert store.vectors("m2")[0].tolist() == []


def test_missing_vectors_ordering(store: Store) -> None:
    store.write(
        Batch(
            memories=[
                memory("old", "old memory", updated=T0),
                memory("new", "new memory", updated=T0 + timedelta(days=1)),
            ],
            turns=[
                turn("t-old", "old turn", ts=T0),
                turn("t-none", "undated turn", ts=None),
                turn("t-new", "new turn", ts=T0 + timedelta(days=2)),
            ],
        )
    )
    texts = [text for _, text in store.missing_vectors("hash", 10)]
    # Memories first (newest first), then turns newest first, undated last.
    assert texts == ["new memory", "old memory", "new turn", "old turn", "undated turn"]
    assert [t for _, t in store.missing_vectors("hash", 2)] == texts[:2]
    assert store.count_missing_vectors("hash") == 5

    first = store.missing_vectors("hash", 1)
    store.add_vectors("hash", [first[0][0]], np.ones((1, 4), dtype=np.float32))
    assert [t for _, t in store.missing_vectors("hash", 10)] == texts[1:]
    assert store.count_missing_vectors("hash") == 4
    assert store.count_missing_vectors("other-model") == 5


def test_register_model_rejects_changed_dimensions(store: Store) -> None:
    from recallnest.core.errors import StoreError

    store.register_model("m", 8)
    store.register_model("m", 8)
    with pytest.raises(StoreError, match="8 dimensions"):
        store.register_model("m", 16)


# ---- index loading --------------------------------------------------------------------------


def test_index_rows_and_postings(store: Store) -> None:
    store.write(Batch(memories=[memory("m", "alpha beta beta")], turns=[turn("t", "beta gamma")]))
    rows = store.index_rows()
    assert rows["memory"]["id"].tolist() == ["m"]
    assert rows["memory"]["length"].tolist() == [3]
    assert rows["turn"]["project"].tolist() == ["/repo"]
    assert rows["turn"]["ts"].tolist() == [T0.timestamp()]
    terms, tids, docs, tfs = store.postings()
    assert sorted(t for t in terms if t) == ["alpha", "beta", "gamma"]
    m_doc, t_doc = doc_of(store, "memories", "m"), doc_of(store, "turns", "t" and turn("t", "").id)
    got = {(terms[int(i)], int(d)): int(f) for i, d, f in zip(tids, docs, tfs, strict=True)}
    assert got == {
        ("alpha", m_doc): 1,
        ("beta", m_doc): 2,
        ("beta", t_doc): 1,
        ("gamma", t_doc): 1,
    }
    assert list(tids) == sorted(tids)


def test_posting_stream_reads_every_posting_by_doc_range(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: the index load's postings come a few doc ranges at a time; together they are
    store.postings() and agree with the counts."""
    monkeypatch.setattr(loading, "POSTING_CHUNK", 3)
    store.write(
        Batch(
            memories=[memory(f"m{k}", f"alpha beta{k} gamma") for k in range(5)],
            turns=[turn(f"t{k}", f"beta{k} delta delta") for k in range(6)],
        )
    )
    stream = store.posting_stream()
    chunks = list(stream.chunks)
    assert len(chunks) > 3
    got = sorted(
        (stream.terms[int(i)], int(d), int(f))
        for tids, docs, tfs in chunks
        for i, d, f in zip(tids, docs, tfs, strict=True)
    )
    terms, tids, docs, tfs = store.postings()
    want = sorted((terms[int(i)], int(d), int(f)) for i, d, f in zip(tids, docs, tfs, strict=True))
    assert got == want
    all_tids = np.concatenate([c[0] for c in chunks])
    assert np.bincount(all_tids, minlength=len(stream.terms)).tolist() == stream.counts.tolist()


def test_counts_shape(store: Store) -> None:
    assert store.counts() == {
        "turns": 0,
        "sessions": 0,
        "memories": 0,
        "active_memories": 0,
        "tool_uses": 0,
        "checkpoints": 0,
        "files": 0,
        "vectors": 0,
    }


# ---- permissions and the single-writer rule -------------------------------------------------


def test_engine_open_makes_home_and_db_owner_only(settings: Settings) -> None:
    engine = Engine.open(settings)
    try:
        assert stat.S_IMODE(settings.home.stat().st_mode) == 0o700
        assert stat.S_IMODE(engine.store.path.stat().st_mode) == 0o600
    finally:
        engine.close()


def test_engine_open_tightens_an_existing_home(settings: Settings) -> None:
    settings.home.mkdir(mode=0o755)
    settings.home.chmod(0o755)
    Engine.open(settings).close()
    assert stat.S_IMODE(settings.home.stat().st_mode) == 0o700


HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from recallnest.store import Store

    store = Store(Path(sys.argv[1]))
    print("ready", flush=True)
    sys.stdin.read()  # hold the database until the parent closes our stdin
    store.close()
    """
)


@pytest.fixture
def holder(db: Path) -> Iterator[subprocess.Popen[str]]:
    """A child process that holds `db` open read-write."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], CHILD_READY_SECONDS)
        if not ready:
            pytest.fail("the child did not open the store in time")
        line = proc.stdout.readline()
        if line.strip() != "ready":
            pytest.fail(f"the child failed to open the store: {line!r}")
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.mark.slow
def test_second_process_gets_store_locked_error_naming_the_pid(
    db: Path, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(StoreLockedError) as info:
        Store(db)
    assert f"in use by PID {holder.pid}" in str(info.value)
    assert info.value.pid == holder.pid
    # Not even a read-only open is possible while the writer holds the file.
    with pytest.raises(StoreLockedError):
        Store(db, read_only=True)


@pytest.mark.slow
def test_store_opens_once_the_holder_exits(db: Path, holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=60)
    s = Store(db)
    s.close()


def test_a_checkpoint_waits_for_another_threads_write_transaction(store: Store) -> None:
    """DuckDB refuses CHECKPOINT while another write transaction is open; flush_wal (and the
    compaction behind `forget --purge`) waits for it instead of failing."""
    other = store._con.cursor()
    other.execute("BEGIN TRANSACTION")
    other.execute("CREATE TABLE held (a INTEGER)")
    with pytest.raises(duckdb.TransactionException):
        store._cur().execute("CHECKPOINT")  # what the store did before
    timer = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    timer.start()
    try:
        store.flush_wal()
    finally:
        timer.join()
    assert "held" in store.tables()

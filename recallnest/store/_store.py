"""The DuckDB store: owns the schema and every SQL statement in recallnest.

Constraints (DUCKDB-NOTES.md):
- One process holds the file read-write; while it does, no other process can open it at all,
  not even read-only. A second opener gets StoreLockedError naming the holder's PID.
- Writes are batched: one transaction per flush, rows handed to DuckDB as numpy columns
  (registered scans), never autocommit loops (190 rows/s) or executemany.
- Keyword postings are written in the same transaction as their record, so search is fresh.
- No persisted HNSW index (experimental in 1.5.5, corrupts on crash); vectors live in a plain
  table and are searched by brute force in memory (see index.py).
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import math
import re
import sys
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from recallnest.core.errors import (
    ExtensionError,
    MigrationError,
    StoreError,
    StoreLockedError,
)
from recallnest.core.models import Memory, ToolUse, Turn
from recallnest.core.text import term_counts
from recallnest.store.migrations import MIGRATIONS
from recallnest.store.types import (
    DB_MEMORY_MB as DB_MEMORY_MB,
)
from recallnest.store.types import (
    Batch as Batch,
)
from recallnest.store.types import (
    BatchResult as BatchResult,
)
from recallnest.store.types import (
    Cursor as Cursor,
)
from recallnest.store.types import (
    IndexedDoc as IndexedDoc,
)
from recallnest.store.types import (
    IndexSnapshot as IndexSnapshot,
)
from recallnest.store.types import (
    PostingBlock as PostingBlock,
)

_LOCK_PID = re.compile(r"PID (\d+)")
_SEP = "\x1f"


class Store:
    """One DuckDB connection (read-write unless `read_only`), migrated on open."""

    def __init__(self, path: Path, read_only: bool = False, memory_mb: int = DB_MEMORY_MB) -> None:
        self.path = path
        self.read_only = read_only
        self.memory_mb = memory_mb
        self._con = _connect(path, read_only, memory_mb)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        # Bumped by every committed write that may change what a resume context shows
        # (memories, checkpoints, lifecycle rows); readers cache what they derive under it.
        # Writes that cannot change it (turns alone, vectors, cursors, read counts) pass
        # `changes_resume=False`: a resume records its reads, and must not void its own cache.
        self.generation = 0
        if not read_only:
            path.chmod(0o600)
            self._migrate()

    def close(self) -> None:
        self._con.close()

    # ---- connection plumbing -------------------------------------------------------------

    def _cur(self) -> duckdb.DuckDBPyConnection:
        """A cursor per thread: DuckDB connections are not shared across threads."""
        cur: duckdb.DuckDBPyConnection | None = getattr(self._local, "cur", None)
        if cur is None:
            cur = self._con.cursor()
            self._local.cur = cur
        return cur

    @contextmanager
    def transaction(self, changes_resume: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction; inside `atomic()` on this thread, part of the outer one."""
        with self._write_lock:
            cur = self._cur()
            if getattr(self._local, "after", None) is not None:
                yield cur
                return
            cur.execute("BEGIN TRANSACTION")
            self._local.after = []
            try:
                yield cur
            except BaseException:
                self._local.after = None
                cur.execute("ROLLBACK")
                raise
            after, self._local.after = self._local.after, None
            cur.execute("COMMIT")
            if changes_resume:
                self.generation += 1
            for callback in after:  # still under the lock: in commit order
                callback()

    def atomic(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
        """Several writes as one transaction: all of them or none survive a crash."""
        return self._lifecycle_tx()

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the current transaction commits (now, outside of one)."""
        pending: list[Callable[[], None]] | None = getattr(self._local, "after", None)
        if pending is None:
            callback()
        else:
            pending.append(callback)

    def _migrate(self) -> None:
        cur = self._cur()
        cur.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name VARCHAR PRIMARY KEY, applied_at TIMESTAMP)"
        )
        done = {row[0] for row in cur.execute("SELECT name FROM _migrations").fetchall()}
        for migration in MIGRATIONS:
            if migration.__name__ in done:
                continue
            try:
                with self.transaction() as tx:
                    migration(tx)
                    tx.execute(
                        "INSERT INTO _migrations VALUES (?, ?)", [migration.__name__, _utcnow()]
                    )
            except duckdb.Error as exc:
                raise MigrationError(f"migration {migration.__name__} failed: {exc}") from exc

    def applied_migrations(self) -> list[str]:
        rows = self._cur().execute("SELECT name FROM _migrations ORDER BY name").fetchall()
        return [r[0] for r in rows]

    # ---- the batched write path ----------------------------------------------------------

    def write(self, batch: Batch) -> BatchResult:
        """Apply one flush atomically: turns, tool uses, memories, deletions and cursors.
        Any database failure (disk full, damaged file) rolls back everything, cursors included,
        and surfaces as StoreError."""
        result = BatchResult()
        changes = bool(batch.memories or batch.deleted_memory_ids)
        try:
            with self.transaction(changes_resume=changes) as tx:
                _write_turns(tx, batch.turns, result)
                _delete_docs(tx, "turns", batch.retracted_turn_ids, result)
                _write_memories(tx, batch.memories, result)
                _delete_docs(tx, "memories", batch.deleted_memory_ids, result)
                _write_tool_uses(tx, batch.tool_uses)
                _write_cursors(tx, batch.cursors)
                _write_session_captures(tx, batch.session_captures)
                result.queued_flush = _write_capture_queue(
                    tx, batch.capture_later, batch.captured_flush
                )
        except duckdb.Error as exc:
            raise StoreError(f"write failed, nothing was stored: {exc}") from exc
        return result

    # ---- reads ---------------------------------------------------------------------------

    def changed_turns(self, turns: Sequence[Turn]) -> list[Turn]:
        """The turns that are new or whose text differs from the stored row."""
        if not turns:
            return []
        stored = _existing_docs(self._cur(), "turns", [t.id for t in turns])
        return [t for t in turns if stored.get(t.id, (0, None))[1] != t.text]

    def queued_capture(self, after: int = 0) -> tuple[int, list[Turn]] | None:
        """The oldest flush group of the capture queue (numbered above `after`) and its turns,
        in the order they were queued (turns deleted since are left out), or None."""
        cur = self._cur()
        sql = "SELECT min(flush) FROM capture_queue WHERE flush > ?"
        row = cur.execute(sql, [after]).fetchone()
        if row is None or row[0] is None:
            return None
        rows = cur.execute(
            f"SELECT {_TURN_OBJECT_COLS} FROM capture_queue q JOIN turns t ON t.id = q.turn_id "
            "WHERE q.flush = ? ORDER BY q.pos",
            [row[0]],
        ).fetchall()
        return int(row[0]), [_turn_from_row(r) for r in rows]

    def session_captures(self, session_ids: Collection[str]) -> dict[str, int]:
        """Captures admitted so far by each of `session_ids` (absent: none yet)."""
        if not session_ids:
            return {}
        rows = (
            self._cur()
            .execute(
                "SELECT session_id, captured FROM session_captures "
                "WHERE session_id IN (SELECT unnest(?::VARCHAR[]))",
                [sorted(session_ids)],
            )
            .fetchall()
        )
        return {str(s): int(n) for s, n in rows}

    def queued_capture_count(self) -> int:
        row = self._cur().execute("SELECT count(*) FROM capture_queue").fetchone()
        return int(row[0]) if row else 0

    def cursors(self) -> dict[str, Cursor]:
        """Every file cursor, by path (one query for a whole backfill)."""
        rows = (
            self._cur()
            .execute(
                "SELECT path, agent, byte_offset, inode, fingerprint, parser_state, skipped "
                "FROM cursors"
            )
            .fetchall()
        )
        return {r[0]: Cursor(*r) for r in rows}

    def cursor(self, path: str) -> Cursor | None:
        row = (
            self._cur()
            .execute(
                "SELECT path, agent, byte_offset, inode, fingerprint, parser_state, skipped "
                "FROM cursors WHERE path = ?",
                [path],
            )
            .fetchone()
        )
        return Cursor(*row) if row else None

    def memories(self, ids: Sequence[str]) -> list[Memory]:
        """Memories by id, in the order asked; unknown ids are left out."""
        if not ids:
            return []
        rows = _select_in(self._cur(), f"SELECT {_MEMORY_COLS} FROM memories", "id", ids)
        by_id = {row[0]: _memory_from_row(row) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

    def list_memories(
        self,
        scope: str | None = None,
        category: str | None = None,
        status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        where, params = _where({"scope": scope, "category": category, "status": status})
        sql = f"SELECT {_MEMORY_COLS} FROM memories{where} ORDER BY updated_at DESC NULLS LAST, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_memory_from_row(r) for r in self._cur().execute(sql, params).fetchall()]

    def memories_by_subjects(
        self, keys: Collection[tuple[str, str]]
    ) -> dict[tuple[str, str], list[Memory]]:
        """Active memories by (scope, subject), for every key asked (one query)."""
        if not keys:
            return {}
        subjects = sorted({subject for _, subject in keys})
        rows = _select_in(self._cur(), f"SELECT {_MEMORY_COLS} FROM memories", "subject", subjects)
        out: dict[tuple[str, str], list[Memory]] = {}
        for memory in map(_memory_from_row, rows):
            key = (memory.scope, memory.subject or "")
            if memory.status == "active" and key in keys:
                out.setdefault(key, []).append(memory)
        return out

    def turns(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Turn rows by id (as dicts), in the order asked."""
        if not ids:
            return []
        rows = _select_in(self._cur(), f"SELECT {_TURN_COLS} FROM turns", "id", ids)
        by_id = {row[0]: dict(zip(_TURN_FIELDS, row, strict=True)) for row in rows}
        for turn in by_id.values():
            turn["timestamp"] = _aware(turn["timestamp"])
        return [by_id[i] for i in ids if i in by_id]

    # ---- sessions and checkpoints ----------------------------------------------------------

    def session_turns(self, session_id: str, limit: int = 500) -> list[Turn]:
        """The last `limit` turns of a session, oldest first."""
        rows = (
            self._cur()
            .execute(
                f"SELECT {_TURN_OBJECT_COLS} FROM ("
                " SELECT *, row_number() OVER "
                " (ORDER BY ts DESC NULLS FIRST, byte_offset DESC) AS r"
                " FROM turns WHERE session_id = ?) WHERE r <= ? "
                "ORDER BY ts NULLS LAST, byte_offset",
                [session_id, limit],
            )
            .fetchall()
        )
        return [_turn_from_row(r) for r in rows]

    def session_tool_uses(self, session_id: str, limit: int = 200) -> list[ToolUse]:
        rows = (
            self._cur()
            .execute(
                "SELECT agent, session_id, name, ts, id, files, command, cwd FROM tool_uses "
                "WHERE session_id = ? ORDER BY ts DESC NULLS LAST LIMIT ?",
                [session_id, limit],
            )
            .fetchall()
        )
        return [
            ToolUse(a, sid, name, _aware(ts), rid, tuple(files or ()), cmd, cwd)
            for a, sid, name, ts, rid, files, cmd, cwd in reversed(rows)
        ]

    def latest_session(self, project: str | None = None) -> str | None:
        """The session with the most recent turn (in `project` when given)."""
        where, params = _where({"project": project})
        row = (
            self._cur()
            .execute(
                f"SELECT session_id FROM turns{where} ORDER BY ts DESC NULLS LAST LIMIT 1", params
            )
            .fetchone()
        )
        return str(row[0]) if row else None

    def sessions_missing_checkpoint(self, per_project: int = 3) -> list[str]:
        """The newest `per_project` sessions of each project whose last turn no checkpoint
        covers (a checkpoint's time is its session's last turn), oldest first."""
        rows = (
            self._cur()
            .execute(
                "WITH last AS (SELECT project, session_id, max(ts) AS ts FROM turns "
                "WHERE project IS NOT NULL AND ts IS NOT NULL GROUP BY project, session_id), "
                "ranked AS (SELECT *, row_number() OVER (PARTITION BY project ORDER BY ts DESC) "
                "AS n FROM last) "
                "SELECT r.session_id FROM ranked r WHERE r.n <= ? AND NOT EXISTS ("
                "SELECT 1 FROM checkpoints c WHERE c.session_id = r.session_id "
                "AND c.created_at >= r.ts) ORDER BY r.ts, r.session_id",
                [per_project],
            )
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    def session_project(self, session_id: str) -> tuple[str | None, str | None]:
        """(agent, project) of a session's latest turn."""
        row = (
            self._cur()
            .execute(
                "SELECT agent, project FROM turns WHERE session_id = ? "
                "ORDER BY ts DESC NULLS LAST LIMIT 1",
                [session_id],
            )
            .fetchone()
        )
        return (row[0], row[1]) if row else (None, None)

    def write_checkpoint(
        self,
        cp_id: str,
        session_id: str,
        agent: str | None,
        project: str | None,
        created_at: datetime,
        reason: str,
        body: str,
    ) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM checkpoints WHERE id = ?", [cp_id])
            tx.execute(
                "INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)",
                [cp_id, session_id, agent, project, _naive(created_at), reason, body],
            )

    def checkpoints(
        self, project: str | None = None, session_id: str | None = None, limit: int = 20
    ) -> list[str]:
        """Checkpoint bodies, newest first."""
        where, params = _where({"project": project, "session_id": session_id})
        rows = (
            self._cur()
            .execute(
                f"SELECT body FROM checkpoints{where} "
                f"ORDER BY created_at DESC, id LIMIT {int(limit)}",
                params,
            )
            .fetchall()
        )
        return [r[0] for r in rows]

    def checkpoint_body(self, cp_id: str) -> str | None:
        row = (
            self._cur()
            .execute(
                "SELECT body FROM checkpoints "
                "WHERE id = ? OR (length(?) >= 6 AND id LIKE ? || '%') ORDER BY id LIMIT 1",
                [cp_id, cp_id, cp_id],
            )
            .fetchone()
        )
        return row[0] if row else None

    def resume_memories(
        self, groups: Sequence[tuple[str, Sequence[str]]], per_group: int
    ) -> list[Memory]:
        """Active memories for a resume context: for each (scope, categories) group, the best
        `per_group`, ranked as compose ranks them (pinned, importance × confidence, tier,
        recency, id). Expiry is left to compose, which knows the resume's own time.

        Per group, not one top-N overall: 100k global memories must not crowd a project's few
        facts out of the candidates (issue 17). One LIMIT query per group (a top-N heap over a
        scan): a window over every row costs ~10x more at 100k (bench_resume_scale.py)."""
        if not groups:
            return []
        where = (
            "status = 'active' AND superseded_by IS NULL AND scope = ? "
            "AND category IN (SELECT unnest(?::VARCHAR[]))"
        )
        one = (
            f"(SELECT {_MEMORY_COLS} FROM memories WHERE {where} ORDER BY {_RESUME_ORDER} LIMIT ?)"
        )
        params: list[object] = []
        for scope, categories in groups:
            params += [scope, list(categories), int(per_group)]
        rows = self._cur().execute(" UNION ALL ".join([one] * len(groups)), params).fetchall()
        return [_memory_from_row(r) for r in rows]

    def resume_projects(self, limit: int) -> list[str]:
        """Projects with active notes or a checkpoint, most recently changed first (the
        daemon keeps a resume snapshot for each, see snapshot.py)."""
        rows = (
            self._cur()
            .execute(
                "SELECT project, max(t) AS latest FROM ("
                " SELECT scope AS project, updated_at AS t FROM memories"
                " WHERE status = 'active' AND scope <> 'global'"
                " UNION ALL SELECT project, created_at FROM checkpoints WHERE project IS NOT NULL"
                ") GROUP BY project ORDER BY latest DESC NULLS LAST, project LIMIT ?",
                [limit],
            )
            .fetchall()
        )
        return [str(row[0]) for row in rows]

    def turn_records(self) -> list[tuple[str, str]]:
        """(turn id, record id) of every turn (evaluation harnesses map ids back with it)."""
        rows = self._cur().execute("SELECT id, record_id FROM turns").fetchall()
        return [(str(a), str(b)) for a, b in rows]

    def counts(self) -> dict[str, int]:
        cur = self._cur()
        out: dict[str, int] = {}
        for name, sql in _COUNT_QUERIES.items():
            row = cur.execute(sql).fetchone()
            out[name] = int(row[0]) if row else 0
        return out

    def file_size(self) -> dict[str, int]:
        row = (
            self._cur()
            .execute(
                "SELECT block_size, total_blocks, used_blocks, free_blocks "
                "FROM pragma_database_size()"
            )
            .fetchone()
        )
        if row is None:
            return {}
        block, total, used, free = (int(v) for v in row)
        return {
            "block_size": block,
            "total_bytes": block * total,
            "used_bytes": block * used,
            "free_bytes": block * free,
        }

    # ---- index loading -------------------------------------------------------------------

    def index_rows(self) -> dict[str, dict[str, np.ndarray]]:
        """Column arrays of every searchable row, for building the in-memory index."""
        cur = self._cur()
        turns = cur.execute(
            "SELECT doc, id, length, agent, session_id, project, role, kind, "
            "coalesce(epoch(ts), 0)::DOUBLE AS ts FROM turns ORDER BY doc"
        ).fetchnumpy()
        memories = cur.execute(
            "SELECT doc, id, length, scope, category, status, tier, "
            "(importance * confidence)::FLOAT AS weight, "
            "coalesce(epoch(updated_at), 0)::DOUBLE AS ts FROM memories ORDER BY doc"
        ).fetchnumpy()
        return {"turn": dict(turns), "memory": dict(memories)}

    def postings(self) -> tuple[list[str | None], np.ndarray, np.ndarray, np.ndarray]:
        """(terms, term_ids, docs, tfs): `terms[tid]` names a term id (None for an id no term
        holds); the postings are grouped by term id, in the order they were written.

        Read as integer columns and grouped by a stable radix sort in numpy: 0.7 s for the
        6.5M postings of 100k turns, where joining and sorting their term strings in SQL took
        1.8 s (decision 0010)."""
        cur = self._cur()
        if "terms" not in self.tables():  # schema v3 or older, opened read-only (repair)
            return _legacy_postings(cur)
        named = cur.execute("SELECT tid, term FROM terms").fetchnumpy()
        terms: list[str | None] = [None] * (int(named["tid"].max()) + 1 if len(named["tid"]) else 0)
        for tid, term in zip(named["tid"].tolist(), named["term"].tolist(), strict=True):
            terms[tid] = term
        arrays = cur.execute("SELECT tid, doc, tf FROM postings").fetchnumpy()
        tids = arrays["tid"]
        order = _grouping_order(tids)
        grouped = np.repeat(
            np.arange(len(terms), dtype=tids.dtype), np.bincount(tids, minlength=len(terms))
        )
        return terms, grouped, arrays["doc"][order], arrays["tf"][order]

    def index_snapshot(self, model: str | None) -> IndexSnapshot:
        """index_rows(), postings() and, given a model, vectors(model), read in one transaction:
        they agree with each other whatever commits while they are read."""
        cur = self._cur()
        cur.execute("BEGIN TRANSACTION")
        try:
            rows, postings = self.index_rows(), self.postings()
            vectors = self.vectors(model) if model else None
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")
        return IndexSnapshot(rows, postings, vectors)

    def vectors(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        """(docs, matrix) of every stored vector of `model`."""
        rows = (
            self._cur()
            .execute("SELECT doc, vec FROM vectors WHERE model = ? ORDER BY doc", [model])
            .fetchnumpy()
        )
        docs = rows["doc"]
        if len(docs) == 0:
            return docs, np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(rows["vec"]), dtype=np.float32).reshape(len(docs), -1)
        return docs, matrix

    # ---- embeddings ----------------------------------------------------------------------

    def register_model(self, model: str, dimensions: int) -> None:
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT dimensions FROM embedding_models WHERE model = ?", [model]
            ).fetchone()
            if row and int(row[0]) != dimensions:
                raise StoreError(
                    f"model {model} was registered with {row[0]} dimensions, now {dimensions}"
                )
            if not row:
                tx.execute(
                    "INSERT INTO embedding_models VALUES (?, ?, ?)", [model, dimensions, _utcnow()]
                )

    def missing_vectors(self, model: str, limit: int) -> list[tuple[int, str]]:
        """(doc, text) of rows without a vector of `model`, memories first, newest first."""
        rows = (
            self._cur()
            .execute(
                "SELECT doc, text FROM ("
                " SELECT doc, text, 0 AS pri, updated_at AS t FROM memories UNION ALL"
                " SELECT doc, text, 1 AS pri, ts AS t FROM turns) d "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.doc = d.doc AND v.model = ?) "
                "ORDER BY pri, t DESC NULLS LAST LIMIT ?",
                [model, limit],
            )
            .fetchall()
        )
        return [(int(doc), text) for doc, text in rows]

    def count_missing_vectors(self, model: str) -> int:
        row = (
            self._cur()
            .execute(
                "SELECT count(*) FROM (SELECT doc FROM memories UNION ALL SELECT doc FROM turns) d "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.doc = d.doc AND v.model = ?)",
                [model],
            )
            .fetchone()
        )
        return int(row[0]) if row else 0

    def add_vectors(self, model: str, docs: Sequence[int], matrix: np.ndarray) -> list[int]:
        """Store vectors for docs that still exist; returns the docs actually stored."""
        blobs = np.empty(len(docs), dtype=object)
        blobs[:] = [row.astype(np.float32).tobytes() for row in matrix]
        with (
            self.transaction(changes_resume=False) as tx,
            _scan(tx, "vec_batch", doc=np.asarray(docs, np.int64), vec=blobs),
        ):
            live = tx.execute(
                "SELECT b.doc FROM vec_batch b WHERE b.doc IN "
                "(SELECT doc FROM memories UNION ALL SELECT doc FROM turns)"
            ).fetchnumpy()["doc"]
            tx.execute(
                "DELETE FROM vectors WHERE model = ? AND doc IN (SELECT doc FROM vec_batch)",
                [model],
            )
            tx.execute(
                "INSERT INTO vectors SELECT b.doc, ?, b.vec FROM vec_batch b WHERE b.doc IN "
                "(SELECT doc FROM memories UNION ALL SELECT doc FROM turns)",
                [model],
            )
        return [int(d) for d in live]

    def drop_vectors(self, keep_model: str | None = None) -> int:
        """Delete vectors of every model except `keep_model` (all when None)."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT count(*) FROM vectors WHERE model IS DISTINCT FROM ?", [keep_model]
            ).fetchone()
            tx.execute("DELETE FROM vectors WHERE model IS DISTINCT FROM ?", [keep_model])
        return int(row[0]) if row else 0

    def vector_counts(self) -> dict[str, int]:
        rows = self._cur().execute("SELECT model, count(*) FROM vectors GROUP BY model").fetchall()
        return {str(m): int(n) for m, n in rows}

    def checkpoint(self) -> None:
        with self._write_lock:
            self._cur().execute("CHECKPOINT")

    # ---- lifecycle (issue 7) ----------------------------------------------------------------
    # Decay, consolidation, contradictions, forgetting, retention and compaction. The logic
    # lives in recallnest.lifecycle.decay/consolidate/forgetting/compaction/maintenance; these are
    # its SQL statements. Tables from migration m002.

    @contextmanager
    def write_locked(self) -> Iterator[None]:
        """Hold the writer lock across read, check and write: lifecycle changes verify that the
        rows they replace did not change since they were read (a capture may race them)."""
        with self._write_lock:
            yield

    def find_memories(
        self,
        filters: Mapping[str, object] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        order: str = "updated",
        limit: int | None = None,
    ) -> list[Memory]:
        """Memories matching equality `filters` (None values ignored) and a created_at range,
        in `order` (updated | created | importance | accessed)."""
        where, params = _where(dict(filters or {}))
        clauses = [where[len(" WHERE ") :]] if where else []
        for op, value in ((">=", since), ("<", until)):
            if value is not None:
                clauses.append(f"created_at {op} ?")
                params.append(_naive(value))
        sql = f"SELECT {_MEMORY_COLS} FROM memories"
        sql += (" WHERE " + " AND ".join(clauses) if clauses else "") + _FIND_ORDER[order]
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [_memory_from_row(r) for r in self._cur().execute(sql, params).fetchall()]

    def superseded_by_any(self, ids: Sequence[str]) -> list[Memory]:
        """Memories whose `superseded_by` is one of `ids` (their predecessors and merges)."""
        if not ids:
            return []
        rows = _select_in(self._cur(), f"SELECT {_MEMORY_COLS} FROM memories", "superseded_by", ids)
        return [_memory_from_row(r) for r in rows]

    def expired_memories(self, now: datetime) -> list[Memory]:
        """Active memories whose valid_until has passed."""
        rows = (
            self._cur()
            .execute(
                f"SELECT {_MEMORY_COLS} FROM memories WHERE status = 'active' "
                "AND valid_until <= ? ORDER BY id",
                [_naive(now)],
            )
            .fetchall()
        )
        return [_memory_from_row(r) for r in rows]

    def memories_with_evidence(self, turn_ids: Sequence[str]) -> list[Memory]:
        """Memories (any status) citing at least one of `turn_ids` as evidence."""
        if not turn_ids:
            return []
        with _scan(self._cur(), "evidence_turns", v=_objects(turn_ids)):
            rows = (
                self._cur()
                .execute(
                    f"SELECT {_MEMORY_COLS} FROM memories WHERE len(list_intersect(evidence, "
                    "(SELECT list(v) FROM evidence_turns))) > 0"
                )
                .fetchall()
            )
        return [_memory_from_row(r) for r in rows]

    def memory_vectors(self, model: str, scope: str | None = None) -> dict[str, np.ndarray]:
        """The stored `model` vector of every active memory (in `scope`), by memory id."""
        where, params = _where({"m.scope": scope})
        rows = (
            self._cur()
            .execute(
                "SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.doc = m.doc AND v.model = ?"
                + (where + " AND" if where else " WHERE")
                + " m.status = 'active'",
                [model, *params],
            )
            .fetchall()
        )
        return {str(i): np.frombuffer(vec, dtype=np.float32) for i, vec in rows}

    def bump_access(self, counts: Mapping[str, tuple[int, datetime]]) -> int:
        """Add read counts and move last_accessed_at forward, in one statement for the batch
        (reads are counted in memory and flushed here, never one write per read)."""
        if not counts:
            return 0
        ids = list(counts)
        with (
            self._lifecycle_tx(changes_resume=False) as tx,
            _scan(
                tx,
                "access_batch",
                id=_objects(ids),
                n=np.asarray([counts[i][0] for i in ids], np.int32),
                at=_micros([counts[i][1] for i in ids]),
            ),
        ):
            row = tx.execute(
                "SELECT count(*) FROM memories WHERE id IN (SELECT id FROM access_batch)"
            ).fetchone()
            tx.execute(
                "UPDATE memories SET access_count = memories.access_count + b.n, "
                f"last_accessed_at = greatest(memories.last_accessed_at, {_TS.format('b.at')}) "
                "FROM access_batch b WHERE memories.id = b.id"
            )
        return int(row[0]) if row else 0

    # undo log, memory events and conflicts

    def add_undo(
        self,
        kind: str,
        memory_ids: Sequence[str],
        before_rows: str,
        after_rows: str,
        summary: str,
        at: datetime,
    ) -> int:
        with self._lifecycle_tx() as tx:
            undo_id = _lifecycle_id(tx)
            tx.execute(
                "INSERT INTO undo_log VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
                [undo_id, kind, _naive(at), list(memory_ids), before_rows, after_rows, summary],
            )
        return undo_id

    def undo_entries(
        self, kind: str | None = None, undo_id: int | None = None, pending_only: bool = True
    ) -> list[dict[str, Any]]:
        """Undo-log entries, newest first."""
        where, params = _where({"kind": kind, "id": undo_id})
        if pending_only:
            where += (" AND" if where else " WHERE") + " undone_at IS NULL"
        rows = (
            self._cur()
            .execute(f"SELECT {_UNDO_COLS} FROM undo_log{where} ORDER BY id DESC", params)
            .fetchall()
        )
        return [_undo_from_row(r) for r in rows]

    def mark_undone(self, undo_id: int, at: datetime) -> None:
        with self._lifecycle_tx() as tx:
            tx.execute("UPDATE undo_log SET undone_at = ? WHERE id = ?", [_naive(at), undo_id])
            tx.execute("DELETE FROM memory_events WHERE undo_id = ?", [undo_id])
            tx.execute("DELETE FROM conflicts WHERE undo_id = ?", [undo_id])

    def prune_undo(self, before: datetime) -> int:
        """Drop undo entries older than the grace period (they can no longer be undone)."""
        with self._lifecycle_tx() as tx:
            row = tx.execute(
                "SELECT count(*) FROM undo_log WHERE created_at < ?", [_naive(before)]
            ).fetchone()
            tx.execute("DELETE FROM undo_log WHERE created_at < ?", [_naive(before)])
        return int(row[0]) if row else 0

    def add_memory_events(
        self, events: Sequence[tuple[datetime, str, str, str | None, int | None]]
    ) -> None:
        """(at, kind, memory id, other memory id, undo id) rows: the history of merges and
        supersessions shown by `memories history`."""
        if not events:
            return
        with self._lifecycle_tx() as tx:
            for at, kind, memory_id_, other, undo_id in events:
                tx.execute(
                    "INSERT INTO memory_events VALUES (?, ?, ?, ?, ?)",
                    [_naive(at), kind, memory_id_, other, undo_id],
                )

    def memory_events(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        if not ids:
            return []
        with _scan(self._cur(), "event_ids", v=_objects(ids)):
            rows = (
                self._cur()
                .execute(
                    "SELECT happened_at, kind, memory_id, other_id, undo_id FROM memory_events "
                    "WHERE memory_id IN (SELECT v FROM event_ids) "
                    "OR other_id IN (SELECT v FROM event_ids) "
                    "ORDER BY happened_at, kind, memory_id"
                )
                .fetchall()
            )
        names = ("at", "kind", "memory_id", "other_id", "undo_id")
        return [dict(zip(names, (_aware(r[0]), *r[1:]), strict=True)) for r in rows]

    def add_conflicts(self, rows: Sequence[Mapping[str, Any]], at: datetime) -> int:
        """Flag contradictions for a human: a_id, b_id, scope, category, reason, similarity,
        undo_id. A pair already flagged (in either order, any status) is not flagged again."""
        known = self.conflict_pairs()
        fresh = [r for r in rows if _pair(r["a_id"], r["b_id"]) not in known]
        with self._lifecycle_tx() as tx:
            for r in fresh:
                tx.execute(
                    "INSERT INTO conflicts VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, NULL, NULL, ?)",
                    [
                        _lifecycle_id(tx),
                        r["a_id"],
                        r["b_id"],
                        r["scope"],
                        r["category"],
                        r["reason"],
                        r.get("similarity"),
                        _naive(at),
                        r.get("undo_id"),
                    ],
                )
        return len(fresh)

    def conflict_pairs(self) -> set[tuple[str, str]]:
        rows = self._cur().execute("SELECT a_id, b_id FROM conflicts").fetchall()
        return {_pair(a, b) for a, b in rows}

    def conflicts(
        self, status: str | None = "open", conflict_id: int | None = None
    ) -> list[dict[str, Any]]:
        where, params = _where({"status": status, "id": conflict_id})
        rows = (
            self._cur()
            .execute(f"SELECT {_CONFLICT_COLS} FROM conflicts{where} ORDER BY id", params)
            .fetchall()
        )
        out = [dict(zip(_CONFLICT_FIELDS, r, strict=True)) for r in rows]
        for c in out:
            c["created_at"], c["resolved_at"] = _aware(c["created_at"]), _aware(c["resolved_at"])
        return out

    def resolve_conflict(self, conflict_id: int, resolution: str, at: datetime) -> None:
        with self._lifecycle_tx() as tx:
            tx.execute(
                "UPDATE conflicts SET status = 'resolved', resolution = ?, resolved_at = ? "
                "WHERE id = ?",
                [resolution, _naive(at), conflict_id],
            )

    # forgetting

    def turn_ids_where(
        self,
        session_id: str | None = None,
        project: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[str]:
        """Ids of the turns of a session and/or project and/or with ts in [since, until)."""
        where, params = _where({"session_id": session_id, "project": project})
        clauses = [where[len(" WHERE ") :]] if where else []
        for op, value in ((">=", since), ("<", until)):
            if value is not None:
                clauses.append(f"ts {op} ?")
                params.append(_naive(value))
        sql = "SELECT id FROM turns" + (" WHERE " + " AND ".join(clauses) if clauses else "")
        return [str(r[0]) for r in self._cur().execute(sql, params).fetchall()]

    def turn_ids_of_path(self, path: str) -> set[str]:
        """Ids of the stored turns read from the transcript file `path`."""
        rows = self._cur().execute("SELECT id FROM turns WHERE path = ?", [path]).fetchall()
        return {str(r[0]) for r in rows}

    def session_ids(self, turn_ids: Sequence[str]) -> list[str]:
        """Distinct sessions of the given turns."""
        if not turn_ids:
            return []
        with _scan(self._cur(), "sess_turns", v=_objects(turn_ids)):
            rows = (
                self._cur()
                .execute(
                    "SELECT DISTINCT session_id FROM turns WHERE id IN (SELECT v FROM sess_turns) "
                    "ORDER BY 1"
                )
                .fetchall()
            )
        return [str(r[0]) for r in rows]

    def checkpoint_rows(
        self, session_ids: Sequence[str] = (), project: str | None = None
    ) -> list[tuple[str, str]]:
        """(id, body) of checkpoints of the given sessions, or of `project`, or all."""
        cur = self._cur()
        if session_ids:
            with _scan(cur, "cp_sessions", v=_objects(session_ids)):
                rows = cur.execute(
                    "SELECT id, body FROM checkpoints WHERE session_id IN "
                    "(SELECT v FROM cp_sessions)"
                ).fetchall()
            return [(str(a), str(b)) for a, b in rows]
        where, params = _where({"project": project})
        rows = cur.execute(f"SELECT id, body FROM checkpoints{where}", params).fetchall()
        return [(str(a), str(b)) for a, b in rows]

    def delete_derived(
        self,
        memory_ids: Sequence[str],
        checkpoint_ids: Sequence[str] = (),
        tool_use_sessions: Sequence[str] = (),
        tool_uses_range: tuple[datetime | None, datetime | None] | None = None,
    ) -> dict[str, int]:
        """Delete what forgetting removes besides memories and turns: the checkpoints and tool
        calls asked for, and every undo entry, conflict and event naming a forgotten memory
        (undo entries hold the prior rows' text)."""
        counts = {"checkpoints": 0, "tool_uses": 0, "undo_entries": 0}
        with self._lifecycle_tx() as tx:
            counts["checkpoints"] = _delete_in(tx, "checkpoints", "id", checkpoint_ids)
            counts["tool_uses"] = _delete_in(tx, "tool_uses", "session_id", tool_use_sessions)
            if tool_uses_range is not None:
                counts["tool_uses"] += _delete_range(tx, "tool_uses", "ts", *tool_uses_range)
            if memory_ids:
                with _scan(tx, "gone_mem", v=_objects(memory_ids)):
                    row = tx.execute(
                        "SELECT count(*) FROM undo_log WHERE "
                        "len(list_intersect(memory_ids, (SELECT list(v) FROM gone_mem))) > 0"
                    ).fetchone()
                    counts["undo_entries"] = int(row[0]) if row else 0
                    tx.execute(
                        "DELETE FROM undo_log WHERE "
                        "len(list_intersect(memory_ids, (SELECT list(v) FROM gone_mem))) > 0"
                    )
                    for table, cols in (
                        ("conflicts", ("a_id", "b_id")),
                        ("memory_events", ("memory_id", "other_id")),
                    ):
                        tx.execute(
                            f"DELETE FROM {table} WHERE {cols[0]} IN (SELECT v FROM gone_mem) "
                            f"OR {cols[1]} IN (SELECT v FROM gone_mem)"
                        )
        return counts

    def add_forget_log(
        self, selector: str, memory_ids: Sequence[str], counts: Mapping[str, int], purged: bool,
        at: datetime,
    ) -> int:  # fmt: skip
        """Audit what was forgotten: which selector kind, the memory ids and the counts.
        Never the forgotten text, nor a query (it may quote the text)."""
        with self._lifecycle_tx() as tx:
            log_id = _lifecycle_id(tx)
            tx.execute(
                "INSERT INTO forget_log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    log_id,
                    _naive(at),
                    selector,
                    list(memory_ids),
                    counts.get("memories", 0),
                    counts.get("turns", 0),
                    counts.get("tool_uses", 0),
                    counts.get("checkpoints", 0),
                    purged,
                ],
            )
        return log_id

    def forget_log(self, limit: int = 50) -> list[dict[str, Any]]:
        names = _FORGET_FIELDS
        rows = (
            self._cur()
            .execute(f"SELECT {', '.join(names)} FROM forget_log ORDER BY id DESC LIMIT ?", [limit])
            .fetchall()
        )
        out = [dict(zip(names, r, strict=True)) for r in rows]
        for entry in out:
            entry["forgotten_at"] = _aware(entry["forgotten_at"])
        return out

    # conversation clock and retention

    def record_activity(self) -> int:
        """Remember the days with conversation per project (the decay clock), so the clock
        survives turn retention. Returns how many new (day, project) rows were added."""
        with self._lifecycle_tx() as tx:
            before = tx.execute("SELECT count(*) FROM activity_days").fetchone()
            tx.execute(
                "INSERT INTO activity_days SELECT DISTINCT ts::DATE, coalesce(project, '') "
                "FROM turns WHERE ts IS NOT NULL ON CONFLICT DO NOTHING"
            )
            after = tx.execute("SELECT count(*) FROM activity_days").fetchone()
        return int(after[0] if after else 0) - int(before[0] if before else 0)

    def activity_days(self) -> dict[str, list[date]]:
        """Days with conversation, by project ('' for turns without one), oldest first."""
        rows = self._cur().execute("SELECT project, day FROM activity_days ORDER BY day").fetchall()
        out: dict[str, list[date]] = {}
        for project, day in rows:
            out.setdefault(str(project), []).append(day)
        return out

    def retention_turn_ids(self, before: datetime | None, keep_newest: int | None) -> list[str]:
        """Turns a retention policy drops: older than `before` and/or beyond the newest
        `keep_newest` (by timestamp; turns without one count as oldest)."""
        clauses, params = [], []
        if before is not None:
            clauses.append("(ts IS NULL OR ts < ?)")
            params.append(_naive(before))
        if keep_newest is not None:
            clauses.append(f"r > {int(keep_newest)}")
        if not clauses:
            return []
        rows = (
            self._cur()
            .execute(
                "SELECT id FROM (SELECT id, ts, row_number() OVER "
                "(ORDER BY ts DESC NULLS LAST, id) AS r FROM turns) WHERE " + " OR ".join(clauses),
                params,
            )
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    def delete_tool_uses_before(self, before: datetime) -> int:
        with self._lifecycle_tx() as tx:
            return _delete_range(tx, "tool_uses", "ts", None, before)

    # file size and compaction

    def tables(self) -> list[str]:
        """The tables this database holds (an older schema holds fewer)."""
        rows = self._cur().execute("SELECT table_name FROM duckdb_tables()").fetchall()
        return [str(r[0]) for r in rows]

    def live_bytes(self) -> int:
        """Estimated bytes of live data: each table's blocks scaled by its live share of the
        rows it stores (deleted rows keep their space until rewritten), and the other blocks
        (indexes, metadata) by the overall share. Within ~5% of a fresh copy's size (measured
        in docs/decisions/0006-lifecycle.md); a few ms."""
        cur = self._cur()
        size = cur.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchone()
        if size is None:
            return 0
        block, used = int(size[0]), int(size[1])
        table_blocks, live_blocks = 0, 0.0
        for table in self.tables():
            live_row = cur.execute(f'SELECT count(*) FROM "{table}"').fetchone()
            stored_row = cur.execute(
                "SELECT coalesce(sum(count) FILTER (WHERE column_id = 0 AND "
                "segment_type <> 'VALIDITY'), 0), count(DISTINCT block_id) FILTER "
                "(WHERE persistent) FROM pragma_storage_info(?)",
                [table],
            ).fetchone()
            live = int(live_row[0]) if live_row else 0
            stored, blocks = (int(v) for v in stored_row) if stored_row else (0, 0)
            table_blocks += blocks
            # Whole blocks: a fresh copy of a small table with any live row still takes one.
            live_blocks += math.ceil(blocks * (min(live / stored, 1.0) if stored else 1.0))
        share = live_blocks / table_blocks if table_blocks else 1.0
        return int(block * (live_blocks + max(used - table_blocks, 0) * share))

    def compact(self) -> dict[str, Any]:
        """Rewrite the database into a fresh file and swap it in: DuckDB never returns the
        space of deleted rows (VACUUM does not, DUCKDB-NOTES.md §5), a COPY FROM DATABASE does.

        Between transactions, under the writer lock: CHECKPOINT, copy into `<file>.compact`,
        close the connection (which closes every thread's cursor), atomically rename the copy
        over the file, reopen. A crash before the rename leaves the old file untouched; after
        it, the copy is complete (DETACH checkpoints it). Readers on other threads that hold a
        cursor across the swap get an error for that one query."""
        import os
        import time

        with self._write_lock:
            started = time.perf_counter()
            before = _path_bytes(self.path)
            cur = self._cur()
            tmp = self.path.with_name(self.path.name + ".compact")
            _remove_quietly(tmp, Path(f"{tmp}.wal"))
            try:
                _drop_unused_terms(cur)
                cur.execute("CHECKPOINT")
                row = cur.execute("SELECT current_database()").fetchone()
                name = str(row[0]) if row else ""
                cur.execute(f"ATTACH '{_sql_str(str(tmp))}' AS rn_compact")
                try:
                    cur.execute(f'COPY FROM DATABASE "{name}" TO rn_compact')
                finally:
                    cur.execute("DETACH rn_compact")
            except duckdb.Error as exc:
                _remove_quietly(tmp, Path(f"{tmp}.wal"))
                raise StoreError(f"compaction failed, the database is unchanged: {exc}") from exc
            tmp.chmod(0o600)
            _fsync(tmp)
            self._con.close()
            os.replace(tmp, self.path)
            _fsync(self.path.parent)
            self._con = _connect(self.path, False, self.memory_mb)
            self._local = threading.local()
            after = _path_bytes(self.path)
        return {
            "before_bytes": before,
            "after_bytes": after,
            "seconds": round(time.perf_counter() - started, 3),
        }

    @contextmanager
    def _lifecycle_tx(self, changes_resume: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            with self.transaction(changes_resume) as tx:
                yield tx
        except duckdb.Error as exc:
            raise StoreError(f"write failed, nothing was stored: {exc}") from exc

    # ---- end lifecycle (issue 7) ------------------------------------------------------------

    def active_memory_keys(self) -> list[tuple[str, str, str, str, bool]]:
        """(id, scope, category, text, has superseded_by) of every active memory: what
        sliced consolidation needs to find the groups with new or changed memories, without
        building 100k Memory objects."""
        rows = (
            self._cur()
            .execute(
                "SELECT id, scope, category, text, superseded_by IS NOT NULL FROM memories "
                "WHERE status = 'active'"
            )
            .fetchall()
        )
        return [(str(i), str(s), str(c), str(t), bool(x)) for i, s, c, t, x in rows]


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except duckdb.Error as exc:
            hint = (
                REPAIR_HINT if isinstance(exc, duckdb.IOException | duckdb.FatalException) else ""
            )
            raise StoreError(f"database {self.path}: {exc}{hint}") from exc

    return call


# Every public Store method raises StoreError, never one of duckdb's exceptions: a damaged
# block (checksum mismatch) or an invalidated database (after a failed checkpoint) surfaces on
# whichever read touches it first, and callers outside this module cannot name duckdb's
# classes. Context managers (`transaction`) are wrapped harmlessly: their SQL runs later.
for _name, _member in list(vars(Store).items()):
    if inspect.isfunction(_member) and (_name == "__init__" or not _name.startswith("_")):
        setattr(Store, _name, _guarded(_member))


# ---- extensions ---------------------------------------------------------------------------

EXTENSION_PACKAGES = {"vss": "duckdb_extension_vss", "fts": "duckdb_extension_fts"}


def extension_path(name: str) -> Path:
    """The extension binary shipped in its PyPI wheel. Never INSTALL from the network: DuckDB's
    extension repository is unreachable for many users and for CI."""
    import importlib

    package = EXTENSION_PACKAGES[name]
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        pip_name = package.replace("_", "-")
        raise ExtensionError(
            f"DuckDB extension {name!r} is missing: pip install {pip_name}=={duckdb.__version__}"
        ) from exc
    base = Path(module.__file__ or "").parent / "extensions" / f"v{duckdb.__version__}"
    path = base / f"{name}.duckdb_extension"
    if not path.exists():
        raise ExtensionError(
            f"{package} has no binary for DuckDB {duckdb.__version__} at {path}: install "
            f"{package.replace('_', '-')}=={duckdb.__version__}"
        )
    return path


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    try:
        con.execute(f"LOAD '{extension_path(name)}'")
    except duckdb.Error as exc:
        raise ExtensionError(f"DuckDB extension {name!r} failed to load: {exc}") from exc


def check_extensions() -> dict[str, str]:
    """Load each shipped extension into a scratch connection; returns {name: version}."""
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        versions = {}
        for name in EXTENSION_PACKAGES:
            load_extension(con, name)
            row = con.execute(
                "SELECT extension_version FROM duckdb_extensions() WHERE extension_name = ?", [name]
            ).fetchone()
            versions[name] = str(row[0]) if row else "loaded"
        return versions
    finally:
        con.close()


# ---- module helpers (SQL lives here, next to Store) --------------------------------------

_MEMORY_FIELDS = [
    "id",
    "scope",
    "category",
    "text",
    "importance",
    "confidence",
    "tier",
    "status",
    "evidence",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "source",
    "rule",
    "superseded_by",
    "subject",
    "pinned",
    "valid_until",
]
_MEMORY_COLS = ", ".join(_MEMORY_FIELDS)
# compose._rank_key in SQL: pinned, importance × confidence, tier (core first), recency, id.
_RESUME_ORDER = (
    "pinned DESC, round(importance * confidence, 6) DESC, CASE tier WHEN 'core' THEN 0 "
    "WHEN 'working' THEN 1 WHEN 'peripheral' THEN 2 ELSE 3 END, "
    "coalesce(updated_at, created_at) DESC NULLS LAST, id"
)
_TURN_FIELDS = [
    "id",
    "agent",
    "session_id",
    "parent_session_id",
    "project",
    "role",
    "kind",
    "text",
    "timestamp",
    "path",
    "record_id",
    "byte_offset",
    "cwd",
    "model",
    "git_branch",
]
# The columns `_turn_from_row` reads, in its order.
_TURN_OBJECT_COLS = (
    "agent, session_id, role, text, ts, path, record_id, byte_offset, cwd, kind, model, "
    "git_branch, parent_session_id, project"
)
_TURN_COLS = ", ".join("ts" if f == "timestamp" else f for f in _TURN_FIELDS)
_COUNT_QUERIES = {
    "turns": "SELECT count(*) FROM turns",
    "sessions": "SELECT count(DISTINCT session_id) FROM turns",
    "memories": "SELECT count(*) FROM memories",
    "active_memories": "SELECT count(*) FROM memories WHERE status = 'active'",
    "tool_uses": "SELECT count(*) FROM tool_uses",
    "checkpoints": "SELECT count(*) FROM checkpoints",
    "files": "SELECT count(*) FROM cursors",
    "vectors": "SELECT count(*) FROM vectors",
}


def _block_absent_optional_imports() -> None:
    """Constraint: with pandas absent, DuckDB retries `import pandas` for Python objects it
    scans: two failed imports per row of `add_vectors`' BLOB column, 13x the CPU of a 10k-vector
    write (0.13 s vs 1.65 s, docs/decisions/0004, 2026-12 re-check). A None entry in sys.modules
    makes that import fail at once. Set at the first connection, not at import, and only for a
    package that is not installed, so a host process that could import pandas never loses it.
    recallnest never hands DuckDB a DataFrame or an Arrow table."""
    for name in ("pandas", "pyarrow"):
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = None  # type: ignore[assignment]


def _connect(
    path: Path, read_only: bool, memory_mb: int = DB_MEMORY_MB
) -> duckdb.DuckDBPyConnection:
    _block_absent_optional_imports()
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # Constraint: DuckDB's buffer manager caches table blocks up to memory_limit, by default
        # 80 % of RAM, so a long-lived daemon's RSS grew with the file (~1.3 KB per stored
        # turn, bench/RESULTS.md "Reliability"). Capped, blocks are evicted and re-read.
        "memory_limit": f"{memory_mb}MiB",
        # DuckDB samples up to 1,000 values of each object column to infer its type, with
        # eight failed `import pandas` per value: 35 ms per registered text column, a third
        # of a 1k-memory write. Ours hold only str (texts) or only bytes (vectors) and never
        # None, so the first value decides the same type.
        "pandas_analyze_sample": 1,
    }
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as exc:
        message = str(exc)
        # DuckDB's lock error: `Could not set lock on file "...": Conflicting lock is held in
        # ... (PID n)`. Not a bare "lock": a damaged file reports "... in block at location n".
        if "could not set lock" in message.lower():
            match = _LOCK_PID.search(message)
            pid = int(match.group(1)) if match else None
            holder = f"PID {pid}" if pid else "another process"
            raise StoreLockedError(
                f"database {path} is in use by {holder} (is the recallnest daemon running? "
                "use `recallnest daemon status`)",
                pid,
            ) from exc
        raise StoreError(f"cannot open database {path}: {message}{REPAIR_HINT}") from exc
    except duckdb.Error as exc:
        raise StoreError(f"cannot open database {path} (damaged?): {exc}{REPAIR_HINT}") from exc


REPAIR_HINT = " (if the file is damaged, `recallnest repair` moves it aside and rebuilds it)"


@contextmanager
def _scan(cur: duckdb.DuckDBPyConnection, table: str, **columns: np.ndarray) -> Iterator[None]:
    """Expose numpy columns to SQL as a table for the duration of the block."""
    cur.register(table, columns)
    try:
        yield
    finally:
        cur.unregister(table)


def _objects(values: Sequence[object]) -> np.ndarray:
    """A string column for a registered scan. None becomes "\\x02", read back with
    `nullif(col, chr(2))`: DuckDB falls back to a pandas-only code path when the first values
    of an object column are all None, and numpy strips trailing NULs from str_ values."""
    values = list(values)
    if None in values:
        values = [_NUL if v is None else v for v in values]
    return np.array(values, dtype=np.str_)


def _long_texts(values: Sequence[str]) -> np.ndarray:
    """Free text as an object column: a fixed-width str_ array would pad every row to the
    longest one. (Object columns cost DuckDB one failed `import pandas` per value, ~5 µs.)"""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


_NUL = "\x02"


def _n(column: str) -> str:
    return f"nullif({column}, chr(2))"


def _micros(values: Sequence[datetime | None]) -> np.ndarray:
    """Datetimes as float microseconds since the epoch (UTC), NaN for None. Same values as
    `_to_micros` (numpy also rounds half to even), without a Python call per value."""
    if values.count(None) == len(values):
        return np.full(len(values), np.nan)
    seconds = [
        np.nan if v is None else (v if v.tzinfo is not None else v.replace(tzinfo=UTC)).timestamp()
        for v in values
    ]
    return np.round(np.array(seconds, dtype=np.float64) * 1e6)


def _to_micros(value: datetime) -> float:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return round(value.timestamp() * 1e6)


_TS = "CASE WHEN isnan({0}) THEN NULL ELSE make_timestamp({0}::BIGINT) END"


def _ts_epoch(value: datetime | None) -> float:
    return 0.0 if value is None else _to_micros(value) / 1e6


def _aware(value: datetime | None) -> datetime | None:
    return None if value is None else value.replace(tzinfo=UTC)


def _utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


_IN_LIST_MAX = 64


def _select_in(
    cur: duckdb.DuckDBPyConnection, select: str, column: str, values: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Rows whose `column` is one of `values`. A short list (a search's hits) goes in as quoted
    literals, which DuckDB answers from the primary-key index: 3 ms instead of a 25-40 ms hash
    join against a registered scan at 100k rows (measured under load, bench_search.py)."""
    if len(values) <= _IN_LIST_MAX and all(isinstance(v, str) and "\x00" not in v for v in values):
        literals = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
        return cur.execute(f"{select} WHERE {column} IN ({literals})").fetchall()
    with _scan(cur, "in_values", v=_objects(values)):
        return cur.execute(f"{select} WHERE {column} IN (SELECT v FROM in_values)").fetchall()


def _where(filters: Mapping[str, object]) -> tuple[str, list[object]]:
    clauses = [f"{name} = ?" for name, value in filters.items() if value is not None]
    params = [value for value in filters.values() if value is not None]
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _existing_docs(
    cur: duckdb.DuckDBPyConnection, table: str, ids: Sequence[str]
) -> dict[str, tuple[int, str]]:
    """(doc, text) of the stored rows among `ids`. The ids are matched first and the texts read
    only for rows that exist: matching reads the id column of the whole table, and reading the
    text column with it cost 3x as much at 100k turns, for rows a backfill never has
    (decision 0010)."""
    found = [r[0] for r in _select_in(cur, f"SELECT id FROM {table}", "id", ids)]
    if not found:
        return {}
    rows = _select_in(cur, f"SELECT id, doc, text FROM {table}", "id", found)
    return {r[0]: (int(r[1]), r[2]) for r in rows}


def _allocate_docs(
    cur: duckdb.DuckDBPyConnection,
    existing: Mapping[str, tuple[int, str]],
    ids: Sequence[str],
    texts: Sequence[str],
    result: BatchResult,
) -> np.ndarray:
    """Doc numbers for rows about to be written. Unchanged text keeps its doc (and vector);
    changed text gets a new doc so a stale vector or posting can never describe it."""
    stale = [
        doc
        for i, t in zip(ids, texts, strict=True)
        if i in existing
        for doc, old in [existing[i]]
        if old != t
    ]
    fresh = sum(1 for i, t in zip(ids, texts, strict=True) if existing.get(i, (0, None))[1] != t)
    new_docs = iter(_next_docs(cur, fresh))
    docs = [
        existing[i][0] if existing.get(i, (0, None))[1] == t else next(new_docs)
        for i, t in zip(ids, texts, strict=True)
    ]
    _drop_postings(cur, stale)
    result.removed.extend(stale)
    return np.asarray(docs, dtype=np.int64)


def _next_docs(cur: duckdb.DuckDBPyConnection, n: int) -> list[int]:
    if n == 0:
        return []
    rows = cur.execute("SELECT nextval('doc_seq') FROM range(?)", [n]).fetchall()
    return [int(r[0]) for r in rows]


def _drop_postings(
    cur: duckdb.DuckDBPyConnection, docs: Sequence[int], prune_terms: bool = False
) -> None:
    """Delete the postings and vectors of `docs`; with `prune_terms`, also the terms no other
    posting holds, so a forgotten or redacted row leaves none of its words behind. A row
    replaced by a new text skips that (its words mostly live on in the new text, and the check
    reads every posting's term id): compaction prunes what it leaves."""
    if not docs:
        return
    with _scan(cur, "gone", d=np.asarray(docs, dtype=np.int64)):
        delete = "DELETE FROM postings WHERE doc IN (SELECT d FROM gone)"
        if prune_terms:
            tids = cur.execute(delete + " RETURNING tid").fetchnumpy()["tid"]
        else:
            cur.execute(delete)
        cur.execute("DELETE FROM vectors WHERE doc IN (SELECT d FROM gone)")
    if prune_terms and len(tids):
        with _scan(cur, "gone_terms", t=np.unique(tids)):
            cur.execute(
                "DELETE FROM terms WHERE tid IN (SELECT t FROM gone_terms) AND tid NOT IN "
                "(SELECT tid FROM postings WHERE tid IN (SELECT t FROM gone_terms))"
            )


def replace_postings(cur: duckdb.DuckDBPyConnection, doc: int, counts: Mapping[str, int]) -> None:
    """Rewrite one row's postings from its new term counts (audit redacting a stored row)."""
    _drop_postings(cur, [doc], prune_terms=True)
    _write_postings(cur, [doc], [counts])


def _drop_unused_terms(cur: duckdb.DuckDBPyConnection) -> None:
    """Delete every term no posting holds (compaction: what replaced texts left behind)."""
    cur.execute("DELETE FROM terms WHERE tid NOT IN (SELECT DISTINCT tid FROM postings)")


def _write_postings(
    cur: duckdb.DuckDBPyConnection, docs: Sequence[int], counts: Sequence[Mapping[str, int]]
) -> PostingBlock:
    """Postings go in as three integer columns; only the batch's distinct terms (~20k for 300k
    postings) meet SQL as strings, to find or add their ids. Returns them for the index."""
    block = PostingBlock.of(docs, counts)
    if not block.terms:
        return block
    ids = _term_ids(cur, block.terms)
    with _scan(
        cur,
        "post_batch",
        doc=np.repeat(block.docs, block.sizes),
        tid=ids[block.keys],
        tf=block.tfs,
    ):
        cur.execute("INSERT INTO postings SELECT doc, tid, tf FROM post_batch")
    return block


def _term_ids(cur: duckdb.DuckDBPyConnection, words: Sequence[str]) -> np.ndarray:
    """The term id of each of `words` (distinct), adding the terms not seen before. Runs in the
    writer's transaction: the `terms` table has one writer, so max + 1 is free."""
    # DuckDB sorts a fixed-width string column it scans (np.unique): fine for ~20k terms.
    with _scan(cur, "batch_terms", k=np.arange(len(words), dtype=np.int32), term=np.array(words)):
        cur.execute(
            "INSERT INTO terms SELECT (SELECT coalesce(max(tid), -1) FROM terms) "
            "+ (row_number() OVER (ORDER BY b.k))::INTEGER, b.term FROM batch_terms b "
            "ANTI JOIN terms t ON t.term = b.term"
        )
        found = cur.execute(
            "SELECT b.k, t.tid FROM batch_terms b JOIN terms t ON t.term = b.term"
        ).fetchnumpy()
    ids = np.full(len(words), -1, dtype=np.int32)
    ids[found["k"]] = found["tid"]
    return ids


def _grouping_order(keys: np.ndarray) -> np.ndarray:
    """A stable order of `keys` (ints in [0, 2**32)): numpy's radix sort, one pass per 16 bits.
    One pass took 0.18 s for 6.5M keys here, a stable comparison sort 0.9 s."""
    low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if len(keys) == 0 or int(keys.max()) < 1 << 16:
        return low
    high = (keys[low] >> 16).astype(np.uint16)
    out: np.ndarray = low[np.argsort(high, kind="stable")]
    return out


def _legacy_postings(
    cur: duckdb.DuckDBPyConnection,
) -> tuple[list[str | None], np.ndarray, np.ndarray, np.ndarray]:
    """postings() of a database whose postings still hold term strings (before m004)."""
    terms: list[str | None] = [
        r[0] for r in cur.execute("SELECT DISTINCT term FROM postings ORDER BY term").fetchall()
    ]
    arrays = cur.execute(
        "WITH t AS (SELECT term, (row_number() OVER (ORDER BY term) - 1)::INTEGER AS tid "
        "FROM (SELECT DISTINCT term FROM postings)) "
        "SELECT t.tid, p.doc, p.tf FROM postings p JOIN t USING (term) ORDER BY t.tid, p.doc"
    ).fetchnumpy()
    return terms, arrays["tid"], arrays["doc"], arrays["tf"]


def _dedupe_last(items: Sequence[Any], key: Any) -> list[Any]:
    """Last write wins within one batch (a split message re-emitted with more text)."""
    return list({key(item): item for item in items}.values())


def _write_turns(
    cur: duckdb.DuckDBPyConnection, turns: Sequence[Turn], result: BatchResult
) -> None:
    """Insert new turns and replace those whose text changed; identical rows are skipped, so
    re-reading a transcript writes nothing."""
    turns = _dedupe_last(turns, lambda t: t.id)
    if not turns:
        return
    existing = _existing_docs(cur, "turns", [t.id for t in turns])
    turns = [t for t in turns if existing.get(t.id, (0, None))[1] != t.text]
    if not turns:
        return
    ids = [t.id for t in turns]
    docs = _allocate_docs(cur, existing, ids, [t.text for t in turns], result)
    result.new_turns += sum(1 for t in turns if t.id not in existing)
    counts = [term_counts(t.text) for t in turns]
    changed = list(range(len(turns)))
    with _scan(cur, "turn_batch", **_turn_columns(turns, docs, counts, changed)):
        if any(i in existing for i in ids):
            cur.execute("DELETE FROM turns WHERE id IN (SELECT id FROM turn_batch)")
        cur.execute(
            f"INSERT INTO turns SELECT id, doc, agent, session_id, {_n('parent_session_id')}, "
            f"{_n('project')}, role, kind, text, {_TS.format('ts')}, {_n('path')}, record_id, "
            f"byte_offset, {_n('cwd')}, {_n('model')}, {_n('git_branch')}, length, "
            f"{_TS.format('now')} FROM turn_batch"
        )
    result.postings.append(_write_postings(cur, [int(d) for d in docs], counts))
    result.added.extend(_turn_docs(turns, docs, counts, changed))


def _turn_columns(
    turns: Sequence[Turn],
    docs: np.ndarray,
    counts: Sequence[Mapping[str, int]],
    changed: Sequence[int],
) -> dict[str, np.ndarray]:
    lengths = np.zeros(len(turns), dtype=np.int32)
    for k, c in zip(changed, counts, strict=True):
        lengths[k] = sum(c.values())
    now = _micros([datetime.now(UTC)])[0]
    cols: dict[str, np.ndarray] = {
        f: _objects([getattr(t, f) for t in turns])
        for f in (
            "agent",
            "session_id",
            "parent_session_id",
            "project",
            "role",
            "kind",
            "path",
            "record_id",
            "cwd",
            "model",
            "git_branch",
        )
    }
    cols["text"] = _long_texts([t.text for t in turns])
    cols.update(
        id=_objects([t.id for t in turns]),
        doc=docs,
        ts=_micros([t.timestamp for t in turns]),
        byte_offset=np.asarray([t.offset for t in turns], np.int64),
        length=lengths,
        now=np.full(len(turns), now),
    )
    if changed and len(changed) != len(turns):
        # Lengths of unchanged rows must survive the replace: recompute them from the text.
        for k, t in enumerate(turns):
            if k not in set(changed):
                lengths[k] = sum(term_counts(t.text).values())
    return cols


def _turn_docs(
    turns: Sequence[Turn],
    docs: np.ndarray,
    counts: Sequence[Mapping[str, int]],
    changed: Sequence[int],
) -> list[IndexedDoc]:
    out = []
    for k, c in zip(changed, counts, strict=True):
        t = turns[k]
        facets = {
            "agent": t.agent,
            "session_id": t.session_id,
            "project": t.project,
            "role": t.role,
            "kind": t.kind,
        }
        out.append(
            IndexedDoc(
                int(docs[k]), "turn", t.id, c, sum(c.values()), facets, _ts_epoch(t.timestamp)
            )
        )
    return out


def _write_memories(
    cur: duckdb.DuckDBPyConnection, memories: Sequence[Memory], result: BatchResult
) -> None:
    memories = _dedupe_last(memories, lambda m: m.id)
    if not memories:
        return
    ids = [m.id for m in memories]
    existing = _existing_docs(cur, "memories", ids)
    docs = _allocate_docs(cur, existing, ids, [m.text for m in memories], result)
    counts = [term_counts(m.text) for m in memories]
    changed = [k for k, m in enumerate(memories) if existing.get(m.id, (0, None))[1] != m.text]
    with _scan(cur, "mem_batch", **_memory_columns(memories, docs, counts)):
        if existing:
            cur.execute("DELETE FROM memories WHERE id IN (SELECT id FROM mem_batch)")
        cur.execute(
            "INSERT INTO memories SELECT id, doc, scope, category, text, importance, confidence, "
            "tier, status, CASE WHEN evidence = '' THEN []::VARCHAR[] "
            "ELSE string_split(evidence, chr(31)) END, "
            f"{_TS.format('created_at')}, {_TS.format('updated_at')}, "
            f"{_TS.format('last_accessed_at')}, access_count, source, {_n('rule')}, "
            f"{_n('superseded_by')}, {_n('subject')}, pinned, {_TS.format('valid_until')}, "
            "length FROM mem_batch"
        )
    result.postings.append(
        _write_postings(cur, [int(docs[k]) for k in changed], [counts[k] for k in changed])
    )
    result.added.extend(_memory_docs(memories, docs, counts, changed, existing))


def _memory_columns(
    memories: Sequence[Memory], docs: np.ndarray, counts: Sequence[Mapping[str, int]]
) -> dict[str, np.ndarray]:
    cols = {
        f: _objects(list(map(attrgetter(f), memories)))
        for f in (
            "id",
            "scope",
            "category",
            "tier",
            "status",
            "source",
            "rule",
            "superseded_by",
            "subject",
        )
    }
    cols["text"] = _long_texts([m.text for m in memories])
    for f in ("created_at", "updated_at", "last_accessed_at", "valid_until"):
        cols[f] = _micros(list(map(attrgetter(f), memories)))
    cols.update(
        doc=docs,
        importance=np.asarray([m.importance for m in memories], np.float64),
        confidence=np.asarray([m.confidence for m in memories], np.float64),
        evidence=_objects([_SEP.join(m.evidence) for m in memories]),
        access_count=np.asarray([m.access_count for m in memories], np.int32),
        pinned=np.asarray([m.pinned for m in memories], np.bool_),
        length=np.asarray([sum(c.values()) for c in counts], np.int32),
    )
    return cols


def _memory_docs(
    memories: Sequence[Memory],
    docs: np.ndarray,
    counts: Sequence[Mapping[str, int]],
    changed: Sequence[int],
    existing: Mapping[str, tuple[int, str]],
) -> list[IndexedDoc]:
    """Every written memory is re-announced to the index (its facets, e.g. status, may change
    even when its text does not)."""
    out = []
    for k, (doc, m) in enumerate(zip(docs.tolist(), memories, strict=True)):
        facets = {"scope": m.scope, "category": m.category, "status": m.status, "tier": m.tier}
        out.append(
            IndexedDoc(
                doc,
                "memory",
                m.id,
                counts[k],
                sum(counts[k].values()),
                facets,
                _ts_epoch(m.updated_at),
                m.importance * m.confidence,
            )
        )
    return out


def _delete_docs(
    cur: duckdb.DuckDBPyConnection, table: str, ids: Sequence[str], result: BatchResult
) -> None:
    if not ids:
        return
    existing = _existing_docs(cur, table, ids)
    docs = [doc for doc, _ in existing.values()]
    _drop_postings(cur, docs, prune_terms=True)
    with _scan(cur, "gone_ids", v=_objects(list(existing))):
        cur.execute(f"DELETE FROM {table} WHERE id IN (SELECT v FROM gone_ids)")
    result.removed.extend(docs)


def _write_tool_uses(cur: duckdb.DuckDBPyConnection, uses: Sequence[ToolUse]) -> None:
    if not uses:
        return
    ids = [f"{u.agent}:{u.session_id}:{u.record_id}" for u in uses]
    uses = list({i: u for i, u in zip(ids, uses, strict=True)}.values())
    ids = list(dict.fromkeys(ids))
    with _scan(
        cur,
        "tool_batch",
        id=_objects(ids),
        agent=_objects([u.agent for u in uses]),
        session_id=_objects([u.session_id for u in uses]),
        name=_objects([u.name for u in uses]),
        ts=_micros([u.timestamp for u in uses]),
        files=_objects([_SEP.join(u.files) for u in uses]),
        command=_objects([u.command for u in uses]),
        cwd=_objects([u.cwd for u in uses]),
    ):
        cur.execute("DELETE FROM tool_uses WHERE id IN (SELECT id FROM tool_batch)")
        cur.execute(
            f"INSERT INTO tool_uses SELECT id, agent, session_id, name, {_TS.format('ts')}, "
            "CASE WHEN files = '' THEN []::VARCHAR[] ELSE string_split(files, chr(31)) END, "
            f"{_n('command')}, {_n('cwd')} FROM tool_batch"
        )


def _write_session_captures(cur: duckdb.DuckDBPyConnection, counts: Mapping[str, int]) -> None:
    for session_id, captured in sorted(counts.items()):
        cur.execute("INSERT OR REPLACE INTO session_captures VALUES (?, ?)", [session_id, captured])


def _write_cursors(cur: duckdb.DuckDBPyConnection, cursors: Sequence[Cursor]) -> None:
    cursors = _dedupe_last(cursors, lambda c: c.path)
    if not cursors:
        return
    cols = {
        f: _objects([getattr(c, f) for c in cursors])
        for f in ("path", "agent", "fingerprint", "parser_state")
    }
    cols.update(
        byte_offset=np.asarray([c.byte_offset for c in cursors], np.int64),
        inode=np.asarray([-1 if c.inode is None else c.inode for c in cursors], np.int64),
        skipped=np.asarray([c.skipped for c in cursors], np.int64),
        now=np.full(len(cursors), _micros([datetime.now(UTC)])[0]),
    )
    with _scan(cur, "cursor_batch", **cols):
        cur.execute("DELETE FROM cursors WHERE path IN (SELECT path FROM cursor_batch)")
        cur.execute(
            "INSERT INTO cursors SELECT path, agent, byte_offset, nullif(inode, -1), "
            f"{_n('fingerprint')}, {_n('parser_state')}, skipped, {_TS.format('now')} "
            "FROM cursor_batch"
        )


def _write_capture_queue(
    cur: duckdb.DuckDBPyConnection, turn_ids: Sequence[str], captured_flush: int | None
) -> int | None:
    """Take a captured group off the queue, queue a new one; returns the new group's number."""
    if captured_flush is not None:
        cur.execute("DELETE FROM capture_queue WHERE flush = ?", [captured_flush])
    ids = list(dict.fromkeys(turn_ids))
    if not ids:
        return None
    with _scan(cur, "queued", turn_id=_objects(ids), pos=np.arange(len(ids), dtype=np.int32)):
        # A turn queued again (its text changed before it was captured) is captured once, from
        # its latest text, in the newer group.
        cur.execute("DELETE FROM capture_queue WHERE turn_id IN (SELECT turn_id FROM queued)")
        row = cur.execute("SELECT nextval('capture_flush_seq')").fetchone()
        flush = int(row[0]) if row else 0
        cur.execute("INSERT INTO capture_queue SELECT ?, pos, turn_id FROM queued", [flush])
    return flush


def _naive(value: datetime) -> datetime:
    return value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo else value


def _turn_from_row(row: Sequence[Any]) -> Turn:
    (
        agent,
        session_id,
        role,
        text,
        ts,
        path,
        record_id,
        offset,
        cwd,
        kind,
        model,
        branch,
        parent,
        project,
    ) = row
    return Turn(
        agent=agent,
        session_id=session_id,
        role=role,
        text=text,
        timestamp=_aware(ts),
        path=path or "",
        record_id=record_id,
        offset=int(offset or 0),
        cwd=cwd,
        kind=kind,
        model=model,
        git_branch=branch,
        parent_session_id=parent,
        project=project,
    )


def _memory_from_row(row: Sequence[Any]) -> Memory:
    values = dict(zip(_MEMORY_FIELDS, row, strict=True))
    for name in ("created_at", "updated_at", "last_accessed_at", "valid_until"):
        values[name] = _aware(values[name])
    values["evidence"] = tuple(values["evidence"] or ())
    return Memory(**values)


# ---- lifecycle (issue 7): module helpers ---------------------------------------------------

from datetime import date  # noqa: E402 (kept in this block: other code owns the top imports)

_FIND_ORDER = {
    "updated": " ORDER BY updated_at DESC NULLS LAST, id",
    "created": " ORDER BY created_at DESC NULLS LAST, id",
    "importance": " ORDER BY importance * confidence DESC, updated_at DESC NULLS LAST, id",
    "accessed": " ORDER BY last_accessed_at DESC NULLS LAST, access_count DESC, id",
}
_UNDO_FIELDS = (
    "id",
    "kind",
    "created_at",
    "memory_ids",
    "before_rows",
    "after_rows",
    "summary",
    "undone_at",
)
_UNDO_COLS = ", ".join(_UNDO_FIELDS)
_CONFLICT_FIELDS = (
    "id",
    "a_id",
    "b_id",
    "scope",
    "category",
    "reason",
    "similarity",
    "status",
    "created_at",
    "resolved_at",
    "resolution",
    "undo_id",
)
_CONFLICT_COLS = ", ".join(_CONFLICT_FIELDS)
_FORGET_FIELDS = (
    "id",
    "forgotten_at",
    "selector",
    "memory_ids",
    "memories",
    "turns",
    "tool_uses",
    "checkpoints",
    "purged",
)


def _undo_from_row(row: Sequence[Any]) -> dict[str, Any]:
    entry = dict(zip(_UNDO_FIELDS, row, strict=True))
    for name in ("created_at", "undone_at"):
        entry[name] = _aware(entry[name])
    entry["memory_ids"] = list(entry["memory_ids"] or ())
    return entry


def _lifecycle_id(cur: duckdb.DuckDBPyConnection) -> int:
    row = cur.execute("SELECT nextval('lifecycle_seq')").fetchone()
    assert row is not None
    return int(row[0])


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _delete_in(
    cur: duckdb.DuckDBPyConnection, table: str, column: str, values: Sequence[str]
) -> int:
    if not values:
        return 0
    with _scan(cur, "del_values", v=_objects(values)):
        row = cur.execute(
            f"SELECT count(*) FROM {table} WHERE {column} IN (SELECT v FROM del_values)"
        ).fetchone()
        cur.execute(f"DELETE FROM {table} WHERE {column} IN (SELECT v FROM del_values)")
    return int(row[0]) if row else 0


def _delete_range(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    column: str,
    since: datetime | None,
    until: datetime | None,
) -> int:
    clauses, params = [], []
    for op, value in ((">=", since), ("<", until)):
        if value is not None:
            clauses.append(f"{column} {op} ?")
            params.append(_naive(value))
    if not clauses:
        return 0
    where = " WHERE " + " AND ".join(clauses)
    row = cur.execute(f"SELECT count(*) FROM {table}{where}", params).fetchone()
    cur.execute(f"DELETE FROM {table}{where}", params)
    return int(row[0]) if row else 0


def _sql_str(value: str) -> str:
    return value.replace("'", "''")


def _path_bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _remove_quietly(*paths: Path) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


def _fsync(path: Path) -> None:
    """Flush a file or directory to disk (the rename of a compacted file must be durable)."""
    import os

    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

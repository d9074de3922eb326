"""The batched write path: one transaction per flush, rows handed to DuckDB as numpy columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from operator import attrgetter

import duckdb
import numpy as np

from recallnest.core.errors import (
    StoreError,
)
from recallnest.core.models import Memory, ToolUse, Turn
from recallnest.core.text import term_counts
from recallnest.store.base import (
    StoreBase,
)
from recallnest.store.postings import (
    _allocate_docs,
    _delete_docs,
    _existing_docs,
    _write_postings,
)
from recallnest.store.sql import (
    _SEP,
    _TS,
    _dedupe_last,
    _long_texts,
    _micros,
    _n,
    _objects,
    _scan,
    _ts_epoch,
)
from recallnest.store.types import (
    Batch,
    BatchResult,
    Cursor,
    IndexedDoc,
)


class Writes(StoreBase):
    """The batched write path: one transaction per flush, rows handed to DuckDB as numpy columns."""

    def write(self, batch: Batch) -> BatchResult:
        """Apply one flush atomically: turns, tool uses, memories, deletions and cursors.
        Any database failure (disk full, damaged file) rolls back everything, cursors included,
        and surfaces as StoreError."""
        result = BatchResult()
        changes = bool(batch.memories or batch.deleted_memory_ids)
        try:
            memory_ids = [m.id for m in batch.memories] + list(batch.deleted_memory_ids)
            with self.transaction(changes_resume=changes, memory_ids=memory_ids) as tx:
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

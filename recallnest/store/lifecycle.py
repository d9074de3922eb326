"""The SQL of the memory lifecycle: decay, consolidation, contradictions, undo, events, forgetting
and retention (logic in recallnest.lifecycle; tables from migration m002)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import Any

import duckdb
import numpy as np

from recallnest.core.models import Memory
from recallnest.store.base import (
    StoreBase,
)
from recallnest.store.sql import (
    _MEMORY_COLS,
    _TS,
    _aware,
    _memory_from_row,
    _micros,
    _naive,
    _objects,
    _scan,
    _select_in,
    _where,
)
from recallnest.store.types import conflict_key

# Memories a batch of `memory_batches` holds: ~3 MiB of Memory objects at 1-2 KB a row.
MEMORY_BATCH = 2048


class Lifecycle(StoreBase):
    """The SQL of the memory lifecycle: decay, consolidation, contradictions, undo, events,
    forgetting and retention (logic in recallnest.lifecycle; tables from migration m002)."""

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

    def memory_batches(
        self, filters: Mapping[str, object] | None = None, size: int | None = None
    ) -> Iterator[list[Memory]]:
        """Memories matching equality `filters`, in find_memories' "updated" order, `size`
        (MEMORY_BATCH) at a time: a pass over every memory holds one batch of Memory objects,
        not 100k of them (decision 0032: retier over a whole store peaked at +139 MiB of
        Python objects, and each such peak left CPython's 1 MiB object arenas pinned by a few
        survivors). The caller reads no other result on this thread until it has taken every
        batch."""
        where, params = _where(dict(filters or {}))
        cur = self._cur().execute(
            f"SELECT {_MEMORY_COLS} FROM memories{where}{_FIND_ORDER['updated']}", params
        )
        while rows := cur.fetchmany(size or MEMORY_BATCH):
            yield [_memory_from_row(r) for r in rows]

    def memory_groups(self, filters: Mapping[str, object] | None = None) -> list[tuple[str, str]]:
        """The distinct (scope, category) of the memories matching equality `filters`,
        sorted."""
        where, params = _where(dict(filters or {}))
        sql = f"SELECT DISTINCT scope, category FROM memories{where} ORDER BY scope, category"
        return [(str(s), str(c)) for s, c in self._cur().execute(sql, params).fetchall()]

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

    def add_undo(
        self,
        kind: str,
        memory_ids: Sequence[str],
        before_rows: str,
        after_rows: str,
        summary: str,
        at: datetime,
    ) -> int:
        # No memory a resume reads changes here (the rows it reads are written by the change
        # itself, with their ids): a resume's cached candidates stay patchable across a
        # retier or consolidation slice instead of being read again whole (decision 0038).
        with self._lifecycle_tx(memory_ids=()) as tx:
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
        with self._lifecycle_tx(memory_ids=()) as tx:  # history only: as add_undo
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
        fresh = [r for r in rows if conflict_key(r["a_id"], r["b_id"]) not in known]
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
        return {conflict_key(a, b) for a, b in rows}

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

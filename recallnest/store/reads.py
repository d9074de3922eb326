"""Reads of turns, memories, sessions, checkpoints, cursors and the capture queue."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from datetime import datetime

from recallnest.core.models import Memory, ToolUse, Turn
from recallnest.store.base import (
    StoreBase,
)
from recallnest.store.postings import (
    _existing_docs,
)
from recallnest.store.sql import (
    _COUNT_QUERIES,
    _MEMORY_COLS,
    _RESUME_ORDER,
    _TURN_OBJECT_COLS,
    _aware,
    _memory_from_row,
    _naive,
    _select_in,
    _turn_from_row,
    _where,
)
from recallnest.store.types import (
    Cursor,
)


class Reads(StoreBase):
    """Reads of turns, memories, sessions, checkpoints, cursors and the capture queue."""

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

    def evidence(self, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The evidence (source turn ids) of each known memory id: what a search needs for
        provenance, without reading every hit's text."""
        if not ids:
            return {}
        rows = _select_in(self._cur(), "SELECT id, evidence FROM memories", "id", ids)
        return {str(i): tuple(e or ()) for i, e in rows}

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

    def turns(self, ids: Sequence[str]) -> list[Turn]:
        """The turns with these ids, in the order asked (ids not stored are left out)."""
        if not ids:
            return []
        rows = _select_in(self._cur(), f"SELECT id, {_TURN_OBJECT_COLS} FROM turns", "id", ids)
        by_id = {row[0]: _turn_from_row(row[1:]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

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

    def active_memory_keys(
        self, size: int = 4096
    ) -> Iterator[list[tuple[str, str, str, str, bool]]]:
        """(id, scope, category, text, has superseded_by) of every active memory, `size` at
        a time: what sliced consolidation needs to find the groups with new or changed
        memories, without building 100k Memory objects, nor 100k of these at once (issue
        22, decision 0032). The caller reads no other result on this thread until it has
        taken every batch."""
        cur = self._cur().execute(
            "SELECT id, scope, category, text, superseded_by IS NOT NULL FROM memories "
            "WHERE status = 'active'"
        )
        while rows := cur.fetchmany(size):
            yield [(str(i), str(s), str(c), str(t), bool(x)) for i, s, c, t, x in rows]

"""The SQL of sync (tables from migration m006; logic in recallnest.sync): which memories
changed since they were last reconciled, registers, this machine's logs, cursors, status."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from recallnest.store.base import StoreBase
from recallnest.store.sql import _long_texts, _naive, _objects, _scan

# The synced columns of a memory, as one digest: a row whose digest differs from its shadow's
# changed locally since it was last reconciled. NULLs are spelled, so no two rows collide.
_DIGEST = (
    "md5(concat_ws(chr(31), scope, category, text, importance::VARCHAR, confidence::VARCHAR, "
    "tier, status, coalesce(created_at::VARCHAR, chr(0)), coalesce(updated_at::VARCHAR, chr(0)), "
    "source, coalesce(rule, chr(0)), coalesce(superseded_by, chr(0)), "
    "coalesce(subject, chr(0)), pinned::VARCHAR, coalesce(valid_until::VARCHAR, chr(0))))"
)


def _keep_of(a_id: str, b_id: str, kept: str) -> str:
    """A synced resolution (the id kept, or `both`) as the resolution of the row (a_id, b_id):
    `older` keeps a, `newer` keeps b (sync/resolutions.py)."""
    return "older" if kept == a_id else "newer" if kept == b_id else "both"


def _ids_column(ids: Sequence[str]) -> np.ndarray:
    return _objects(list(ids))


class SyncTables(StoreBase):
    """The SQL of sync: changed memories, registers, own logs, cursors and status."""

    def sync_changes(self) -> tuple[list[str], list[str]]:
        """(memories new or changed since reconciled, ids reconciled but gone from the
        store)."""
        cur = self._cur()
        changed = cur.execute(
            f"SELECT m.id FROM memories m LEFT JOIN sync_shadow s ON s.memory_id = m.id "
            f"WHERE s.digest IS DISTINCT FROM {_DIGEST} ORDER BY m.id"
        ).fetchall()
        gone = cur.execute(
            "SELECT s.memory_id FROM sync_shadow s ANTI JOIN memories m ON m.id = s.memory_id "
            "ORDER BY 1"
        ).fetchall()
        return [r[0] for r in changed], [r[0] for r in gone]

    def sync_shadow(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return {k: json.loads(v) for k, v in self._select_map("sync_shadow", "fields", ids)}

    def _select_map(self, table: str, column: str, ids: Sequence[str]) -> list[tuple[str, str]]:
        if not ids:
            return []
        cur = self._cur()
        with _scan(cur, "_ids", id=_ids_column(ids)):
            rows: list[tuple[str, str]] = cur.execute(
                f"SELECT t.memory_id, t.{column} FROM {table} t JOIN _ids i ON i.id = t.memory_id"
            ).fetchall()
        return rows

    def sync_reconciled(self, fields: Mapping[str, Mapping[str, Any] | None]) -> None:
        """Record memories as reconciled: their shadow is their current row (digest taken from
        the store, so it matches `sync_changes`) with these fields; None drops the shadow."""
        if not fields:
            return
        ids = list(fields)
        keep = [i for i in ids if fields[i] is not None]
        with self.transaction(changes_resume=False) as tx:
            with _scan(tx, "_ids", id=_ids_column(ids)):
                tx.execute("DELETE FROM sync_shadow WHERE memory_id IN (SELECT id FROM _ids)")
            if keep:
                body = _long_texts([json.dumps(fields[i], sort_keys=True) for i in keep])
                with _scan(tx, "_rows", id=_ids_column(keep), body=body):
                    tx.execute(
                        f"INSERT INTO sync_shadow SELECT m.id, {_DIGEST}, r.body FROM _rows r "
                        "JOIN memories m ON m.id = r.id"
                    )

    def sync_registers(self, ids: Sequence[str] | None = None) -> dict[str, str]:
        if ids is None:
            rows = self._cur().execute("SELECT memory_id, state FROM sync_registers").fetchall()
            return dict(rows)
        return dict(self._select_map("sync_registers", "state", ids))

    def sync_put_registers(self, states: Mapping[str, str]) -> None:
        if not states:
            return
        ids = list(states)
        with (
            self.transaction(changes_resume=False) as tx,
            _scan(tx, "_rows", id=_ids_column(ids), body=_long_texts([states[i] for i in ids])),
        ):
            tx.execute("DELETE FROM sync_registers WHERE memory_id IN (SELECT id FROM _rows)")
            tx.execute("INSERT INTO sync_registers SELECT id, body FROM _rows")

    def sync_log_events(self, remote: str, ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """(memory id, event JSON, line) of this machine's log for `remote`, for `ids`."""
        if not ids:
            return []
        cur = self._cur()
        with _scan(cur, "_ids", id=_ids_column(ids)):
            rows: list[tuple[str, str, str]] = cur.execute(
                "SELECT l.memory_id, l.event, l.line FROM sync_log l JOIN _ids i "
                "ON i.id = l.memory_id WHERE l.remote = ? ORDER BY l.stamp",
                [remote],
            ).fetchall()
        return rows

    def sync_log_replace(
        self, remote: str, ids: Sequence[str], rows: Sequence[tuple[int, str, str, str, str]]
    ) -> None:
        """Replace the log rows of `ids` with `rows` (bucket, memory id, stamp, event, line)."""
        with self.transaction(changes_resume=False) as tx:
            if ids:
                with _scan(tx, "_ids", id=_ids_column(ids)):
                    tx.execute(
                        "DELETE FROM sync_log WHERE remote = ? AND memory_id IN "
                        "(SELECT id FROM _ids)",
                        [remote],
                    )
            if rows:
                cols = list(zip(*rows, strict=True))
                with _scan(
                    tx,
                    "_rows",
                    bucket=np.array(cols[0], dtype=np.int32),
                    memory_id=_ids_column(cols[1]),
                    stamp=_ids_column(cols[2]),
                    event=_long_texts(cols[3]),
                    line=_long_texts(cols[4]),
                ):
                    tx.execute(
                        "INSERT INTO sync_log SELECT ?, bucket, memory_id, stamp, event, line "
                        "FROM _rows",
                        [remote],
                    )

    def sync_bucket_lines(self, remote: str, buckets: Iterable[int]) -> dict[int, list[str]]:
        wanted = sorted(set(buckets))
        out: dict[int, list[str]] = {b: [] for b in wanted}
        if not wanted:
            return out
        cur = self._cur()
        with _scan(cur, "_b", b=np.array(wanted, dtype=np.int32)):
            rows = cur.execute(
                "SELECT bucket, line FROM sync_log WHERE remote = ? AND bucket IN "
                "(SELECT b FROM _b) ORDER BY bucket, stamp",
                [remote],
            ).fetchall()
        for bucket, line in rows:
            out[bucket].append(line)
        return out

    def sync_log_size(self, remote: str) -> int:
        row = self._cur().execute("SELECT count(*) FROM sync_log WHERE remote = ?", [remote])
        return int(row.fetchone()[0])  # type: ignore[index]  # count(*) always returns a row

    def sync_cursors(self, remote: str) -> dict[str, str]:
        rows = (
            self._cur()
            .execute("SELECT path, version FROM sync_cursors WHERE remote = ?", [remote])
            .fetchall()
        )
        return dict(rows)

    def sync_set_cursors(self, remote: str, versions: Mapping[str, str | None]) -> None:
        if not versions:
            return
        with self.transaction(changes_resume=False) as tx:
            for path, version in versions.items():
                tx.execute("DELETE FROM sync_cursors WHERE remote = ? AND path = ?", [remote, path])
                if version is not None:
                    tx.execute("INSERT INTO sync_cursors VALUES (?, ?, ?)", [remote, path, version])

    def sync_meta(self, remote: str) -> dict[str, str]:
        rows = (
            self._cur()
            .execute("SELECT key, value FROM sync_meta WHERE remote = ?", [remote])
            .fetchall()
        )
        return dict(rows)

    def sync_set_meta(self, remote: str, values: Mapping[str, str]) -> None:
        with self.transaction(changes_resume=False) as tx:
            for key, value in values.items():
                tx.execute("DELETE FROM sync_meta WHERE remote = ? AND key = ?", [remote, key])
                tx.execute("INSERT INTO sync_meta VALUES (?, ?, ?)", [remote, key, value])

    def sync_local_scopes(self, portable_only: bool = False) -> list[str]:
        """The scopes of this machine's memories and the projects it has worked in (activity
        days); `portable_only`: only memory scopes that are portable ids (`name:`, `git:`,
        `root:`, `path:`) no local project claimed yet."""
        cur = self._cur()
        if portable_only:
            rows = cur.execute(
                "SELECT DISTINCT scope FROM memories WHERE scope LIKE 'name:%' OR scope LIKE "
                "'git:%' OR scope LIKE 'root:%' OR scope LIKE 'path:%' ORDER BY 1"
            ).fetchall()
        else:
            rows = cur.execute(
                "SELECT scope FROM memories UNION SELECT project FROM activity_days "
                "WHERE project <> '' ORDER BY 1"
            ).fetchall()
        return [r[0] for r in rows]

    def sync_scope_ids(self, scope: str) -> list[str]:
        rows = self._cur().execute("SELECT id FROM memories WHERE scope = ?", [scope])
        return [r[0] for r in rows.fetchall()]

    def sync_resolved_conflicts(self) -> list[tuple[str, str, str]]:
        """(a_id, b_id, resolution) of every resolved conflict."""
        rows = self._cur().execute(
            "SELECT a_id, b_id, resolution FROM conflicts WHERE status = 'resolved' "
            "AND resolution IS NOT NULL ORDER BY id"
        )
        return [(a, b, r) for a, b, r in rows.fetchall()]

    def sync_put_resolutions(self, rows: Sequence[tuple[str, str, str]], at: datetime) -> int:
        """Conflicts resolved on another machine, (low id, high id, id kept or `both`): the
        pair's row here resolved alike, or a resolved row added (so it is never flagged);
        how many rows changed."""
        changed = 0
        with self.transaction() as tx:
            for low, high, kept in rows:
                found = tx.execute(
                    "SELECT id, a_id, b_id, status, resolution FROM conflicts WHERE "
                    "(a_id = ? AND b_id = ?) OR (a_id = ? AND b_id = ?) ORDER BY id LIMIT 1",
                    [low, high, high, low],
                ).fetchone()
                if found is None:
                    mem = tx.execute(
                        "SELECT scope, category FROM memories WHERE id IN (?, ?) ORDER BY id "
                        "LIMIT 1",
                        [low, high],
                    ).fetchone()
                    if mem is None:
                        continue  # neither memory is here (forgotten, or not synced yet)
                    seq = tx.execute("SELECT nextval('lifecycle_seq')").fetchone()
                    tx.execute(
                        "INSERT INTO conflicts VALUES (?, ?, ?, ?, ?, 'resolved on another "
                        "machine', NULL, 'resolved', ?, ?, ?, NULL)",
                        [seq[0] if seq else None, low, high, mem[0], mem[1], _naive(at),
                         _naive(at), _keep_of(low, high, kept)],
                    )  # fmt: skip
                    changed += 1
                    continue
                conflict_id, a_id, b_id, status, resolution = found
                keep = _keep_of(a_id, b_id, kept)
                if status != "resolved" or resolution != keep:
                    tx.execute(
                        "UPDATE conflicts SET status = 'resolved', resolution = ?, "
                        "resolved_at = ? WHERE id = ?",
                        [keep, _naive(at), conflict_id],
                    )
                    changed += 1
        return changed

    def sync_forget_remote(self, remote: str) -> None:
        with self.transaction(changes_resume=False) as tx:
            for table in ("sync_log", "sync_cursors", "sync_meta"):
                tx.execute(f"DELETE FROM {table} WHERE remote = ?", [remote])

"""SQL fragments and row conversions shared by the store's modules: column lists, numpy column
builders for registered scans, timestamp encoding, row → model."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np

from recallnest.core.models import Memory, Turn

_SEP = "\x1f"


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


# The columns `_turn_from_row` reads, in its order.
_TURN_OBJECT_COLS = (
    "agent, session_id, role, text, ts, path, record_id, byte_offset, cwd, kind, model, "
    "git_branch, parent_session_id, project"
)


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


# Where the literal list stops paying: at 100k memories, 100 literals 9 ms and 200 25 ms against
# the scan's 25 ms whatever the count (bench/RESULTS.md, web UI pages, 2026-12-04).
_IN_LIST_MAX = 150


def _select_in(
    cur: duckdb.DuckDBPyConnection, select: str, column: str, values: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Rows whose `column` is one of `values`. A short list (a search's hits) goes in as quoted
    literals, which DuckDB answers from the primary-key index: 3 ms instead of a 25-40 ms hash
    join against a registered scan at 100k rows (measured under load, bench_search.py); the
    index lookups grow with the list, the scan does not (_IN_LIST_MAX)."""
    if len(values) <= _IN_LIST_MAX and all(isinstance(v, str) and "\x00" not in v for v in values):
        literals = ", ".join("'" + v.replace("'", "''") + "'" for v in values)
        return cur.execute(f"{select} WHERE {column} IN ({literals})").fetchall()
    with _scan(cur, "in_values", v=_objects(values)):
        return cur.execute(f"{select} WHERE {column} IN (SELECT v FROM in_values)").fetchall()


def _where(filters: Mapping[str, object]) -> tuple[str, list[object]]:
    clauses = [f"{name} = ?" for name, value in filters.items() if value is not None]
    params = [value for value in filters.values() if value is not None]
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _dedupe_last(items: Sequence[Any], key: Any) -> list[Any]:
    """Last write wins within one batch (a split message re-emitted with more text)."""
    return list({key(item): item for item in items}.values())


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

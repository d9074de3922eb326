"""The memory list's default order (newest update first) from the in-memory index.

`memories.find` sorted by `updated` is the web UI's list page. In SQL it is a top-N over
every row, and DuckDB reads the whole text column to return 100 of them (~20 ms at 100k
memories, several times that on a loaded machine). The index already holds each memory's
scope, category, status, tier and updated_at (every memory write re-announces them), so it
picks the candidates and the store reads only those rows by key. The rows read back are the
truth: any disagreement with the index (a row gone, a facet changed) falls back to SQL.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from recallnest.core.models import Memory
from recallnest.retrieval.index import Filter

if TYPE_CHECKING:
    from recallnest.lifecycle.host import LifecycleHost

# The facets the index holds; any other filter (pinned, source, a date range) goes to SQL.
FACETS = ("scope", "category", "status", "tier")
# Rows read by key in one IN list (store.sql._IN_LIST_MAX); past it a scan costs the same.
MAX_ROWS = 150


def newest_memories(
    host: LifecycleHost, filters: Mapping[str, object], limit: int
) -> list[Memory] | None:
    """The `limit` memories matching `filters` by updated_at descending (NULL last), then id,
    as `Store.find_memories(filters, order="updated", limit=limit)` returns them; None when
    the index cannot answer (other filters, too many rows or ties, a disagreement)."""
    wanted = {k: v for k, v in filters.items() if v is not None}
    if not 0 < limit <= MAX_ROWS or set(wanted) - set(FACETS):
        return None
    equals = {k: str(v) for k, v in wanted.items()}
    ids = host.index.newest(Filter(kinds=("memory",), equals=equals), limit)
    if len(ids) > MAX_ROWS:
        return None  # many rows share the k-th time (a bulk import): SQL orders them
    rows = host.store.memories(ids)
    if len(rows) != len(ids) or any(_facets(m, wanted) != wanted for m in rows):
        return None
    rows.sort(key=_updated_first)
    return rows[:limit]


def _facets(m: Memory, wanted: Mapping[str, object]) -> dict[str, object]:
    held = {"scope": m.scope, "category": m.category, "status": m.status, "tier": m.tier}
    return {k: held[k] for k in wanted}


def _updated_first(m: Memory) -> tuple[bool, float, str]:
    if m.updated_at is None:
        return (True, 0.0, m.id)
    return (False, -m.updated_at.timestamp(), m.id)

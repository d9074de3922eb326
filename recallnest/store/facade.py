"""The Store: one class over the store's modules, every public method guarded.

Constraints (DUCKDB-NOTES.md):
- One process holds the file read-write; while it does, no other process can open it at all,
  not even read-only. A second opener gets StoreLockedError naming the holder's PID.
- Writes are batched: one transaction per flush, rows handed to DuckDB as numpy columns
  (registered scans), never autocommit loops (190 rows/s) or executemany.
- Keyword postings are written in the same transaction as their record, so search is fresh.
- No persisted HNSW index (experimental in 1.5.5, corrupts on crash); vectors live in a plain
  table and are searched by brute force in memory (see retrieval/index.py).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import duckdb

from recallnest.core.errors import StoreError
from recallnest.store.audit import Audit
from recallnest.store.compaction import Compaction
from recallnest.store.connection import REPAIR_HINT
from recallnest.store.dashboard import Dashboard
from recallnest.store.id_map import Rekeying
from recallnest.store.lifecycle import Lifecycle
from recallnest.store.loading import IndexLoading
from recallnest.store.reads import Reads
from recallnest.store.sync import SyncTables
from recallnest.store.vectors import Vectors
from recallnest.store.write import Writes

_C = TypeVar("_C", bound=type)


# Reads of one call at most: each again only after an eviction window overlapped the last.
OOM_ATTEMPTS = 4


def _outlasting_evictions(
    store: Store, method: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """`method`, read again while it runs out of memory because release_memory had the limit
    lowered (it holds no reader back). Trigger: DuckDB's OutOfMemoryException, and a window
    was open when this attempt began or opened since (`Store.evictions` moved once it
    closed). Why: a first search right after catch-up failed at the 16 MiB floor
    (bench/RESULTS.md round five) although the read was retried once: two releases back to
    back (the index load's, the idle tick's) can put the retry in the second window.
    Outcome: the read waits for the window to close and runs again; an out-of-memory with
    no window since the attempt began is real and is raised."""
    for attempt in range(1, OOM_ATTEMPTS + 1):
        seen = store.evictions
        try:
            return method(store, *args, **kwargs)
        except duckdb.OutOfMemoryException:
            with store.evicting:  # the window, if one is open, closes first
                overlapped = store.evictions != seen
            if not overlapped or attempt == OOM_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return _outlasting_evictions(self, method, *args, **kwargs)
        except duckdb.Error as exc:
            hint = (
                REPAIR_HINT if isinstance(exc, duckdb.IOException | duckdb.FatalException) else ""
            )
            raise StoreError(f"database {self.path}: {exc}{hint}") from exc

    return call


def _guard_public(cls: _C) -> _C:
    """Every public method, whichever module defines it, raises StoreError, never one of
    duckdb's exceptions: a damaged block (checksum mismatch) or an invalidated database (after
    a failed checkpoint) surfaces on whichever read touches it first, and callers outside the
    store cannot name duckdb's classes. Context managers (`transaction`) are wrapped
    harmlessly: their SQL runs later. The first definition along the MRO is the one wrapped."""
    done: set[str] = set()
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            if name in done or not inspect.isfunction(member):
                continue
            done.add(name)
            if name == "__init__" or not name.startswith("_"):
                setattr(cls, name, _guarded(member))
    return cls


@_guard_public
class Store(
    Reads,
    Writes,
    IndexLoading,
    Vectors,
    Lifecycle,
    Compaction,
    Audit,
    SyncTables,
    Rekeying,
    Dashboard,
):
    """One DuckDB connection (read-write unless `read_only`), migrated on open."""

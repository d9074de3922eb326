"""The connection a Store owns: a cursor per thread, transactions with after-commit callbacks, the
resume generation, migrations and the WAL flush."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import duckdb

from recallnest.core.errors import (
    MigrationError,
    StoreError,
)
from recallnest.store.connection import (
    _connect,
)
from recallnest.store.migrations import MIGRATIONS
from recallnest.store.sql import (
    _utcnow,
)
from recallnest.store.types import (
    DB_MEMORY_MB,
)

# Commits `changes_since` can describe; older ones make a reader start again from scratch.
log = logging.getLogger(__name__)

CHANGE_LOG = 256
# release_memory's momentary memory_limit: what DuckDB keeps cached while the daemon is quiet.
# 64 MiB until decision 0027; 16 keeps the blocks a search or a resume reads again (measured in
# bench/RESULTS.md "Memory footprint, round three").
RELEASE_FLOOR_MB = 16
RELEASE_WAIT_SECONDS = 5.0  # release_memory's longest wait for the write lock


CHECKPOINT_WAIT_SECONDS = 10.0  # checkpoint's longest wait for other write transactions


def checkpoint(cur: duckdb.DuckDBPyConnection) -> None:
    """DuckDB CHECKPOINT, waiting for other threads' write transactions to end. DuckDB refuses
    a CHECKPOINT while one is open ("other write transactions active"): with the daemon's
    threads writing (read counts, vectors), `forget --purge` and `lifecycle size` failed
    about one run in three on a busy machine (tests/server/test_ops_parity.py). Those
    transactions are short and never wait for ours, so a retry succeeds; FORCE CHECKPOINT
    would abort them instead."""
    deadline = time.monotonic() + CHECKPOINT_WAIT_SECONDS
    pause = 0.01
    while True:
        try:
            cur.execute("CHECKPOINT")
            return
        except duckdb.TransactionException as exc:
            if "other write transactions" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


class StoreBase:
    """The connection a Store owns: a cursor per thread, transactions with after-commit callbacks,
    the resume generation, migrations and the WAL flush."""

    # Bumped as each eviction window of release_memory opens and again as it closes (odd: one
    # is open). A read that ran out of memory reads again only when it moved since the read
    # began (facade._outlasting_evictions): it outlasts windows back to back, and a real
    # out-of-memory still fails at once. A class default: the guarded __init__ reads it first.
    evictions = 0

    def __init__(self, path: Path, read_only: bool = False, memory_mb: int = DB_MEMORY_MB) -> None:
        self.path = path
        self.read_only = read_only
        self.memory_mb = memory_mb
        self._con = _connect(path, read_only, memory_mb)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        # Held while memory_limit is lowered to evict DuckDB's cache (release_memory): a read
        # on another cursor that ran out of memory in that window waits for it and retries.
        self.evicting = threading.Lock()
        # Bumped by every committed write that may change what a resume context shows
        # (memories, checkpoints, lifecycle rows); readers cache what they derive under it.
        # Writes that cannot change it (turns alone, vectors, cursors, read counts) pass
        # `changes_resume=False`: a resume records its reads, and must not void its own cache.
        self.generation = 0
        # What each of the last commits that bumped it changed: the memory ids, when every
        # write in the transaction named them, else None (anything else: a checkpoint, a
        # forget, an audit rewrite). A reader holding derived data under an older generation
        # patches it from these ids instead of reading everything again (`changes_since`).
        self._changes: deque[tuple[int, frozenset[str] | None]] = deque(maxlen=CHANGE_LOG)
        # Its own lock, not the writer's: a resume reading the log must not wait for a batch
        # being written (the hook's path), only for the few lines that bump and log.
        self._changes_lock = threading.Lock()
        # The web UI's aggregates, each with the key it was computed under (store/dashboard.py).
        self._memo: dict[str, tuple[object, object]] = {}
        self.migrated: list[str] = []  # the migrations this open applied
        if not read_only:
            path.chmod(0o600)
            self._migrate()

    def close(self) -> None:
        self._con.close()

    def _cur(self) -> duckdb.DuckDBPyConnection:
        """A cursor per thread: DuckDB connections are not shared across threads."""
        cur: duckdb.DuckDBPyConnection | None = getattr(self._local, "cur", None)
        if cur is None:
            cur = self._con.cursor()
            self._local.cur = cur
        return cur

    @contextmanager
    def transaction(
        self, changes_resume: bool = True, memory_ids: Collection[str] | None = None
    ) -> Iterator[duckdb.DuckDBPyConnection]:
        """One transaction; inside `atomic()` on this thread, part of the outer one.
        `memory_ids`: the only resume-visible rows it changes (the memory write path says so;
        any other resume-changing write leaves it None, which `changes_since` reads as
        "anything may have changed")."""
        with self._write_lock:
            cur = self._cur()
            nested = getattr(self._local, "after", None) is not None
            if not nested:
                self._local.changed = set()
            if changes_resume:
                changed: set[str] | None = self._local.changed
                if memory_ids is None or changed is None:
                    self._local.changed = None
                else:
                    changed.update(memory_ids)
            if nested:
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
                changed = self._local.changed
                with self._changes_lock:
                    self.generation += 1
                    self._changes.append(
                        (self.generation, None if changed is None else frozenset(changed))
                    )
            for callback in after:  # still under the lock: in commit order
                callback()

    def changes_since(self, generation: int) -> frozenset[str] | None:
        """The memory ids changed by the commits after `generation`, or None when one of them
        changed something else too, or when the log no longer reaches back that far."""
        with self._changes_lock:
            if generation == self.generation:
                return frozenset()
            log = [entry for entry in self._changes if entry[0] > generation]
            if not log or log[0][0] != generation + 1:
                return None
            ids: set[str] = set()
            for _, changed in log:
                if changed is None:
                    return None
                ids |= changed
            return frozenset(ids)

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
                self.migrated.append(migration.__name__)
            except duckdb.Error as exc:
                raise MigrationError(f"migration {migration.__name__} failed: {exc}") from exc

    def applied_migrations(self) -> list[str]:
        rows = self._cur().execute("SELECT name FROM _migrations ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def tables(self) -> list[str]:
        """The tables this database holds (an older schema holds fewer)."""
        rows = self._cur().execute("SELECT table_name FROM duckdb_tables()").fetchall()
        return [str(r[0]) for r in rows]

    def flush_wal(self) -> None:
        """DuckDB CHECKPOINT: write the WAL into the database file (not a session checkpoint)."""
        with self._write_lock:
            checkpoint(self._cur())

    def buffer_memory(self) -> dict[str, int]:
        """Bytes DuckDB's buffer manager holds now, by tag (duckdb_memory(); issue 22)."""
        rows = (
            self._cur()
            .execute(
                "SELECT tag, memory_usage_bytes FROM duckdb_memory() WHERE memory_usage_bytes > 0"
            )
            .fetchall()
        )
        return {str(tag): int(used) for tag, used in rows}

    def release_memory(self, floor_mb: int = RELEASE_FLOOR_MB) -> bool:
        """Evict DuckDB's cached blocks after a large read (the index load, a maintenance
        pass) by lowering memory_limit to `floor_mb` for one statement, then restoring
        it. Why (issue 22): after the index load DuckDB held ~450 MiB (its block cache and
        the allocator behind it) that nothing read again; a later read of an evicted block
        re-reads it from the file. A failure to evict leaves the limit restored and is not an
        error: this only saves memory. False when the store stayed busy and nothing was
        released."""
        if self.memory_mb <= floor_mb:
            return True
        # No write of ours runs under the lowered limit. The wait is bounded: a store busy
        # for longer skips this release (the caller may try again).
        if not self._write_lock.acquire(timeout=RELEASE_WAIT_SECONDS):
            return False
        cur = self._cur()
        try:
            with self.evicting:
                self.evictions += 1  # before the limit drops: a read failing now sees it
                try:
                    cur.execute(f"SET memory_limit = '{int(floor_mb)}MiB'")
                except duckdb.Error as exc:
                    log.debug("could not evict DuckDB's buffer: %s", exc)
                finally:
                    cur.execute(f"SET memory_limit = '{int(self.memory_mb)}MiB'")
                    self.evictions += 1
        finally:
            self._write_lock.release()
        return True

    @contextmanager
    def write_locked(self) -> Iterator[None]:
        """Hold the writer lock across read, check and write: lifecycle changes verify that the
        rows they replace did not change since they were read (a capture may race them)."""
        with self._write_lock:
            yield

    @contextmanager
    def _lifecycle_tx(
        self, changes_resume: bool = True, memory_ids: Collection[str] | None = None
    ) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            with self.transaction(changes_resume, memory_ids) as tx:
                yield tx
        except duckdb.Error as exc:
            raise StoreError(f"write failed, nothing was stored: {exc}") from exc

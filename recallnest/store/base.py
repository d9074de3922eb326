"""The connection a Store owns: a cursor per thread, transactions with after-commit callbacks, the
resume generation, migrations and the WAL flush."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
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


class StoreBase:
    """The connection a Store owns: a cursor per thread, transactions with after-commit callbacks,
    the resume generation, migrations and the WAL flush."""

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

    def tables(self) -> list[str]:
        """The tables this database holds (an older schema holds fewer)."""
        rows = self._cur().execute("SELECT table_name FROM duckdb_tables()").fetchall()
        return [str(r[0]) for r in rows]

    def flush_wal(self) -> None:
        """DuckDB CHECKPOINT: write the WAL into the database file (not a session checkpoint)."""
        with self._write_lock:
            self._cur().execute("CHECKPOINT")

    @contextmanager
    def write_locked(self) -> Iterator[None]:
        """Hold the writer lock across read, check and write: lifecycle changes verify that the
        rows they replace did not change since they were read (a capture may race them)."""
        with self._write_lock:
            yield

    @contextmanager
    def _lifecycle_tx(self, changes_resume: bool = True) -> Iterator[duckdb.DuckDBPyConnection]:
        try:
            with self.transaction(changes_resume) as tx:
                yield tx
        except duckdb.Error as exc:
            raise StoreError(f"write failed, nothing was stored: {exc}") from exc

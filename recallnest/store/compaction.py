"""Table sizes and compaction: rewriting the file without its dead blocks."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import duckdb

from recallnest.core.errors import (
    StoreError,
)
from recallnest.store.base import (
    StoreBase,
    checkpoint,
)
from recallnest.store.connection import (
    _connect,
)
from recallnest.store.postings import (
    _drop_unused_terms,
)
from recallnest.store.sql import (
    _fsync,
    _path_bytes,
    _remove_quietly,
    _sql_str,
)
from recallnest.store.types import FileCompaction


class Compaction(StoreBase):
    """Table sizes and compaction: rewriting the file without its dead blocks."""

    def file_bytes(self) -> int:
        """The database file's size on disk (0 while it is being replaced)."""
        return _path_bytes(self.path)

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

    def compact(self) -> FileCompaction:
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
                checkpoint(cur)
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
        return FileCompaction(before, after, round(time.perf_counter() - started, 3))

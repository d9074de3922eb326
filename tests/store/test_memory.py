"""What the store holds in memory (issue 22): DuckDB's buffer by tag, and evicting it after a
large read without changing the configured memory_limit."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import duckdb
import pytest

from recallnest.core.errors import StoreError
from recallnest.core.models import Memory
from recallnest.store import Batch, Store, base, facade

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def memories(n: int) -> list[Memory]:
    return [
        Memory(
            id=f"m{k:05d}",
            scope="global",
            category="cases",
            text=f"memory {k} about the deploy script, the retry policy and port {k} " * 8,
            importance=0.5,
            confidence=0.8,
            created_at=T0,
            updated_at=T0,
            source="capture",
            rule="test",
        )
        for k in range(n)
    ]


def limit(store: Store) -> object:
    row = store._cur().execute("SELECT current_setting('memory_limit')").fetchone()
    return row[0] if row else None


def test_release_memory_evicts_the_buffer_and_keeps_the_limit(store: Store) -> None:
    store.write(Batch(memories=memories(4_000)))
    store.flush_wal()
    store._cur().execute("SELECT sum(length(text)) FROM memories").fetchall()  # fill the cache
    before = sum(store.buffer_memory().values())
    configured = limit(store)
    store.release_memory(floor_mb=1)
    after = sum(store.buffer_memory().values())
    assert before > 1024 * 1024
    assert after < before / 2
    assert limit(store) == configured
    with store.index_snapshot(None) as snapshot:
        assert len(snapshot.rows["memory"]["doc"]) == 4_000  # read again


def test_a_busy_store_skips_the_release_and_says_so(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "RELEASE_WAIT_SECONDS", 0.05)
    store.write(Batch(memories=memories(4_000)))
    store._cur().execute("SELECT sum(length(text)) FROM memories").fetchall()
    before = sum(store.buffer_memory().values())
    held, done = threading.Event(), threading.Event()

    def writer() -> None:
        with store.write_locked():
            held.set()
            done.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(10)
        assert store.release_memory(floor_mb=1) is False
        assert sum(store.buffer_memory().values()) == before  # nothing was evicted
    finally:
        done.set()
        thread.join()
    assert store.release_memory(floor_mb=1) is True
    assert sum(store.buffer_memory().values()) < before / 2


def test_a_read_that_runs_out_of_memory_during_a_release_waits_and_reads_again(
    store: Store,
) -> None:
    """release_memory lowers the database-wide limit for a moment; a read on another cursor
    in that window ran out of memory and failed a user's request (the prompt bench's first
    resume, right after the index load). It now waits for the release and reads again. The
    window is held open here exactly as release_memory holds it."""
    store.write(Batch(memories=memories(4000)))
    found: list[int] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            found.append(len(store.find_memories({"status": "active"})))
        except BaseException as exc:  # collected: the assertion below names it
            errors.append(exc)

    with store.evicting:
        store.evictions += 1  # as release_memory opens its window
        for mb in (1, 2, 4, 8, 16):  # the lowest limit DuckDB accepts with this data cached
            try:
                store._cur().execute(f"SET memory_limit = '{mb}MiB'")
                break
            except duckdb.OutOfMemoryException:
                continue
        reader = threading.Thread(target=read)
        reader.start()
        reader.join(timeout=0.5)  # it ran out of memory and now waits for the release
        still_waiting = reader.is_alive()
        store._cur().execute(f"SET memory_limit = '{store.memory_mb}MiB'")
        store.evictions += 1
    reader.join()
    assert still_waiting and not errors and found == [4000], errors[:1]


def _read_in_windows(store: Store, windows: int) -> tuple[Callable[..., Any], list[int]]:
    """A store read that runs out of memory in each of `windows` release windows, one after
    another (each attempt overlaps a window, as release_memory opens and closes it), then
    answers."""
    calls: list[int] = []

    def read(self: Store) -> str:
        calls.append(1)
        if len(calls) <= windows:
            self.evictions += 2  # a window opened and closed while this attempt ran
            raise duckdb.OutOfMemoryException("could not allocate block (15.8/16.0 MiB used)")
        return "rows"

    return facade._guarded(read), calls


def test_a_read_outlasts_release_windows_back_to_back(store: Store) -> None:
    """A first search right after catch-up failed although its read was retried once (round
    five): the index load's release and the idle tick's came back to back, and the retry ran
    in the second window. Each attempt that overlapped a window is read again."""
    read, calls = _read_in_windows(store, windows=2)
    assert read(store) == "rows"
    assert len(calls) == 3


def test_a_real_out_of_memory_is_not_retried(store: Store) -> None:
    """No window opened while the read ran: the store is really out of memory, and says so
    at once."""
    calls: list[int] = []

    def read(self: Store) -> str:
        calls.append(1)
        raise duckdb.OutOfMemoryException("could not allocate block")

    with pytest.raises(StoreError, match="could not allocate"):
        facade._guarded(read)(store)
    assert len(calls) == 1


def test_reads_again_a_bounded_number_of_times(store: Store) -> None:
    read, calls = _read_in_windows(store, windows=facade.OOM_ATTEMPTS + 5)
    with pytest.raises(StoreError, match="could not allocate"):
        read(store)
    assert len(calls) == facade.OOM_ATTEMPTS


def test_release_memory_counts_its_window(store: Store) -> None:
    """Open and closed again: a read that began before the release sees the count move."""
    store.write(Batch(memories=memories(400)))
    before = store.evictions
    assert store.release_memory(floor_mb=1) is True
    assert store.evictions == before + 2


def test_duckdb_returns_freed_pages_from_a_background_thread(store: Store) -> None:
    """jemalloc purges freed pages only when called again unless its background thread runs:
    an idle daemon kept ~55 MiB of them after a pass (decision 0027)."""
    row = store._cur().execute("SELECT current_setting('allocator_background_threads')").fetchone()
    assert row is not None and row[0] is True


def test_passes_over_every_memory_read_them_a_batch_at_a_time(store: Store) -> None:
    """Retier and consolidation's planning read the memories in batches (decision 0032): the
    same rows in find_memories' order, never the whole table as Python objects at once."""
    rows = [
        Memory(**{**vars_of(m), "scope": f"/p/{k % 3}", "updated_at": T0.replace(day=1 + k % 9)})
        for k, m in enumerate(memories(50))
    ]
    store.write(Batch(memories=rows))
    batches = list(store.memory_batches({"status": "active"}, size=7))
    assert [len(b) for b in batches] == [7] * 7 + [1]
    assert [m for b in batches for m in b] == store.find_memories({"status": "active"})
    one = [m for b in store.memory_batches({"scope": "/p/1"}, size=4) for m in b]
    assert one == store.find_memories({"scope": "/p/1"})
    assert store.memory_groups({"status": "active"}) == [(f"/p/{k}", "cases") for k in range(3)]
    keys = [k for b in store.active_memory_keys(size=16) for k in b]
    assert sorted(k[0] for k in keys) == sorted(m.id for m in rows)


def vars_of(m: Memory) -> dict[str, object]:
    return {f: getattr(m, f) for f in m.__slots__}

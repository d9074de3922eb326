"""Recovering from a damaged database, and the memory backup that makes it possible.

`recallnest repair` moves the database file (and its WAL) aside as
`recallnest.duckdb.damaged-<UTC time>`, creates a fresh one, re-ingests every transcript under
the watched roots (cursors start from zero; turn ids are deterministic, so nothing is counted
twice) and restores the memories, from the first of:
  1. `--from-export FILE` (a `recallnest export` file),
  2. the damaged file itself, when its memories table still reads back whole,
  3. the daemon's backup `<home>/backups/memories-latest.jsonl` (`write_backup`: at most
     hourly, and when the daemon stops),
then the memory journal (journal.py) is replayed over 2 or 3: every memory write since that
backup, so memories come back up to the last write and forgotten ones stay forgotten.
Memories restored that way keep their ids, and the exported state wins over what re-ingestion
captured again. The damaged file is kept, never modified.

The daemon must not run: it owns the database. Repair holds the daemon's pid lock while it
works, so a service manager cannot start one half-way through.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest.core.aliases import canonical
from recallnest.core.config import Settings
from recallnest.core.errors import DaemonError, RecallnestError, StoreError, StoreLockedError
from recallnest.core.models import Memory, memory_id_of_basis
from recallnest.core.paths import db_path, ensure_home
from recallnest.server.backup import backup_path, read_export, write_backup
from recallnest.store.journal import Journal, replay

if TYPE_CHECKING:
    from recallnest.server.backfill import Backfill

DAMAGED_INFIX = ".damaged-"


@dataclass(frozen=True, slots=True)
class Intact:
    """The database read back whole, and no rebuild was forced: nothing was done."""

    repaired: bool = field(default=False, init=False)
    detail: str


@dataclass(frozen=True, slots=True)
class Repaired:
    """A rebuild: what was wrong, where the old file went, where the memories came from
    (None: nowhere), what re-ingesting the transcripts read and captured, and how many
    memories were restored."""

    repaired: bool = field(default=True, init=False)
    problem: str
    moved_to: str | None
    memories_from: str | None
    files: int
    turns: int
    captured_memories: int
    memories_restored: int
    errors: list[str]


# ---- health ---------------------------------------------------------------------------------


def check_database(path: Path) -> str | None:
    """None when the database at `path` opens and every table reads back whole (DuckDB
    verifies each block's checksum as it reads it); otherwise what failed, in one line.
    Raises StoreLockedError when another process holds the file."""
    from recallnest.store import Store

    try:
        store = Store(path, read_only=True)
    except StoreLockedError:
        raise
    except StoreError as exc:
        return str(exc)
    try:
        store.counts()
        store.cursors()
        store.index_rows()
        store.postings()
        store.list_memories(status=None)
        for _ in store.text_rows():
            pass
    # A health probe: whatever a damaged file raises is the answer (Store methods raise
    # StoreError; anything else a damaged file causes is an answer too).
    except Exception as exc:
        return _one_line(exc)
    finally:
        store.close()
    return None


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


# ---- repair ---------------------------------------------------------------------------------


def repair(
    settings: Settings,
    from_export: Path | None = None,
    force: bool = False,
    on_file: Callable[[int, int], None] | None = None,
) -> Intact | Repaired:
    """Rebuild the database when it is damaged (or always, with `force`). See the module
    docstring for what is restored from where."""
    from recallnest.server.client import daemon_answers
    from recallnest.server.pidfile import pid_lock

    home = ensure_home(settings.home)
    if daemon_answers(settings):
        raise DaemonError("stop the daemon first (`recallnest daemon stop`): it holds the database")
    records = read_export(from_export) if from_export else None
    with pid_lock(home):
        db = db_path(home)
        problem = check_database(db) if db.exists() else "no database file"
        if problem is None and not force:
            return Intact(f"{db} reads back whole: nothing to repair (--force rebuilds anyway)")
        moved = _move_aside(db)
        source = f"export {from_export}" if from_export else None
        if records is None and moved is not None:
            records, source = _salvage(moved)
        if records is None and backup_path(home).exists():
            records, source = read_export(backup_path(home)), f"backup {backup_path(home)}"
        forgotten: set[str] = set()
        entries = Journal(home).entries() if from_export is None else []
        if entries:
            records, forgotten = replay(records or [], entries)
            source = f"{source or 'nothing'} + journal ({len(entries)} writes)"
        report, restored = _rebuild(settings, records or [], forgotten, on_file)
    return Repaired(
        problem=problem or "rebuild forced",
        moved_to=str(moved) if moved else None,
        memories_from=source if records is not None else None,
        files=report.files,
        turns=report.new_turns,
        captured_memories=report.memories,
        memories_restored=restored,
        errors=report.errors,
    )


def _move_aside(db: Path) -> Path | None:
    """Rename the database and its WAL to `<name>.damaged-<UTC time>[.wal]`; None if there
    was no database file. The WAL must go too (even alone): DuckDB would replay it into the
    fresh database."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = db.with_name(f"{db.name}{DAMAGED_INFIX}{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db.with_name(f"{db.name}{DAMAGED_INFIX}{stamp}-{n}")
    wal = db.with_name(db.name + ".wal")
    if wal.exists():
        os.replace(wal, target.with_name(target.name + ".wal"))
    if not db.exists():
        return None
    os.replace(db, target)
    return target


def _salvage(damaged: Path) -> tuple[list[dict[str, Any]] | None, str | None]:
    """Every memory of the damaged file, if its memories table still reads back whole."""
    from recallnest.core.schemas import MemoryOut, dump
    from recallnest.store import Store

    try:
        store = Store(damaged, read_only=True)
    except StoreError:
        return None, None
    try:
        memories = store.list_memories(status=None)
    except RecallnestError:  # a damaged block: fall back to the backup
        return None, None
    finally:
        store.close()
    return [dump(MemoryOut.of(m)) for m in memories], f"salvaged from {damaged}"


def legacy_id(memory: Memory) -> str:
    """The id `memory` had before ids were portable (issue 21): made of its scope's path."""
    return memory_id_of_basis(memory.scope, canonical(memory.text))


def _rebuild(
    settings: Settings,
    records: list[dict[str, Any]],
    forgotten: set[str],
    on_file: Callable[[int, int], None] | None,
) -> tuple[Backfill, int]:
    """Re-ingest the watched roots into a fresh database, then import `records` (last, so
    the exported state of a memory wins over what capture found again), drop the forgotten
    memories capture found again, and write a fresh backup. Returns what the re-ingest read
    and how many memories were restored."""
    from recallnest.core.schemas import memories_of
    from recallnest.engine import Engine
    from recallnest.server.backfill import backfill_local
    from recallnest.store import Batch

    # No daemon runs (repair holds its lock), so this is what control.backfill would do.
    report = backfill_local(settings, None, [], None, on_file)
    engine = Engine.open(settings)
    try:
        restored = engine.import_memories(memories_of(records)).imported if records else 0
        again = [m.id for m in engine.store.memories(sorted(forgotten))]
        if forgotten:  # a tombstone from before portable ids names a path-made id
            again += [m.id for m in engine.export() if legacy_id(m) in forgotten]
        if again:
            engine.apply(Batch(deleted_memory_ids=again))
        write_backup(engine, settings.home)
    finally:
        engine.close()
    return report, restored

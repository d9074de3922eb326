"""Retention of raw turns, and compaction of the database file.

Retention: turns older than `max_age_days` and/or beyond the newest `max_turns` are deleted
(with their postings and vectors, through the engine so the index follows). Memories keep
their evidence ids even when those turns are gone; the days with conversation are recorded
first, so the decay clock (lifecycle.py) does not lose time. Tool calls older than the age
limit go too. Both limits are off by default: conversation history is the user's to drop.

Compaction: DuckDB never returns the space of deleted rows (VACUUM does not; the file may even
grow on the checkpoint after a delete, DUCKDB-NOTES.md §5). When the file is more than
COMPACT_RATIO times its live data (and the difference is worth it), the daemon rewrites it with
COPY FROM DATABASE and swaps it in (`Store.compact`). `forget --purge` compacts at once, so
forgotten text leaves the file's free blocks too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from recallnest.lifecycle.reports import Compaction, Retention, SizeReport
from recallnest.store import Batch

if TYPE_CHECKING:
    from recallnest.core.config import Settings
    from recallnest.lifecycle.host import LifecycleHost
    from recallnest.store import Store

log = logging.getLogger(__name__)

COMPACT_RATIO = 2.0
# Below this much reclaimable space a rewrite is not worth its I/O (~1 s per 60-100 MB).
COMPACT_MIN_SLACK_BYTES = 8 * 1024 * 1024
RETENTION_CHUNK = 5_000  # turns per delete batch: bounded transactions and index updates


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """How many raw turns to keep: None means no limit."""

    max_age_days: int | None = None
    max_turns: int | None = None

    @property
    def active(self) -> bool:
        return self.max_age_days is not None or self.max_turns is not None


def retention_policy(settings: Settings) -> RetentionPolicy:
    """The policy from settings `turn_retention_days` and `max_turns`. Until those keys exist
    in config.py, both read as unset (the explicit `recallnest maintain --retention-days/
    --max-turns` options still work)."""
    # Transitional: Settings is shared; the lead adds the two fields (see the issue 7 report),
    # then this becomes plain attribute access.
    days = settings.turn_retention_days
    turns = settings.max_turns
    return RetentionPolicy(
        max_age_days=int(days) if days else None, max_turns=int(turns) if turns else None
    )


def apply_retention(engine: LifecycleHost, policy: RetentionPolicy, now: datetime) -> Retention:
    """Delete the turns (and old tool calls) the policy no longer keeps."""
    if not policy.active:
        return Retention()
    store = engine.store
    store.record_activity()
    cutoff = now - timedelta(days=policy.max_age_days) if policy.max_age_days else None
    ids = store.retention_turn_ids(cutoff, policy.max_turns)
    for lo in range(0, len(ids), RETENTION_CHUNK):
        engine.apply(Batch(retracted_turn_ids=ids[lo : lo + RETENTION_CHUNK]))
    tool_uses = store.delete_tool_uses_before(cutoff) if cutoff else 0
    if ids:
        log.info("retention: deleted %d turns and %d tool calls", len(ids), tool_uses)
    return Retention(len(ids), tool_uses)


def size_report(store: Store) -> SizeReport:
    """File bytes, the live-data estimate and their ratio (after a CHECKPOINT, so the WAL's
    rows are in the file's blocks)."""
    store.flush_wal()
    file_bytes = store.path.stat().st_size if store.path.exists() else 0
    live = store.live_bytes()
    return SizeReport(file_bytes, live, round(file_bytes / live, 3) if live else None)


def needs_compaction(
    report: SizeReport,
    ratio: float = COMPACT_RATIO,
    min_slack_bytes: int = COMPACT_MIN_SLACK_BYTES,
) -> bool:
    file_bytes, live = report.file_bytes, report.live_bytes
    return file_bytes > ratio * live and file_bytes - live >= min_slack_bytes


def compact(engine: LifecycleHost) -> Compaction:
    """Compact now: measured and logged."""
    before = size_report(engine.store)
    result = engine.compact_store()
    after = size_report(engine.store)
    log.info(
        "compacted %s: %d -> %d bytes (live estimate %d) in %.2f s",
        engine.store.path,
        result.before_bytes,
        result.after_bytes,
        before.live_bytes,
        result.seconds,
    )
    return Compaction(True, before, after, result.seconds)

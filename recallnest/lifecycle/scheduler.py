"""Lifecycle maintenance over one Engine, and the scheduler the daemon ticks.

The daemon's ingest loop calls `Maintenance.tick(idle)` once per iteration (on the ingest
thread, so maintenance never races capture for the same rows). Read counts are flushed every
FLUSH_SECONDS; the other tasks run only after IDLE_SECONDS without new turns, each at most
once per its interval:

    expire       archive memories past valid_until                 every 10 min
    retier       demote faded memories, promote reinforced ones    every hour
    consolidate  merge duplicates, settle contradictions           every 15 min, if memories changed
    retention    drop raw turns beyond the configured limits       every 6 h
    prune_undo   forget undo entries older than UNDO_GRACE_DAYS    every hour
    compact      rewrite the file when it exceeds 2x live data     every hour
    size_sample  the file's size and row counts, for the dashboard every hour (growth.py)

Every automatic change to memories (consolidate, expire, retier) stores the prior rows in the
undo log first; `undo` restores them exactly within UNDO_GRACE_DAYS, unless the rows changed
since (then only with `force`). Without a daemon (the CLI's local engine) the same methods run
inline. A compaction asked for from another thread (a socket request) runs on the ingest
thread, because the swap closes every cursor of the old connection.

A task that fails (a StoreError such as DuckDB's "Cannot CHECKPOINT: there are other write
transactions active") changes nothing and is tried again after RETRY_FIRST_SECONDS, doubling
at each further failure up to its interval; until it succeeds, `health()` names it with its
last error, when it failed and when it runs next (shown by `daemon status` and `doctor`).

`op(name, args)` is the entry point of the daemon protocol's lifecycle operations.
"""

from __future__ import annotations

import gc
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from recallnest.capture.admission import keyword_tokens
from recallnest.core.errors import NotFoundError, RecallnestError
from recallnest.core.models import TIERS, Memory
from recallnest.core.schemas import MemoryOut, dump
from recallnest.lifecycle import growth
from recallnest.lifecycle import retention as compaction
from recallnest.lifecycle.consolidation import consolidate, record_undo
from recallnest.lifecycle.decay import (
    AccessTracker,
    Clocks,
    decay_score,
    expired,
    memory_from_json,
    retier,
)
from recallnest.lifecycle.forgetting import Selector, forget, plan_forget
from recallnest.lifecycle.listing import newest_memories
from recallnest.lifecycle.reports import (
    NOTHING,
    Applied,
    Approved,
    Changed,
    Compaction,
    ConsolidationReport,
    Edited,
    ForgetPreview,
    Forgotten,
    MaintenancePass,
    Resolved,
    Retention,
    Undone,
)
from recallnest.lifecycle.settled import Settled, id_hashes
from recallnest.lifecycle.token_cache import TokenCache

if TYPE_CHECKING:
    from recallnest.lifecycle.host import LifecycleHost

log = logging.getLogger(__name__)

UNDO_GRACE_DAYS = 7
IDLE_SECONDS = 30.0
FLUSH_SECONDS = 60.0
INTERVALS: dict[str, float] = {
    "expire": 600.0,
    "retier": 3600.0,
    "consolidate": 900.0,
    "retention": 6 * 3600.0,
    "prune_undo": 3600.0,
    "compact": 3600.0,
    "size_sample": growth.SAMPLE_SECONDS,
}
RETRY_FIRST_SECONDS = 30.0  # a failed task's first retry; doubles, up to the task's interval
REQUEST_TIMEOUT_SECONDS = 600.0
TOKEN_CACHE_MAX = 200_000
FIND_SORTS = ("updated", "created", "importance", "accessed", "decay")

_Job = tuple[Callable[[], Compaction], threading.Event, list[Any]]


@dataclass(frozen=True, slots=True)
class TaskFailure:
    """A task's failures since it last succeeded: the last error, when, and the next try."""

    error: str
    failed_at: datetime
    attempts: int
    next_retry_at: datetime

    def as_dict(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "failed_at": self.failed_at.isoformat(timespec="seconds"),
            "attempts": self.attempts,
            "next_retry_at": self.next_retry_at.isoformat(timespec="seconds"),
        }


class Maintenance:
    """Lifecycle state of one engine: pending read counts, task times, queued requests."""

    def __init__(
        self,
        engine: LifecycleHost,
        retention: compaction.RetentionPolicy | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.access = AccessTracker()
        self.retention = retention or compaction.retention_policy(engine.settings)
        self.compact_ratio = compaction.COMPACT_RATIO
        self.compact_min_slack = compaction.COMPACT_MIN_SLACK_BYTES
        self._monotonic = monotonic
        self._last: dict[str, float] = {}
        self.failures: dict[str, TaskFailure] = {}  # failing tasks, until they succeed again
        self._busy_at = monotonic()
        self._release_due = False  # work since the last release: one is due once quiet
        self._generation = -1  # memory generation consolidation last saw
        self._settled = Settled()  # the memories consolidation compared, with their texts
        self._token_cache = TokenCache(keyword_tokens, TOKEN_CACHE_MAX)
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._slices: list[tuple[str, Callable[[], object]]] = []  # the rest of a sliced task
        self._own_writes = 0  # writes of the consolidation pass in progress
        self.stop: threading.Event | None = None  # the daemon's; once set, no slice starts
        self._tick_thread: int | None = None
        self._lock = threading.Lock()  # one lifecycle task at a time

    # ---- the scheduler ---------------------------------------------------------------------------

    def note_request(self) -> None:
        """A client asked something (a session-start hook, a search): the idle clock restarts,
        so background work never competes with someone waiting for an answer (bench_resume:
        a memory export or a maintenance slice running beside a hook cost it 100-170 ms).
        What the request read stays cached until the daemon is quiet again."""
        self._busy_at = self._monotonic()
        self._release_due = True

    def note_work(self) -> None:
        """The daemon did work that read or wrote much (checkpoints, a backup): what it
        cached is given back once the scheduler is next idle (decision 0027)."""
        self._release_due = True

    def quiet_for(self, seconds: float) -> bool:
        """No new turn and no request for `seconds`."""
        return self._monotonic() - self._busy_at >= seconds

    def tick(self, idle: bool) -> list[str]:
        """One scheduler step (the daemon's ingest loop, once per iteration). Returns the
        tasks that ran. Task failures are logged, never raised: ingestion must go on."""
        self._tick_thread = threading.get_ident()
        ran = self._run_jobs()
        now = self._monotonic()
        if self._due("flush_access", FLUSH_SECONDS, now):
            ran += self._attempt("flush_access", self.flush_access)
        if not idle:
            self._busy_at = now
            self._release_due = True
            return ran
        if now - self._busy_at < IDLE_SECONDS or self._stopping():
            return ran
        if self._release_due:
            # Quiet after work (a catch-up, a session's turns, requests): what it read and
            # cached is given back once, not held while idle (decision 0027).
            self._release_due = False
            self._pass_over(None)
        else:
            self.engine.release_memory(owed_only=True)  # one the store was too busy for
        # Trigger: a sliced task (retier, consolidate) has work left. Why: at 100k memories a
        # whole run held the ingest thread for over a minute (no capture, `daemon stop` timed
        # out). Outcome: one slice (a scope, or a scope and category) per tick, well under 1 s.
        if self._slices:
            name, part = self._slices.pop(0)
            ran += self._attempt(name, part)
            if not self._slices:
                self._pass_over(name)  # the sliced task is done
            return ran
        tasks: dict[str, Callable[[], object]] = {
            "expire": self.expire,
            "retier": self._plan_retier,
            "consolidate": self._plan_consolidation,
            "retention": self.apply_retention,
            "prune_undo": self.prune_undo,
            "compact": lambda: self.compact(if_needed=True),
            "size_sample": self.sample_size,
        }
        for name, task in tasks.items():
            if self._slices or self._stopping():
                break  # the slices run first, one a tick; the other tasks stay due
            if self._due(name, INTERVALS[name], now):
                ran += self._attempt(name, task)
        if len(ran) > ran.count("flush_access") and not self._slices:
            self._pass_over(", ".join(n for n in ran if n != "flush_access"))
        return ran

    def _pass_over(self, tasks: str | None) -> None:
        """A pass (or a burst of work) is over: drop what only it needed and give the memory
        back (decision 0027). Consolidation's keyword sets go: a pass fills them and uses
        them for its own pairs, and the next pass compares only the groups that changed
        since, which it tokenizes again; kept, they held ~26 MiB at 100k memories. The
        engine's release drops the memo caches and DuckDB's cached blocks, then trims."""
        with self._lock:
            self._token_cache.clear()
        self._release_due = False  # this is the release
        self.engine.release_memory()
        if tasks:  # bench/bench_steady.py reads these lines
            log.info("maintenance: %s done, memory released", tasks)

    def _stopping(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def _due(self, name: str, interval: float, now: float) -> bool:
        last = self._last.get(name)
        if last is not None and now - last < interval:
            return False
        self._last[name] = now
        return True

    def _attempt(self, name: str, task: Callable[[], object]) -> list[str]:
        try:
            task()
        except RecallnestError as exc:
            interval = INTERVALS.get(name, FLUSH_SECONDS)
            delay = self.note_failure(name, exc, interval)
            self._last[name] = self._monotonic() - interval + delay  # _due: after `delay`
            return []
        self.note_success(name)
        return [name]

    def note_success(self, name: str) -> None:
        if self.failures.pop(name, None) is not None:
            log.info("maintenance task %s succeeded again", name)

    def note_failure(self, name: str, exc: Exception, interval: float) -> float:
        """Trigger: a task raised (here, or a background task of the daemon: the memory
        backup, a checkpoint). Why: a task that waits its whole interval (an hour for
        compaction) after a transient failure, said only in the log, looks fine while it is
        not. Outcome: the caller retries after the returned back-off, which doubles per
        failure (capped at `interval`); health() reports the task until it succeeds."""
        previous = self.failures.get(name)
        attempts = previous.attempts + 1 if previous else 1
        delay = min(RETRY_FIRST_SECONDS * float(2 ** (attempts - 1)), interval)
        now = datetime.now(UTC)
        retry_at = now + timedelta(seconds=delay)
        self.failures[name] = TaskFailure(str(exc), now, attempts, retry_at)
        log.warning(
            "maintenance task %s failed (attempt %d, retrying in %.0f s): %s",
            name,
            attempts,
            delay,
            exc,
        )
        return delay

    def health(self) -> dict[str, dict[str, Any]]:
        """The failing tasks: {name: {error, failed_at, attempts, next_retry_at}}; {} if none."""
        return {name: f.as_dict() for name, f in sorted(self.failures.items())}

    def _run_jobs(self) -> list[str]:
        ran: list[str] = []
        while True:
            try:
                job, done, box = self._jobs.get_nowait()
            except queue.Empty:
                return ran
            try:
                box.append(job())
            except RecallnestError as exc:
                box.append(exc)
            done.set()
            ran.append("request")

    def _on_tick_thread(self, job: Callable[[], Compaction]) -> Compaction:
        """Run `job` on the scheduler's thread when a daemon drives it, else here."""
        if self._tick_thread is None or self._tick_thread == threading.get_ident():
            return job()
        done, box = threading.Event(), list[Any]()
        self._jobs.put((job, done, box))
        if not done.wait(REQUEST_TIMEOUT_SECONDS):
            raise RecallnestError("the daemon did not get to the request in time; retry later")
        result = box[0]
        if isinstance(result, RecallnestError):
            raise result
        assert isinstance(result, Compaction)
        return result

    def run_all(
        self, now: datetime | None = None, retention: compaction.RetentionPolicy | None = None
    ) -> MaintenancePass:
        """Every task once, now (the `maintain` command and the benchmark); `retention`
        overrides the configured policy for this run."""
        now = now or datetime.now(UTC)
        try:
            return self._run_all(now, retention)
        finally:
            gc.collect()
            self._pass_over("run_all")

    def _run_all(
        self, now: datetime, retention: compaction.RetentionPolicy | None
    ) -> MaintenancePass:
        return MaintenancePass(
            access_flushed=self.flush_access(),
            expire=self.expire(now),
            retier=self.retier(now),
            consolidate=self.consolidate(now=now).brief(),
            retention=self.apply_retention(now, retention),
            prune_undo=self.prune_undo(now),
            compact=self.compact(if_needed=True),
        )

    # ---- tasks -----------------------------------------------------------------------------------

    def flush_access(self) -> int:
        """Write the counted reads in one statement."""
        pending = self.access.drain()
        if not pending:
            return 0
        self._release_due = True  # its UPDATE read blocks back in: released once quiet
        try:
            return self.engine.store.bump_access(pending)
        except RecallnestError:
            self.access.restore(pending)
            raise

    def expire(self, now: datetime | None = None) -> Applied:
        now = now or datetime.now(UTC)
        with self._lock:
            before = self.engine.store.expired_memories(now)
            return self._apply("expire", before, expired(before, now), now)

    def clocks(self) -> Clocks:
        store = self.engine.store
        store.record_activity()
        return Clocks(store.activity_days())

    def retier(
        self, now: datetime | None = None, scope: str | None = None, clocks: Clocks | None = None
    ) -> Applied:
        now = now or datetime.now(UTC)
        with self._lock:
            clocks = clocks or self.clocks()
            before: list[Memory] = []
            after: list[Memory] = []
            # A batch of memories at a time (decision 0032): the whole store at once held
            # 100k Memory objects (+139 MiB) for a few hundred changed rows.
            for batch in self.engine.store.memory_batches({"status": "active", "scope": scope}):
                changed = retier(batch, now, clocks)
                by_id = {m.id: m for m in batch}
                before += [by_id[m.id] for m in changed]
                after += changed
            return self._apply("retier", before, after, now)

    def _apply(
        self, kind: str, before: Sequence[Memory], after: Sequence[Memory], now: datetime
    ) -> Applied:
        """Write automatic changes with their undo entry, unless the rows changed meanwhile."""
        if not after:
            return NOTHING
        store = self.engine.store
        with store.write_locked():
            current = {m.id: m for m in store.memories([m.id for m in before])}
            if any(current.get(m.id) != m for m in before):
                return Applied(0, None, "rows changed; next run")
            stats = {kind: len(after)}
            undo_id = record_undo(self.engine, kind, before, after, stats, now)
            self.engine.apply_memories(after)
            store.add_memory_events([(now, kind, m.id, None, undo_id) for m in after])
        log.info("%s: %d memories changed (undo %d)", kind, len(after), undo_id)
        return Applied(len(after), undo_id)

    def consolidate(
        self,
        scope: str | None = None,
        dry_run: bool = False,
        now: datetime | None = None,
        incremental: bool = False,
    ) -> ConsolidationReport:
        """A full run (every pair; the CLI), or with `incremental` only the memories new or
        changed since the last whole-store run against the others (the daemon)."""
        with self._lock:
            generation = self.engine.memory_generation
            whole = scope is None and not dry_run  # only whole-store runs track what they saw
            if whole and not incremental:
                self._settled.clear()  # nothing counts as compared: every pair is examined
            settled = self._settled if whole else None
            report = consolidate(self.engine, scope, dry_run, now, settled, self._tokens)
            if whole and report.skipped is None:
                # Its own write (one apply) moves the generation once: not a reason to re-run.
                self._generation = generation + (report.undo_id is not None)
            return report

    def _plan_retier(self) -> None:
        """Queue retier one scope a slice (memories decay by their own scope's clock)."""
        now, clocks = datetime.now(UTC), self.clocks()
        scopes = sorted({s for s, _ in self.engine.store.memory_groups({"status": "active"})})
        self._slices += [
            ("retier", lambda s=s: self.retier(now, s, clocks))  # type: ignore[misc]
            for s in scopes
        ]

    def _plan_consolidation(self) -> None:
        """Queue an incremental consolidation pass, one scope and category a slice: only the
        groups holding a memory new or changed since it was last compared (all of them after
        a start), or a stale successor link. Pairs never cross a group, so the slices decide
        what one whole run would."""
        generation = self.engine.memory_generation
        if generation == self._generation:
            return
        found: set[tuple[str, str]] = set()
        active: list[np.ndarray] = []  # the ids' hashes: 100k id strings at once were ~9 MiB
        for keys in self.engine.store.active_memory_keys():
            ids = [key[0] for key in keys]
            active.append(id_hashes(ids))
            fresh = self._settled.changed(ids, [key[3] for key in keys]).tolist()
            found.update((k[1], k[2]) for k, new in zip(keys, fresh, strict=True) if k[4] or new)
        self._settled.retain_hashed(np.concatenate(active) if active else np.empty(0, np.int64))
        groups = sorted(found)
        self._own_writes = 0
        self._slices += [
            ("consolidate", lambda g=g: self._consolidate_slice(*g))  # type: ignore[misc]
            for g in groups
        ]
        self._slices.append(("consolidate", lambda: self._finish_pass(generation)))

    def _consolidate_slice(self, scope: str, category: str) -> ConsolidationReport:
        with self._lock:
            report = consolidate(
                self.engine, scope, False, None, self._settled, self._tokens, category
            )
        stats = report.stats
        if report.undo_id is not None and any(
            stats.get(k) for k in ("merged", "superseded", "relinked")
        ):
            self._own_writes += 1  # changed rows: one apply, one generation
        return report

    def _finish_pass(self, generation: int) -> None:
        # Memories written meanwhile by anyone but this pass move the generation past this
        # mark, so the next check runs another (incremental) pass.
        self._generation = generation + self._own_writes

    def _tokens(self, text: str) -> frozenset[str]:
        """Keyword sets by text, kept across runs (lifecycle/token_cache.py)."""
        return self._token_cache(text)

    def apply_retention(
        self, now: datetime | None = None, policy: compaction.RetentionPolicy | None = None
    ) -> Retention:
        with self._lock:
            return compaction.apply_retention(
                self.engine, policy or self.retention, now or datetime.now(UTC)
            )

    def sample_size(self, now: datetime | None = None) -> dict[str, int]:
        """Today's point of the dashboard's size-over-time plot (growth.py)."""
        store = self.engine.store
        counts = store.counts()
        try:
            size = store.path.stat().st_size
        except OSError:
            size = 0
        sample = {"bytes": size, "turns": counts["turns"], "memories": counts["memories"]}
        try:
            growth.record(self.engine.settings.home, (now or datetime.now(UTC)).date(), sample)
        except OSError as exc:  # a full disk: the task fails and retries, ingestion goes on
            raise RecallnestError(f"cannot write the size history: {exc}") from exc
        return sample

    def prune_undo(self, now: datetime | None = None) -> int:
        now = now or datetime.now(UTC)
        return self.engine.store.prune_undo(now - timedelta(days=UNDO_GRACE_DAYS))

    def compact(self, if_needed: bool = True) -> Compaction:
        """Compact the file (only when it exceeds compact_ratio x live data, with
        `if_needed`)."""

        def job() -> Compaction:
            report = compaction.size_report(self.engine.store)
            if if_needed and not compaction.needs_compaction(
                report, self.compact_ratio, self.compact_min_slack
            ):
                return Compaction(False, report)
            return compaction.compact(self.engine)

        return self._on_tick_thread(job)

    # ---- undo ------------------------------------------------------------------------------------

    def undo(
        self,
        undo_id: int | None = None,
        kind: str | None = None,
        force: bool = False,
        now: datetime | None = None,
    ) -> Undone:
        """Restore the rows an automatic change replaced: the newest pending entry of `kind`
        (default: the last consolidation), or entry `undo_id`."""
        now = now or datetime.now(UTC)
        store = self.engine.store
        kind = None if undo_id is not None else (kind or "consolidate")
        entries = store.undo_entries(kind=kind, undo_id=undo_id)
        if not entries:
            what = f"entry {undo_id}" if undo_id is not None else f"{kind} to undo"
            raise NotFoundError(f"no {what} (entries last {UNDO_GRACE_DAYS} days)")
        entry = entries[0]
        before = [memory_from_json(d) for d in json.loads(entry["before_rows"])]
        after = [memory_from_json(d) for d in json.loads(entry["after_rows"])]
        with self._lock, store.write_locked():
            current = {m.id: m for m in store.memories([m.id for m in after])}
            # Being read since (a search, a resume) is not a change: only what the row says.
            moved = [m.id for m in after if _unread(current.get(m.id)) != _unread(m)]
            if moved and not force:
                raise RecallnestError(
                    f"{len(moved)} of its memories changed since ({', '.join(moved[:5])}); "
                    "undo --force restores the prior rows anyway"
                )
            self.engine.apply_memories(before)
            store.mark_undone(int(entry["id"]), now)
        return Undone(int(entry["id"]), str(entry["kind"]), len(before))

    def undo_list(self) -> list[dict[str, Any]]:
        return [
            {k: e[k] for k in ("id", "kind", "created_at", "summary")}
            | {"memories": len(e["memory_ids"])}
            for e in self.engine.store.undo_entries()
        ]

    # ---- conflicts -------------------------------------------------------------------------------

    def conflicts(self, include_resolved: bool = False) -> list[dict[str, Any]]:
        store = self.engine.store
        found = store.conflicts(None if include_resolved else "open")
        rows = {m.id: m for m in store.memories([c[k] for c in found for k in ("a_id", "b_id")])}
        out = []
        for c in found:
            a, b = rows.get(c["a_id"]), rows.get(c["b_id"])
            if c["status"] == "open" and not (a and b and a.status == b.status == "active"):
                continue  # settled elsewhere (superseded, archived or forgotten)
            out.append(
                c
                | {
                    "a_text": a.text if a else None,
                    "b_text": b.text if b else None,
                    "a_status": a.status if a else None,
                    "b_status": b.status if b else None,
                }
            )
        return out

    def resolve_conflict(
        self, conflict_id: int, keep: str, now: datetime | None = None
    ) -> Resolved:
        """keep `older` (a), `newer` (b) or `both`; the other is superseded by the kept one."""
        now = now or datetime.now(UTC)
        store = self.engine.store
        found = store.conflicts(None, conflict_id)
        if not found:
            raise NotFoundError(f"no conflict with id {conflict_id}")
        c = found[0]
        if keep not in ("older", "newer", "both"):
            raise RecallnestError(f"keep must be older, newer or both, not {keep!r}")
        if keep != "both":
            kept, dropped = (c["a_id"], c["b_id"]) if keep == "older" else (c["b_id"], c["a_id"])
            rows = store.memories([dropped])
            if rows:
                old = rows[0]
                self.engine.apply_memories(
                    [replace(old, status="superseded", superseded_by=kept, updated_at=now)]
                )
                store.add_memory_events([(now, "resolved", dropped, kept, None)])
        store.resolve_conflict(conflict_id, keep, now)
        return Resolved(conflict_id, keep)

    # ---- visibility ------------------------------------------------------------------------------

    def find(
        self,
        filters: Mapping[str, object],
        since: datetime | None = None,
        until: datetime | None = None,
        expired_only: bool = False,
        sort: str = "updated",
        limit: int = 50,
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Memories by scope/category/status/tier/pinned and creation time, sorted; each with
        its current decay score."""
        if sort not in FIND_SORTS:
            raise RecallnestError(f"unknown sort {sort!r}; use {', '.join(FIND_SORTS)}")
        now = now or datetime.now(UTC)
        store = self.engine.store
        by_sql = sort != "decay" and not expired_only
        rows = None
        if by_sql and sort == "updated" and since is None and until is None:
            rows = newest_memories(self.engine, filters, limit)  # the web UI's list
        if rows is None:
            order = "updated" if sort == "decay" else sort
            rows = store.find_memories(filters, since, until, order, limit if by_sql else None)
        if expired_only:
            rows = [m for m in rows if m.valid_until is not None and m.valid_until <= now]
        clocks = Clocks(store.activity_days())
        scored = [(m, decay_score(m, now, clocks.for_scope(m.scope))) for m in rows]
        if sort == "decay":
            scored.sort(key=lambda pair: (-pair[1], pair[0].id))
        return [dump(MemoryOut.of(m)) | {"decay": round(s, 4)} for m, s in scored[:limit]]

    def history(self, mem_id: str) -> dict[str, Any]:
        """A memory with what it replaced (merges, superseded versions, transitively) and what
        replaced it, plus the recorded lifecycle events."""
        store = self.engine.store
        memory = self.engine.memory(mem_id)
        successors: list[Memory] = []
        seen = {memory.id}
        nxt = memory.superseded_by
        while nxt and nxt not in seen:
            rows = store.memories([nxt])
            if not rows:
                break
            successors.append(rows[0])
            seen.add(nxt)
            nxt = rows[0].superseded_by
        predecessors: list[Memory] = []
        frontier = [memory.id]
        while frontier:
            older = [m for m in store.superseded_by_any(frontier) if m.id not in seen]
            seen.update(m.id for m in older)
            predecessors += older
            frontier = [m.id for m in older]
        events = store.memory_events(sorted(seen))
        return {
            "memory": dump(MemoryOut.of(memory)),
            "replaced_by": [dump(MemoryOut.of(m)) for m in successors],
            "replaced": [dump(MemoryOut.of(m)) for m in predecessors],
            "events": [e | {"at": e["at"].isoformat() if e["at"] else None} for e in events],
        }

    def set_flags(
        self,
        ids: Sequence[str],
        pinned: bool | None = None,
        tier: str | None = None,
        valid_until: datetime | None = None,
        clear_valid_until: bool = False,
    ) -> Changed:
        """The user's own marks: pin, tier (core protects a memory), expiry."""
        if tier is not None and tier not in TIERS:
            raise RecallnestError(f"unknown tier {tier!r}; use {', '.join(TIERS)}")
        found = [self.engine.memory(i).id for i in ids]
        rows = self.engine.store.memories(found)
        changed = []
        for m in rows:
            new = m
            if pinned is not None:
                new = replace(new, pinned=pinned)
            if tier is not None:
                new = replace(new, tier=tier)
            if valid_until is not None or clear_valid_until:
                new = replace(new, valid_until=valid_until)
            if new != m:
                changed.append(new)
        self.engine.apply_memories(changed)
        return Changed([m.id for m in changed], len(rows) - len(changed))

    def approve(self, ids: Sequence[str], now: datetime | None = None) -> Approved:
        """Captures held for review (status `pending`) become active memories, with an
        `approved` event; ids that are not pending are left as they are."""
        now = now or datetime.now(UTC)
        rows = self.engine.store.memories([self.engine.memory(i).id for i in ids])
        approved = [
            replace(m, status="active", updated_at=now) for m in rows if m.status == "pending"
        ]
        self.engine.apply_memories(approved)
        self.engine.store.add_memory_events([(now, "approved", m.id, None, None) for m in approved])
        return Approved([m.id for m in approved], len(rows) - len(approved))

    def edit(
        self,
        mem_id: str,
        text: str | None = None,
        scope: str | None = None,
        category: str | None = None,
        now: datetime | None = None,
    ) -> Edited:
        """A user's correction of a memory: the new text (redacted, re-embedded) becomes a
        memory of its own that supersedes the old one, so history shows the old version and
        the edit can be read back; pin, tier and expiry carry over. Nothing changed: no-op."""
        now = now or datetime.now(UTC)
        old = self.engine.memory(mem_id)
        new_text = old.text if text is None else text
        new_scope, new_category = scope or old.scope, category or old.category
        if (new_text.strip(), new_scope, new_category) == (old.text, old.scope, old.category):
            return Edited(old.id, False)
        made = self.engine.remember(
            new_text, new_category, new_scope, old.importance, source="edit", now=now
        )
        if made.id == old.id:
            return Edited(old.id, False)
        fresh = self.engine.store.memories([made.id])[0]
        carried = replace(
            fresh,
            pinned=old.pinned,
            tier=old.tier,
            valid_until=old.valid_until,
            evidence=old.evidence,
        )
        dropped = replace(old, status="superseded", superseded_by=fresh.id, updated_at=now)
        self.engine.apply_memories([carried, dropped])
        self.engine.store.add_memory_events([(now, "edited", old.id, fresh.id, None)])
        return Edited(fresh.id, True, old.id, list(made.redactions))

    # ---- forgetting ------------------------------------------------------------------------------

    def forget_plan(self, sel: Selector) -> ForgetPreview:
        return plan_forget(self.engine, sel).summary()

    def forget(self, sel: Selector, purge: bool = False) -> Forgotten:
        # Not under self._lock: a purge waits for the ingest thread to compact, and that
        # thread may itself be waiting for the lock in a task (a deadlock until the timeout).
        return forget(self.engine, sel, self.access.drain_ids, self.compact, purge)


def _unread(memory: Memory | None) -> Memory | None:
    """The row without its read counts, which searches and resumes move on every read."""
    if memory is None:
        return None
    return replace(memory, last_accessed_at=None, access_count=0)

"""The daemon: owns the database for its whole life, watches the agents' transcript folders,
ingests new lines within about a second, embeds in the background, and serves other processes
over an owner-only Unix socket. The only module that imports watchdog.

Threads: the watchdog observer only enqueues paths; one ingest worker debounces and runs the
pipeline; one embedding worker fills in vectors when there is nothing else to do; the socket
server answers requests (one thread per connection). DuckDB is used through per-thread cursors
(Store), writes are serialised by the store's lock.

Failures (disk full, a damaged file): an ingest pass that fails writes nothing, so the cursors
stay where they were; the daemon logs the error, shows it in `daemon status` (`last_error`),
puts the paths back on the queue and retries with a growing back-off. When DuckDB has
invalidated itself (it does after a failed checkpoint) the database is closed and reopened,
which replays its WAL. Every memory change is also exported, at most once per
BACKUP_INTERVAL_SECONDS, to `<home>/backups/memories-latest.jsonl`: what `recallnest repair`
restores memories from.
"""

from __future__ import annotations

import contextlib
import json
import logging
import logging.handlers
import os
import queue
import signal
import socketserver
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

from recallnest.core import heap, redact
from recallnest.core.config import Settings
from recallnest.core.errors import RecallnestError, StoreError
from recallnest.core.paths import ensure_home, log_dir, socket_path
from recallnest.core.schemas import jsonable
from recallnest.core.threads import BaseThread
from recallnest.engine import EMBED_BATCH, Engine
from recallnest.ingest.pipeline import Collector, FileReport, Source, ingest_file, transcript_files
from recallnest.ingest.transcripts import detect
from recallnest.server import protocol
from recallnest.server.backfill import Backfill, run_backfill
from recallnest.server.backup import backup_path, write_backup
from recallnest.server.handlers import KNOWN, dispatch
from recallnest.server.pidfile import pid_lock
from recallnest.server.rescan import RedactionRecheck
from recallnest.server.snapshot_refresh import SnapshotKeeper

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.05
ROOT_RESCAN_SECONDS = 5.0
# Requests a hook makes as a session starts or a prompt is sent.
_SESSION_OPS = frozenset({"resume", "recall", "checkpoint"})
EMBED_IDLE_SECONDS = 1.0
EMBED_NICENESS = 15
# Checkpoints built per ingest pass at most this long (then new lines are read first).
CHECKPOINT_BUDGET_SECONDS = 0.25
HOOK_CHECKPOINT_DELAY = 1.5  # let the agent's last lines arrive before a hook's checkpoint
CLIENT_TIMEOUT_SECONDS = 30.0
LOG_BYTES = 5 * 1024 * 1024
RETRY_SECONDS = 1.0  # back-off after a failed ingest pass; doubles up to RETRY_MAX_SECONDS
RETRY_MAX_SECONDS = 30.0
BACKUP_INTERVAL_SECONDS = 3600.0  # the memory export is rewritten at most this often
BACKUP_QUIET_SECONDS = 5.0  # ... and only after this long without a new turn or a request
# Background work the agents do not wait for (re-warming resume inputs, rewriting the projects'
# snapshots) starts only after this long without a request, and a snapshot round stops between
# projects when one arrives: that work holds the GIL for 20-50 ms a project, and a prompt's
# recall beside it waited for it (bench/RESULTS.md, issue 23).
REQUEST_QUIET_SECONDS = 2.0


class _Enqueue(FileSystemEventHandler):
    """Runs on the observer thread: only enqueue paths, never parse or touch the database."""

    def __init__(self, paths: queue.Queue[str]) -> None:
        self.paths = paths

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type in ("deleted", "opened", "closed_no_write"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(raw) if raw else ""
            if path and detect(path):
                self.paths.put(path)


SYNC_TICK_SECONDS = 1.0


# How often the socket thread looks for a stop between requests: shutdown() waits for it
# (the default 0.5 s made every stop wait that long for nothing; a wake-up costs microseconds).
SOCKET_POLL_SECONDS = 0.1
# Queued by stop(): wakes the ingest loop at once rather than after its 0.5 s wait for a path
# (every in-process daemon stop waited that long; the web UI tests spent 12 s in it).
_WAKE = ""


@dataclass(frozen=True, slots=True)
class DaemonStatus:
    """`daemon.status`: the process, what it watches and has queued, what it read since start
    with what is stored (`totals`), whether its ingest is failing and why, and the background
    tasks waiting for a retry (`Maintenance.health`)."""

    pid: int
    uptime_seconds: float
    watching: list[str]
    queued: int
    totals: dict[str, Any]
    failing: bool
    last_error: str | None
    last_error_at: str | None
    maintenance_failing: dict[str, dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Scheduled:
    """A checkpoint a hook asked for, built shortly on the ingest thread."""

    scheduled: bool = field(default=True, init=False)
    session_id: str


class Daemon:
    def __init__(self, settings: Settings, engine: Engine, polling: bool = False) -> None:
        self.settings = settings
        self.engine = engine
        self.paths: queue.Queue[str] = queue.Queue()
        self.stopping = threading.Event()
        engine.maintenance.stop = self.stopping  # no maintenance slice starts once stopping
        self.observer = PollingObserver(timeout=1.0) if polling else Observer()
        self.scheduled: set[Path] = set()
        # Set by a hook's request: an agent is starting a session, maybe the first one in a
        # folder that did not exist when the daemon started (the ingest loop looks at once).
        self.rescan = threading.Event()
        self.totals = FileReport()
        self.started_at = time.time()
        self.server: _Server | None = None
        self.requested: dict[str, float] = {}
        self.request_reasons: dict[str, str] = {}
        self._threads: list[BaseThread] = []
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self.failing = False  # the latest ingest pass failed; retrying
        self.store_down = False  # the database refused a read: reopen before using it
        self._retry = RETRY_SECONDS
        # Which engine (by its number: a reopen opens the next) and memory generation the last
        # backup was written from. Not the engine itself: held here, a reopened-away engine kept
        # its whole index alive (~220 MiB at 100k after the redactor re-check, round 52).
        self._opened = 0
        self._backed_up: tuple[int, int] | None = None
        self._next_backup: float | None = None
        self.snapshots = SnapshotKeeper(settings.home)
        self.redaction = RedactionRecheck(settings.home)  # stored texts vs a newer redactor
        self.caught_up = False  # the first catch-up on existing transcripts is done
        self._enqueued = threading.Event()  # ... which it cannot be before they are queued

    # ---- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        self._checkpoints_missed()
        self._schedule_roots()
        self.observer.start()
        self.server = _serve(self)
        server = self.server
        self._threads = [
            BaseThread(
                lambda _t: self._ingest_loop(),
                "recallnest-ingest",
                self.stopping,
                on_stop=lambda: self.paths.put(_WAKE),
            ),
            BaseThread(lambda _t: self._embed_loop(), "recallnest-embed", self.stopping),
            BaseThread(lambda _t: self._sync_loop(), "recallnest-sync", self.stopping),
            BaseThread(
                lambda _t: server.serve_forever(poll_interval=SOCKET_POLL_SECONDS),
                "recallnest-socket",
                self.stopping,
                on_stop=server.shutdown,
            ),
        ]
        for thread in self._threads:
            thread.start()
        self._enqueue_existing()
        self._enqueued.set()
        log.info(
            "daemon started, pid %d, watching %s, malloc arenas %s",
            os.getpid(),
            sorted(map(str, self.scheduled)),
            heap.arena_limit or "glibc's default",
        )

    def stop(self) -> None:
        """Graceful: stop watching, finish the current flush, close the database."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self.observer.stop()
        for thread in self._threads:  # the socket thread's stop shuts its server down
            thread.stop()
        for thread in self._threads:
            thread.join(timeout=30)
        if self.server is not None:
            self.server.server_close()
        with contextlib.suppress(RuntimeError):
            self.observer.join(timeout=5)
        with contextlib.suppress(RecallnestError):
            self.engine.maintenance.flush_access()  # read counts kept in memory until now
        self._backup_on_stop()
        self.engine.close()
        log.info("daemon stopped")

    def _checkpoints_missed(self) -> None:
        """Sessions whose last turns no checkpoint covers are due at once: read while no
        daemon ran (`recallnest ingest`), or ended while it was down or before it crashed."""
        try:
            missed = self.engine.store.sessions_missing_checkpoint()
        except RecallnestError as exc:
            log.warning("cannot look for sessions without a checkpoint: %s", exc)
            return
        for session_id in missed:
            self.engine.touched.setdefault(session_id, (0.0, False))

    # ---- watching ---------------------------------------------------------------------------

    def _schedule_roots(self) -> None:
        for root in self.settings.watched_roots():
            if root in self.scheduled or not root.is_dir():
                continue
            self.observer.schedule(_Enqueue(self.paths), str(root), recursive=True)
            self.scheduled.add(root)
            if self.observer.is_alive():
                self._enqueue_existing([root])

    def _enqueue_existing(self, roots: list[Path] | None = None) -> None:
        """Catch up with what changed while the daemon was down (cheap when nothing did)."""
        for source in transcript_files(roots or sorted(self.scheduled)):
            self.paths.put(source.path)

    # ---- sync (issue 21) ------------------------------------------------------------------------

    def _sync_loop(self) -> None:
        """Background sync in its own thread: capture and hooks never wait for it (its writes
        are short transactions like any other), and a remote that cannot be reached only
        delays the next round (Schedule's back-off). Idle when sync is not set up."""
        from recallnest.sync.background import Schedule
        from recallnest.sync.config import SyncConfig

        schedule = Schedule()
        while not self.stopping.wait(SYNC_TICK_SECONDS):
            try:
                config = SyncConfig.load(self.settings.home)
                if config is None or not config.remotes or self.store_down:
                    continue
                schedule.debounce, schedule.interval = config.debounce, config.interval
                engine = self.engine
                if not schedule.due(time.monotonic(), engine.memory_generation):
                    continue
                report = engine.sync.sync()
                ok = not any(r.get("error") for r in report["remotes"].values())
            # Policy: a failed round (a store error, a bug) is logged and retried later with
            # a back-off; the daemon and its other threads carry on.
            except Exception as exc:
                log.warning("sync round failed: %s", exc)
                ok = False
            schedule.done(time.monotonic(), self.engine.memory_generation, ok)

    # ---- ingest worker ------------------------------------------------------------------------

    def _ingest_loop(self) -> None:
        next_rescan = time.monotonic() + ROOT_RESCAN_SECONDS
        while not self.stopping.is_set():
            paths = self._next_paths(timeout=0.5)
            try:
                if self.store_down:
                    self._reopen()
                self._ingest_pass(paths)
                self._capture_step()
                self._checkpoint_due()
                if not paths:
                    self._rewarm()
                self._backup_if_due()
                # ---- lifecycle (issue 7): flush read counts; decay, consolidation, retention and
                # compaction when idle (maintenance.py) ----
                self.engine.maintenance.tick(idle=not paths and self.paths.empty())
                # ---- end lifecycle (issue 7) ----
            # Policy: the ingest worker outlives any failed pass, because a dead worker would
            # stop capture silently while the socket still answers. Expected failures are
            # StoreError (disk full, a damaged file); anything else is a bug, logged with its
            # traceback. Nothing of the failed pass was committed, so no cursor moved.
            except Exception as exc:
                self._pass_failed(paths, exc)
                continue
            self._pass_succeeded()
            self._after_pass()
            self._recheck_secrets()
            if time.monotonic() >= next_rescan or self.rescan.is_set():
                self.rescan.clear()
                self._schedule_roots()
                next_rescan = time.monotonic() + ROOT_RESCAN_SECONDS

    def _ingest_pass(self, paths: list[str]) -> None:
        """Read what is new in `paths` and write it in one transaction (Collector)."""
        collect = Collector(self.engine.ingest_batch)
        for path in paths:
            if self.stopping.is_set():
                break
            self.ingest_path(path, collect=collect)
        collect.flush()
        self.totals.new_turns += collect.new_turns

    def _capture_step(self) -> None:
        """Queued capture (large flushes, decision 0009): one group per pass even while new
        lines keep arriving (or it would starve), more while none wait."""
        if self.engine.capture_pending and not self.stopping.is_set():
            self.engine.capture_queued()
            self.engine.drain_capture(stop=self._has_news)

    def _has_news(self) -> bool:
        return self.stopping.is_set() or not self.paths.empty()

    def _pass_failed(self, paths: list[str], exc: Exception) -> None:
        """Remember and log the failure, requeue the paths, back off (interrupted by stop)."""
        self.last_error = _describe(exc)
        self.last_error_at = time.time()
        self.failing = True
        if isinstance(exc, RecallnestError):
            log.warning("ingest failed, retrying in %.0fs: %s", self._retry, self.last_error)
        else:
            log.warning("ingest failed, retrying in %.0fs", self._retry, exc_info=exc)
        self.store_down = self.store_down or not self._store_answers()
        for path in paths:
            self.paths.put(path)
        self.stopping.wait(self._retry)
        self._retry = min(self._retry * 2, RETRY_MAX_SECONDS)

    def _pass_succeeded(self) -> None:
        if self.failing:
            log.info("ingest recovered after: %s", self.last_error)
        self.failing = False
        self._retry = RETRY_SECONDS

    def _after_pass(self) -> None:
        """The first catch-up's one-line summary, then the resume snapshots when due."""
        if not self.caught_up:
            if not self._enqueued.is_set() or not self.paths.empty():
                return
            if self.engine.capture_pending:
                return
            self.caught_up = True
            memories = self.engine.store.counts()["memories"]
            log.info(
                "caught up: %d files, %d turns, %d memories",
                self.totals.files,
                self.totals.new_turns,
                memories,
            )
        if not self.paths.empty() or not self._quiet():
            return  # new lines and requests first: the snapshots wait for a quiet pass
        try:
            if self.snapshots.refresh(self.engine, keep_going=self._quiet):
                self.engine.maintenance.note_work()  # resumes read: released once idle
        except (OSError, RecallnestError) as exc:
            log.warning("resume snapshots not written: %s", _describe(exc))

    def _recheck_secrets(self) -> None:
        """After an upgrade whose redactor recognises more: clean what is stored, a chunk at a
        time while no lines and no requests wait, one chunk now and then while requests keep
        coming (server/rescan.py, decision 0031); when rows changed, a fresh engine reads the
        index and caches from the clean rows."""
        if self.redaction.done or not self.paths.empty():
            return
        try:
            changed = self.redaction.step(
                self.engine, keep_going=self._rescan_may_go_on, busy=not self._quiet()
            )
            self.engine.maintenance.note_work()  # it read many rows: released once idle
            if changed:
                with contextlib.suppress(RecallnestError):
                    self.engine.maintenance.flush_access()  # read counts the old engine holds
                self._reopen()
        # Policy: as for an ingest pass, a failure (a store error, a bug) is logged and the
        # walk goes on later from where it was; the ingest worker must outlive it.
        except Exception as exc:
            log.warning("stored texts not checked against the redactor: %s", _describe(exc))
            self.redaction.pause(RETRY_MAX_SECONDS)
            self.store_down = self.store_down or not self._store_answers()

    def _rescan_may_go_on(self) -> bool:
        return self.paths.empty() and self._quiet() and not self.stopping.is_set()

    def _rewarm(self) -> None:
        """Idle: the next session start finds its resume inputs cached (not while requests
        come in)."""
        if self._quiet():
            self.engine.continuity.rewarm()

    def _quiet(self) -> bool:
        """No request for REQUEST_QUIET_SECONDS (maintenance.note_request marks each)."""
        return self.engine.maintenance.quiet_for(REQUEST_QUIET_SECONDS)

    def _store_answers(self) -> bool:
        """Whether the database still serves a trivial read. DuckDB invalidates the whole
        database after a failed checkpoint (e.g. disk full) until it is reopened."""
        try:
            self.engine.store.applied_migrations()
        except RecallnestError:
            return False
        return True

    def _reopen(self) -> None:
        """Close the invalidated database and open it again (DuckDB replays its WAL). Raises
        StoreError while that is still impossible (the disk is still full): retried later."""
        old = self.engine
        log.warning("reopening the database %s", old.store.path)
        with contextlib.suppress(RecallnestError):  # an invalidated database may complain
            old.close()
        engine = Engine.open(self.settings, old.embedder)
        engine.touched.update(old.touched)
        engine.maintenance.stop = self.stopping
        self.engine = engine
        self._opened += 1
        self.store_down = False
        log.info("database reopened")

    def _next_paths(self, timeout: float) -> list[str]:
        """Block for one path, then collect whatever else arrives within the debounce window."""
        try:
            first = self.paths.get(timeout=timeout)
        except queue.Empty:
            return []
        if first == _WAKE:
            return []
        found = dict.fromkeys([first])
        deadline = time.monotonic() + DEBOUNCE_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            try:
                found[self.paths.get(timeout=left)] = None
            except queue.Empty:
                break
        while not self.paths.empty():
            found[self.paths.get_nowait()] = None
        found.pop(_WAKE, None)
        return list(found)

    def ingest_path(
        self, path: str, agent: str | None = None, collect: Collector | None = None
    ) -> FileReport:
        """Ingest what is new in one file, into `collect` (flushed by the caller) if given.
        Cursors of collected files are read before the flush, so a path must appear at most
        once per collector (the debounce loop dedupes paths)."""
        agent = agent or detect(path)
        if agent is None:
            return FileReport()
        source = Source(path, agent, str(self.settings.gemini_dir.parent))
        apply = collect or self.engine.ingest_batch
        store = self.engine.store
        report = ingest_file(source, store.cursor(path), apply, stored=store.turn_ids_of_path)
        self.totals.add(report)
        if report.turns:
            log.info("read %s: %d turns", path, report.turns)
        return report

    # ---- checkpoints ----------------------------------------------------------------------------

    def _checkpoint_due(self) -> None:
        """Checkpoint sessions that went idle, were compacted, or that a hook asked about."""
        now = time.monotonic()
        due = [
            sid
            for sid, (seen, compacted) in list(self.engine.touched.items())
            if compacted or now - seen >= self.settings.idle_checkpoint_seconds
        ]
        due += [sid for sid, at in list(self.requested.items()) if now >= at]
        for n, session_id in enumerate(dict.fromkeys(due)):
            if n and time.monotonic() - now > CHECKPOINT_BUDGET_SECONDS:
                break  # the rest stay due: new lines are read before the next ones are built
            reason = "compact" if self.engine.touched.get(session_id, (0, False))[1] else "idle"
            reason = self.request_reasons.pop(session_id, reason)
            self.engine.touched.pop(session_id, None)
            self.requested.pop(session_id, None)
            try:
                self.engine.continuity.checkpoint(session_id, reason)
            except RecallnestError as exc:  # due again after a back-off, and reported
                log.warning("checkpoint of %s failed: %s", session_id, exc)
                delay = self.engine.maintenance.note_failure(
                    "checkpoint", exc, self.settings.idle_checkpoint_seconds
                )
                self.requested[session_id] = time.monotonic() + delay
                self.request_reasons[session_id] = reason
                continue
            self.engine.maintenance.note_success("checkpoint")
            self.engine.maintenance.note_work()  # it read the session: released once idle

    def request_checkpoint(self, session_id: str, reason: str) -> Scheduled:
        """A hook (pre-compact, session end) asks for a checkpoint: done on the ingest thread
        after a short delay, so the hook returns at once and the last lines are read first."""
        self.requested[session_id] = time.monotonic() + HOOK_CHECKPOINT_DELAY
        self.request_reasons[session_id] = reason
        return Scheduled(session_id)

    # ---- embedding worker ---------------------------------------------------------------------

    def _embed_loop(self) -> None:
        # Embedding a backlog is the daemon's only CPU-heavy work: run it at low priority so
        # the agents (and the ingest thread) always win the cores. Linux niceness is
        # per-thread and inherited by the model's OpenMP threads created from this one.
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), EMBED_NICENESS)
        while not self.stopping.is_set():
            done = 0
            if not self.store_down:
                try:
                    done = self.engine.embed_pending(EMBED_BATCH)
                except RecallnestError as exc:
                    log.warning("embedding paused: %s", exc)
                # Same policy as the ingest worker: this thread must outlive a store failure.
                except Exception as exc:
                    log.warning("embedding paused: %s", _describe(exc))
            if done == 0:
                self.stopping.wait(EMBED_IDLE_SECONDS)

    # ---- memory backup --------------------------------------------------------------------

    def _backup_if_due(self) -> None:
        """Export every memory to backup_path() when memories changed since the last export
        and the file is at least BACKUP_INTERVAL_SECONDS old (so at most once an hour), in a
        quiet moment: 100k memories take seconds to export, which a waiting hook would feel."""
        state = (self._opened, self.engine.memory_generation)
        if state == self._backed_up or not self.engine.maintenance.quiet_for(BACKUP_QUIET_SECONDS):
            return
        if self._next_backup is None:
            self._next_backup = _mtime(backup_path(self.settings.home)) + BACKUP_INTERVAL_SECONDS
        if time.time() < self._next_backup:
            return
        try:
            written = write_backup(self.engine, self.settings.home)
        except OSError as exc:  # retried after a back-off, shown by daemon status and doctor
            delay = self.engine.maintenance.note_failure("backup", exc, BACKUP_INTERVAL_SECONDS)
            self._next_backup = time.time() + delay
            return
        self.engine.maintenance.note_success("backup")
        self.engine.maintenance.note_work()  # it read every memory: released once idle
        self._backed_up = state
        if written:
            self._next_backup = time.time() + BACKUP_INTERVAL_SECONDS
            log.info("memories exported to %s", backup_path(self.settings.home))

    def _backup_on_stop(self) -> None:
        """A fresh memory backup at every clean stop (the journal covers a kill)."""
        if self.store_down:
            return
        try:
            write_backup(self.engine, self.settings.home)
        except (OSError, RecallnestError) as exc:
            log.warning("memory backup at stop failed: %s", exc)

    # ---- requests -----------------------------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any]) -> Any:
        """One socket request's result, as JSON: the daemon's own ops are typed here and
        converted at this boundary, the others are the dispatcher's."""
        if op == "daemon.status":
            return jsonable(self.status())
        self.engine.maintenance.note_request()
        if op in _SESSION_OPS and len(self.scheduled) < len(self.settings.watched_roots()):
            # Gemini drops a prompt that got no answer when its session is resumed: a folder
            # first written by this session must be watched before the prompt is, not up to
            # ROOT_RESCAN_SECONDS later (the real-CLI test lost "rcprobe-gemini-first").
            self.rescan.set()
        try:
            return self._answer(op, args)
        finally:
            # The idle clock runs from the end of the last request, not its start: a request
            # longer than the idle wait (a reindex, a big export) must not have maintenance
            # (a compaction swapping the connection) start beside it.
            self.engine.maintenance.note_request()

    def _answer(self, op: str, args: dict[str, Any]) -> Any:
        if self.store_down:
            raise StoreError(f"the database is unavailable, retrying: {self.last_error}")
        if op == "ingest":
            return jsonable(self._ingest_request(args))
        if op == "checkpoint" and args.get("session_id") and args.get("reason") != "manual":
            session_id, reason = str(args["session_id"]), str(args.get("reason"))
            return jsonable(self.request_checkpoint(session_id, reason))
        return dispatch(self.engine, op, args)

    def status(self) -> DaemonStatus:
        return DaemonStatus(
            pid=os.getpid(),
            uptime_seconds=round(time.time() - self.started_at, 1),
            watching=sorted(map(str, self.scheduled)),
            queued=self.paths.qsize(),
            totals=self._totals(),
            failing=self.failing,
            last_error=self.last_error,
            last_error_at=_iso(self.last_error_at),
            maintenance_failing=self.engine.maintenance.health(),
        )

    def _totals(self) -> dict[str, Any]:
        """What was read since start (skipped lines, redactions, restarts, errors, new turns)
        with the counts of what is stored taken from the store, as `stats` does: one source
        of truth, so turns, files and memories never disagree with `recallnest stats`."""
        read = {k: v for k, v in self.totals.as_dict().items() if k not in ("turns", "files")}
        if self.store_down:
            return read
        store = self.engine.store
        return read | store.counts() | {"capture_queued": store.queued_capture_count()}

    def _ingest_request(self, args: dict[str, Any]) -> Backfill:
        roots = [Path(r) for r in args.get("roots") or []] or self.settings.watched_roots()
        sources = list(transcript_files(roots, args.get("since"), args.get("agent")))
        return run_backfill(
            self.engine,
            sources,
            lambda source, collect: self.ingest_path(source.path, source.agent, collect),
            lambda: self.engine.drain_capture(stop=self.stopping.is_set),
        )


# ---- socket server -----------------------------------------------------------------------------


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False
    # Constraint: clients connect with a timeout, i.e. non-blocking, and a Unix socket whose
    # accept backlog is full refuses them at once (EAGAIN) instead of queueing them. The
    # default backlog of 5 turned a burst of hooks into "daemon not reachable".
    request_queue_size = 512
    owner: Daemon


class _Handler(socketserver.StreamRequestHandler):
    timeout = CLIENT_TIMEOUT_SECONDS

    def handle(self) -> None:
        try:
            raw = self.rfile.readline(protocol.MAX_REQUEST_BYTES + 1)
        except OSError:
            return
        reply = _answer(self.server.owner, raw)  # type: ignore[attr-defined]
        with contextlib.suppress(OSError):
            self.wfile.write(protocol.encode(reply))


def _answer(owner: Daemon, raw: bytes) -> dict[str, Any]:
    """One request line → one response. Malformed or oversized requests get an error reply;
    the daemon never dies of a request."""
    if len(raw) > protocol.MAX_REQUEST_BYTES:
        return _error("request too large")
    try:
        message = json.loads(raw)
        op, args = message["op"], message.get("args") or {}
        if not isinstance(op, str) or not isinstance(args, dict):
            raise TypeError("op must be a string and args an object")
    except (ValueError, KeyError, TypeError) as exc:
        return _error(f"malformed request: {exc}")
    if op not in KNOWN:
        return _error(f"unknown operation {op!r}")
    try:
        return {"v": protocol.PROTOCOL_VERSION, "ok": True, "result": owner.handle(op, args)}
    except RecallnestError as exc:
        return _error(str(exc))


def _error(message: str) -> dict[str, Any]:
    """An error reply. Errors may quote the request (a bad argument value): secrets masked."""
    return {"v": protocol.PROTOCOL_VERSION, "ok": False, "error": redact.redact(message)[0]}


def _serve(owner: Daemon) -> _Server:
    path = socket_path(owner.settings.home)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # a stale socket of a dead daemon (we hold the pid lock, so it is dead)
    old_umask = os.umask(0o177)  # socket file 0600: only the owner may connect
    try:
        server = _Server(str(path), _Handler)
    finally:
        os.umask(old_umask)
    server.owner = owner
    return server


# ---- process management ------------------------------------------------------------------------


class _RedactingFormatter(logging.Formatter):
    """Wraps a handler's formatter: no log line holds a secret, whatever a message or a
    traceback quotes."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter()

    def format(self, record: logging.LogRecord) -> str:
        return redact.redact(self.inner.format(record))[0]


def setup_logging(home: Path, verbose: bool = False) -> None:
    """daemon.log (rotated), and redaction on every handler of the root logger: the CLI's
    stderr handler ends up in daemon.out or the service manager's journal."""
    directory = log_dir(home)
    directory.mkdir(mode=0o700, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        directory / "daemon.log", maxBytes=LOG_BYTES, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    for each in root.handlers:
        if not isinstance(each.formatter, _RedactingFormatter):
            each.setFormatter(_RedactingFormatter(each.formatter))
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def run(settings: Settings, polling: bool = False) -> int:
    """Run in the foreground until SIGTERM/SIGINT/SIGHUP. Returns the exit code: 130 after
    SIGINT (Ctrl-C, the shell's 128 + 2), 0 after SIGTERM or SIGHUP (a requested stop)."""
    home = ensure_home(settings.home)
    received: list[int] = []
    with pid_lock(home):
        setup_logging(home)
        daemon = Daemon(settings, Engine.open(settings), polling or settings.polling)
        stop = threading.Event()

        def on_signal(sig: int, _frame: object) -> None:
            received.append(sig)
            stop.set()

        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, on_signal)
        daemon.start()
        try:
            stop.wait()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN)  # shutdown cannot run twice
            daemon.stop()
            with contextlib.suppress(FileNotFoundError):
                socket_path(home).unlink()
    return 130 if received and received[0] == signal.SIGINT else 0


def _describe(exc: BaseException) -> str:
    """One line for logs and `daemon status`: the error's first line, secrets masked."""
    lines = str(exc).strip().splitlines()
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    return redact.redact(text)[0]


def _iso(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(stamp))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0

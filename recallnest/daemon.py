"""The daemon: owns the database for its whole life, watches the agents' transcript folders,
ingests new lines within about a second, embeds in the background, and serves other processes
over an owner-only Unix socket. The only module that imports watchdog.

Threads: the watchdog observer only enqueues paths; one ingest worker debounces and runs the
pipeline; one embedding worker fills in vectors when there is nothing else to do; the socket
server answers requests (one thread per connection). DuckDB is used through per-thread cursors
(Store), writes are serialised by the store's lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import logging.handlers
import os
import queue
import signal
import socketserver
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

from recallnest import protocol
from recallnest.config import Settings
from recallnest.engine import Engine
from recallnest.errors import DaemonError, RecallnestError
from recallnest.ingest import Collector, FileReport, Source, ingest_file, transcript_files
from recallnest.ops import OPS, dispatch
from recallnest.paths import ensure_home, log_dir, pid_path, socket_path
from recallnest.transcripts import detect

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.05
ROOT_RESCAN_SECONDS = 5.0
EMBED_IDLE_SECONDS = 1.0
EMBED_BATCH = 16
IDLE_CHECKPOINT_SECONDS = 300.0  # a session with no new turn for this long gets a checkpoint
HOOK_CHECKPOINT_DELAY = 1.5  # let the agent's last lines arrive before a hook's checkpoint
CLIENT_TIMEOUT_SECONDS = 30.0
LOG_BYTES = 5 * 1024 * 1024


def watched_roots(settings: Settings) -> list[Path]:
    """The transcript folders of the three agents plus configured extra roots."""
    return [
        settings.claude_dir / "projects",
        settings.codex_dir / "sessions",
        settings.codex_dir / "archived_sessions",
        settings.gemini_dir / "tmp",
        *(Path(r).expanduser() for r in settings.extra_roots),
    ]


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


class Daemon:
    def __init__(self, settings: Settings, engine: Engine, polling: bool = False) -> None:
        self.settings = settings
        self.engine = engine
        self.paths: queue.Queue[str] = queue.Queue()
        self.stopping = threading.Event()
        self.observer = PollingObserver(timeout=1.0) if polling else Observer()
        self.scheduled: set[Path] = set()
        self.totals = FileReport()
        self.started_at = time.time()
        self.server: _Server | None = None
        self.requested: dict[str, float] = {}
        self.request_reasons: dict[str, str] = {}
        self._threads: list[threading.Thread] = []

    # ---- lifecycle --------------------------------------------------------------------------

    def start(self) -> None:
        self._schedule_roots()
        self.observer.start()
        self.server = _serve(self)
        for target in (self._ingest_loop, self._embed_loop, self.server.serve_forever):
            thread = threading.Thread(target=target, name=target.__name__, daemon=True)
            thread.start()
            self._threads.append(thread)
        self._enqueue_existing()
        log.info(
            "daemon started, pid %d, watching %s", os.getpid(), sorted(map(str, self.scheduled))
        )

    def stop(self) -> None:
        """Graceful: stop watching, finish the current flush, close the database."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        self.observer.stop()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=30)
        with contextlib.suppress(RuntimeError):
            self.observer.join(timeout=5)
        self.engine.close()
        log.info("daemon stopped")

    # ---- watching ---------------------------------------------------------------------------

    def _schedule_roots(self) -> None:
        for root in watched_roots(self.settings):
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

    # ---- ingest worker ------------------------------------------------------------------------

    def _ingest_loop(self) -> None:
        next_rescan = time.monotonic() + ROOT_RESCAN_SECONDS
        while not self.stopping.is_set():
            collect = Collector(self.engine.ingest_batch)
            for path in self._next_paths(timeout=0.5):
                if self.stopping.is_set():
                    break
                self.ingest_path(path, collect=collect)
            collect.flush()
            self.totals.new_turns += collect.new_turns
            self._checkpoint_due()
            if time.monotonic() >= next_rescan:
                self._schedule_roots()
                next_rescan = time.monotonic() + ROOT_RESCAN_SECONDS

    def _next_paths(self, timeout: float) -> list[str]:
        """Block for one path, then collect whatever else arrives within the debounce window."""
        try:
            first = self.paths.get(timeout=timeout)
        except queue.Empty:
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
        report = ingest_file(source, self.engine.store.cursor(path), apply)
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
            if compacted or now - seen >= IDLE_CHECKPOINT_SECONDS
        ]
        due += [sid for sid, at in list(self.requested.items()) if now >= at]
        for session_id in dict.fromkeys(due):
            reason = "compact" if self.engine.touched.get(session_id, (0, False))[1] else "idle"
            reason = self.request_reasons.pop(session_id, reason)
            self.engine.touched.pop(session_id, None)
            self.requested.pop(session_id, None)
            try:
                self.engine.continuity.checkpoint(session_id, reason)
            except RecallnestError as exc:
                log.warning("checkpoint of %s failed: %s", session_id, exc)

    def request_checkpoint(self, session_id: str, reason: str) -> dict[str, Any]:
        """A hook (pre-compact, session end) asks for a checkpoint: done on the ingest thread
        after a short delay, so the hook returns at once and the last lines are read first."""
        self.requested[session_id] = time.monotonic() + HOOK_CHECKPOINT_DELAY
        self.request_reasons[session_id] = reason
        return {"scheduled": True, "session_id": session_id}

    # ---- embedding worker ---------------------------------------------------------------------

    def _embed_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                done = self.engine.embed_pending(EMBED_BATCH)
            except RecallnestError as exc:
                log.warning("embedding paused: %s", exc)
                done = 0
            if done == 0:
                self.stopping.wait(EMBED_IDLE_SECONDS)

    # ---- requests -----------------------------------------------------------------------------

    def handle(self, op: str, args: dict[str, Any]) -> Any:
        if op == "daemon.status":
            return self.status()
        if op == "ingest":
            return self._ingest_request(args)
        if op == "checkpoint" and args.get("session_id") and args.get("reason") != "manual":
            return self.request_checkpoint(str(args["session_id"]), str(args.get("reason")))
        return dispatch(self.engine, op, args)

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "uptime_seconds": round(time.time() - self.started_at, 1),
            "watching": sorted(map(str, self.scheduled)),
            "queued": self.paths.qsize(),
            "totals": self.totals.as_dict(),
        }

    def _ingest_request(self, args: dict[str, Any]) -> dict[str, Any]:
        roots = [Path(r) for r in args.get("roots") or []] or watched_roots(self.settings)
        report = FileReport()
        collect = Collector(self.engine.ingest_batch)
        memories_before = self.engine.store.counts()["memories"]
        for source in transcript_files(roots, args.get("since"), args.get("agent")):
            report.add(self.ingest_path(source.path, source.agent, collect))
        collect.flush()
        report.new_turns = collect.new_turns
        report.memories = self.engine.store.counts()["memories"] - memories_before
        return report.as_dict()


# ---- socket server -----------------------------------------------------------------------------


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    block_on_close = False
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
    base: dict[str, Any] = {"v": protocol.PROTOCOL_VERSION}
    if len(raw) > protocol.MAX_REQUEST_BYTES:
        return base | {"ok": False, "error": "request too large"}
    try:
        message = json.loads(raw)
        op, args = message["op"], message.get("args") or {}
        if not isinstance(op, str) or not isinstance(args, dict):
            raise TypeError("op must be a string and args an object")
    except (ValueError, KeyError, TypeError) as exc:
        return base | {"ok": False, "error": f"malformed request: {exc}"}
    if op not in OPS and op not in ("daemon.status", "ingest"):
        return base | {"ok": False, "error": f"unknown operation {op!r}"}
    try:
        return base | {"ok": True, "result": owner.handle(op, args)}
    except RecallnestError as exc:
        return base | {"ok": False, "error": str(exc)}


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


@contextlib.contextmanager
def pid_lock(home: Path) -> Iterator[None]:
    """One daemon per home: an exclusive flock on the pid file, held for the daemon's life."""
    path = pid_path(home)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DaemonError(f"the daemon is already running (PID {read_pid(home)})") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)


def read_pid(home: Path) -> int | None:
    try:
        return int(pid_path(home).read_text().strip())
    except (OSError, ValueError):
        return None


def setup_logging(home: Path, verbose: bool = False) -> None:
    directory = log_dir(home)
    directory.mkdir(mode=0o700, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        directory / "daemon.log", maxBytes=LOG_BYTES, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def run(settings: Settings, polling: bool = False) -> int:
    """Run in the foreground until SIGTERM/SIGINT. Returns the exit code."""
    home = ensure_home(settings.home)
    with pid_lock(home):
        setup_logging(home)
        daemon = Daemon(settings, Engine.open(settings), polling or settings.polling)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda *_: stop.set())
        daemon.start()
        try:
            stop.wait()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN)  # shutdown cannot run twice
            daemon.stop()
            with contextlib.suppress(FileNotFoundError):
                socket_path(home).unlink()
    return 0

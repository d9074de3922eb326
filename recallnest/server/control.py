"""Starting, stopping and asking the daemon, and backfill (through the daemon when it runs,
else in this process)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.errors import DaemonError
from recallnest.core.paths import ensure_home, log_dir, socket_path
from recallnest.server import protocol
from recallnest.server.backfill import Backfill, backfill_local
from recallnest.server.pidfile import alive as _alive
from recallnest.server.pidfile import daemon_pid, lock_held, read_pid, remove_stale

START_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 30.0


def _ask(settings: Settings, op: str, args: dict[str, Any], timeout: float) -> Any:
    return protocol.request(str(socket_path(settings.home)), op, args, timeout)


@dataclass(frozen=True, slots=True)
class DaemonState:
    """Whether the daemon of a home answers. When it does, `answer` is its `daemon.status`
    reply as the socket carried it (a daemon of another version may send other keys);
    otherwise the PID of a live daemon that does not answer, a stale pid file's PID, what
    that means (`detail`) and the socket's error."""

    running: bool
    pid: int | None
    answer: dict[str, Any] = field(default_factory=dict)
    stale_pid: int | None = None
    detail: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Backfilled:
    """A backfill and where it ran: `daemon` (it owns the database) or `local`."""

    via: str
    backfill: Backfill


def status(settings: Settings) -> DaemonState:
    try:
        info = _ask(settings, "daemon.status", {}, 2.0)
    except protocol.ProtocolError as exc:
        named = read_pid(settings.home)  # what the file says; daemon_pid verifies it
        alive = named is not None and _alive(named)
        return DaemonState(
            running=False,
            pid=daemon_pid(settings.home) if alive else None,
            stale_pid=named if named is not None and not alive else None,
            detail=_not_answering(named, alive),
            error=str(exc),
        )
    return DaemonState(running=True, pid=info.get("pid"), answer=info)


def _answering_pid(settings: Settings) -> int | None:
    """The PID the daemon of this home reports over its socket, or None."""
    try:
        return int(_ask(settings, "daemon.status", {}, 2.0)["pid"])
    except (protocol.ProtocolError, KeyError, TypeError, ValueError):
        return None


def _not_answering(pid: int | None, alive: bool) -> str:
    """What a pid file without an answering socket means, truthfully."""
    if pid is None:
        return "not running"
    if not alive:
        return f"not running (daemon.pid is stale: PID {pid} has exited)"
    return (
        f"PID {pid} from daemon.pid is alive but does not answer on the socket (a stuck "
        "daemon, or a stale daemon.pid whose PID now belongs to another process)"
    )


def start(settings: Settings, polling: bool = False) -> str:
    """Start the daemon unless one runs. Of concurrent starts only the one whose process won
    the lock says "started"; the others say "already running" with the winner's PID."""
    current = status(settings)
    if current.running:
        return f"already running (PID {current.pid})"
    home = ensure_home(settings.home)
    log_dir(home).mkdir(mode=0o700, exist_ok=True)
    out = (log_dir(home) / "daemon.out").open("ab")
    cmd = [sys.executable, "-m", "recallnest", "--home", str(home), "daemon", "run"]
    proc = subprocess.Popen(
        cmd + (["--polling"] if polling else []),
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=out,
        start_new_session=True,
    )
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        pid = _answering_pid(settings)
        if pid is not None:
            if pid == proc.pid:
                return f"started (PID {pid})"
            proc.wait(STOP_TIMEOUT_SECONDS)  # ours lost the lock: it exits by itself
            return f"already running (PID {pid})"
        if proc.poll() is not None and not lock_held(home):
            raise DaemonError(
                f"the daemon exited with code {proc.returncode}: "
                f"{_tail(log_dir(home) / 'daemon.out')}"
            )
        time.sleep(0.1)
    raise DaemonError(
        f"the daemon did not answer within {START_TIMEOUT_SECONDS:.0f}s; "
        f"see {log_dir(home) / 'daemon.log'}"
    )


def stop(settings: Settings) -> str:
    """SIGTERM to the daemon of this home, and only to it: the PID must be the one its socket
    reports, or one that holds the lock and runs `recallnest daemon run` (pidfile.py). A stale
    pid file is removed, and the process it names is left alone."""
    pid = _answering_pid(settings) or daemon_pid(settings.home)
    if pid is None or not _alive(pid):
        stale = remove_stale(settings.home)
        return "not running" + (f" (removed a stale pid file naming PID {stale})" if stale else "")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if not _alive(pid):
            return f"stopped (PID {pid})"
        time.sleep(0.05)
    raise DaemonError(f"PID {pid} did not stop within {STOP_TIMEOUT_SECONDS:.0f}s")


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return " | ".join(text.strip().splitlines()[-lines:])


def backfill(
    settings: Settings,
    agent: str | None,
    roots: list[str],
    since: str | None,
    on_file: Callable[[int, int], None] | None = None,
    on_capture: Callable[[int, int], None] | None = None,
) -> Backfilled:
    """Ingest existing transcripts; the daemon does it if it runs (it owns the database).
    `on_file(done, total)` follows the files read, `on_capture(done, total)` the turns whose
    queued capture is done (large backfills, see Engine.capture_queued)."""
    from recallnest.core.timeparse import parse_time

    since_dt = parse_time(since)
    since_ts = since_dt.timestamp() if since_dt else None
    if status(settings).running:
        args = {"agent": agent, "roots": roots, "since": since_ts}
        return Backfilled("daemon", Backfill.from_json(_ask(settings, "ingest", args, 3600.0)))
    return Backfilled(
        "local", backfill_local(settings, agent, roots, since_ts, on_file, on_capture)
    )

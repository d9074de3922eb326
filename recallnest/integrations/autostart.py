"""Start the daemon in the background from a hook that found it down: once, never waiting,
never two. Standard library only (the hook's fast path imports it).

Two locks make it safe when several hooks fire at once:
- `<state>/daemon-start.lock`: taken without waiting; a hook that cannot take it does
  nothing (another hook is starting the daemon). The hook that takes it hands its file
  descriptor to the daemon it starts, so the lock stays held for that daemon's whole life
  and no later hook starts another while it starts up or runs.
- `<state>/daemon.pid`: the daemon's own flock (pidfile.pid_lock; probed as pidfile.lock_held
  does, which the daemon's lock retries around). If it is held, a daemon
  runs (started by hand, or by the service manager) and nothing is started; if a daemon is
  started by hand in the gap anyway, one of the two exits at its pid lock.

Only a home that has a database is served (a folder recallnest never used is left alone),
and RECALLNEST_AUTOSTART=0 turns it off.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from recallnest.core.paths import db_path, log_dir

if TYPE_CHECKING:
    import subprocess

SWITCH_ENV = "RECALLNEST_AUTOSTART"
LOCK_NAME = "daemon-start.lock"
OUT_NAME = "daemon.out"

_started: list[subprocess.Popen[bytes]] = []  # kept so Popen never warns at interpreter exit


def start_if_down(home: Path, env: Mapping[str, str]) -> tuple[bool, str]:
    """Start the daemon unless it runs or is being started: (whether one is starting now, a
    one-line account). Raises OSError (from the lock files or the spawn) only."""
    if env.get(SWITCH_ENV, "1") == "0":
        return False, f"not started ({SWITCH_ENV}=0)"
    if sys.platform == "win32":
        return False, "not started (no background start on Windows)"
    if not db_path(home).is_file():
        return False, "not started (no database in this home yet)"
    import fcntl

    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True, "not started (already being started)"
        from recallnest.server.pidfile import lock_held  # fcntl: after the platform check

        if lock_held(home):
            return False, "not started (it is running)"
        pid = _spawn(home, env, fd)
        return True, f"started in the background (PID {pid})"
    finally:
        os.close(fd)  # the daemon keeps its inherited copy, and with it the lock


def _spawn(home: Path, env: Mapping[str, str], lock_fd: int) -> int:
    import subprocess  # only when starting (~3 ms of a cold start otherwise)

    logs = log_dir(home)
    logs.mkdir(mode=0o700, exist_ok=True)
    out = os.open(logs / OUT_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "recallnest", "--home", str(home), "daemon", "run"],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,  # not in the agent's process group: it outlives the hook
            pass_fds=(lock_fd,),
        )
    finally:
        os.close(out)
    _started.append(proc)
    return proc.pid

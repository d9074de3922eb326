"""The daemon's pid file: one daemon per home, and telling that daemon apart from whatever
process later got its PID.

The daemon holds an exclusive flock on `<home>/daemon.pid` for its whole life and removes the
file on exit. A PID read from the file is trusted only while that lock is held and the
process's command line is a recallnest daemon's (decision 0015): a stale file left by a
killed daemon names a PID the system may have handed to an unrelated process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from recallnest.core.errors import DaemonError
from recallnest.core.paths import pid_path

# A probe (lock_held) holds the lock for an instant: a daemon starting right then retries.
LOCK_TRIES = 20
LOCK_RETRY_SECONDS = 0.05


@contextlib.contextmanager
def pid_lock(home: Path) -> Iterator[None]:
    """Hold the exclusive lock with our PID in the file; remove the file when done."""
    path = pid_path(home)
    fd = _locked_fd(path, home)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        try:
            yield
        finally:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # still under the lock: nobody else's file is removed
    finally:
        os.close(fd)


def _locked_fd(path: Path, home: Path) -> int:
    """A descriptor of the pid file with the exclusive lock held. The lock must be on the file
    the path names now: a daemon that exits removes its file, so a lock won on that removed
    file is worthless (another start would create and lock a new one)."""
    for attempt in range(LOCK_TRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if attempt + 1 < LOCK_TRIES and not _answering(home):
                time.sleep(LOCK_RETRY_SECONDS)  # perhaps a probe (lock_held), or a stop
                continue
            raise DaemonError(f"the daemon is already running (PID {read_pid(home)})") from None
        if _same_file(fd, path):
            return fd
        os.close(fd)
    raise DaemonError(f"could not lock {path}: it keeps being replaced")


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _answering(home: Path) -> bool:
    from recallnest.core.paths import socket_path

    return socket_path(home).exists() and daemon_pid(home) is not None


def read_pid(home: Path) -> int | None:
    """The PID written in the file, unverified."""
    try:
        return int(pid_path(home).read_text().strip())
    except (OSError, ValueError):
        return None


def lock_held(home: Path) -> bool:
    """Whether some process holds the daemon lock of `home` (a running or starting daemon)."""
    try:
        fd = os.open(pid_path(home), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the probe's lock at once
    return False


def daemon_pid(home: Path) -> int | None:
    """The PID of the daemon of `home`, verified: the lock is held and the process is a
    `recallnest ... daemon run`. None when no daemon runs (a stale file is not trusted)."""
    pid = read_pid(home)
    if pid is None or not lock_held(home):
        return None
    return pid if is_daemon_process(pid) else None


def is_daemon_process(pid: int) -> bool:
    """Whether `pid` runs a recallnest daemon, from /proc/<pid>/cmdline (where there is no
    procfs the lock is the only evidence, and it is held)."""
    if not Path("/proc/self").exists():
        return True
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    joined = b" ".join(argv)
    return b"recallnest" in joined and b"daemon" in argv and b"run" in argv


def remove_stale(home: Path) -> int | None:
    """Remove a pid file no daemon holds; the PID it named, or None if there was none."""
    pid = read_pid(home)
    if pid is None and not pid_path(home).exists():
        return None
    if lock_held(home):
        return None
    with contextlib.suppress(FileNotFoundError):
        pid_path(home).unlink()
    return pid


def alive(pid: int) -> bool:
    """Whether `pid` runs. A zombie (exited, not yet reaped by its parent) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no procfs (macOS): kill(0) succeeded, so it runs
    return state != "Z"

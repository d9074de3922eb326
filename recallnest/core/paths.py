"""Where recallnest keeps its state. Standard library only (the hook fast path imports it).

`RECALLNEST_HOME` relocates everything: database, config, logs, socket, pid file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from recallnest.core.errors import ConfigError

# The daemon's socket file in the home (server.protocol re-exports it for the wire side).
SOCKET_NAME = "daemon.sock"

DB_NAME = "recallnest.duckdb"
CONFIG_NAME = "config.toml"
PID_NAME = "daemon.pid"
LOG_DIR_NAME = "logs"


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The state directory: $RECALLNEST_HOME, else the platform's per-user data directory."""
    env = os.environ if env is None else env
    explicit = env.get("RECALLNEST_HOME")
    if explicit:
        return Path(explicit).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "recallnest"
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "recallnest"


def ensure_home(home: Path) -> Path:
    """Create the state directory owner-only (0700): transcripts hold code and secrets.
    ConfigError when `home` cannot be one (a file, a read-only or pseudo file system)."""
    try:
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(home, 0o700)
    except OSError as exc:
        raise ConfigError(_unusable(home, exc)) from None
    return home


def check_home(home: Path) -> None:
    """ConfigError unless `home` is missing (created when first written) or a directory we
    can create files in: tried, because /proc passes every permission check and then fails."""
    if not os.path.lexists(home):
        return
    if not home.is_dir():
        raise ConfigError(_unusable(home, NotADirectoryError("it is not a directory")))
    probe = home / f".recallnest-probe-{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(_unusable(home, exc)) from None


def _unusable(home: Path, exc: OSError) -> str:
    why = exc.strerror or str(exc)
    return (
        f"cannot use {home} as the state directory (--home or RECALLNEST_HOME): {why}; "
        "give a directory of yours, or a path where one can be created"
    )


def socket_path(home: Path) -> Path:
    return home / SOCKET_NAME


def db_path(home: Path) -> Path:
    return home / DB_NAME


def pid_path(home: Path) -> Path:
    return home / PID_NAME


def log_dir(home: Path) -> Path:
    return home / LOG_DIR_NAME

"""Where recallnest keeps its state. Standard library only (the hook fast path imports it).

`RECALLNEST_HOME` relocates everything: database, config, logs, socket, pid file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from recallnest.protocol import SOCKET_NAME

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
    """Create the state directory owner-only (0700): transcripts hold code and secrets."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(home, 0o700)
    return home


def socket_path(home: Path) -> Path:
    return home / SOCKET_NAME


def db_path(home: Path) -> Path:
    return home / DB_NAME


def pid_path(home: Path) -> Path:
    return home / PID_NAME


def log_dir(home: Path) -> Path:
    return home / LOG_DIR_NAME

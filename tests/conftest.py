"""Shared fixtures. Every test runs hermetically: its own RECALLNEST_HOME and HOME in temporary
directories, the deterministic hash embedder, no other RECALLNEST_* or agent-location variable
inherited from the developer's shell, and no thread left running afterwards.

Integration tests that need the real embedder set RECALLNEST_EMBEDDER=local themselves.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from recallnest.core.config import Settings
from recallnest.core.paths import db_path, ensure_home
from recallnest.engine import Engine
from recallnest.retrieval.embed import HashEmbedder
from recallnest.store._store import Store

# Variables the developer may set on purpose for a test run; everything else named
# RECALLNEST_* is cleared so a local config cannot change what the tests see.
KEEP_ENV = frozenset({"RECALLNEST_UPDATE_GOLDEN"})
# Agents' own relocation variables (config.py honours them): never inherit the real ones.
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
# Threads get this long to finish after a test before the leak guard fails it. Not a timing
# assertion: a well-behaved test has joined its threads already and this returns at once.
THREAD_JOIN_SECONDS = 10.0

Cli = Callable[..., Result]


def _short_tmpdir(prefix: str) -> Path:
    """Unix socket paths are limited to ~100 bytes, so the home lives in a short /tmp path
    rather than under pytest's long per-test directory."""
    base = "/tmp" if os.path.isdir("/tmp") else None
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))


@pytest.fixture(autouse=True)
def recallnest_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """RECALLNEST_HOME and HOME in fresh temporary directories; the hash embedder."""
    root = _short_tmpdir("rn-")
    home = root / "state"
    user_home = root / "user"
    user_home.mkdir()
    for name in list(os.environ):
        if name.startswith("RECALLNEST_") and name not in KEEP_ENV:
            monkeypatch.delenv(name)
    for name in AGENT_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RECALLNEST_HOME", str(home))
    monkeypatch.setenv("RECALLNEST_EMBEDDER", "hash")
    # A hook that finds no daemon would start one in the background: never in a test that
    # did not ask for it (tests/test_daemon_down.py does).
    monkeypatch.setenv("RECALLNEST_AUTOSTART", "0")
    monkeypatch.setenv("HOME", str(user_home))
    yield home
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_thread_leaks() -> Iterator[None]:
    """Fail a test that leaves a thread running (daemon workers, stub servers)."""
    before = set(threading.enumerate())
    yield
    gc.collect()
    leaked = [t for t in threading.enumerate() if t not in before]
    for thread in leaked:
        thread.join(THREAD_JOIN_SECONDS)
    alive = [t.name for t in leaked if t.is_alive()]
    assert not alive, f"threads left running: {alive}"


@pytest.fixture
def settings(recallnest_home: Path) -> Settings:
    return Settings.load()


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    eng = Engine.open(settings)
    yield eng
    eng.close()


@pytest.fixture
def store(recallnest_home: Path) -> Iterator[Store]:
    """A migrated DuckDB file in the temporary home."""
    s = Store(db_path(ensure_home(recallnest_home)))
    yield s
    s.close()


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def cli() -> Cli:
    """Run the click CLI in-process: `cli(["search", "x", "--json"])` returns the Result.

    Exceptions propagate (catch_exceptions=False) so a crash shows its real traceback;
    ClickException and SystemExit still become an exit code.
    """
    from recallnest.cli import cli as command

    def invoke(args: Sequence[str], input: str | None = None) -> Result:
        return CliRunner().invoke(command, list(args), input=input, catch_exceptions=False)

    return invoke

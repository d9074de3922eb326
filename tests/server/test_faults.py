"""Crash safety and storage faults: SIGKILL at random points, a full disk during a flush (a
fault injected into the store's connection, and a real per-file size quota), and a database
DuckDB has invalidated. In every case each turn ends up stored exactly once, the cursors never
run ahead of the data, and the daemon reports the error and recovers by itself.

The CI variant kills 3 times; bench/bench_crash.py runs 50+ kills. Waits are bounded polls."""

from __future__ import annotations

import logging
import random
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from support.daemon import DaemonProcess, claude_line

from recallnest.core.config import Settings
from recallnest.core.paths import db_path
from recallnest.engine import Engine
from recallnest.server import daemon as daemon_module
from recallnest.server.daemon import BACKUP_QUIET_SECONDS, Daemon
from recallnest.server.repair import check_database
from recallnest.store import Store

WAIT = 60.0
DISK_FULL = 'IO Error: Could not write file "recallnest.duckdb.wal": No space left on device'
INVALIDATED = (
    "FATAL Error: Failed: database has been invalidated because of a previous fatal error. "
    "The database must be restarted prior to being used again."
)


def wait_for(check: Callable[[], object], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# ---- in-process fault injection -------------------------------------------------------------


class Fault:
    """What the store's connection does: `none`, `disk-full` (a write statement or the COMMIT
    fails; DuckDB rolls the transaction back itself) or `fatal` (every statement fails, as
    after a failed checkpoint, until the database is reopened)."""

    def __init__(self) -> None:
        self.mode = "none"
        self.at = "INSERT INTO turns"  # the statement that hits the full disk
        self.hits = 0

    def check(self, cur: duckdb.DuckDBPyConnection, sql: str) -> None:
        if self.mode == "fatal":
            self.hits += 1
            raise duckdb.FatalException(INVALIDATED)
        if self.mode == "disk-full" and sql.lstrip().upper().startswith(self.at.upper()):
            self.hits += 1
            if self.at == "COMMIT":
                cur.execute("ROLLBACK")  # what DuckDB does when a commit cannot be written
                raise duckdb.TransactionException(f"TransactionContext Error: {DISK_FULL}")
            raise duckdb.IOException(DISK_FULL)


class FaultyCursor:
    """A DuckDB cursor whose `execute` consults a Fault first; everything else passes through."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, fault: Fault) -> None:
        self._cur = cur
        self._fault = fault

    def execute(self, sql: str, *args: Any) -> Any:
        self._fault.check(self._cur, sql)
        return self._cur.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


def inject(store: Store, fault: Fault, monkeypatch: pytest.MonkeyPatch) -> None:
    original = store._cur
    monkeypatch.setattr(store, "_cur", lambda: FaultyCursor(original(), fault))


@pytest.fixture
def fast_retry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daemon_module, "RETRY_SECONDS", 0.05)
    monkeypatch.setattr(daemon_module, "RETRY_MAX_SECONDS", 0.2)


@pytest.fixture
def running(settings: Settings, fast_retry: None) -> Iterator[Callable[[Engine], Daemon]]:
    """Start an in-process daemon (observer, socket, workers) on a given engine; stopped after."""
    started: list[Daemon] = []

    def start(engine: Engine) -> Daemon:
        started.append(Daemon(settings, engine))
        started[-1].start()
        return started[-1]

    yield start
    for daemon in started:
        daemon.stop()


def write_session(settings: Settings, name: str, n: int) -> Path:
    folder = settings.claude_dir / "projects" / "-work-app"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    lines = [claude_line(name, k, f"line {k} of {name} about pelicans") for k in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


def stored_turns(daemon: Daemon) -> int:
    return daemon.engine.store.counts()["turns"]


@pytest.mark.parametrize("at", ["INSERT INTO turns", "COMMIT"])
def test_disk_full_during_a_flush_is_reported_retried_and_recovered(
    settings: Settings,
    running: Callable[[Engine], Daemon],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    at: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="recallnest.server.daemon")
    path = write_session(settings, "s1", 25)
    engine = Engine.open(settings)
    fault = Fault()
    fault.mode, fault.at = "disk-full", at
    inject(engine.store, fault, monkeypatch)
    daemon = running(engine)
    wait_for(lambda: fault.hits >= 3, "three failed flushes")
    status = daemon.status()
    assert status.failing is True
    assert status.last_error and "No space left on device" in status.last_error
    assert status.last_error_at
    assert any("No space left on device" in r.getMessage() for r in caplog.records)
    assert engine.store.cursor(str(path)) is None  # the cursor stayed where it was
    assert stored_turns(daemon) == 0
    assert daemon._threads[0].is_alive()  # the ingest worker survived
    fault.mode = "none"  # space is back
    wait_for(lambda: stored_turns(daemon) == 25, "the 25 turns after the disk has space")
    wait_for(lambda: not daemon.status().failing, "the daemon to report recovery")
    assert "No space left on device" in (daemon.status().last_error or "")  # still shown
    cursor = engine.store.cursor(str(path))
    assert cursor is not None and cursor.byte_offset == path.stat().st_size
    with path.open("a") as fh:  # and it keeps tailing
        fh.write(claude_line("s1", 25, "one more line about pelicans") + "\n")
    wait_for(lambda: stored_turns(daemon) == 26, "the appended turn")


def test_an_invalidated_database_is_reopened(
    settings: Settings, running: Callable[[Engine], Daemon], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_session(settings, "s1", 10)
    engine = Engine.open(settings)
    fault = Fault()
    fault.mode = "fatal"
    inject(engine.store, fault, monkeypatch)
    daemon = running(engine)
    wait_for(lambda: daemon.engine is not engine, "the daemon to reopen the database")
    assert "invalidated" in (daemon.status().last_error or "")
    assert daemon.engine.store is not engine.store
    wait_for(lambda: stored_turns(daemon) == 10, "the turns through the reopened database")
    assert daemon.handle("ping", {}) == {"pong": True}
    assert not daemon.store_down


def test_requests_get_an_error_while_the_database_is_down(
    settings: Settings, running: Callable[[Engine], Daemon], monkeypatch: pytest.MonkeyPatch
) -> None:
    from recallnest.core.errors import StoreError

    engine = Engine.open(settings)
    daemon = running(engine)
    monkeypatch.setattr(daemon, "store_down", True)
    daemon.last_error = "FatalException: invalidated"
    with pytest.raises(StoreError, match="unavailable"):
        daemon.handle("search", {"query": "x"})
    assert daemon.handle("daemon.status", {})["last_error"] == "FatalException: invalidated"


def test_the_idle_clock_runs_from_the_end_of_a_long_request(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Idle maintenance (a compaction swaps the connection) never starts beside a request
    that outlasted the idle wait: the clock restarts when the request ends."""
    from recallnest.lifecycle.scheduler import IDLE_SECONDS

    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    clock = [1000.0]
    engine.maintenance._monotonic = lambda: clock[0]

    def slow_dispatch(*_: object) -> str:
        clock[0] += IDLE_SECONDS + 5  # the request takes longer than the idle wait
        return "done"

    monkeypatch.setattr(daemon_module, "dispatch", slow_dispatch)
    try:
        assert daemon.handle("search", {"query": "x"}) == "done"
        assert not engine.maintenance.quiet_for(1.0)
        clock[0] += IDLE_SECONDS
        assert engine.maintenance.quiet_for(IDLE_SECONDS)
    finally:
        daemon.stop()


def test_a_session_hook_has_a_new_agent_folder_watched_at_once(settings: Settings) -> None:
    """Gemini drops a prompt that got no answer when its session is resumed; a folder first
    written by this session must be watched when the session starts, not at the next rescan."""
    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    try:
        daemon._schedule_roots()
        gemini = settings.gemini_dir / "tmp"
        assert gemini not in daemon.scheduled
        daemon.handle("daemon.status", {})
        assert not daemon.rescan.is_set()  # not a session's request
        gemini.mkdir(parents=True)
        daemon.handle("recall", {"prompt": "hello", "session_id": "s", "agent": "gemini"})
        assert daemon.rescan.is_set()
        daemon._schedule_roots()
        assert gemini in daemon.scheduled
    finally:
        daemon.stop()


def test_snapshots_and_rewarming_wait_while_requests_come_in(settings: Settings) -> None:
    """Background work no agent waits for holds the GIL 20-50 ms a project: it starts only
    after REQUEST_QUIET_SECONDS without a request (issue 23: a prompt's recall beside it
    waited for it), and then does run."""
    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    clock = [1000.0]
    engine.maintenance._monotonic = lambda: clock[0]
    written: list[int] = []
    rewarmed: list[int] = []
    daemon.snapshots.refresh = lambda e, keep_going: written.append(1) or 1  # type: ignore[method-assign]
    engine.continuity.rewarm = lambda: rewarmed.append(1) or 0  # type: ignore[method-assign]
    try:
        daemon.caught_up = True
        daemon.handle("ping", {})
        daemon._after_pass()
        daemon._rewarm()
        assert written == [] and rewarmed == []
        clock[0] += daemon_module.REQUEST_QUIET_SECONDS
        daemon._after_pass()
        daemon._rewarm()
        assert written == [1] and rewarmed == [1]
        assert daemon._quiet()
        daemon.handle("ping", {})
        assert not daemon._quiet()
    finally:
        daemon.stop()


def test_periodic_backup_is_written_at_most_once_per_interval(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recallnest.server.backup import backup_path, read_export

    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    clock = [1000.0]
    engine.maintenance._monotonic = lambda: clock[0]
    engine.maintenance.note_request()
    clock[0] += BACKUP_QUIET_SECONDS
    try:
        daemon._backup_if_due()
        assert not backup_path(settings.home).exists()  # nothing to back up yet
        engine.remember("We deploy with Ansible, never by hand")
        daemon._backup_if_due()
        first = read_export(backup_path(settings.home))
        assert [r["text"] for r in first] == ["We deploy with Ansible, never by hand"]
        assert backup_path(settings.home).stat().st_mode & 0o777 == 0o600
        engine.remember("The CI runners use Ubuntu 24.04")
        daemon._backup_if_due()  # changed, but written less than an hour ago
        assert len(read_export(backup_path(settings.home))) == 1
        monkeypatch.setattr(time, "time", lambda: daemon._next_backup + 1.0)
        daemon.handle("ping", {})  # someone is waiting for an answer: not now
        daemon._backup_if_due()
        assert len(read_export(backup_path(settings.home))) == 1
        clock[0] += BACKUP_QUIET_SECONDS
        daemon._backup_if_due()
        assert len(read_export(backup_path(settings.home))) == 2
    finally:
        daemon.stop()


# ---- a real process: SIGKILL at random points -----------------------------------------------


@pytest.fixture
def proc(recallnest_home: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(recallnest_home.parent / "d")
    yield d
    d.stop()


def expected_records(sessions: dict[str, int]) -> set[str]:
    return {f"{s}-{k}" for s, n in sessions.items() for k in range(n)}


def record_ids(home: Path) -> list[str]:
    store = Store(db_path(home), read_only=True)
    try:
        return [record for _, record in store.turn_records()]
    finally:
        store.close()


@pytest.mark.slow
def test_sigkill_at_random_points_then_every_turn_exactly_once(proc: DaemonProcess) -> None:
    rng = random.Random(20261130)
    sessions: dict[str, int] = {}
    # A backlog first, so that one kill can land in the middle of the catch-up ingest.
    backlog = proc.projects / "backlog.jsonl"
    lines = [claude_line("backlog", k, f"backlog {k} about herons {k % 13}") for k in range(1500)]
    backlog.write_text("\n".join(lines) + "\n")
    sessions["backlog"] = len(lines)
    for iteration in range(3):
        proc.start(wait=iteration > 0)  # the first kill may come before the socket answers
        name = f"live{iteration}"
        stop = threading.Event()
        thread = threading.Thread(target=append_until, args=(proc, name, sessions, stop))
        thread.start()
        time.sleep(rng.uniform(0.2, 1.0))
        proc.kill()
        stop.set()
        thread.join()
    proc.start()
    total = sum(sessions.values())
    proc.wait_for(lambda: proc.turns() == total, f"{total} turns after the last restart")
    assert proc.stop() == 0
    ids = record_ids(proc.home)
    assert len(ids) == len(set(ids)) == total
    assert set(ids) == expected_records(sessions)
    assert check_database(db_path(proc.home)) is None


def append_until(
    proc: DaemonProcess, name: str, sessions: dict[str, int], stop: threading.Event
) -> None:
    """Append turns to a new session (half lines included) until told to stop."""
    path = proc.projects / f"{name}.jsonl"
    k = 0
    with path.open("a") as fh:
        while not stop.is_set() or k < 20:
            line = claude_line(name, k, f"{name} turn {k} about cormorants")
            fh.write(line[:30])
            fh.flush()
            fh.write(line[30:] + "\n")
            fh.flush()
            k += 1
            time.sleep(0.002)
    sessions[name] = k


# ---- a real process: a per-file size quota (disk full without root) --------------------------


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prlimit is Linux-only")
def test_file_size_quota_stalls_ingest_then_it_recovers(proc: DaemonProcess) -> None:
    """RLIMIT_FSIZE makes every write past the limit fail with EFBIG, as a full disk fails
    with ENOSPC: the WAL cannot grow, so each flush fails at its COMMIT. (Python ignores
    SIGXFSZ, so the daemon gets the error instead of dying.)"""
    process = proc.start()
    quota = 256 * 1024
    resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (quota, resource.RLIM_INFINITY))
    text = "the quota test is about kingfishers " * 40
    session = proc.projects / "quota.jsonl"
    session.write_text("".join(claude_line("quota", k, f"{k} {text}") + "\n" for k in range(400)))
    proc.wait_for(lambda: (proc.ask("daemon.status") or {}).get("failing"), "a failed flush")
    status = proc.cli("daemon", "status")
    assert status.returncode == 0 and "last_error:" in status.stdout
    assert "File too large" in status.stdout
    counts = proc.counts()
    assert counts["turns"] == 0 and counts["files"] == 0  # no turn, no cursor moved
    resource.prlimit(process.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2)
    proc.wait_for(lambda: proc.turns() == 400, "all 400 turns once the quota is lifted")
    proc.wait_for(lambda: not proc.ask("daemon.status")["failing"], "recovery to be reported")
    assert "ingest failed" in proc.logs() and "File too large" in proc.logs()
    assert proc.stop() == 0
    ids = record_ids(proc.home)
    assert len(ids) == len(set(ids)) == 400


def test_checkpoints_due_at_once_are_built_a_budget_at_a_time(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recallnest.server import daemon as daemon_mod

    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    built: list[str] = []
    monkeypatch.setattr(engine.continuity, "checkpoint", lambda sid, reason: built.append(sid))
    monkeypatch.setattr(daemon_mod, "CHECKPOINT_BUDGET_SECONDS", 0.0)  # one per pass
    try:
        engine.touched.update({f"s{k}": (0.0, False) for k in range(10)})
        daemon._checkpoint_due()
        assert built == ["s0"]  # then back to reading new lines
        assert "s0" not in engine.touched and len(engine.touched) == 9
        while engine.touched:
            daemon._checkpoint_due()
        assert built == [f"s{k}" for k in range(10)]  # none lost, none twice, in order
    finally:
        daemon.stop()

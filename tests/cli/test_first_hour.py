"""The first hour (issue 24): status tells the truth, maintenance never fails quietly, doctor's
lines say each thing once."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from support.daemon import DaemonProcess, claude_line

from recallnest.core.config import Settings
from recallnest.engine import Engine
from recallnest.lifecycle.scheduler import INTERVALS, RETRY_FIRST_SECONDS, Maintenance
from recallnest.store import base as store_base

PREFERENCES = ["uv", "ruff", "pnpm", "podman", "tmux", "jq"]


@pytest.fixture
def daemon() -> Iterator[DaemonProcess]:
    root = Path("/tmp") / f"rnf-{uuid.uuid4().hex[:8]}"
    proc = DaemonProcess(root)
    try:
        yield proc
    finally:
        proc.stop()
        shutil.rmtree(root, ignore_errors=True)


def _json(proc: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert isinstance(out, dict)
    return out


def _status_counts(daemon: DaemonProcess) -> dict[str, object]:
    totals = _json(daemon.cli("daemon", "status", "--json"))["totals"]
    assert isinstance(totals, dict)
    return totals


def _stats_counts(daemon: DaemonProcess) -> dict[str, object]:
    counts = _json(daemon.cli("stats", "--json"))["counts"]
    assert isinstance(counts, dict)
    return counts


def _agree(daemon: DaemonProcess) -> None:
    """The two agree. They are read one after the other while the daemon embeds in the
    background (`vectors` moves between them), so a bounded poll waits for a quiet moment; a
    count taken from another source never agrees and fails the wait."""

    def agreeing() -> bool:
        status, stats = _status_counts(daemon), _stats_counts(daemon)
        return {k: status[k] for k in stats} == stats

    daemon.wait_for(agreeing, "daemon status and stats to give the same counts")


# ---- daemon status and stats: one source of truth -------------------------------------------


@pytest.mark.slow
def test_daemon_status_counts_are_the_stats_counts_while_tailing_live(
    daemon: DaemonProcess,
) -> None:
    transcript = daemon.projects / "live-1.jsonl"
    first = [claude_line("live-1", k, f"I always prefer {t} for this") for k, t in enumerate("ab")]
    transcript.write_text("\n".join(first) + "\n", encoding="utf-8")
    daemon.start()
    daemon.wait_for(lambda: daemon.counts().get("memories", 0) >= 1, "the first memories")
    _agree(daemon)
    before = daemon.counts()["memories"]
    with transcript.open("a", encoding="utf-8") as f:  # live appends: the tailing path
        for k, tool in enumerate(PREFERENCES, start=2):
            line = f"I always prefer {tool} for the {tool} {k} step"
            f.write(claude_line("live-1", k, line) + "\n")
    daemon.wait_for(lambda: daemon.turns() == 2 + len(PREFERENCES), "the live turns")
    daemon.wait_for(lambda: daemon.counts().get("memories", 0) > before, "live memories")
    _agree(daemon)
    status = _status_counts(daemon)
    assert status["memories"] == _stats_counts(daemon)["memories"] and status["files"] == 1


# ---- stale pid file --------------------------------------------------------------------------


@pytest.mark.slow
def test_status_and_doctor_call_a_stale_pid_file_stale(recallnest_home: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    recallnest_home.mkdir(parents=True, exist_ok=True)
    (recallnest_home / "daemon.pid").write_text(f"{gone.pid}\n")
    run = [sys.executable, "-m", "recallnest"]
    status = subprocess.run([*run, "daemon", "status", "--json"], capture_output=True, text=True)
    assert status.returncode == 3
    info = json.loads(status.stdout)
    assert info["running"] is False and info["pid"] is None and info["stale_pid"] == gone.pid
    assert f"daemon.pid is stale: PID {gone.pid} has exited" in info["detail"]
    doctor = subprocess.run([*run, "doctor", "--json"], capture_output=True, text=True)
    line = {c["name"]: c for c in json.loads(doctor.stdout)}["daemon"]
    assert not line["ok"] and f"daemon.pid is stale: PID {gone.pid}" in line["detail"]


# ---- doctor ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_doctor_embedder_line_names_the_model_and_dimensions_once(recallnest_home: Path) -> None:
    doctor = subprocess.run(
        [sys.executable, "-m", "recallnest", "doctor", "--json"], capture_output=True, text=True
    )
    line = {c["name"]: c for c in json.loads(doctor.stdout)}["embedder"]
    assert line["ok"], line
    model = line["detail"].split(":", 1)[0]
    assert model and line["detail"].count(model) == 1, line["detail"]
    assert line["detail"].count("-d") == 1, line["detail"]


# ---- maintenance: a failed task retries with back-off and says so ----------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _hold_a_write_transaction(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> object:
    """Another cursor with an uncommitted write that is never committed (a stuck writer):
    DuckDB then refuses CHECKPOINT ("there are other write transactions active") for longer
    than the store waits for it (shortened here from its seconds)."""
    monkeypatch.setattr(store_base, "CHECKPOINT_WAIT_SECONDS", 0.05)
    other = engine.store._con.cursor()
    other.execute("BEGIN TRANSACTION")
    other.execute("CREATE TABLE held_open (x INTEGER)")
    other.execute("INSERT INTO held_open VALUES (1)")
    return other


def test_a_failed_compaction_retries_with_back_off_and_is_reported(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = _Clock()
    m = Maintenance(engine, monotonic=clock)
    m.tick(idle=True)
    clock.now += 31.0
    other = _hold_a_write_transaction(engine, monkeypatch)
    ran = _run_until_quiet(m)
    assert "compact" not in ran
    failing = m.health()["compact"]
    assert "Cannot CHECKPOINT" in failing["error"] and failing["attempts"] == 1
    first_retry = datetime.fromisoformat(failing["next_retry_at"])
    assert (first_retry - datetime.fromisoformat(failing["failed_at"])).total_seconds() == 30

    clock.now += RETRY_FIRST_SECONDS - 1  # not yet due
    assert "compact" not in _run_until_quiet(m) and m.health()["compact"]["attempts"] == 1
    clock.now += 1  # due: fails again, the wait doubles
    _run_until_quiet(m)
    again = m.health()["compact"]
    assert again["attempts"] == 2
    waited = datetime.fromisoformat(again["next_retry_at"]) - datetime.fromisoformat(
        again["failed_at"]
    )
    assert waited.total_seconds() == 2 * RETRY_FIRST_SECONDS

    other.execute("ROLLBACK")  # type: ignore[attr-defined]
    clock.now += 2 * RETRY_FIRST_SECONDS
    assert "compact" in _run_until_quiet(m)
    assert "compact" not in m.health()
    clock.now += 1
    assert "compact" not in _run_until_quiet(m)  # succeeded: back to its interval
    clock.now += INTERVALS["compact"]
    assert "compact" in _run_until_quiet(m)


def _run_until_quiet(m: Maintenance) -> list[str]:
    ran, step = [], m.tick(idle=True)
    while step:
        ran += step
        step = m.tick(idle=True)
    return ran


def test_back_off_never_waits_longer_than_the_task_interval(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = _Clock()
    m = Maintenance(engine, monotonic=clock)
    m.tick(idle=True)
    clock.now += 31.0
    other = _hold_a_write_transaction(engine, monkeypatch)
    for _ in range(12):
        _run_until_quiet(m)
        clock.now += INTERVALS["compact"]
    failing = m.health()["compact"]
    waited = datetime.fromisoformat(failing["next_retry_at"]) - datetime.fromisoformat(
        failing["failed_at"]
    )
    assert failing["attempts"] == 12 and waited.total_seconds() == INTERVALS["compact"]
    other.execute("ROLLBACK")  # type: ignore[attr-defined]


@pytest.mark.slow
def test_daemon_status_and_doctor_report_maintenance_health(daemon: DaemonProcess) -> None:
    daemon.start()
    status = _json(daemon.cli("daemon", "status", "--json"))
    assert status["maintenance_failing"] == {}
    doctor = daemon.cli("doctor", "--json")
    line = {c["name"]: c for c in json.loads(doctor.stdout)}["maintenance"]
    assert line == {
        "name": "maintenance",
        "ok": True,
        "detail": "every background task succeeded at its last run",
    }


def test_a_failed_memory_backup_backs_off_and_shows_in_daemon_status(
    settings: Settings,
) -> None:
    from recallnest.server.backup import backup_path, read_export
    from recallnest.server.daemon import BACKUP_QUIET_SECONDS, Daemon

    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    clock = [1000.0]
    engine.maintenance._monotonic = lambda: clock[0]
    engine.maintenance.note_request()
    clock[0] += BACKUP_QUIET_SECONDS
    blocker = backup_path(settings.home).parent
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the backups folder belongs")
    try:
        engine.remember("We deploy with Ansible, never by hand")
        started = time.time()
        daemon._backup_if_due()
        failing = daemon.handle("daemon.status", {})["maintenance_failing"]["backup"]
        assert failing["attempts"] == 1 and failing["error"]
        assert started + RETRY_FIRST_SECONDS <= daemon._next_backup <= time.time() + 30
        daemon._backup_if_due()  # not due yet: no second attempt right away
        assert daemon.handle("daemon.status", {})["maintenance_failing"]["backup"]["attempts"] == 1
        blocker.unlink()
        daemon._next_backup = time.time() - 1  # the back-off has passed
        daemon._backup_if_due()
        assert [r["text"] for r in read_export(backup_path(settings.home))] == [
            "We deploy with Ansible, never by hand"
        ]
        assert daemon.handle("daemon.status", {})["maintenance_failing"] == {}
    finally:
        daemon.stop()


def test_a_failed_checkpoint_is_retried_after_a_back_off_and_reported(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recallnest.core.errors import StoreError
    from recallnest.server.daemon import Daemon

    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    built: list[str] = []

    def flaky(session_id: str, reason: str) -> None:
        if not built:
            built.append("refused")
            raise StoreError("Cannot CHECKPOINT: there are other write transactions active")
        built.append(session_id)

    monkeypatch.setattr(engine.continuity, "checkpoint", flaky)
    try:
        engine.touched["s1"] = (0.0, False)
        daemon._checkpoint_due()
        failing = daemon.handle("daemon.status", {})["maintenance_failing"]["checkpoint"]
        assert "Cannot CHECKPOINT" in failing["error"]
        assert daemon.requested["s1"] > time.monotonic() + RETRY_FIRST_SECONDS - 5  # later
        daemon.requested["s1"] = time.monotonic()  # the back-off has passed
        daemon._checkpoint_due()
        assert built == ["refused", "s1"]  # not lost
        assert daemon.handle("daemon.status", {})["maintenance_failing"] == {}
    finally:
        daemon.stop()

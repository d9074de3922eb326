"""Sessions while the daemon is down (issue 16 item 9): the daemon keeps an owner-only,
redacted per-project resume snapshot; the session-start hook gives those notes when the
daemon does not answer and starts it in the background (once, under a lock, never two); the
daemon logs one "caught up" line after its first catch-up.

Real processes throughout: `recallnest daemon run` (tests/support/daemon.py) and `recallnest hook`.
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.daemon import WAIT_SECONDS, DaemonProcess, claude_line

from recallnest.continuity import snapshot
from recallnest.core.marker import CONTEXT_MARKER
from recallnest.core.paths import db_path, log_dir
from recallnest.engine import Engine
from recallnest.integrations import autostart
from recallnest.server import snapshot_refresh

PROJECT_NOTE = "We deploy the billing service with blue-green switches on Tuesdays"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def proc() -> Iterator[DaemonProcess]:
    root = Path(tempfile.mkdtemp(prefix="rndown-", dir="/tmp"))
    daemon = DaemonProcess(root)
    (root / "proj").mkdir()
    yield daemon
    daemon.stop()
    _stop_started(daemon)
    subprocess.run(["rm", "-rf", str(root)], check=False)


def _hook(proc: DaemonProcess, source: str = "startup", autostart_on: bool = False) -> str:
    payload = {"session_id": "s-1", "cwd": str(proc.root / "proj"), "source": source}
    env = {**proc.env, "RECALLNEST_AUTOSTART": "1" if autostart_on else "0"}
    done = subprocess.run(
        [sys.executable, "-m", "recallnest", "hook", "session-start", "--agent", "claude"],
        input=json.dumps(payload),
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert done.returncode == 0 and done.stderr == "", done
    return done.stdout


def _note_in_project(proc: DaemonProcess, text: str = PROJECT_NOTE) -> None:
    proc.request("remember", text=text, scope=str(proc.root / "proj"))


def _wait_snapshot(proc: DaemonProcess, needle: str) -> Path:
    path = snapshot.path_for(proc.home, str(proc.root / "proj"))
    proc.wait_for(
        lambda: path.exists() and needle in path.read_text(encoding="utf-8"),
        "the project's snapshot",
    )
    return path


def _daemon_pids(home: Path) -> list[int]:
    """Running `recallnest ... daemon run` processes of this home (from /proc)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        env_home = _env_home(entry)
        named = str(home).encode() in argv or env_home == str(home)
        if b"daemon" in argv and b"run" in argv and named and state != "Z":
            pids.append(int(entry.name))
    return pids


def _env_home(entry: Path) -> str | None:
    try:
        for item in (entry / "environ").read_bytes().split(b"\0"):
            if item.startswith(b"RECALLNEST_HOME="):
                return item.split(b"=", 1)[1].decode()
    except OSError:
        return None
    return None


def _stop_started(proc: DaemonProcess) -> None:
    for pid in _daemon_pids(proc.home):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + WAIT_SECONDS
    while _daemon_pids(proc.home) and time.monotonic() < deadline:
        time.sleep(0.1)


# --- the snapshot ------------------------------------------------------------------------------


def test_snapshot_is_owner_only_and_read_back(tmp_path: Path) -> None:
    home = tmp_path / "rn"
    home.mkdir()
    path = snapshot.write(home, snapshot.Snapshot("/p", "2026-12-02T10:00:00+00:00", "notes"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    found = snapshot.read(home, "/p")
    assert found is not None and found.text == "notes"


def test_snapshot_others_can_read_is_ignored(tmp_path: Path) -> None:
    home = tmp_path / "rn"
    home.mkdir()
    path = snapshot.write(home, snapshot.Snapshot("/p", "now", "notes"))
    path.chmod(0o644)
    assert snapshot.read(home, "/p") is None


def test_snapshot_of_another_project_or_damaged_is_ignored(tmp_path: Path) -> None:
    home = tmp_path / "rn"
    home.mkdir()
    path = snapshot.write(home, snapshot.Snapshot("/p", "now", "notes"))
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "project": "/q"}), encoding="utf-8")
    assert snapshot.read(home, "/p") is None
    path.write_text("{not json", encoding="utf-8")
    assert snapshot.read(home, "/p") is None


@pytest.mark.slow
def test_daemon_keeps_a_redacted_owner_only_snapshot_per_project(proc: DaemonProcess) -> None:
    proc.start()
    _note_in_project(proc)
    _note_in_project(proc, f"The deploy token for staging is {SECRET}")
    path = _wait_snapshot(proc, "staging")
    text = path.read_text(encoding="utf-8")
    assert PROJECT_NOTE in text and SECRET not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


# --- the hook with the daemon down ---------------------------------------------------------------


@pytest.mark.slow
def test_hook_gives_the_projects_notes_while_the_daemon_is_down(proc: DaemonProcess) -> None:
    proc.start()
    _note_in_project(proc)
    _wait_snapshot(proc, PROJECT_NOTE)
    proc.stop()
    output = _hook(proc)
    context = json.loads(output)["hookSpecificOutput"]["additionalContext"]
    assert PROJECT_NOTE in context and CONTEXT_MARKER in context
    assert "daemon did not answer" in context and "being started" not in context


@pytest.mark.slow
def test_hook_on_resume_sends_no_second_copy_while_down(proc: DaemonProcess) -> None:
    proc.start()
    _note_in_project(proc)
    _wait_snapshot(proc, PROJECT_NOTE)
    proc.stop()
    assert _hook(proc, source="resume") == ""


@pytest.mark.slow
def test_hook_starts_the_daemon_when_it_is_down(proc: DaemonProcess) -> None:
    proc.start()
    proc.stop()
    assert proc.ask("ping") is None
    _hook(proc, autostart_on=True)
    proc.proc = None  # the harness did not start this one
    proc.wait_for(lambda: proc.ask("ping") == {"pong": True}, "the started daemon")
    assert len(_daemon_pids(proc.home)) == 1


@pytest.mark.slow
def test_several_hooks_at_once_start_exactly_one_daemon(proc: DaemonProcess) -> None:
    proc.start()
    proc.stop()
    proc.proc = None  # from here on, the daemon is the one a hook starts
    payload = json.dumps({"session_id": "s", "cwd": str(proc.root / "proj"), "source": "startup"})
    env = {**proc.env, "RECALLNEST_AUTOSTART": "1"}
    argv = [sys.executable, "-m", "recallnest", "hook", "session-start", "--agent", "codex"]
    hooks = [
        subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(6)
    ]
    for hook in hooks:  # every payload goes out before any hook is waited for
        assert hook.stdin is not None
        hook.stdin.write(payload.encode())
        hook.stdin.close()
    for hook in hooks:
        assert hook.stdout is not None and hook.stderr is not None
        hook.stdout.read()
        err = hook.stderr.read()
        assert hook.wait(WAIT_SECONDS) == 0 and err == b""
        hook.stdout.close()
        hook.stderr.close()
    proc.wait_for(lambda: proc.ask("ping") == {"pong": True}, "the started daemon")
    log = (log_dir(proc.home) / "hook.log").read_text(encoding="utf-8")
    assert log.count("daemon started in the background") == 1, log
    assert len(_daemon_pids(proc.home)) == 1
    _hook(proc, autostart_on=True)  # a later hook, the daemon up: nothing more is started
    assert len(_daemon_pids(proc.home)) == 1


def test_no_start_in_a_home_without_a_database(tmp_path: Path) -> None:
    outcome = autostart.start_if_down(tmp_path, {"RECALLNEST_AUTOSTART": "1"})
    assert outcome == (False, "not started (no database in this home yet)")
    assert not db_path(tmp_path).exists()


def test_no_start_when_switched_off(tmp_path: Path) -> None:
    db_path(tmp_path).write_bytes(b"")
    assert autostart.start_if_down(tmp_path, {"RECALLNEST_AUTOSTART": "0"}) == (
        False,
        "not started (RECALLNEST_AUTOSTART=0)",
    )


# --- the daemon says when it has caught up -----------------------------------------------------


@pytest.mark.slow
def test_daemon_logs_one_caught_up_line_after_the_first_catch_up(proc: DaemonProcess) -> None:
    lines = [claude_line("s1", k, f"we always run the linter before pushing {k}") for k in range(4)]
    (proc.projects / "s1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc.start()
    caught = re.compile(r"caught up: (\d+) files, (\d+) turns, (\d+) memories")
    proc.wait_for(lambda: caught.search(proc.errors()), "the caught-up line")
    match = caught.search(proc.errors())
    assert match is not None and match.group(1) == "1" and match.group(2) == "4"
    assert len(caught.findall(proc.errors())) == 1


# --- the daemon's side: rounds of snapshots ------------------------------------------------------


def whole_round(engine: Engine, home: Path) -> int:
    """Refresh slices until the round ends: how many projects it went through."""
    keeper = snapshot_refresh.SnapshotKeeper(home)
    written = 0
    while count := keeper.refresh(engine):
        written += count
    return written


def test_snapshot_rounds_follow_the_notes_and_drop_stale_projects(engine: Engine) -> None:
    home = engine.settings.home
    kept = engine.remember("We pin every dependency in the alpha service", scope="/w/alpha")
    gone = engine.remember("The beta service deploys from the release branch", scope="/w/beta")
    assert whole_round(engine, home) == 3  # global, alpha, beta
    assert snapshot.read(home, "/w/beta") is not None
    engine.forget([gone.id])
    assert whole_round(engine, home) == 2  # global and alpha
    beta = snapshot.read(home, "/w/beta")
    assert beta is None or "beta service" not in beta.text  # its own file was removed
    alpha = snapshot.read(home, "/w/alpha")
    assert alpha is not None and "alpha service" in alpha.text
    assert kept.id[:8] in alpha.text


def test_a_round_writes_a_bounded_batch_per_call(engine: Engine) -> None:
    for k in range(snapshot_refresh.BATCH + 3):
        engine.remember(f"Project {k} builds with make target build-{k}", scope=f"/w/p{k}")
    keeper = snapshot_refresh.SnapshotKeeper(engine.settings.home)
    calls = []
    while count := keeper.refresh(engine):
        calls.append(count)
    assert max(calls) == snapshot_refresh.BATCH and sum(calls) == snapshot_refresh.BATCH + 4
    assert keeper.refresh(engine) == 0  # nothing changed: no new round


def test_a_round_stops_between_projects_when_asked_and_still_moves_on(engine: Engine) -> None:
    """The daemon stops a batch when a request comes in; each call still writes one project,
    so a busy daemon's round ends all the same."""
    for k in range(3):
        engine.remember(f"Project {k} builds with make target build-{k}", scope=f"/w/p{k}")
    keeper = snapshot_refresh.SnapshotKeeper(engine.settings.home)
    calls = []
    while count := keeper.refresh(engine, keep_going=lambda: False):
        calls.append(count)
    assert calls == [1, 1, 1, 1]  # global and the three projects, one a call
    assert snapshot.read(engine.settings.home, "/w/p2") is not None

"""Attacks from the red-team pass (issue 18): special files with a transcript's name, files
rewritten in place, stale pid files and racing starts. Each test reproduces the attack against
real files and processes; waits are bounded polls, never timing assertions."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.daemon import WAIT_SECONDS, DaemonProcess, claude_line
from support.paths import TESTS

from recallnest.core.config import Settings
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.ingest.pipeline import FileReport, Source, ingest_file


@pytest.fixture
def proc(recallnest_home: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(recallnest_home.parent / "d")
    yield d
    d.stop()


def write_session(path: Path, session: str, n: int, start: int = 0) -> None:
    with path.open("a") as fh:
        for k in range(start, start + n):
            fh.write(claude_line(session, k, f"{session} turn {k} about kestrels") + "\n")


def special_files(folder: Path) -> dict[str, Path]:
    """A FIFO, a Unix socket, a character device (root only) and a symlink to /dev/zero, each
    named like a Claude transcript and sorted before the regular one."""
    made = {"fifo": folder / "a-fifo.jsonl", "link": folder / "a-zero.jsonl"}
    os.mkfifo(made["fifo"])
    os.symlink("/dev/zero", made["link"])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(folder / "a-sock.jsonl"))
    sock.close()  # the socket file stays behind
    made["socket"] = folder / "a-sock.jsonl"
    with contextlib.suppress(PermissionError):
        os.mknod(folder / "a-dev.jsonl", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        made["device"] = folder / "a-dev.jsonl"
    return made


# ---- item 3: FIFOs and other special files -------------------------------------------------


@pytest.mark.slow
def test_open_regular_refuses_every_special_file_without_blocking(tmp_path: Path) -> None:
    made = special_files(tmp_path)
    script = (
        "import sys\nfrom recallnest.ingest import tail\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n        tail.read_lines(p, 0)\n    except tail.NotRegularFile as e:\n"
        "        print(e.strerror)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *map(str, made.values())],
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,  # a bound on a hang, not a timing assertion
    )
    assert done.returncode == 0, done.stderr
    kinds = done.stdout.splitlines()
    assert len(kinds) == len(made)
    assert "not a regular file (named pipe)" in kinds
    assert "not a regular file (socket)" in kinds
    assert "not a regular file (symlink)" in kinds


@pytest.mark.slow
def test_backfill_reads_the_regular_file_and_skips_special_ones(
    proc: DaemonProcess,
) -> None:
    made = special_files(proc.projects)
    write_session(proc.projects / "b-real.jsonl", "real", 4)
    done = proc.cli("ingest", "--agent", "claude", "--root", str(proc.projects.parent), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["new_turns"] == 4
    assert summary["special_files"] == len(made) - 1  # the symlink is skipped as a link


@pytest.mark.slow
def test_a_fifo_never_stalls_the_daemon(proc: DaemonProcess) -> None:
    special_files(proc.projects)
    real = proc.projects / "b-real.jsonl"
    write_session(real, "real", 3)
    proc.start()
    proc.wait_for(lambda: proc.turns() == 3, "the regular transcript next to a FIFO")
    write_session(real, "real", 2, start=3)
    proc.wait_for(lambda: proc.turns() == 5, "lines appended after the FIFO was seen")
    status = proc.request("daemon.status")
    assert status["totals"]["special_files"] >= 3
    assert "not a regular file (named pipe)" in proc.logs()
    assert proc.stop() == 0
    proc.start()  # the FIFO is still there on restart
    write_session(real, "real", 1, start=5)
    proc.wait_for(lambda: proc.turns() == 6, "ingestion after a restart next to a FIFO")
    stopped = proc.cli("daemon", "stop")
    assert stopped.returncode == 0, stopped.stderr


# ---- item 6: a file rewritten in place ------------------------------------------------------


def session_lines(session: str, texts: list[str]) -> bytes:
    return b"".join((claude_line(session, k, t) + "\n").encode() for k, t in enumerate(texts))


def ingest_once(engine: Engine, path: Path) -> FileReport:
    source = Source(str(path), "claude")
    return ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)


def stored_texts(engine: Engine, session: str) -> dict[str, str]:
    return {t.record_id: t.text for t in engine.store.session_turns(session)}


@pytest.mark.parametrize("where", ["middle", "just before the cursor"])
def test_in_place_rewrite_keeping_the_head_is_re_read(
    settings: Settings, tmp_path: Path, where: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    texts = [f"turn {k} about the harbour crane number {k}" for k in range(60)]
    path.write_bytes(session_lines("s", texts))
    engine = Engine.open(settings)
    try:
        assert ingest_once(engine, path).new_turns == 60
        edited = 30 if where == "middle" else 59
        texts[edited] = f"turn {edited} rewritten: the crane moved to the north quay for good"
        texts += ["turn 60 added by the rewrite", "turn 61 added by the rewrite"]
        with path.open("r+b") as fh:  # same inode, same first bytes, larger size
            fh.write(session_lines("s", texts))
        with caplog.at_level(logging.WARNING, logger="recallnest.ingest.pipeline"):
            report = ingest_once(engine, path)
        stored = stored_texts(engine, "s")
    finally:
        engine.close()
    assert report.skipped_lines == 0 and report.restarts == 1
    assert stored == {f"s-{k}": t for k, t in enumerate(texts)}  # each turn once, new text
    assert "rewritten in place" in caplog.text


def codex_lines(texts: list[str]) -> bytes:
    """A Codex rollout whose messages carry no id: their record ids are their line offsets."""
    meta = {"type": "session_meta", "payload": {"id": "t-1", "cwd": "/work/app"}}
    rows = [meta] + [
        {
            "timestamp": f"2026-08-03T10:{k // 60:02d}:{k % 60:02d}.000Z",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user" if k % 2 == 0 else "assistant",
                "content": [{"type": "input_text" if k % 2 == 0 else "output_text", "text": t}],
            },
        }
        for k, t in enumerate(texts)
    ]
    return b"".join((json.dumps(r) + "\n").encode() for r in rows)


def test_a_codex_rollout_rewritten_in_place_keeps_each_turn_once(
    settings: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "sessions" / "2026" / "08" / "03" / "rollout-2026-08-03-t-1.jsonl"
    path.parent.mkdir(parents=True)
    texts = [f"message {k} about the harbour crane number {k}" for k in range(40)]
    path.write_bytes(codex_lines(texts))
    engine = Engine.open(settings)
    try:
        stored = engine.store.turn_ids_of_path
        ingest_file(Source(str(path), "codex"), None, engine.ingest_batch, stored=stored)
        texts[20] = "message 20 rewritten: the crane moved to the north quay, for good this time"
        with path.open("r+b") as fh:  # every later line moves: their offset ids change
            fh.write(codex_lines([*texts, "message 40 added by the rewrite"]))
        known = engine.store.cursor(str(path))
        ingest_file(Source(str(path), "codex"), known, engine.ingest_batch, stored=stored)
        kept = sorted(t.text for t in engine.store.session_turns("t-1"))
    finally:
        engine.close()
    assert kept == sorted([*texts, "message 40 added by the rewrite"])


def test_an_append_is_not_a_rewrite(settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-w" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(session_lines("s", [f"turn {k} of an append" for k in range(40)]))
    engine = Engine.open(settings)
    try:
        ingest_once(engine, path)
        write_session(path, "s", 3, start=40)
        report = ingest_once(engine, path)
    finally:
        engine.close()
    assert report.restarts == 0 and report.new_turns == 3


# ---- item 5: stale pid files, PID reuse, racing starts --------------------------------------


@pytest.mark.slow
def test_stop_never_signals_the_process_a_stale_pid_file_names(proc: DaemonProcess) -> None:
    proc.home.mkdir(parents=True, exist_ok=True)
    unrelated = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (proc.home / "daemon.pid").write_text(str(unrelated.pid))  # the PID was reused
        done = proc.cli("daemon", "stop")
        status = proc.cli("daemon", "status", "--json")
        assert unrelated.poll() is None, "daemon stop signalled an unrelated process"
    finally:
        unrelated.kill()
        unrelated.wait()
    assert done.returncode == 0, done.stderr
    assert "not running" in done.stdout and f"stale pid file naming PID {unrelated.pid}" in (
        done.stdout
    )
    assert not (proc.home / "daemon.pid").exists()
    assert json.loads(status.stdout)["pid"] is None


@pytest.mark.slow
def test_the_pid_file_is_removed_when_the_daemon_exits(proc: DaemonProcess) -> None:
    proc.start()
    assert (proc.home / "daemon.pid").read_text() == str(proc.proc.pid if proc.proc else 0)
    assert proc.stop() == 0
    assert not (proc.home / "daemon.pid").exists()


@pytest.mark.slow
def test_of_three_concurrent_starts_only_the_winner_says_started(proc: DaemonProcess) -> None:
    cmd = [sys.executable, "-m", "recallnest", "daemon", "start"]
    starts = [
        subprocess.Popen(cmd, env=proc.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=WAIT_SECONDS) for p in starts]
    try:
        pid = proc.request("daemon.status")["pid"]
        said = sorted(out.decode().strip() for out, _ in outputs)
        assert [p.returncode for p in starts] == [0, 0, 0], [err for _, err in outputs]
        assert said == [f"already running (PID {pid})"] * 2 + [f"started (PID {pid})"]
    finally:
        proc.cli("daemon", "stop")


# ---- item 8: memories recoverable up to the last write ------------------------------------

MEMORY_FIELDS = ("id", "text", "scope", "category", "pinned", "tier", "valid_until", "status")


def live_memories(records: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {r["id"]: tuple(r.get(f) for f in MEMORY_FIELDS) for r in records}


@pytest.mark.slow
def test_repair_after_kill_and_damage_restores_exactly_the_live_memories(
    proc: DaemonProcess,
) -> None:
    proc.start()
    ids = [
        proc.request("remember", text=f"Fact {k}: the build server {k} is named heron-{k}")["id"]
        for k in range(30)
    ]
    proc.request("memories.flags", ids=ids[:4], pinned=True)
    proc.request("memories.flags", ids=ids[4:8], tier="core")
    proc.request("memories.flags", ids=ids[8:10], valid_until="30d")
    proc.request("forget", ids=ids[10:16])
    expected = live_memories(proc.request("export"))
    assert len(expected) == 24
    proc.kill()  # kill -9: no backup at stop, no flush
    db = proc.home / "recallnest.duckdb"
    with db.open("r+b") as fh:
        fh.write(b"\x00" * 4096)  # the header: the file no longer opens
    done = proc.cli("repair", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["repaired"] is True
    settings = Settings.load(flags={"home": str(proc.home)}, env=proc.env)
    engine = Engine.open(settings)
    try:
        restored = live_memories(jsonable(engine.export()))
    finally:
        engine.close()
    assert restored == expected  # edits kept, forgotten stay forgotten


@pytest.mark.slow
def test_a_clean_stop_writes_a_backup_and_the_journal_is_owner_only(
    proc: DaemonProcess,
) -> None:
    proc.start()
    facts = ("We ship releases on Fridays", "Staging runs Postgres 16", "Docs live in site/")
    for text in facts:  # unrelated facts: none supersedes another
        proc.request("remember", text=text)
    journal = proc.home / "backups" / "memories-journal.jsonl"
    assert stat.S_IMODE(journal.stat().st_mode) == 0o600
    assert len(journal.read_text().splitlines()) == 3
    assert proc.stop() == 0
    backup = proc.home / "backups" / "memories-latest.jsonl"
    assert len(backup.read_text().splitlines()) == 3
    assert journal.read_text() == ""  # compacted: the backup holds it all


# ---- item 10: consolidation killed half-way --------------------------------------------------

KILL_DURING_CONSOLIDATION = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from lifecycle.test_consolidate import NOW, ROWS
from recallnest.core.config import Settings
from recallnest.engine import Engine
from recallnest.store import Batch, Store

engine = Engine.open(Settings.load())
engine.apply(Batch(memories=ROWS))
engine.store.flush_wal()
setattr(Store, sys.argv[2], lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL))
engine.maintenance.consolidate(now=NOW)
"""


@pytest.mark.slow
@pytest.mark.parametrize("killed_in", ["add_memory_events", "add_conflicts"])
def test_consolidation_killed_half_way_commits_nothing(settings: Settings, killed_in: str) -> None:
    tests = str(TESTS)
    done = subprocess.run(
        [sys.executable, "-c", KILL_DURING_CONSOLIDATION, tests, killed_in],
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert done.returncode == -9, done.stderr
    engine = Engine.open(settings)
    try:
        rows = engine.store.find_memories({})
        undo, conflicts = engine.store.undo_entries(), engine.store.conflicts()
    finally:
        engine.close()
    assert len(rows) == 8 and all(m.status == "active" and not m.superseded_by for m in rows)
    assert undo == [] and conflicts == []


# ---- item 10: bad input on the command line ---------------------------------------------------


def run_cli(env: dict[str, str], *args: str | bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recallnest", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )


@pytest.mark.slow
@pytest.mark.parametrize("daemon_runs", [False, True])
def test_a_non_utf8_argument_is_a_clear_error(proc: DaemonProcess, daemon_runs: bool) -> None:
    if daemon_runs:
        proc.start()
    for args in (["remember", b"we use \xff pnpm"], ["search", b"pn\xffpm"]):
        done = run_cli(proc.env, *args)
        assert done.returncode == 2, done.stderr
        assert "not valid UTF-8" in done.stderr and "Traceback" not in done.stderr
    if daemon_runs:
        assert proc.request("stats")["counts"]["memories"] == 0


def test_a_read_on_an_empty_home_says_nothing_is_indexed_and_creates_nothing(
    recallnest_home: Path, cli: Any
) -> None:
    for args in (["search", "pnpm"], ["search", "pnpm", "--json"], ["memories", "list"]):
        result = cli(args)
        assert result.exit_code == 1, result.output
        assert "nothing is indexed yet" in result.output
    assert not recallnest_home.exists()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["a file", "/proc", "under a file"])
def test_a_bad_home_is_a_clear_error(tmp_path: Path, kind: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    home = {"a file": afile, "/proc": Path("/proc"), "under a file": afile / "rn"}[kind]
    env = {**os.environ, "RECALLNEST_HOME": str(home)}
    for args in (["search", "x"], ["remember", "we use pnpm"], ["--home", str(home), "stats"]):
        done = run_cli(env, *args)
        assert done.returncode in (1, 2), done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert str(home) in done.stderr and done.stderr.startswith("Error: ")
    assert run_cli(env, "search", "--help").returncode == 0  # help needs no home


@pytest.mark.slow
def test_a_missing_home_is_created_by_a_write_and_the_user_is_told(
    recallnest_home: Path,
) -> None:
    home = str(recallnest_home)
    done = run_cli(dict(os.environ), "--home", home, "remember", "we use pnpm")
    assert done.returncode == 0, done.stderr
    assert f"recallnest: created {recallnest_home}" in done.stderr
    again = run_cli(dict(os.environ), "--home", home, "remember", "we use uv")
    assert "created" not in again.stderr


@pytest.mark.slow
def test_a_forgotten_captured_memory_stays_forgotten_after_repair(proc: DaemonProcess) -> None:
    """Repair re-ingests the transcripts, which captures the same memory again: the journal's
    tombstone removes it."""
    session = proc.projects / "s.jsonl"
    session.write_text(claude_line("s", 0, "Always use uv, never pip, in this repository") + "\n")
    proc.start()
    proc.wait_for(lambda: proc.request("memories.list"), "the captured memory")
    captured = [m["id"] for m in proc.request("memories.list")]
    proc.request("forget", ids=captured)
    proc.request("remember", text="The deploy host is heron")
    expected = live_memories(proc.request("export"))
    proc.kill()
    with (proc.home / "recallnest.duckdb").open("r+b") as fh:
        fh.write(b"\x00" * 4096)
    done = proc.cli("repair", "--json")
    assert done.returncode == 0, done.stderr
    engine = Engine.open(Settings.load(flags={"home": str(proc.home)}, env=proc.env))
    try:
        restored = live_memories(jsonable(engine.export()))
        turns = engine.store.counts()["turns"]
    finally:
        engine.close()
    assert turns == 1  # the transcript came back
    assert restored == expected and not set(captured) & set(restored)

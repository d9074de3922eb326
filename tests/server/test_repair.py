"""A damaged database: one-line errors (never a traceback), `doctor` explains, the daemon
refuses to start cleanly, and `recallnest repair` restores service (file moved aside, fresh
database, transcripts re-ingested, memories restored from an export, the damaged file or the
daemon's backup)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import Cli
from support.daemon import DaemonProcess, claude_line

from recallnest.core.config import Settings
from recallnest.core.paths import db_path
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.server.backup import backup_path, export_text, write_backup
from recallnest.server.repair import check_database

BLOCK = 256 * 1024
HEADER = 3 * 4096  # DuckDB's file header and its two database headers


def write_transcripts(settings: Settings, sessions: int = 3, turns: int = 40) -> int:
    folder = settings.claude_dir / "projects" / "-work-app"
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        lines = [
            claude_line(f"s{s}", k, f"session {s} turn {k}: the ferry leaves at {k % 12} o'clock")
            for k in range(turns)
        ]
        (folder / f"s{s}.jsonl").write_text("\n".join(lines) + "\n")
    return sessions * turns


def populate(settings: Settings, cli: Cli) -> int:
    turns = write_transcripts(settings)
    assert cli(["ingest"]).exit_code == 0
    for text in ("I prefer tabs over spaces", "The staging port is 8443"):
        assert cli(["remember", text]).exit_code == 0
    return turns


def memories(settings: Settings) -> dict[str, str]:
    engine = Engine.open(settings)
    try:
        return {m["id"]: m["text"] for m in jsonable(engine.export())}
    finally:
        engine.close()


def damage_header(path: Path) -> None:
    with path.open("r+b") as fh:
        fh.write(b"\x00" * HEADER)


def one_line_error(output: str) -> bool:
    return output.startswith("Error: ") and "Traceback" not in output


# ---- clear errors --------------------------------------------------------------------------


def test_a_file_that_is_not_a_database_gives_one_line_and_doctor_explains(
    settings: Settings, cli: Cli
) -> None:
    db = db_path(settings.home)
    db.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    db.write_bytes(b"this is not a database\n" * 100)
    db.chmod(0o600)
    result = cli(["stats"])
    assert result.exit_code == 1 and one_line_error(result.output)
    assert "not a valid DuckDB database file" in result.output
    assert "`recallnest repair`" in result.output
    checks = json.loads(cli(["doctor", "--json"]).output)
    database = next(c for c in checks if c["name"] == "database")
    assert database["ok"] is False and "recallnest repair" in database["detail"]


def test_every_damaged_block_gives_a_clear_error_and_doctor_sees_it(
    settings: Settings, cli: Cli
) -> None:
    """Flip 4 KiB in the middle of each block in turn: opening, `stats` and a search either
    work or raise StoreError (the CLI turns that into one line); none raises anything else,
    and check_database (doctor) reports every damage that breaks them."""
    from recallnest.core.errors import RecallnestError
    from recallnest.server.handlers import dispatch

    populate(settings, cli)
    db = db_path(settings.home)
    good = db.read_bytes()
    blocks = (len(good) - HEADER) // BLOCK
    assert blocks >= 3
    noticed = 0
    for k in range(blocks):
        at = HEADER + k * BLOCK + BLOCK // 2
        flipped = bytes(b ^ 0x5A for b in good[at : at + 4096])
        db.write_bytes(good[:at] + flipped + good[at + 4096 :])
        health = check_database(db)
        noticed += health is not None
        try:
            engine = Engine.open(settings)
            try:
                dispatch(engine, "stats", {})
                dispatch(engine, "search", {"query": "ferry", "kind": "all"})
            finally:
                engine.close()
        except RecallnestError as exc:
            assert health is not None, f"block {k}: {exc} but check_database saw nothing"
    db.write_bytes(good)
    assert noticed, "no corrupted block was ever noticed"


@pytest.mark.slow
def test_the_daemon_refuses_a_damaged_database_with_one_line(recallnest_home: Path) -> None:
    proc = DaemonProcess(recallnest_home.parent / "d")
    proc.home.mkdir(mode=0o700, parents=True)
    (proc.home / "recallnest.duckdb").write_bytes(b"garbage" * 1000)
    result = proc.cli("daemon", "run")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: cannot open database")
    assert "Traceback" not in result.stderr and "recallnest repair" in result.stderr


# ---- repair --------------------------------------------------------------------------------


def test_repair_moves_the_file_aside_and_restores_service(settings: Settings, cli: Cli) -> None:
    turns = populate(settings, cli)
    before = memories(settings)
    engine = Engine.open(settings)
    try:
        assert write_backup(engine, settings.home)
    finally:
        engine.close()
    db = db_path(settings.home)
    damage_header(db)
    damaged = db.read_bytes()
    result = cli(["repair", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    assert report["repaired"] is True and "not a valid DuckDB" in report["problem"]
    moved = Path(report["moved_to"])
    assert moved.name.startswith("recallnest.duckdb.damaged-") and moved.read_bytes() == damaged
    assert report["turns"] == turns and report["files"] == 3
    assert report["memories_from"] == f"backup {backup_path(settings.home)}"
    assert report["memories_restored"] == len(before)
    assert memories(settings) == before  # same ids, same texts
    assert check_database(db) is None and db.stat().st_mode & 0o777 == 0o600
    hits = json.loads(cli(["search", "ferry", "--kind", "turns", "--json"]).output)
    assert hits and hits[0]["kind"] == "turn"
    assert f"{db} reads back whole: nothing to repair" in cli(["repair"]).output


def test_forced_repair_salvages_memories_from_a_readable_file(settings: Settings, cli: Cli) -> None:
    populate(settings, cli)
    before = memories(settings)
    report = json.loads(_json_tail(cli(["repair", "--force", "--json"]).output))
    assert report["problem"] == "rebuild forced"
    assert report["memories_from"].startswith("salvaged from ")
    assert memories(settings) == before


def test_repair_from_an_export_file_redacts_what_it_imports(
    settings: Settings, cli: Cli, tmp_path: Path
) -> None:
    write_transcripts(settings, sessions=1, turns=5)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    record = {
        "id": "0b5e4a52-7d39-5f0e-9f55-2b3c3d6e0a11",
        "scope": "global",
        "category": "entities",
        "text": f"the deploy token is {token}",
        "importance": 0.7,
        "confidence": 1.0,
        "tier": "working",
        "status": "active",
        "evidence": [],
        "created_at": None,
        "updated_at": None,
        "last_accessed_at": None,
        "access_count": 0,
        "source": "manual",
        "rule": "manual",
        "superseded_by": None,
        "subject": None,
        "pinned": False,
        "valid_until": None,
    }
    export = tmp_path / "memories.jsonl"
    export.write_text(export_text([record]))
    damage_header_of_new_db(settings, cli)
    report = json.loads(_json_tail(cli(["repair", "--from-export", str(export), "--json"]).output))
    assert report["memories_from"] == f"export {export}" and report["memories_restored"] == 1
    restored = memories(settings)
    assert list(restored) == [record["id"]]
    assert (
        token not in restored[record["id"]] and "[REDACTED:github-token]" in restored[record["id"]]
    )


def damage_header_of_new_db(settings: Settings, cli: Cli) -> None:
    assert cli(["ingest"]).exit_code == 0
    damage_header(db_path(settings.home))


@pytest.mark.slow
def test_repair_moves_the_wal_too(settings: Settings, cli: Cli) -> None:
    """A daemon killed with a WAL pending: the WAL must not be replayed into the new file."""
    write_transcripts(settings, sessions=1, turns=5)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from recallnest.store import Batch, Store
        from recallnest.core.models import Memory
        store = Store(Path({str(db_path(settings.home))!r}))
        store.write(Batch(memories=[Memory(id="m1", scope="global", category="entities",
                                           text="written only to the WAL")]))
        os._exit(0)  # no close, no checkpoint: the row lives in the WAL
        """
    )
    settings.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120, env=dict(os.environ))
    wal = db_path(settings.home).with_name("recallnest.duckdb.wal")
    assert wal.exists()
    damage_header(db_path(settings.home))
    report = json.loads(_json_tail(cli(["repair", "--json"]).output))
    moved = Path(report["moved_to"])
    assert moved.with_name(moved.name + ".wal").exists() and not wal.exists()
    assert report["turns"] == 5 and memories(settings) == {}


def test_repair_refuses_while_the_daemon_runs(
    settings: Settings, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("recallnest.server.client.daemon_answers", lambda settings: True)
    result = cli(["repair"])
    assert result.exit_code == 1 and "stop the daemon first" in result.output


def test_repair_refuses_while_another_process_holds_the_daemon_lock(
    settings: Settings, cli: Cli
) -> None:
    from recallnest.core.paths import ensure_home
    from recallnest.server.pidfile import pid_lock

    with pid_lock(ensure_home(settings.home)):
        result = cli(["repair", "--force"])
    assert result.exit_code == 1 and "already running" in result.output


def test_repair_of_a_missing_database_just_builds_one(settings: Settings, cli: Cli) -> None:
    write_transcripts(settings, sessions=2, turns=3)
    report = json.loads(cli(["repair", "--json"]).stdout)  # stderr: progress, "created"
    assert report["problem"] == "no database file" and report["moved_to"] is None
    assert report["turns"] == 6 and report["memories_from"] is None


def _json_tail(output: str) -> str:
    """The JSON document after the progress bar's stderr lines (CliRunner mixes them)."""
    return output[output.index("{") :]

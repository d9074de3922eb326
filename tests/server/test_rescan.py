"""After an upgrade whose redactor recognises more secrets, the daemon cleans what the older one
let through, by itself: the rows (with their keyword postings, vectors and the daemon's
in-memory index), the memory backup and journal, the resume snapshots and the logs; the file is
compacted; the redactor's fingerprint is recorded only once that is done, so a crash midway
loses nothing, and a second start does nothing (server/rescan.py, decision 0031).

The secrets are ones the current redactor masks, written straight to the store and the files
(bypassing redaction, as an older redactor would have let them through), under a recorded
fingerprint that is not the current one."""

from __future__ import annotations

import gc
import json
import logging
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.daemon import DaemonProcess

from recallnest.continuity import snapshot
from recallnest.continuity.checkpoint import Checkpoint
from recallnest.core.config import Settings
from recallnest.core.models import Memory, Turn
from recallnest.core.paths import db_path, ensure_home, log_dir
from recallnest.core.text import term_counts
from recallnest.engine import Engine, SearchRequest
from recallnest.server import rescan
from recallnest.server.audit import audit_secrets, fix_rows, scan
from recallnest.server.backup import backup_path
from recallnest.server.daemon import Daemon
from recallnest.server.rescan import FINGERPRINT_KEY, RedactionRecheck, redactor_fingerprint
from recallnest.store import Batch, Store
from recallnest.store.journal import journal_path

# Fake credentials, assembled at run time so that no scanner flags this file.
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DATABRICKS = "dapi" + "0123456789abcdef" + "fedcba9876543210"
SECRETS = (GITHUB, DATABRICKS)
OLD = "0" * 32  # the fingerprint an older redactor left
T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
TURN_TEXT = "the quokka deploy token is {}, keep it safe"
MEMORY_TEXT = "quokka staging reads the warehouse with {} daily"


def turn(k: int, text: str) -> Turn:
    return Turn("claude", "s1", "user", text, T0, "/x/s1.jsonl", f"r{k}", k * 100, "/work/app")


def seed(home: Path, fingerprint: str | None = OLD) -> str:
    """A store and the files beside it holding SECRETS, as an older redactor left them.
    Returns the dirty turn's id."""
    dirty = turn(0, TURN_TEXT.format(GITHUB))
    store = Store(db_path(ensure_home(home)))
    try:
        memory = Memory(
            id="mem-dirty",
            scope="global",
            category="entities",
            text=MEMORY_TEXT.format(DATABRICKS),
            created_at=T0,
            updated_at=T0,
        )
        store.write(
            Batch(turns=[dirty, turn(1, "the quokka mascot is friendly")], memories=[memory])
        )
        body = Checkpoint(
            "cp-1", "s1", "claude", "/work/app", T0, "manual", f"rotated {GITHUB} today"
        )
        store.write_checkpoint("cp-1", "s1", "claude", "/work/app", T0, "manual", body.to_json())
        if fingerprint is not None:
            store.set_meta({FINGERPRINT_KEY: fingerprint})
    finally:
        store.close()
    record = {"id": "mem-dirty", "scope": "global", "text": MEMORY_TEXT.format(DATABRICKS)}
    backup_path(home).parent.mkdir(mode=0o700, exist_ok=True)
    backup_path(home).write_text(json.dumps(record, sort_keys=True) + "\n", "utf-8")
    journal_path(home).write_text(json.dumps({"op": "put", "memory": record}) + "\n", "utf-8")
    resume = f"## This project\n- {TURN_TEXT.format(GITHUB)}"
    snapshot.write(home, snapshot.Snapshot("/work/app", "2026-02-01T09:00:00+00:00", resume))
    log_dir(home).mkdir(mode=0o700, exist_ok=True)
    line = f"2026-02-01 09:00:00,000 WARNING x: ingest failed near quokka {GITHUB} end\n"
    (log_dir(home) / "daemon.log.1").write_text(line, "utf-8")
    return dirty.id


def holding_secrets(home: Path) -> list[str]:
    """Every file under `home` (the database too) that still holds one of SECRETS."""
    found = []
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.is_socket():
            data = path.read_bytes()
            if any(s.encode() in data for s in SECRETS):
                found.append(str(path.relative_to(home)))
    return found


def _walk_forbidden(*_args: object) -> list[object]:
    raise AssertionError("the rows were walked again")


def test_a_changed_fingerprint_cleans_rows_and_files_keeping_the_rest(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    home = settings.home
    turn_id = seed(home)
    assert len(holding_secrets(home)) >= 5  # database, backup, journal, snapshot, log
    engine = Engine.open(settings)
    try:
        assert engine.search(SearchRequest(query=GITHUB))  # the old token is searchable
        with caplog.at_level(logging.INFO, logger=rescan.__name__):
            assert RedactionRecheck(home).run(engine) is True  # rows changed: reopen the engine
        store = engine.store
        assert store.turns([turn_id])[0].text == TURN_TEXT.format("[REDACTED:github-token]")
        memory = store.memories(["mem-dirty"])[0]
        assert memory.text == MEMORY_TEXT.format("[REDACTED:databricks-token]")
        body = Checkpoint.from_json(store.checkpoint_body("cp-1") or "{}")
        assert body.summary == "rotated [REDACTED:github-token] today"
        assert store.meta(FINGERPRINT_KEY) == redactor_fingerprint()
    finally:
        engine.close()
    lines = [r.getMessage() for r in caplog.records if "new redactor" in r.getMessage()]
    assert len(lines) == 1 and ": 3 of " in lines[0]  # the turn, the memory, the checkpoint
    assert not any(s in lines[0] for s in SECRETS)
    assert holding_secrets(home) == []
    # The text around each secret is kept.
    assert MEMORY_TEXT.format("[REDACTED:databricks-token]") in backup_path(home).read_text()
    resume = snapshot.read(home, "/work/app")
    assert resume is not None and TURN_TEXT.format("[REDACTED:github-token]") in resume.text
    logged = (log_dir(home) / "daemon.log.1").read_text()
    assert logged.endswith("ingest failed near quokka [REDACTED:github-token] end\n")
    assert audit_secrets(settings).findings == []
    # A second start finds its fingerprint and walks nothing.
    monkeypatch.setattr(rescan, "classify", _walk_forbidden)
    engine = Engine.open(settings)
    try:
        again = RedactionRecheck(home)
        assert again.run(engine) is False and again.done and again.fixed == 0
    finally:
        engine.close()


def test_the_daemon_reopens_its_engine_so_the_index_forgets_the_old_text(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    turn_id = seed(settings.home)
    old = Engine.open(settings)
    daemon = Daemon(settings, old)
    monkeypatch.setattr(daemon, "_quiet", lambda: True)  # no request waits
    try:
        assert {h.id for h in old.search(SearchRequest(query=GITHUB))} >= {turn_id}
        for _ in range(1000):  # each call walks for STEP_SECONDS at most
            daemon._recheck_secrets()
            if daemon.redaction.done:
                break
        assert daemon.redaction.done and daemon.redaction.fixed == 3
        assert daemon.engine is not old
        assert daemon.engine.search(SearchRequest(query=GITHUB)) == []
        found = {h.id for h in daemon.engine.search(SearchRequest(query="quokka deploy token"))}
        assert turn_id in found
        daemon._recheck_secrets()  # done: nothing more
        assert daemon.redaction.fixed == 3
    finally:
        daemon.engine.close()
    assert holding_secrets(settings.home) == []


def test_the_engine_a_reopen_replaced_is_not_kept_alive_by_the_daemon(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reopened-away engine is garbage, even after a memory backup was written from it:
    the daemon once kept it (and its whole index, ~220 MiB at 100k) as "what was backed up"."""
    seed(settings.home)
    old = Engine.open(settings)
    daemon = Daemon(settings, old)
    monkeypatch.setattr(daemon, "_quiet", lambda: True)
    old.maintenance.quiet_for = lambda seconds: True  # type: ignore[method-assign]
    daemon._next_backup = time.time() - 1
    try:
        old.search(SearchRequest(query="quokka deploy token"))  # the index is loaded
        daemon._backup_if_due()
        assert backup_path(settings.home).exists()
        for _ in range(1000):
            daemon._recheck_secrets()
            if daemon.redaction.done:
                break
        assert daemon.engine is not old
        gone = weakref.ref(old)
        del old
        gc.collect()
        assert gone() is None
        daemon._next_backup = time.time() - 1
        daemon.engine.maintenance.quiet_for = lambda seconds: True  # type: ignore[method-assign]
        daemon._backup_if_due()  # a new engine: backed up again
        assert daemon._backed_up == (1, daemon.engine.memory_generation)
    finally:
        daemon.engine.close()


def test_while_requests_keep_coming_the_daemon_walks_one_chunk_now_and_then(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(settings.home)
    monkeypatch.setattr(rescan, "CHUNK_ROWS", 1)
    monkeypatch.setattr(rescan, "BUSY_EVERY_SECONDS", 1e6)  # the next busy chunk: not yet
    daemon = Daemon(settings, Engine.open(settings))
    monkeypatch.setattr(daemon, "_quiet", lambda: False)  # a request came in just now
    try:
        daemon._recheck_secrets()
        walk = daemon.redaction._walk
        assert walk is not None and walk.scanned == 1  # one chunk, not a whole step
        daemon._recheck_secrets()
        assert walk.scanned == 1 and not daemon.redaction.done
    finally:
        daemon.engine.close()


def test_a_crash_midway_leaves_the_old_fingerprint_and_the_next_start_finishes(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = settings.home
    seed(home)
    monkeypatch.setattr(rescan, "CHUNK_ROWS", 1)
    engine = Engine.open(settings)
    try:
        first = RedactionRecheck(home)
        assert first.step(engine, keep_going=lambda: False) is False  # one chunk, then "crash"
        assert engine.store.memories(["mem-dirty"])[0].text.endswith(
            "[REDACTED:databricks-token] daily"
        )
        assert engine.store.meta(FINGERPRINT_KEY) == OLD
        assert engine.store.meta(rescan.COMPACT_OWED_KEY) is not None
    finally:
        engine.close()  # the process died: nothing of the walk but its committed fixes remains
    engine = Engine.open(settings)
    try:
        second = RedactionRecheck(home)
        assert second.run(engine) is True and second.fixed == 2  # the turn and the checkpoint
        assert engine.store.meta(FINGERPRINT_KEY) == redactor_fingerprint()
        assert engine.store.meta(rescan.COMPACT_OWED_KEY) is None
    finally:
        engine.close()
    assert holding_secrets(home) == []
    assert audit_secrets(settings).findings == []


def test_the_walk_notices_rows_renumbered_under_it(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compaction between two chunks numbers the rows afresh: the table is walked again, so
    a row that moved below where the walk was is not skipped."""
    home = settings.home
    store = Store(db_path(ensure_home(home)))
    try:
        turns = [turn(k, f"quokka note {k}") for k in range(6)]
        turns[4] = turn(4, TURN_TEXT.format(GITHUB))
        store.write(Batch(turns=turns))
        store.set_meta({FINGERPRINT_KEY: OLD})
    finally:
        store.close()
    monkeypatch.setattr(rescan, "CHUNK_ROWS", 2)
    monkeypatch.setattr(rescan, "FIRST_TABLES", ("turns",))
    engine = Engine.open(settings)
    try:
        walk = RedactionRecheck(home)
        walk.step(engine, keep_going=lambda: False)  # rows 0-1 of turns
        walk.step(engine, keep_going=lambda: False)  # rows 2-3
        engine.store._cur().execute("DELETE FROM turns WHERE record_id IN ('r0', 'r1', 'r2')")
        engine.compact_store()  # the dirty row 4 is now row 1, below where the walk was
        walk.run(engine)
        assert walk.fixed == 1
    finally:
        engine.close()
    assert audit_secrets(settings).findings == []


def test_a_new_store_records_the_fingerprint_and_an_unmarked_full_one_is_checked(
    settings: Settings,
) -> None:
    engine = Engine.open(settings)
    try:
        assert RedactionRecheck(settings.home).run(engine) is False
        assert engine.store.meta(FINGERPRINT_KEY) == redactor_fingerprint()
    finally:
        engine.close()
    db_path(settings.home).unlink()
    seed(settings.home, fingerprint=None)  # an older version kept no fingerprint
    engine = Engine.open(settings)
    try:
        assert RedactionRecheck(settings.home).run(engine) is True
    finally:
        engine.close()
    assert holding_secrets(settings.home) == []


def test_the_fingerprint_follows_the_redaction_modules_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = Path(rescan.redact_module.__file__).parent
    for path in source.glob("redact*.py"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    shipped = redactor_fingerprint()
    monkeypatch.setattr(rescan.redact_module, "__file__", str(tmp_path / "redact.py"))
    assert redactor_fingerprint() == shipped  # the same source, the same fingerprint
    with (tmp_path / "redact_values.py").open("a") as fh:
        fh.write("\n# a new credential class\n")
    assert redactor_fingerprint() != shipped


@pytest.mark.slow
def test_a_real_daemon_cleans_the_home_after_an_upgrade(recallnest_home: Path) -> None:
    proc = DaemonProcess(recallnest_home.parent / "d")
    seed(proc.home)
    proc.start()
    try:
        proc.wait_for(lambda: "new redactor" in proc.logs(), "the stored texts to be checked")
        proc.wait_for(lambda: "database reopened" in proc.logs(), "the engine to be reopened")
        found = proc.request("search", query="quokka deploy token", kind="all")
        assert found and not any(s in json.dumps(found) for s in SECRETS)
    finally:
        assert proc.stop() == 0
    assert holding_secrets(proc.home) == []
    proc.start()  # a second start: the fingerprint is recorded, nothing to do
    assert proc.stop() == 0
    assert (log_dir(proc.home) / "daemon.log").read_text().count("new redactor") == 1
    assert holding_secrets(proc.home) == []


def test_a_fix_keeps_every_word_of_the_new_text_indexed(settings: Settings) -> None:
    """The secret's own term is dropped before the fixed rows' postings are written: a new
    term takes max(tid) + 1, which is the dropped secret's id when it was the newest term."""
    store = Store(db_path(ensure_home(settings.home)))
    try:
        dirty = turn(1, f"aardvark zebu {GITHUB}")
        store.write(Batch(turns=[turn(0, "aardvark"), dirty]))
        findings = scan(store)[1]
        assert {f.table for f in findings} == {"turns", "terms"}  # the token is the newest term
        fix_rows(store, findings)
        text = store.turns([dirty.id])[0].text
        indexed = store._cur().execute(
            "SELECT t.term FROM postings p JOIN terms t USING (tid) JOIN turns u ON u.doc = p.doc "
            "WHERE u.id = ?",
            [dirty.id],
        )
        assert {str(r[0]) for r in indexed.fetchall()} == set(term_counts(text))
    finally:
        store.close()

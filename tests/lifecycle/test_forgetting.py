"""Forgetting (issue 7): by id (backward compatible), query, session, project and time range;
complete removal (search, resume, export and the database file's bytes); the audit log;
expiry."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from recallnest.core.config import Settings
from recallnest.core.paths import db_path
from recallnest.core.schemas import memories_of
from recallnest.engine import Engine, SearchRequest
from recallnest.server.control import backfill
from recallnest.store import Batch

SECRET = "zebraquokka7741"
Run = Callable[..., Result]


@pytest.fixture
def run(cli: Run) -> Run:
    from recallnest.cli import cli as group
    from recallnest.cli.lifecycle import register

    register(group)
    return cli


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def write_session(
    folder: Path, session: str, cwd: str, lines: list[tuple[str, str]], start: datetime
) -> Path:
    """A Claude Code transcript: (role, text) turns a minute apart."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    records = []
    parent = None
    for k, (role, text) in enumerate(lines):
        uuid = f"{session}-{k:04d}"
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        message: dict[str, Any] = {"role": role, "content": content}
        if role == "assistant":
            message |= {"id": f"msg-{uuid}", "model": "claude-test"}
        records.append(
            {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": session,
                "timestamp": (start + timedelta(minutes=k)).isoformat().replace("+00:00", "Z"),
                "cwd": cwd,
                "message": message,
            }
        )
        parent = uuid
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def ingest(settings: Settings, folder: Path) -> None:
    done = backfill(settings, "claude", [str(folder)], None)
    assert done.via == "local" and not done.backfill.errors


def file_bytes(settings: Settings) -> bytes:
    path = db_path(settings.home)
    data = path.read_bytes()
    wal = Path(f"{path}.wal")
    return data + (wal.read_bytes() if wal.exists() else b"")


# ---- by id: what cli.py's forget did, unchanged --------------------------------------------------


def test_forget_by_id_is_backward_compatible(run: Run) -> None:
    mem = json.loads(ok(run(["remember", "The staging port is 8443", "--json"])).stdout)
    assert ok(run(["forget", mem["id"]])).output == "forgot 1\n"
    assert json.loads(ok(run(["search", "staging port", "--json"])).stdout) == []
    keep = json.loads(ok(run(["remember", "keep me", "--json"])).stdout)
    result = ok(run(["forget", keep["id"], "nope", "--json"]))
    assert json.loads(result.stdout) == {"forgotten": [keep["id"]], "missing": ["nope"]}
    missing = run(["forget", "no-such-id"])
    assert missing.exit_code == 1
    assert missing.output.strip().splitlines() == ["forgot 0; not found: no-such-id"]


def test_forget_does_not_echo_a_credential_given_as_an_id(run: Run) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # assembled: no scanner flags this
    result = run(["forget", token])
    assert result.exit_code == 1
    assert token not in result.output
    assert "not found: [REDACTED:github-token]" in result.output


def test_forget_needs_one_selector(run: Run) -> None:
    result = run(["forget"])
    assert result.exit_code == 1 and "exactly one of" in result.output
    both = run(["forget", "x", "--query", "y", "--yes"])
    assert both.exit_code == 1 and "exactly one of" in both.output


# ---- by query ------------------------------------------------------------------------------------


def on_a_terminal(args: list[str], answer: str) -> tuple[int, str]:
    """`recallnest ARGS` with a real terminal (a pty) on stdin, answering `answer`; the exit
    code and what it printed."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "recallnest", *args],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        os.write(master, answer.encode())
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    return proc.returncode, out


@pytest.mark.slow
def test_forget_by_query_asks_first_on_a_terminal(run: Run) -> None:
    ok(run(["remember", f"The vault hint is {SECRET} and green"]))
    ok(run(["remember", "The vault lives in the ops account"]))
    code, out = on_a_terminal(["forget", "--query", SECRET], "n\n")
    assert code == 1
    assert "would forget 1 memories" in out and SECRET in out and "forget these?" in out
    assert len(json.loads(ok(run(["memories", "list", "--json"])).stdout)) == 2
    code, out = on_a_terminal(["forget", "--query", f"vault {SECRET}"], "y\n")
    assert code == 0 and out.endswith("forget these? [y/N]: forgot 1\n")
    left = json.loads(ok(run(["memories", "list", "--json"])).stdout)
    assert [m["text"] for m in left] == ["The vault lives in the ops account"]


def test_forget_by_query_off_a_terminal_needs_yes_and_says_so(run: Run) -> None:
    ok(run(["remember", "The vault lives in the ops account"]))
    refused = run(["forget", "--query", "vault"], input="y\n")  # stdin is a pipe, not a tty
    assert refused.exit_code == 1
    assert "would forget 1 memories" in refused.output
    assert "not on a terminal, so nothing was forgotten: add --yes" in refused.output
    assert "forget these?" not in refused.output
    assert len(json.loads(ok(run(["memories", "list", "--json"])).stdout)) == 1
    assert ok(run(["forget", "--query", "vault", "--yes"])).output == "forgot 1\n"


def test_forget_takes_superseded_versions_and_undo_entries_along(
    engine: Engine, settings: Settings
) -> None:
    from recallnest.lifecycle.forgetting import Selector

    old = engine.remember("Use pnpm, not npm.", "preferences")
    # A contradiction that reaches the store without `remember`'s own supersession (an
    # import), so consolidation supersedes it and leaves an undo entry.
    first = engine.store.memories([old.id])[0]
    later = first.created_at + timedelta(days=1)
    second = replace(first, id="imported-1", text="Use npm, not pnpm.", created_at=later)
    engine.apply(Batch(memories=[replace(second, updated_at=later)]))
    new = {"id": second.id}
    engine.maintenance.consolidate()
    assert engine.store.memories([old.id])[0].superseded_by == new["id"]
    assert engine.store.undo_entries()
    result = engine.maintenance.forget(Selector(ids=(new["id"],)))
    assert set(result.forgotten) == {old.id, new["id"]}
    assert result.counts.undo_entries == 1
    assert engine.store.undo_entries() == [] and engine.export() == []


# ---- complete: search, resume, export and the file's bytes ---------------------------------------


def test_forget_query_with_turns_and_purge_leaves_no_trace(
    run: Run, settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "transcripts"
    start = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    write_session(
        folder,
        "s-secret",
        "/work/shop",
        [
            ("user", f"I always use {SECRET} instead of pip for Python projects."),
            ("assistant", f"Noted: {SECRET} instead of pip from now on."),
            ("user", "The staging server listens on port 8080."),
            ("assistant", "Got it."),
        ],
        start,
    )
    ingest(settings, folder)
    engine = Engine.open(settings)
    try:
        engine.remember(f"Always use {SECRET} instead of pip in Python projects", "preferences")
        engine.maintenance.consolidate()  # the undo log now holds rows with the text
        engine.continuity.checkpoint("s-secret", "manual")
        assert engine.store.undo_entries() and engine.store.checkpoint_rows(["s-secret"])
    finally:
        engine.close()
    assert SECRET.encode() in file_bytes(settings)

    result = ok(run(["forget", "--query", SECRET, "--with-turns", "--purge", "--yes"]))
    assert "file compacted" in result.output

    hits = json.loads(ok(run(["search", SECRET, "--json"])).stdout)
    assert all(SECRET not in h.text for h in hits)
    assert SECRET not in ok(run(["export"])).output
    resume = json.loads(ok(run(["resume", "--cwd", "/work/shop", "--json"])).stdout)
    assert SECRET not in resume["text"]
    found = json.loads(ok(run(["memories", "find", "--status", "any", "--json"])).stdout)
    assert all(SECRET not in m["text"] for m in found)
    assert "port 8080" in ok(run(["export"])).output  # the rest stays
    assert SECRET.encode() not in file_bytes(settings)
    log = json.loads(ok(run(["forgotten", "--json"])).stdout)
    assert log[0]["selector"] == "query+turns" and log[0]["purged"] is True
    assert log[0]["memories"] >= 1 and log[0]["turns"] == 2


def test_deleted_bytes_linger_until_compaction(
    run: Run, settings: Settings, tmp_path: Path
) -> None:
    filler = [
        f"note {k}: the build cache for module {k} sits in /var/cache/m{k}" for k in range(400)
    ]
    engine = Engine.open(settings)
    try:
        engine.import_memories(
            memories_of([
                {"id": f"id-{k}", "scope": "global", "category": "entities", "text": text,
                 "importance": 0.5, "confidence": 1.0, "tier": "working", "status": "active",
                 "evidence": [], "created_at": None, "updated_at": None,
                 "last_accessed_at": None, "access_count": 0, "source": "manual", "rule": None,
                 "superseded_by": None, "subject": None, "pinned": False, "valid_until": None}
                for k, text in enumerate([*filler, f"the backup key is {SECRET}"])
            ])
        )  # fmt: skip
        engine.store.flush_wal()
    finally:
        engine.close()
    ok(run(["forget", "--query", SECRET, "--yes"]))
    assert not json.loads(ok(run(["search", SECRET, "--json"])).stdout)
    ok(run(["compact"]))
    assert SECRET.encode() not in file_bytes(settings)


# ---- by session, project, time range -------------------------------------------------------------


def test_forget_session_trims_shared_memories_and_keeps_other_sessions(
    run: Run, settings: Settings, tmp_path: Path
) -> None:
    folder = tmp_path / "transcripts"
    start = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    shared = "I always use uv instead of pip for Python projects."
    write_session(
        folder,
        "s1",
        "/work/app",
        [
            ("user", shared),
            ("assistant", "ok"),
            ("user", "I prefer squash merges."),
            ("assistant", "ok"),
        ],
        start,
    )
    write_session(folder, "s2", "/work/app", [("user", shared), ("assistant", "ok")],
                  start + timedelta(days=1))  # fmt: skip
    ingest(settings, folder)
    engine = Engine.open(settings)
    try:
        engine.continuity.checkpoint("s1", "manual")
        s1_turns = engine.store.turn_ids_where(session_id="s1")
        uv = next(m for m in engine.store.find_memories({}) if "uv" in m.text)
        assert len(uv.evidence) == 2
    finally:
        engine.close()

    ok(run(["forget", "--session", "s1", "--with-turns", "--yes", "--json"]))
    engine = Engine.open(settings)
    try:
        texts = {m.text: m for m in engine.store.find_memories({"status": None})}
        assert "I prefer squash merges." not in texts
        assert set(s1_turns).isdisjoint(texts[shared].evidence) and texts[shared].evidence
        assert engine.store.turn_ids_where(session_id="s1") == []
        assert engine.store.turn_ids_where(session_id="s2")
        assert engine.store.checkpoint_rows(["s1"]) == []
    finally:
        engine.close()


def test_forget_project_and_time_range(engine: Engine) -> None:
    from recallnest.lifecycle.forgetting import Selector

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    engine.remember("Deploys go through the blue pipeline", "entities", scope="/p", now=t0)
    engine.remember("Old fact about the red pipeline", "entities", scope="/q", now=t0)
    engine.remember("New fact about the green pipeline", "entities", scope="/q",
                    now=t0 + timedelta(days=40))  # fmt: skip
    gone = engine.maintenance.forget(Selector(project="/p"))
    assert gone.counts.memories == 1
    ranged = engine.maintenance.forget(Selector(until=t0 + timedelta(days=10)))
    assert ranged.counts.memories == 1
    assert [m.text for m in engine.store.find_memories({})] == ["New fact about the green pipeline"]
    kinds = [e["selector"] for e in engine.store.forget_log()]
    assert kinds == ["range", "project"]


def test_audit_log_never_holds_text_or_query(engine: Engine) -> None:
    from recallnest.lifecycle.forgetting import Selector

    mem = engine.remember(f"the door code is {SECRET}", "entities")
    engine.maintenance.forget(Selector(query=SECRET))
    entry = engine.store.forget_log()[0]
    assert entry["memory_ids"] == [mem.id] and entry["memories"] == 1
    assert SECRET not in json.dumps(entry, default=str)


# ---- expiry --------------------------------------------------------------------------------------


def test_expired_memories_are_archived_and_never_resumed(run: Run) -> None:
    mem = json.loads(ok(run(["remember", "I prefer dark mode in every editor", "--json"])).stdout)
    ok(run(["memories", "expire", mem["id"], "2020-01-01"]))
    resume = json.loads(ok(run(["resume", "--json"])).stdout)
    assert "dark mode" not in resume["text"]
    assert "expired 1" in ok(run(["maintain"])).output
    found = json.loads(ok(run(["memories", "find", "--status", "archived", "--json"])).stdout)
    assert [m["id"] for m in found] == [mem["id"]]
    history = json.loads(ok(run(["memories", "history", mem["id"], "--json"])).stdout)
    assert [e["kind"] for e in history["events"]] == ["expire"]
    ok(run(["undo", "--kind", "expire"]))
    found = json.loads(ok(run(["memories", "find", "--json"])).stdout)
    assert found[0]["status"] == "active"


def test_expiry_from_now(run: Run) -> None:
    mem = json.loads(ok(run(["remember", "Sprint 12 ends on Friday", "--json"])).stdout)
    ok(run(["memories", "expire", mem["id"], "7d"]))
    row = json.loads(ok(run(["memories", "show", mem["id"], "--json"])).stdout)
    until = datetime.fromisoformat(row["valid_until"])
    assert timedelta(days=6) < until - datetime.now(UTC) <= timedelta(days=7)
    ok(run(["memories", "expire", mem["id"], "never"]))
    assert (
        json.loads(ok(run(["memories", "show", mem["id"], "--json"])).stdout)["valid_until"] is None
    )


def test_search_counts_access_in_memory_until_flushed(engine: Engine) -> None:
    mem = engine.remember("The metrics service listens on port 9464", "entities")
    hits = engine.search(SearchRequest("metrics port", kind="memories"))
    assert [h.id for h in hits] == [mem.id]
    assert engine.store.memories([mem.id])[0].access_count == 0  # no write per read
    engine.maintenance.flush_access()
    assert engine.store.memories([mem.id])[0].access_count == 1

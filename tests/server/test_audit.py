"""`recallnest audit secrets`: finds credentials that reached the store by a path that skipped
redaction, in turns, memories, tool calls and checkpoints; never prints them; `--fix`
redacts them in one transaction keeping every id, and search stays consistent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from recallnest.core.config import Settings
from recallnest.core.models import Memory, ToolUse, Turn
from recallnest.core.paths import db_path, ensure_home
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine, SearchRequest
from recallnest.server.audit import audit_secrets, scan
from recallnest.store import Batch, Store

# Fake credentials, assembled at run time so that no scanner flags this file.
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIA" + "J7QWERTYUZXCVBNM"
OPENAI = "sk-proj-" + "Xy7Kq2Lm9Np4Rs6Tv8Wz1Ab3Cd5Ef7Gh9Jk2Mn4"
DB_PASSWORD = "Zr8kq2vLpW9x"
SECRETS = (GITHUB, AWS, OPENAI, DB_PASSWORD)
T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)


def turn(k: int, text: str) -> Turn:
    return Turn("claude", "s1", "user", text, T0, "/x/s1.jsonl", f"r{k}", k * 100, "/work/app")


def plant(store: Store) -> dict[str, str]:
    """Rows holding secrets, written straight to the store (bypassing redaction), plus clean
    ones. Returns {table: id} of the dirty rows."""
    dirty_turn = turn(0, f"the quokka deploy token is {GITHUB}, keep it safe")
    memory = Memory(
        id="mem-dirty",
        scope="global",
        category="entities",
        text=f"quokka staging uses AWS key {AWS}",
        created_at=T0,
        updated_at=T0,
    )
    use = ToolUse(
        "claude",
        "s1",
        "Bash",
        T0,
        "tool-1",
        files=(f"/srv/keys/{OPENAI}.txt",),
        command=f"psql postgres://app:{DB_PASSWORD}@db.internal:5432/app -c 'select 1'",
    )
    store.write(
        Batch(
            turns=[dirty_turn, turn(1, "the quokka mascot is friendly")],
            memories=[memory],
            tool_uses=[use, ToolUse("claude", "s1", "Read", T0, "tool-2", ("/work/app/a.py",))],
        )
    )
    body = {"summary": f"rotated {OPENAI} today", "decisions": ["keep quokka"], "n": 3}
    store.write_checkpoint("cp-1", "s1", "claude", "/work/app", T0, "manual", json.dumps(body))
    return {
        "turns": dirty_turn.id,
        "memories": "mem-dirty",
        "tool_uses": "claude:s1:tool-1",
        "checkpoints": "cp-1",
    }


@pytest.fixture
def planted(settings: Settings) -> dict[str, str]:
    store = Store(db_path(ensure_home(settings.home)))
    try:
        return plant(store)
    finally:
        store.close()


def no_secret_in(text: str) -> bool:
    return not any(s in text for s in SECRETS)


def test_scan_finds_every_planted_secret_and_shows_none(
    settings: Settings, planted: dict[str, str]
) -> None:
    store = Store(db_path(settings.home), read_only=True)
    try:
        scanned, findings = scan(store)
    finally:
        store.close()
    main = {"turns": 2, "memories": 1, "tool_uses": 2, "checkpoints": 1, "undo_log": 0}
    assert list(scanned)[:5] == list(main) and {t: scanned[t] for t in main} == main
    assert {"cursors", "capture_queue", "terms", "conflicts"} <= set(scanned)
    # The keyword index's terms hold the planted tokens too (lower-cased).
    assert {f.table for f in findings} == {*planted, "terms"}
    findings = [f for f in findings if f.table != "terms"]
    assert {(f.table, f.id) for f in findings} == set(planted.items())
    kinds = {f.table: set(f.kinds) for f in findings}
    assert kinds["turns"] == {"github-token"} and kinds["memories"] == {"aws-access-key"}
    assert kinds["tool_uses"] == {"url-password", "openai-api-key"}
    assert kinds["checkpoints"] == {"openai-api-key"}
    for f in findings:
        assert no_secret_in(f.preview) and "[REDACTED:" in f.preview


def test_fix_redacts_in_place_keeping_ids_and_search_consistent(
    settings: Settings, planted: dict[str, str]
) -> None:
    result = audit_secrets(settings, fix=True)
    # 4 rows, and the term the token left in the keyword index.
    assert result.fixed == 5 and len(result.findings) == 5
    assert no_secret_in(json.dumps(jsonable(result)))
    assert audit_secrets(settings).findings == []  # nothing left
    engine = Engine.open(settings)
    try:
        store = engine.store
        text = store.turns([planted["turns"]])[0].text
        assert text == "the quokka deploy token is [REDACTED:github-token], keep it safe"
        assert store.memories(["mem-dirty"])[0].text.endswith("[REDACTED:aws-access-key]")
        use = next(u for u in store.session_tool_uses("s1") if u.name == "Bash")
        assert use.command and "[REDACTED:url-password]" in use.command
        assert use.files == ("/srv/keys/[REDACTED:openai-api-key].txt",)
        body = json.loads(store.checkpoint_body("cp-1") or "{}")
        assert body == {
            "summary": "rotated [REDACTED:openai-api-key] today",
            "decisions": ["keep quokka"],
            "n": 3,
        }
        assert store.counts()["turns"] == 2 and store.counts()["memories"] == 1
        # No term names a piece of a secret (the exact channel keeps identifier-like tokens).
        rows = store._cur().execute("SELECT term FROM terms").fetchall()
        terms = [str(r[0]).lstrip("=") for r in rows]
        assert not [t for t in terms for s in SECRETS if len(t) >= 12 and t in s.lower()]
        # Postings were rebuilt: the secret's tokens are gone, the other words still match.
        assert engine.search(SearchRequest(query=GITHUB)) == []
        found = {h.id for h in engine.search(SearchRequest(query="quokka deploy token"))}
        assert planted["turns"] in found
        assert "mem-dirty" in {h.id for h in engine.search(SearchRequest(query="staging"))}
    finally:
        engine.close()
    raw = db_path(settings.home).read_bytes()
    assert not any(s.encode() in raw for s in SECRETS)


def test_cli_reports_exits_1_and_fixes_on_request(
    settings: Settings, planted: dict[str, str], cli
) -> None:
    report = cli(["audit", "secrets"])
    assert report.exit_code == 1 and no_secret_in(report.output)
    assert "secrets in 5 rows" in report.output and "--fix" in report.output
    assert "turns" in report.output and "github-token" in report.output
    data = json.loads(cli(["audit", "secrets", "--json"]).output)
    assert data["scanned"]["turns"] == 2 and len(data["findings"]) == 5
    fixed = cli(["audit", "secrets", "--fix", "--json"])
    assert fixed.exit_code == 0 and json.loads(fixed.output)["fixed"] == 5
    clean = cli(["audit", "secrets"])
    assert clean.exit_code == 0 and clean.output.startswith("no secrets found (scanned 2 turns")


def test_undo_entries_are_scanned_and_redacted(settings: Settings) -> None:
    """A merge's undo entry keeps the memory rows it replaced: a secret in one of them must be
    found and redacted there too, with the entry still restorable JSON."""
    store = Store(db_path(ensure_home(settings.home)))
    try:
        before = json.dumps([{"id": "m1", "text": f"deploy key {GITHUB}"}])
        after = json.dumps([{"id": "m1", "text": "deploy key rotated"}])
        undo_id = store.add_undo("merge", ["m1"], before, after, "merged 1", T0)
        _, findings = scan(store)
        assert [(f.table, f.id, f.kinds) for f in findings] == [
            ("undo_log", str(undo_id), ("github-token",))
        ]
        assert no_secret_in(findings[0].preview)
    finally:
        store.close()
    assert audit_secrets(settings, fix=True).fixed == 1
    store = Store(db_path(settings.home), read_only=True)
    try:
        entry = store.undo_entries(undo_id=undo_id, pending_only=False)[0]
    finally:
        store.close()
    assert no_secret_in(json.dumps(entry, default=str))
    assert "[REDACTED:github-token]" in json.dumps(entry, default=str)


def test_audit_of_a_store_without_secrets_or_without_a_file(settings: Settings, cli) -> None:
    assert audit_secrets(settings).findings == []  # no database yet: nothing to scan
    assert not Path(db_path(settings.home)).exists()
    engine = Engine.open(settings)
    try:
        engine.remember(f"my token is {GITHUB}")  # redacted on the way in
    finally:
        engine.close()
    assert cli(["audit", "secrets"]).exit_code == 0


def test_audit_refuses_while_the_daemon_runs(
    settings: Settings, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("recallnest.server.client.daemon_answers", lambda settings: True)
    result = cli(["audit", "secrets"])
    assert result.exit_code == 1 and "stop the daemon first" in result.output

"""The ingestion pipeline: exactly-once across restarts and failures, idempotent backfill,
redaction before storage, our own injected context never stored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.paths import TESTS

from recallnest.core.config import Settings
from recallnest.core.errors import StoreError
from recallnest.core.models import CONTEXT_MARKER
from recallnest.engine import Engine
from recallnest.ingest.pipeline import Collector, Source, ingest_file, transcript_files
from recallnest.server.control import backfill

FIXTURES = TESTS / "fixtures" / "transcripts"


def settings_for(tmp: Path) -> Settings:
    env = {"HOME": str(tmp / "user")}
    return Settings.load(flags={"home": str(tmp / "rn"), "embedder": "hash"}, env=env)


def claude_line(session: str, k: int, text: str, role: str = "user") -> str:
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        message = {"role": role, "id": f"m{k}", "content": [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": role,
            "uuid": f"u{k}",
            "parentUuid": f"u{k - 1}" if k else None,
            "sessionId": session,
            "timestamp": f"2026-01-01T00:00:{k % 60:02d}Z",
            "cwd": "/work/app",
            "message": message,
        }
    )


@pytest.fixture
def engine(tmp_path: Path):
    e = Engine.open(settings_for(tmp_path))
    yield e
    e.close()


def test_second_backfill_adds_nothing(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    root = str(FIXTURES / "claude")
    first = backfill(settings, "claude", [root], None)
    second = backfill(settings, "claude", [root], None)
    assert first.backfill.new_turns > 0
    assert second.backfill.new_turns == 0 and second.backfill.turns == 0


def test_every_fixture_tree_ingests_without_errors(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    for agent in ("claude", "codex", "gemini"):
        summary = backfill(settings, agent, [str(FIXTURES / agent)], None).backfill
        assert summary.errors == []
        assert summary.new_turns > 0, agent


def test_failed_flush_keeps_the_cursor_and_loses_nothing(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        "".join(claude_line("s1", k, f"line {k} about zebras") + "\n" for k in range(10))
    )
    source = Source(str(path), "claude")

    def broken(batch):  # disk full, damaged file...: the store raises, nothing commits
        raise StoreError("disk full")

    with pytest.raises(StoreError):
        ingest_file(source, None, broken)
    assert engine.store.cursor(str(path)) is None
    report = ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
    assert report.new_turns == 10
    again = ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
    assert again.new_turns == 0 and engine.store.counts()["turns"] == 10


def test_appends_are_read_once_even_after_a_rewrite(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "s.jsonl"
    lines = [claude_line("s1", k, f"turn number {k}") for k in range(6)]
    path.write_text("\n".join(lines[:3]) + "\n")
    source = Source(str(path), "claude")
    ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
    path.write_text("\n".join(lines) + "\n")  # rewritten whole (temp file + rename style)
    ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
    assert engine.store.counts()["turns"] == 6


def test_collector_writes_many_files_in_one_flush(tmp_path: Path, engine: Engine) -> None:
    collect = Collector(engine.ingest_batch)
    for n in range(3):
        path = tmp_path / f"s{n}.jsonl"
        path.write_text(claude_line(f"s{n}", 0, f"hello from session {n}") + "\n")
        ingest_file(Source(str(path), "claude"), None, collect)
    assert engine.store.counts()["turns"] == 0
    assert collect.flush() == 3
    assert len(engine.store.cursors()) == 3


def test_secrets_are_redacted_before_storage(tmp_path: Path, engine: Engine) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    path = tmp_path / "s.jsonl"
    path.write_text(claude_line("s1", 0, f"my token is {token} please use it") + "\n")
    ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
    texts = [t.text for t in engine.store.session_turns("s1")]
    assert texts and token not in texts[0] and "[REDACTED:" in texts[0]
    raw = (tmp_path / "rn" / "recallnest.duckdb").read_bytes()
    assert token.encode() not in raw


def test_our_injected_context_never_becomes_a_turn(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "s.jsonl"
    injected = f"{CONTEXT_MARKER}\n~~~~\n- [abcd1234] I prefer tabs\n~~~~"
    path.write_text(claude_line("s1", 0, injected) + "\n" + claude_line("s1", 1, "real") + "\n")
    ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
    assert [t.text for t in engine.store.session_turns("s1")] == ["real"]


def test_transcript_files_follows_agent_layouts(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "codex", tmp_path / "codex")
    found = list(transcript_files([tmp_path / "codex"]))
    assert found and {s.agent for s in found} == {"codex"}
    assert not any(s.path.endswith(".expected.json") for s in found)
    assert list(transcript_files([tmp_path / "missing"])) == []


def test_malformed_lines_are_counted_not_fatal(tmp_path: Path, engine: Engine) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(
        b"{not json\n\xff\xfe\x00binary\n" + claude_line("s1", 0, "ok").encode() + b"\n"
    )
    report = ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
    assert report.new_turns == 1 and report.skipped_lines == 2

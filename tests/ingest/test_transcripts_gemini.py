"""Tests for recallnest.ingest.transcripts.gemini: upserts, `$rewindTo`, `$set` checkpoints and
summaries, injected context, subagents, the legacy whole document and `project_root_for`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.paths import FIXTURES

from recallnest.core.errors import TranscriptError
from recallnest.core.models import CONTEXT_MARKER, Event, Retraction, ToolUse, Turn
from recallnest.ingest.transcripts import new_parser, parse_document
from recallnest.ingest.transcripts.gemini import MAX_MESSAGES, GeminiParser, project_root_for

SESSION = "3739ef95-0000-4000-8000-000000000001"
PATH = "/h/.gemini/tmp/my-repo/chats/session-2026-04-29T21-39-3739ef95.jsonl"


def raw(**record: Any) -> bytes:
    return json.dumps(record).encode()


def msg(id: str, type: str, content: object, **fields: Any) -> dict[str, Any]:
    return {
        "id": id,
        "timestamp": "2026-04-29T21:39:33.000Z",
        "type": type,
        "content": content,
        **fields,
    }


def feed_all(parser: GeminiParser, records: Sequence[object]) -> list[Event]:
    events, offset = [], 0
    for record in records:
        line = record if isinstance(record, bytes) else json.dumps(record).encode()
        events.extend(parser.feed(line, offset))
        offset += len(line) + 1
    return events


def turns(events: list[Event]) -> list[Turn]:
    return [e for e in events if isinstance(e, Turn)]


def retractions(events: list[Event]) -> list[tuple[str, ...]]:
    return [e.record_ids for e in events if isinstance(e, Retraction)]


def metadata() -> dict[str, Any]:
    return {"sessionId": SESSION, "projectHash": "ab" * 32, "startTime": "2026-04-29T21:39:22Z"}


def test_upserts_emit_only_when_the_text_changes() -> None:
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls -F"}}
    records = [
        metadata(),
        msg("g1", "gemini", "", toolCalls=[call]),
        msg("g1", "gemini", "Listing.", toolCalls=[{**call, "status": "success"}]),
        msg("g1", "gemini", "Listing.", toolCalls=[call], tokens={"total": 3}),
    ]
    events = feed_all(GeminiParser(PATH), records)
    assert [(t.session_id, t.record_id, t.text) for t in turns(events)] == [
        (SESSION, "g1", "Listing.")
    ]
    assert [(e.record_id, e.command) for e in events if isinstance(e, ToolUse)] == [("c1", "ls -F")]


def test_rewind_retracts_the_target_and_everything_after() -> None:
    records = [
        metadata(),
        msg("u1", "user", "first"),
        msg("g1", "gemini", "reply"),
        msg("i1", "info", "notice"),
        msg("u2", "user", "second"),
        raw(**{"$rewindTo": "g1"}),
        msg("u3", "user", "third"),
    ]
    parser = GeminiParser(PATH)
    events = feed_all(parser, records)
    assert retractions(events) == [("g1", "u2")]
    assert [key for key, _ in parser.state()["messages"]] == ["u1", "u3"]  # type: ignore[attr-defined]


def test_rewind_to_an_unknown_id_clears_everything_as_gemini_does() -> None:
    records = [metadata(), msg("u1", "user", "first"), raw(**{"$rewindTo": "nope"})]
    assert retractions(feed_all(GeminiParser(PATH), records)) == [("u1",)]


def test_rewind_survives_a_restart() -> None:
    parser = GeminiParser(PATH)
    feed_all(parser, [metadata(), msg("u1", "user", "first"), msg("g1", "gemini", "reply")])
    resumed = new_parser("gemini", PATH, json.loads(json.dumps(parser.state())))
    events = resumed.feed(raw(**{"$rewindTo": "u1"}), 900)
    assert events == [Retraction("gemini", SESSION, ("u1", "g1"))]


def test_checkpoint_keeps_compressed_history_and_retracts_a_dropped_tail() -> None:
    snapshot = msg("s1", "user", [{"text": "<state_snapshot>goal</state_snapshot>"}])
    records = [
        metadata(),
        msg("u1", "user", "old question"),
        msg("g1", "gemini", "old answer"),
        msg("u2", "user", "recent question"),
        raw(**{"$set": {"messages": [snapshot, msg("u2", "user", "recent question")]}}),
        msg("g2", "gemini", "aborted answer"),
        raw(**{"$set": {"messages": [snapshot, msg("u2", "user", "recent question")]}}),
        raw(**{"$set": {"messages": []}}),
    ]
    events = feed_all(GeminiParser(PATH), records)
    assert retractions(events) == [("g2",)]
    summary = [t for t in turns(events) if t.record_id == "s1"]
    assert [(t.role, t.kind) for t in summary] == [("assistant", "summary")]


def test_set_summary_is_a_summary_turn() -> None:
    records = [
        metadata(),
        raw(**{"$set": {"summary": "Fix the parser", "lastUpdated": "2026-04-29T22:00:00Z"}}),
    ]
    (turn,) = turns(feed_all(GeminiParser(PATH), records))
    assert (turn.kind, turn.role, turn.record_id, turn.text) == (
        "summary",
        "assistant",
        "$summary",
        "Fix the parser",
    )


def test_injected_and_command_user_turns_are_dropped() -> None:
    records = [
        metadata(),
        msg("h1", "user", [{"text": f"<hook_context>{CONTEXT_MARKER}</hook_context>"}]),
        msg("h2", "user", "<session_context>cwd: /h</session_context>"),
        msg("c1", "user", "/compress"),
        msg("q1", "user", "?"),
        msg("e1", "error", "quota exceeded"),
        msg("p1", "user", "/home/me/app is slow"),
    ]
    assert [t.text for t in turns(feed_all(GeminiParser(PATH), records))] == [
        "/home/me/app is slow"
    ]


def test_our_context_marker_never_flows_back() -> None:
    injected = f"{CONTEXT_MARKER} - prefers attrs"
    records = [
        msg("u1", "user", "hello", displayContent=injected),
        msg("g1", "gemini", [{"text": injected}]),
        raw(**{"$set": {"summary": injected}}),
    ]
    # Our context is cut out; the person's words in the other field are kept (issue 16.2).
    assert [t.text for t in turns(feed_all(GeminiParser(PATH), records))] == ["hello"]


def test_display_content_is_what_the_person_typed() -> None:
    record = msg(
        "u1",
        "user",
        [{"text": "explain @a.py"}, {"text": "\n--- a.py ---\ncode"}],
        displayContent="explain @a.py",
    )
    assert [t.text for t in turns(feed_all(GeminiParser(PATH), [record]))] == ["explain @a.py"]


def test_subagent_chat_is_attributed_to_the_parent() -> None:
    path = f"/h/.gemini/tmp/my-repo/chats/{SESSION}/child-0001.jsonl"
    records = [
        {"sessionId": "child-0001", "projectHash": "x", "kind": "subagent"},
        msg("m1", "user", "Find TODOs"),
    ]
    (turn,) = turns(feed_all(GeminiParser(path), records))
    assert (turn.session_id, turn.parent_session_id, turn.record_id, turn.role) == (
        SESSION,
        SESSION,
        "child-0001/m1",
        "assistant",
    )


def test_cwd_hint_becomes_the_turn_cwd() -> None:
    parser = new_parser("gemini", PATH, None, "/h/code/my-repo")
    (turn,) = turns(parser.feed(json.dumps(msg("u1", "user", "hi")).encode(), 0))
    assert turn.cwd == "/h/code/my-repo"


def test_malformed_lines_are_counted_not_raised() -> None:
    bad = [
        b"nope",
        b"\xff",
        b"[]",
        raw(**{"$rewindTo": 1}),
        raw(**{"$set": "x"}),
        raw(other=1),
        raw(**msg("x", "alien", "?")),
    ]
    parser = GeminiParser(PATH)
    assert turns(feed_all(parser, [*bad, b" "])) == []
    assert parser.skipped == 7


def test_state_stays_bounded() -> None:
    parser = GeminiParser(PATH)
    feed_all(parser, [msg(f"m{i}", "user", f"message {i}") for i in range(MAX_MESSAGES + 100)])
    state = parser.state()
    assert len(state["messages"]) == MAX_MESSAGES  # type: ignore[arg-type]
    assert len(json.dumps(state)) < 64_000


LEGACY = FIXTURES / "transcripts" / "gemini" / "agent-sessions__gemini_legacy_session.json"


def test_legacy_document_parsing_is_idempotent() -> None:
    data = LEGACY.read_bytes()
    first = parse_document("gemini", str(LEGACY), data)
    assert parse_document("gemini", str(LEGACY), data) == first
    assert [(t.record_id, t.text) for t in turns(first)] == [("m1", "Hello"), ("m2", "Hi!")]


def test_legacy_document_grows_without_changing_earlier_turns() -> None:
    document = json.loads(LEGACY.read_bytes())
    before = parse_document("gemini", "/x/session-1.json", json.dumps(document).encode())
    document["messages"].append(msg("m3", "user", "And now?"))
    after = parse_document("gemini", "/x/session-1.json", json.dumps(document).encode())
    assert after[: len(before)] == before
    assert turns(after)[-1].text == "And now?"


@pytest.mark.parametrize("data", [b'{"sessionId": "x", "messages": [', b"[1, 2]", b"\xff\xfe", b""])
def test_incomplete_legacy_document_raises_transcript_error(data: bytes) -> None:
    with pytest.raises(TranscriptError):
        parse_document("gemini", "/x/session-1.json", data)


def test_project_root_from_the_project_root_file(tmp_path: Path) -> None:
    chats = tmp_path / "tmp" / "my-repo" / "chats"
    (chats / "parent").mkdir(parents=True)
    (tmp_path / "tmp" / "my-repo" / ".project_root").write_text("/h/code/my-repo\n")
    assert project_root_for(str(chats / "session-1.jsonl")) == "/h/code/my-repo"
    assert project_root_for(str(chats / "parent" / "child.jsonl")) == "/h/code/my-repo"


def test_project_root_from_projects_json(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    registry = {"projects": {"/h/code/my-repo": "my-repo", "/h/code/other": "other"}}
    (home / ".gemini" / "projects.json").write_text(json.dumps(registry))
    slug = home / ".gemini" / "tmp" / "my-repo" / "chats" / "session-1.jsonl"
    hashed = (
        home / ".gemini" / "tmp" / hashlib.sha256(b"/h/code/other").hexdigest() / "chats" / "s.json"
    )
    assert project_root_for(str(slug), str(home)) == "/h/code/my-repo"
    assert project_root_for(str(hashed), str(home)) == "/h/code/other"
    assert project_root_for(str(slug)) is None  # no home given: projects.json is not read


def test_project_root_unknown(tmp_path: Path) -> None:
    assert project_root_for(str(tmp_path / "loose.jsonl"), str(tmp_path)) is None
    assert project_root_for(str(tmp_path / "p" / "chats" / "s.jsonl"), str(tmp_path)) is None

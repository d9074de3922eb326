"""Tests for the transcripts package entry points: `detect`, `new_parser`, `parse_document`,
golden replays of every fixture under tests/fixtures/transcripts through them, and property
tests that no parser raises on bad input.

Golden files (`<name>.expected.json` next to each fixture) hold the final turn per identity (last
write wins, retractions applied), every tool use and the skipped count. Regenerate them with
`REGEN_GOLDEN=1 pytest tests/ingest/test_transcripts_detect.py`, then read the diff by hand.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.paths import TESTS

import recallnest.ingest.transcripts as transcripts
from recallnest.core.errors import TranscriptError
from recallnest.core.models import AGENTS, Event, Retraction, ToolUse, Turn
from recallnest.ingest.transcripts import detect, is_document, new_parser, parse_document
from recallnest.ingest.transcripts.gemini import project_root_for

FIXTURES = TESTS / "fixtures" / "transcripts"
REGEN = os.environ.get("REGEN_GOLDEN") == "1"


def fixture_files() -> list[Path]:
    names = (p for p in FIXTURES.rglob("*") if p.suffix in (".jsonl", ".json"))
    return sorted(p for p in names if not p.name.endswith((".expected.json", ".meta.json")))


def lines_of(data: bytes) -> list[tuple[int, bytes]]:
    """Complete lines and the byte offset where each starts, as the tailer feeds them."""
    lines, start = [], 0
    while (end := data.find(b"\n", start)) != -1:
        lines.append((start, data[start:end]))
        start = end + 1
    return lines


def replay(path: Path, restart_at: int | None = None) -> tuple[list[list[Event]], int]:
    """Events per line of a fixture; optionally restart the parser from its saved state."""
    agent, rel = path.relative_to(FIXTURES).parts[0], path.relative_to(FIXTURES).as_posix()
    cwd_hint = project_root_for(str(path))
    data = path.read_bytes()
    if path.suffix == ".json":
        return [parse_document(agent, rel, data, cwd_hint)], 0
    parser = new_parser(agent, rel, None, cwd_hint)
    per_line, skipped = [], 0
    for index, (offset, line) in enumerate(lines_of(data)):
        if index == restart_at:
            skipped += parser.skipped  # counted per parser instance, not kept in state
            parser = new_parser(agent, rel, json.loads(json.dumps(parser.state())), cwd_hint)
        per_line.append(parser.feed(line, offset))
    return per_line, skipped + parser.skipped


def fold(events: list[Event]) -> dict[str, object]:
    """What a store that upserts by identity and honours retractions would end up holding."""
    turns: dict[tuple[str, str, str], Turn] = {}
    retracted: dict[tuple[str, str, str], None] = {}
    tools: dict[str, ToolUse] = {}
    for event in events:
        if isinstance(event, Turn):
            key = (event.agent, event.session_id, event.record_id)
            turns[key] = event
            retracted.pop(key, None)
        elif isinstance(event, Retraction):
            for record_id in event.record_ids:
                key = (event.agent, event.session_id, record_id)
                if turns.pop(key, None) is not None:
                    retracted[key] = None
        else:
            tools[event.record_id] = event
    return {
        "turns": [as_json(turn) for turn in turns.values()],
        "tool_uses": [as_json(tool) for tool in tools.values()],
        "retracted": [[session, record_id] for _, session, record_id in retracted],
    }


def as_json(value: Turn | ToolUse) -> dict[str, object]:
    fields = dataclasses.asdict(value)
    if fields["timestamp"] is not None:
        fields["timestamp"] = fields["timestamp"].isoformat()
    if "files" in fields:
        fields["files"] = list(fields["files"])
    return fields


def expected_path(path: Path) -> Path:
    return path.with_name(path.name.rsplit(".", 1)[0] + ".expected.json")


def fixture_id(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


@pytest.mark.parametrize("path", fixture_files(), ids=fixture_id)
def test_golden(path: Path) -> None:
    per_line, skipped = replay(path)
    actual = {"skipped": skipped, **fold([e for events in per_line for e in events])}
    golden = expected_path(path)
    if REGEN:
        golden.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", "utf-8")
    assert actual == json.loads(golden.read_text("utf-8"))


@pytest.mark.parametrize(
    "path", [p for p in fixture_files() if p.suffix == ".jsonl"], ids=fixture_id
)
def test_restart_at_every_line_gives_the_same_events(path: Path) -> None:
    full, skipped = replay(path)
    for index in range(1, len(full)):
        restarted, restarted_skipped = replay(path, restart_at=index)
        assert restarted[index:] == full[index:], f"restart before line {index + 1}"
        assert restarted_skipped == skipped


@pytest.mark.parametrize(
    "path", [p for p in fixture_files() if p.suffix == ".jsonl"], ids=fixture_id
)
def test_turn_offsets_are_line_starts(path: Path) -> None:
    data = path.read_bytes()
    starts = {offset for offset, _ in lines_of(data)}
    per_line, _ = replay(path)
    offsets = {e.offset for events in per_line for e in events if isinstance(e, Turn)}
    assert offsets <= starts


def test_every_fixture_has_a_golden_file() -> None:
    assert all(expected_path(path).exists() for path in fixture_files())


@pytest.mark.parametrize(
    ("path", "agent"),
    [
        (
            "/home/u/.claude/projects/-home-u-app/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
            "claude",
        ),
        ("/home/u/.claude/projects/-home-u-app/0a1b2c3d/subagents/agent-a0ad4f44.jsonl", "claude"),
        ("/home/u/.claude/projects/-home-u-app/agent-a0ad4f44.jsonl", "claude"),
        ("/cfg/projects/-home-u-app/0a1b2c3d/subagents/agent-a0ad4f44.meta.json", None),
        ("/home/u/.claude/projects/-home-u-app/0a1b2c3d/tool-results/x.jsonl", None),
        ("/home/u/.claude/history.jsonl", None),
        ("/home/u/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-1111.jsonl", "codex"),
        ("/home/u/.codex/sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl", "codex"),
        ("/home/u/.codex/archived_sessions/rollout-2026-01-02T03-04-05-1111.jsonl", "codex"),
        ("/home/u/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-1111.jsonl.zst", None),
        ("/home/u/.codex/history.jsonl", None),
        ("/tmp/rollout-2026-01-02T03-04-05-1111.jsonl", None),
        ("/home/u/.gemini/tmp/my-repo/chats/session-2026-04-29T21-39-3739ef95.jsonl", "gemini"),
        ("/home/u/.gemini/tmp/my-repo/chats/session-2026-01-16T18-34-3739ef95.json", "gemini"),
        ("/home/u/.gemini/tmp/my-repo/chats/0a1b2c3d-parent/0b2c3d4e-child.jsonl", "gemini"),
        ("/home/u/.gemini/tmp/my-repo/chats/session-x.json.unreadable-1700000000", None),
        ("/home/u/.gemini/tmp/my-repo/logs.json", None),
        ("/home/u/.gemini/tmp/my-repo/checkpoint-tag.json", None),
        ("C:\\Users\\u\\.claude\\projects\\C--app\\0a1b2c3d.jsonl", "claude"),
        ("C:\\Users\\u\\.codex\\sessions\\2026\\01\\02\\rollout-2026-x.jsonl", "codex"),
        ("", None),
    ],
)
def test_detect(path: str, agent: str | None) -> None:
    assert detect(path) == agent


def test_is_document_only_for_legacy_gemini_json() -> None:
    assert is_document("/h/.gemini/tmp/p/chats/session-2026-01-16T18-34-3739ef95.json")
    assert not is_document("/h/.gemini/tmp/p/chats/session-2026-01-16T18-34-3739ef95.jsonl")
    assert not is_document("/h/.claude/projects/p/a/subagents/agent-x.meta.json")


@pytest.mark.parametrize("agent", AGENTS)
def test_new_parser_knows_every_agent(agent: str) -> None:
    parser = new_parser(agent, f"/x/{agent}.jsonl")
    assert parser.agent == agent
    assert parser.skipped == 0
    assert json.loads(json.dumps(parser.state())) == parser.state()


def test_new_parser_rejects_unknown_agents() -> None:
    with pytest.raises(ValueError, match="claude, codex, gemini"):
        new_parser("cursor", "/x/y.jsonl")


def test_parse_document_is_gemini_only() -> None:
    with pytest.raises(ValueError, match="gemini"):
        parse_document("claude", "/x/y.json", b"{}")


def test_parse_document_raises_transcript_error_on_a_partial_write() -> None:
    data = (FIXTURES / "gemini" / "agent-sessions__gemini_legacy_session.json").read_bytes()
    with pytest.raises(TranscriptError):
        parse_document("gemini", "/x/session-1.json", data[: len(data) // 2])


def test_all_is_sorted_and_complete() -> None:
    assert transcripts.__all__ == sorted(transcripts.__all__)
    assert all(hasattr(transcripts, name) for name in transcripts.__all__)


# --- No parser raises, whatever it is fed -------------------------------------------------

FUZZ = settings(max_examples=examples(200), deadline=None, database=None)
JSON_LEAF = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
KEYS = st.sampled_from(
    ["type", "id", "uuid", "parentUuid", "sessionId", "message", "content", "text", "role",
     "payload", "isSidechain", "isCompactSummary", "attachment", "prompt", "commandMode",
     "supersedesUuids", "retractedMessageUuids", "input", "arguments", "name", "call_id",
     "num_turns", "toolCalls", "args", "displayContent", "$set", "$rewindTo", "messages",
     "summary", "source", "subagent", "thread_spawn", "parent_thread_id", "timestamp"]
)  # fmt: skip
KINDS = st.sampled_from(
    ["user", "assistant", "system", "summary", "attachment", "text", "tool_use", "message",
     "session_meta", "response_item", "event_msg", "compacted", "user_message", "agent_message",
     "function_call", "custom_tool_call", "thread_rolled_back", "gemini", "info"]
)  # fmt: skip
JSON_VALUES = st.recursive(
    JSON_LEAF | KINDS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=8,
)


def is_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


FIXTURE_LINES = [
    (path, index)
    for path in fixture_files()
    if path.suffix == ".jsonl"
    for index, (_, line) in enumerate(lines_of(path.read_bytes()))
    if is_object(line)
]


def feed_resumed(agent: str, lines: list[bytes]) -> None:
    """Feed lines, restarting from saved state after each, and check the state stays JSON."""
    parser = new_parser(agent, "/x/chats/p/session-1.jsonl")
    for offset, line in enumerate(lines):
        parser.feed(line, offset)
        parser = new_parser(
            agent, "/x/chats/p/session-1.jsonl", json.loads(json.dumps(parser.state()))
        )


def mutate(value: object, path: list[int], replacement: object) -> object:
    """`value` with the node reached by following `path` (indices mod size) replaced."""
    if not path or not isinstance(value, dict | list) or not value:
        return replacement
    if isinstance(value, list):
        index = path[0] % len(value)
        return [mutate(v, path[1:], replacement) if i == index else v for i, v in enumerate(value)]
    key = list(value)[path[0] % len(value)]
    return {**value, key: mutate(value[key], path[1:], replacement)}


@FUZZ
@given(st.sampled_from(AGENTS), st.lists(st.binary(max_size=200), max_size=4))
def test_arbitrary_bytes_never_raise(agent: str, lines: list[bytes]) -> None:
    feed_resumed(agent, lines)


@FUZZ
@given(
    st.sampled_from(AGENTS), st.lists(st.dictionaries(KEYS, JSON_VALUES, max_size=6), max_size=4)
)
def test_wrongly_shaped_records_never_raise(agent: str, records: list[dict[str, object]]) -> None:
    feed_resumed(agent, [json.dumps(record).encode() for record in records])


@FUZZ
@given(st.sampled_from(FIXTURE_LINES), st.lists(st.integers(0, 50), max_size=5), JSON_VALUES)
def test_mutated_fixture_lines_never_raise(
    where: tuple[Path, int], path: list[int], replacement: object
) -> None:
    fixture, index = where
    lines = [line for _, line in lines_of(fixture.read_bytes())]
    record = json.loads(lines[index])
    lines[index] = json.dumps(mutate(record, path, replacement)).encode()
    feed_resumed(fixture.relative_to(FIXTURES).parts[0], lines)

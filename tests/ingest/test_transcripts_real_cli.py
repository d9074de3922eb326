"""Golden tests on transcripts written by the real CLIs (Claude Code 2.1.197, Codex CLI 0.171.0,
Gemini CLI 0.61.0; issue 16): every file of `real-cli-2026-12/` is copied byte for byte under
tests/fixtures/transcripts/<agent>/real-cli-2026-12/ (see SOURCES-real-cli-2026-12.md).

For each file: the typed prompts are kept exactly once, none of our injected context (nor the
CLI's own preambles) becomes a turn, and a record kind the parser does not know is skipped
without error. The whole parsed output is also pinned by the `<name>.expected.json` golden
files that tests/ingest/test_transcripts_detect.py replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.paths import TESTS

from recallnest.core.models import CONTEXT_MARKER, Turn
from recallnest.ingest.transcripts import new_parser

FIXTURES = TESTS / "fixtures" / "transcripts"
SET = "real-cli-2026-12"

# The typed prompts of each file, in file order; every other user record is injected.
PROMPTS: dict[str, list[str]] = {
    "claude/2d2c1d78-2c70-4811-a893-37394e16f720.jsonl": [
        "Which port does staging use? rcprobe-claude-2",
        "resume probe rcprobe-claude-resume",
    ],
    "claude/d588c0cf-dc36-42b7-b19d-f143ca43abfb.jsonl": [
        "Remember: which package manager do we use here? rcprobe-claude-1"
    ],
    "claude/plugin-3b5f1f61-2bf4-48bb-97c5-1b55d48e0cac.jsonl": [
        "plugin probe rcprobe-claude-plugin"
    ],
    "codex/rollout-2026-12-02T04-05-01-01a234ed-60dc-7a53-816d-0cb5bc61cef8.jsonl": [
        "Which package manager do we use? rcprobe-codex-1"
    ],
    "codex/rollout-2026-12-02T04-07-37-01a234ef-bf2a-78b1-898d-5690003ef014.jsonl": [
        "Which port does staging use? rcprobe-codex-2"
    ],
    "codex/rollout-2026-12-02T04-10-42-01a234f2-92c8-77d2-9b64-9dc0d1b97ec3.jsonl": [
        "Which package manager again? rcprobe-codex-3"
    ],
    "gemini/ext-session-2026-12-02T04-16-30b92552.jsonl": [],
    "gemini/interactive-session-2026-12-02T04-19-ec9f945f.jsonl": [],
    "gemini/session-2026-12-02T04-11-84de2ca2.jsonl": [
        "Which package manager do we use? rcprobe-gemini-1"
    ],
}
# Text that only our context or the CLIs' own preambles contain.
INJECTED = (
    CONTEXT_MARKER, "staging server listens", "hook_context", "<session_context>",
    "<environment_context>", "<skills_instructions>", "<permissions instructions>",
)  # fmt: skip
UNKNOWN = {
    "claude": {"type": "brand-new-kind", "uuid": "x1", "sessionId": "s"},
    "codex": {
        "timestamp": "2026-12-02T04:05:02Z",
        "ordinal": 99,
        "type": "brand_new",
        "payload": {},
    },
    "gemini": {"$brandNew": {"x": 1}},
}


def fixture_path(key: str) -> Path:
    agent, name = key.split("/")
    return FIXTURES / agent / SET / name


def parse(key: str, extra: tuple[bytes, ...] = ()) -> tuple[list[Turn], int]:
    agent = key.split("/")[0]
    path = fixture_path(key)
    parser = new_parser(agent, f"{agent}/{SET}/{path.name}")
    lines = [*path.read_bytes().splitlines(), *extra]
    turns, offset = [], 0
    for line in lines:
        turns.extend(e for e in parser.feed(line, offset) if isinstance(e, Turn))
        offset += len(line) + 1
    return turns, parser.skipped


def test_every_file_of_the_set_is_pinned() -> None:
    copied = {f"{p.parent.parent.name}/{p.name}" for p in FIXTURES.glob(f"*/{SET}/*.jsonl")}
    assert copied == set(PROMPTS)
    sources = (FIXTURES / f"SOURCES-{SET}.md").read_text("utf-8")
    assert all(agent in sources for agent in ("Claude Code 2.1.197", "Codex CLI 0.171.0"))


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_typed_prompts_are_kept_exactly_once(key: str) -> None:
    turns, skipped = parse(key)
    assert [t.text for t in turns if t.role == "user"] == PROMPTS[key]
    assert skipped == 0


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_no_injected_context_becomes_a_turn(key: str) -> None:
    turns, _ = parse(key)
    assert not [t.text for t in turns if any(marker in t.text for marker in INJECTED)]


@pytest.mark.parametrize("key", sorted(PROMPTS))
def test_an_unknown_record_kind_is_skipped_without_error(key: str) -> None:
    agent = key.split("/")[0]
    unknown = json.dumps(UNKNOWN[agent]).encode()
    turns, skipped = parse(key, (unknown, b"{not json"))
    assert [t.text for t in turns if t.role == "user"] == PROMPTS[key]
    assert skipped == 2

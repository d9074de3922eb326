"""The one rule every parser applies to a user's prompt (issue 16.2): our injected context is
cut out and never stored, the words the person typed around it are kept, and a prompt is
dropped only when nothing of theirs is left. Each agent writes the prompt in its own shape."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from recallnest.continuity.compose import LABEL, REMINDER
from recallnest.core.models import CONTEXT_MARKER, Turn
from recallnest.ingest.transcripts import new_parser
from recallnest.ingest.transcripts._common import strip_context

NOTES = f"{CONTEXT_MARKER}\n{LABEL}\n~~~~\nThis project:\n- [57efc64b] staging is on 8443\n~~~~"
OLD_NOTES = f"{CONTEXT_MARKER}\nReference from past sessions.\n````text\n- uses pnpm\n````"
NUDGE = f"{CONTEXT_MARKER}\n{REMINDER}"
PATHS = {
    "claude": "/h/.claude/projects/-h-app/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
    "codex": "/h/.codex/sessions/2026/12/02/rollout-2026-12-02T04-05-01-01a234ed-60dc.jsonl",
    "gemini": "/h/.gemini/tmp/app/chats/session-2026-12-02T04-11-84de2ca2.jsonl",
}

# (prompt as written, what must be kept): words before, after, between and around spans.
LAYOUTS = [
    (NOTES, None),
    (f"{NOTES}\n\n{NUDGE}", None),
    (f"{NOTES}\n\nWhich port does staging use?", "Which port does staging use?"),
    (f"Before we start:\n{NOTES}", "Before we start:"),
    (f"first words\n{NOTES}\nsecond words", "first words\n\nsecond words"),
    (f"{OLD_NOTES}\nmiddle\n{NUDGE}\nlast", "middle\n\nlast"),
    (f"```py\nx = 1\n```\n{NUDGE}", "```py\nx = 1\n```"),
    (f"<context>{NOTES}</context>\nWhat now?", "What now?"),
    (f"<context>{NUDGE}</context> What now?", "What now?"),
]


def claude_prompt(text: str) -> list[bytes]:
    record = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f",
        "timestamp": "2026-12-02T04:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return [json.dumps(record).encode()]


def codex_prompt(text: str) -> list[bytes]:
    """0.171 writes the prompt twice: as a response item and as `item_completed`."""
    item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    done = {"type": "item_completed", "item": {"type": "UserMessage", "content": [{"text": text}]}}
    return [
        json.dumps({"timestamp": "2026-12-02T04:00:00Z", "type": kind, "payload": payload}).encode()
        for kind, payload in (("response_item", item), ("event_msg", done))
    ]


def gemini_prompt(text: str) -> list[bytes]:
    """Headless `gemini -p`: one message, every context block wrapped in `<hook_context>`."""
    wrapped = text
    for block in (NOTES, OLD_NOTES, NUDGE):
        wrapped = wrapped.replace(block, f"<hook_context>{block}</hook_context>")
    record = {"id": "m1", "type": "user", "content": [{"text": wrapped}]}
    return [json.dumps(record).encode()]


WRITERS: dict[str, Callable[[str], list[bytes]]] = {
    "claude": claude_prompt,
    "codex": codex_prompt,
    "gemini": gemini_prompt,
}


def parsed(agent: str, lines: list[bytes]) -> list[str]:
    parser = new_parser(agent, PATHS[agent])
    events, offset = [], 0
    for line in lines:
        events.extend(parser.feed(line, offset))
        offset += len(line) + 1
    return [event.text for event in events if isinstance(event, Turn)]


@pytest.mark.parametrize("agent", sorted(WRITERS))
@pytest.mark.parametrize(("prompt", "kept"), LAYOUTS)
def test_our_context_is_cut_and_the_typed_words_kept(
    agent: str, prompt: str, kept: str | None
) -> None:
    texts = parsed(agent, WRITERS[agent](prompt))
    assert texts == ([kept] if kept else [])
    assert not any(CONTEXT_MARKER in t or "staging is on" in t or REMINDER in t for t in texts)


def test_gemini_interactive_prompt_keeps_display_content() -> None:
    """Interactive sessions send the context as a part of the request; the recorder keeps the
    typed text in `displayContent`, which wins."""
    record = {
        "id": "m2",
        "type": "user",
        "content": [{"text": f"<hook_context>{NOTES}</hook_context>"}, {"text": "typed words"}],
        "displayContent": [{"text": "typed words"}],
    }
    assert parsed("gemini", [json.dumps(record).encode()]) == ["typed words"]
    del record["displayContent"]
    assert parsed("gemini", [json.dumps(record).encode()]) == ["typed words"]


def test_gemini_hook_context_of_other_hooks_is_not_typed_text() -> None:
    record = {"id": "m3", "type": "user", "content": "<hook_context>git: main</hook_context>\nhi"}
    assert parsed("gemini", [json.dumps(record).encode()]) == ["hi"]


def test_a_context_block_cut_short_is_cut_to_its_wrapper_or_the_end() -> None:
    truncated = f"{CONTEXT_MARKER}\n{LABEL}\n~~~~\n- half a note"
    assert strip_context(truncated) == ""
    assert strip_context(f"<hook_context>{truncated}</hook_context>\n\nhi") == "hi"
    assert strip_context(f"say this\n\n{CONTEXT_MARKER}\n- unknown shape\n\nthen that") == (
        "say this\n\nthen that"
    )


def test_a_wrapper_left_empty_by_the_cut_goes_too() -> None:
    assert strip_context(f"<additional_context>\n{NOTES}\n</additional_context>\nhi") == "hi"
    assert strip_context(f"<a>x</a> <b>{NUDGE}</b> y") == "<a>x</a>\n\ny"
    assert strip_context(f"<a>{NUDGE}</b> y") == "<a>\n\n</b> y"  # not a pair: kept


def test_text_without_our_marker_is_left_alone() -> None:
    text = "<hook_context>not ours</hook_context> and a ~~~~ fence\n(a parenthesis)"
    assert strip_context(text) == text

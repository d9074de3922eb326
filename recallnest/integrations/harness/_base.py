"""The shared base of the harness adapters: the hook event, the payload parser, the JSON
envelope and the fence-aware truncation that keeps every rendered output under its agent's
size cap. Standard library only: the hook imports this on its fast path."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, NamedTuple, Protocol

Source = Literal["startup", "resume", "clear", "compact", "fork"]
SOURCES: tuple[Source, ...] = ("startup", "resume", "clear", "compact", "fork")

# Our kebab-case event names (the `recallnest hook <event>` subcommands) by the names the
# agents send in `hook_event_name`. Gemini calls compaction "PreCompress".
EVENT_NAMES: dict[str, str] = {
    "SessionStart": "session-start",
    "PreCompact": "pre-compact",
    "PreCompress": "pre-compact",
    "SessionEnd": "session-end",
    "BeforeAgent": "before-agent",
    "UserPromptSubmit": "user-prompt",
}

TRUNCATION_NOTE = "[recallnest: recalled notes shortened to fit this agent's context limit]"

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class HookEvent(NamedTuple):
    """One hook invocation as the agent described it on stdin. Missing fields are None."""

    agent: str
    event: str
    cwd: str
    session_id: str | None = None
    source: Source | None = None
    transcript_path: str | None = None
    prompt: str | None = None  # the typed prompt (UserPromptSubmit, Gemini's BeforeAgent)


class ParseFn(Protocol):
    def __call__(
        self, payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
    ) -> HookEvent: ...


class RenderFn(Protocol):
    def __call__(self, text: str, event: str = "SessionStart") -> str: ...


class Adapter(NamedTuple):
    """One agent's hook dialect, both directions.

    `render(text, event)` returns the exact stdout to print (including its newline);
    `render("")` returns `empty`, the agent's "nothing to add" form.
    """

    name: str
    parse: ParseFn
    render: RenderFn
    empty: str


# --- parsing ---------------------------------------------------------------------------------


def parse_payload(
    agent: str, payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
) -> HookEvent:
    """Build a HookEvent from the field names all three CLIs share; tolerate missing ones."""
    event_name = _text(payload.get("hook_event_name"))
    return HookEvent(
        agent=agent,
        event=EVENT_NAMES.get(event_name or "", fallback_event),
        cwd=_text(payload.get("cwd")) or fallback_cwd,
        session_id=_text(payload.get("session_id")),
        source=_source(payload.get("source")),
        transcript_path=_text(payload.get("transcript_path")),
        prompt=_text(payload.get("prompt")),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _source(value: object) -> Source | None:
    for source in SOURCES:
        if value == source:
            return source
    return None


# --- rendering -------------------------------------------------------------------------------


def envelope(text: str, event: str = "SessionStart") -> str:
    """The JSON form all three CLIs accept: `hookSpecificOutput.additionalContext`."""
    output = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    return json.dumps(output, ensure_ascii=False) + "\n"


def json_chars(text: str) -> int:
    """Characters `text` occupies once JSON-escaped inside a string literal."""
    return len(json.dumps(text, ensure_ascii=False)) - 2


# --- truncation ------------------------------------------------------------------------------


def fit_lines(text: str, budget: float, cost: Callable[[str], float]) -> str:
    """Return `text` if it costs at most `budget`, else a prefix of whole lines that does.

    `cost` must be additive over concatenation (characters, estimated tokens, JSON-escaped
    characters). A cut never leaves a fence open: if it lands inside a fenced block, the
    fence is re-closed, and a one-line note says the notes were shortened.
    """
    if cost(text) <= budget:
        return text
    reserve = cost("\n" + TRUNCATION_NOTE)
    kept: list[str] = []
    spent = 0.0
    fence: str | None = None
    for line in text.split("\n"):
        next_fence = _fence_after(fence, line)
        closing = cost("\n" + next_fence) if next_fence else 0.0
        line_cost = cost(line + "\n")
        if spent + line_cost + closing + reserve > budget:
            break
        kept.append(line)
        spent += line_cost
        fence = next_fence
    return "\n".join([*kept, *([fence] if fence else []), TRUNCATION_NOTE])


def _fence_after(fence: str | None, line: str) -> str | None:
    """The open fence (its marker) after `line`, given the fence open before it."""
    stripped = line.strip()
    if fence is None:
        match = _FENCE_OPEN.match(line)
        return match.group(1) if match else None
    closes = stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence)
    return None if closes else fence

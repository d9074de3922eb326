"""Claude Code's hook dialect.

Input: the common hook fields (`session_id`, `transcript_path`, `cwd`, `hook_event_name`) plus
`source` (startup|resume|clear|compact|fork) on SessionStart.
Output: JSON `hookSpecificOutput.additionalContext` rather than plain text, for two reasons:
stdout whose first non-space character is `{` is parsed as JSON anyway, so plain text is one
bad first line away from being misread; and the same envelope serves Codex and Gemini CLI.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recallnest.integrations.harness._base import (
    Adapter,
    HookEvent,
    envelope,
    fit_lines,
    json_chars,
    parse_payload,
)

NAME = "claude"
EMPTY = ""

# Claude Code caps additionalContext (and plain stdout) at 10,000 characters and spills the
# rest to a file with a preview. We keep the whole stdout, JSON envelope and escapes included,
# under 9,500 so the injected text is never spilled.
MAX_OUTPUT_CHARS = 9_500


def parse(
    payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
) -> HookEvent:
    return parse_payload(NAME, payload, fallback_cwd, fallback_event)


def render(text: str, event: str = "SessionStart") -> str:
    if not text.strip():
        return EMPTY
    budget = MAX_OUTPUT_CHARS - len(envelope("", event))
    return envelope(fit_lines(text, budget, json_chars), event)


ADAPTER: Adapter = Adapter(name=NAME, parse=parse, render=render, empty=EMPTY)

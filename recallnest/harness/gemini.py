"""Gemini CLI's hook dialect.

Input: the common hook fields plus `source` (startup|resume|clear) on SessionStart and
`trigger` on PreCompress. Output: JSON only. Plain stdout becomes a `systemMessage` shown to
the user, not context, and empty stdout makes Gemini parse stderr instead, so even "nothing
to add" is the JSON document `{}`.

Gemini HTML-escapes `<` and `>` in additionalContext before wrapping it in `<hook_context>`,
so render replaces them with the look-alike single-character quotes ‹ and ›.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recallnest.harness import Adapter, HookEvent, envelope, fit_lines, parse_payload

NAME = "gemini"
EMPTY = "{}\n"

# No cap was found in Gemini CLI's hook runner. The context lands in the first user turn, so a
# runaway text would crowd the conversation: 8,000 characters matches the other agents' scale.
MAX_CONTEXT_CHARS = 8_000

_ANGLE_BRACKETS = str.maketrans({"<": "‹", ">": "›"})


def parse(
    payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
) -> HookEvent:
    return parse_payload(NAME, payload, fallback_cwd, fallback_event)


def render(text: str, event: str = "SessionStart") -> str:
    if not text.strip():
        return EMPTY
    safe = text.translate(_ANGLE_BRACKETS)
    return envelope(fit_lines(safe, MAX_CONTEXT_CHARS, len), event)


ADAPTER: Adapter = Adapter(name=NAME, parse=parse, render=render, empty=EMPTY)

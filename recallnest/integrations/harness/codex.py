"""Codex CLI's hook dialect.

Input: the common hook fields plus `source` (startup|resume|clear|compact) on SessionStart;
`transcript_path` may be null. Output: JSON `hookSpecificOutput.additionalContext`, as for
Claude Code. Codex treats stdout that looks like JSON but does not parse as a failure, so
we emit either nothing or one complete JSON document.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from recallnest.core.tokens import estimate_tokens
from recallnest.integrations.harness._base import (
    Adapter,
    HookEvent,
    envelope,
    fit_lines,
    parse_payload,
)

NAME = "codex"
EMPTY = ""

# Codex keeps hook output under HOOK_OUTPUT_TOKEN_LIMIT = 2,500 approximate tokens and spills
# the rest to $CODEX_HOME/hook_outputs/. Our estimate (4 ASCII characters or 1 other character
# per token) is never below Codex's bytes/4, and 2,000 leaves a further 20% margin.
MAX_CONTEXT_TOKENS = 2_000


def parse(
    payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
) -> HookEvent:
    return parse_payload(NAME, payload, fallback_cwd, fallback_event)


def render(text: str, event: str = "SessionStart") -> str:
    if not text.strip():
        return EMPTY
    return envelope(fit_lines(text, MAX_CONTEXT_TOKENS, estimate_tokens), event)


ADAPTER: Adapter = Adapter(name=NAME, parse=parse, render=render, empty=EMPTY)

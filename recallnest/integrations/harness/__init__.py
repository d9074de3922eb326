"""Per-agent hook dialects: read an agent's hook stdin, write its hook stdout.

Each agent module (`claude`, `codex`, `gemini`) provides one `Adapter`:
`parse(payload) -> HookEvent` and `render(text) -> str`. This package holds the registry
(`ADAPTERS`, `for_agent`) and re-exports the shared base from `_base` (`HookEvent`, the
envelope and the fence-aware truncation that keeps every output under its agent's size cap).

Standard library only: the hook imports this on its fast path (no pydantic, no duckdb).
May import `recallnest.core`'s standard-library modules (errors, tokens) and nothing else of
recallnest: it never touches the store or the daemon; `recallnest.integrations.hook` connects
the two.
"""

from __future__ import annotations

from recallnest.core.errors import ConfigError
from recallnest.integrations.harness import claude, codex, gemini
from recallnest.integrations.harness._base import (
    EVENT_NAMES,
    SOURCES,
    TRUNCATION_NOTE,
    Adapter,
    HookEvent,
    ParseFn,
    RenderFn,
    Source,
    envelope,
    fit_lines,
    json_chars,
    parse_payload,
)

ADAPTERS: dict[str, Adapter] = {
    adapter.name: adapter for adapter in (claude.ADAPTER, codex.ADAPTER, gemini.ADAPTER)
}


def for_agent(name: str) -> Adapter:
    """The adapter for `name`; fail fast with the supported names if there is none."""
    try:
        return ADAPTERS[name]
    except KeyError:
        supported = ", ".join(sorted(ADAPTERS))
        raise ConfigError(f"unknown agent {name!r}; supported: {supported}") from None


__all__ = [
    "ADAPTERS",
    "EVENT_NAMES",
    "SOURCES",
    "TRUNCATION_NOTE",
    "Adapter",
    "HookEvent",
    "ParseFn",
    "RenderFn",
    "Source",
    "envelope",
    "fit_lines",
    "for_agent",
    "json_chars",
    "parse_payload",
]

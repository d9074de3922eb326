"""The token estimate every budget uses (resume context, Codex hook output, MCP results).
Standard library only: the Codex adapter calls it on the hook's fast path."""

from __future__ import annotations


def estimate_tokens(text: str) -> float:
    """Approximate tokens: a quarter per ASCII character, one per other character (CJK)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return ascii_chars / 4 + (len(text) - ascii_chars)

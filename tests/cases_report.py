"""A minimal `recallnest eval cases` report, for tests of its human output."""

from __future__ import annotations

from typing import Any


def minimal_report(**extra: Any) -> dict[str, Any]:
    """One perfect query of type `promoted`; `extra` adds or replaces top-level sections."""
    m = {"n": 1, "hit@1": 100.0, "hit@5": 100.0, "hit@10": 100.0, "mrr@10": 1.0}
    return {
        "embedder": "hash",
        "corpus": {"turns": 2, "sessions": 1, "memories_captured": 1},
        "overall": m,
        "by_type": {"promoted": m},
        "by_lang": {"en": m},
        "by_kind": {"all": m},
        "latency_ms": {"p50": 1.0, "p95": 2.0, "queries": 1},
        "failures": [],
        **extra,
    }

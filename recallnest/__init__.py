"""RecallNest: local, zero-LLM memory for coding agents.

Kept import-light on purpose: `recallnest.integrations.hook` runs in a fresh process at every
agent session start, and importing this package must not pull in duckdb, numpy or click. The
public API is re-exported lazily; the layout and the dependency rule are in
docs/ARCHITECTURE.md.
"""

from __future__ import annotations

# Not `from typing import ...`: importing typing costs ~8 ms of a fresh process, and the
# prompt hook's fast path imports this package at every prompt (integrations.prompt_hook).
# Type checkers treat any constant named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

__all__ = ["Engine", "SearchRequest", "Settings", "Store", "__version__"]

_LAZY = {
    "Engine": "recallnest.engine",
    "SearchRequest": "recallnest.engine",
    "Settings": "recallnest.core.config",
    "Store": "recallnest.store.facade",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'recallnest' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

"""Storage, layer 1: DuckDB, its schema, migrations and every SQL statement in recallnest.

`Store` (store/facade.py) is one class over single-purpose modules, each a base class holding
one kind of statement: `base` (the connection, transactions, migrations), `write` (the batched
write path) over `postings` (keyword postings), `reads`, `loading` (what the index loads),
`vectors`, `lifecycle`, `compaction` and `audit`; `sql` holds the shared column lists and row
conversions, `connection` opens the file and loads the bundled extensions. `types` holds the
plain data handed in and out and imports no duckdb, so layer-1 peers can name it.

Imports `recallnest.core` only. Names are exported lazily: `from recallnest.store import Batch`
does not load duckdb.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recallnest.store.connection import REPAIR_HINT, check_extensions, load_extension
    from recallnest.store.facade import Store
    from recallnest.store.types import (
        DB_MEMORY_MB,
        Batch,
        BatchResult,
        Cursor,
        IndexedDoc,
        IndexSnapshot,
        PostingBlock,
    )

__all__ = [
    "DB_MEMORY_MB",
    "REPAIR_HINT",
    "Batch",
    "BatchResult",
    "Cursor",
    "IndexSnapshot",
    "IndexedDoc",
    "PostingBlock",
    "Store",
    "check_extensions",
    "load_extension",
]

_LAZY = {
    "Store": "recallnest.store.facade",
    "REPAIR_HINT": "recallnest.store.connection",
    "check_extensions": "recallnest.store.connection",
    "load_extension": "recallnest.store.connection",
    **dict.fromkeys(
        (
            "DB_MEMORY_MB",
            "Batch",
            "BatchResult",
            "Cursor",
            "IndexedDoc",
            "IndexSnapshot",
            "PostingBlock",
        ),
        "recallnest.store.types",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'recallnest.store' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

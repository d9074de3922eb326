"""What sync needs from its host (the Engine): the store, the home, and the write that keeps
the search index in step with the store. A protocol, so sync depends on this small surface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from recallnest.core.config import Settings
    from recallnest.store import Store
    from recallnest.store.types import Batch, BatchResult


class SyncHost(Protocol):
    store: Store
    settings: Settings

    def apply(self, batch: Batch) -> BatchResult: ...

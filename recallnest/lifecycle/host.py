"""What the lifecycle modules need from their host (the Engine): the store, settings, the
embedder and index, and the few writes that keep the index in step with the store. A protocol,
so lifecycle depends on this small surface rather than on the composition root above it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from datetime import datetime

    from recallnest.core.config import Settings
    from recallnest.core.models import Memory, Remembered
    from recallnest.retrieval.embed import Embedder
    from recallnest.retrieval.index import SearchIndex
    from recallnest.store import Store
    from recallnest.store.types import Batch, BatchResult, FileCompaction


class LifecycleHost(Protocol):
    store: Store
    settings: Settings
    embedder: Embedder | None
    memory_generation: int

    @property
    def index(self) -> SearchIndex: ...

    def apply(self, batch: Batch) -> BatchResult: ...

    def apply_memories(self, memories: Sequence[Memory]) -> None: ...

    def compact_store(self) -> FileCompaction: ...

    def release_memory(self, owed_only: bool = False) -> None: ...

    def memory(self, mem_id: str) -> Memory: ...

    def remember(
        self,
        text: str,
        category: str | None = None,
        scope: str = ...,
        importance: float | None = None,
        source: str = "manual",
        now: datetime | None = None,
    ) -> Remembered: ...

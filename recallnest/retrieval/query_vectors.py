"""Query embeddings computed beside the search, not before it.

Embedding a prompt with the local model costs 40 ms for a short one and 150 ms past 100 tokens
(bench/RESULTS.md, issue 23), as much as everything else a prompt-time recall does. One worker
thread embeds while the caller plans the query, composes what the session already received and
scores keywords (the model, DuckDB and numpy release the GIL); the vector channel then waits
for the result, up to a deadline the caller chooses: a late embedding leaves that search
keyword-only and is cached for the next one.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import numpy as np

from recallnest.core.errors import EmbedError
from recallnest.retrieval.embed import Embedder

log = logging.getLogger(__name__)

CACHE_SIZE = 512  # queries kept: a UI's repeated search, a prompt's second look


class QueryVectors:
    """The embeddings of recent queries, each computed once on one worker thread."""

    def __init__(self, embedder: Embedder, cache_size: int = CACHE_SIZE) -> None:
        self.embedder = embedder
        self._cache_size = cache_size
        self._futures: OrderedDict[str, Future[np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recallnest-query")

    def start(self, text: str) -> Future[np.ndarray]:
        """Begin embedding `text` unless it is done or under way."""
        with self._lock:
            future = self._futures.get(text)
            if future is not None:
                self._futures.move_to_end(text)
                return future
            future = self._pool.submit(self.embedder.embed_query, text)
            self._futures[text] = future
            while len(self._futures) > self._cache_size:
                self._futures.popitem(last=False)
            return future

    def get(self, text: str, timeout: float | None = None) -> np.ndarray | None:
        """The embedding of `text`, or None when it fails or is not ready within `timeout`
        seconds (it goes on and is kept for the next search of the same text)."""
        future = self.start(text)
        try:
            return future.result(timeout)
        except FutureTimeout:
            log.debug("query embedding late (%.3f s budget), keyword-only", timeout or 0.0)
            return None
        except EmbedError as exc:
            with self._lock:  # not cached: the next search tries again
                if self._futures.get(text) is future:
                    del self._futures[text]
            log.warning("query embedding failed, keyword-only: %s", exc)
            return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

"""Bulk-load postings into a SearchIndex from whole arrays, as the engine does from the store's
stream (SearchIndex.load_posting_stream), in one chunk."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recallnest.retrieval.index import SearchIndex
from recallnest.store.types import PostingStream


def load_postings(
    index: SearchIndex,
    terms: Sequence[str | None],
    tids: np.ndarray,
    docs: np.ndarray,
    tfs: np.ndarray,
) -> None:
    """`terms[tid]` names each term id (None an unused one); postings in any order."""
    counts = np.bincount(np.asarray(tids, dtype=np.int64), minlength=len(terms))
    index.load_posting_stream(PostingStream(list(terms), counts, [(tids, docs, tfs)]))

"""Top-k selection over score arrays, shared by the retrieval channels and admission. Pure
numpy; no I/O. (Fusion and scoring live in retrieve.py.)
"""

from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k best masked scores, best first (ties by position, deterministic)."""
    candidates = np.flatnonzero(mask)
    if len(candidates) == 0 or k <= 0:
        return candidates[:0]
    if len(candidates) > k:
        # Constraint: argpartition picks an arbitrary subset of the rows tied with the k-th
        # score. Keep every row above it, then the lowest positions among the tied ones.
        neg = -scores[candidates]
        kth = np.partition(neg, k - 1)[k - 1]
        if not np.isnan(kth):
            keep = neg < kth
            keep[np.flatnonzero(neg == kth)[: k - int(keep.sum())]] = True
            candidates = candidates[keep]
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:k]

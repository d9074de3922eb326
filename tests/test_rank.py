"""Fusion of the keyword and vector channels, and top-k selection. Pure numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recallnest.rank import CANDIDATES_PER_CHANNEL, fuse, top_k


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def everything(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


def test_keyword_only_when_vector_is_none() -> None:
    kw = f32(3, 0, 1, 2)
    r = fuse(kw, None, everything(4), None, alpha=0.5, limit=10)
    # Only rows with a positive BM25 score are candidates; fused = minmax(BM25).
    assert r.positions.tolist() == [0, 3, 2]
    assert r.fused.tolist() == pytest.approx([1.0, 0.5, 0.0])
    assert r.keyword.tolist() == [3, 2, 1]
    assert r.vector.tolist() == [0, 0, 0]
    assert r.vector_rank == {}
    assert r.keyword_rank == {0: 1, 3: 2, 2: 3}


def test_keyword_only_when_no_row_has_a_vector() -> None:
    kw = f32(1, 2)
    r = fuse(kw, f32(0.9, 0.1), everything(2), np.zeros(2, bool), alpha=0.5, limit=10)
    assert r.positions.tolist() == [1, 0]
    assert r.fused.tolist() == pytest.approx([1.0, 0.0])


def test_min_max_fusion_by_hand() -> None:
    kw = f32(3, 1, 0, 2)
    vec = f32(0.1, 0.9, 0.5, -0.3)
    has = np.array([True, True, True, False])
    r = fuse(kw, vec, everything(4), has, alpha=0.5, limit=10)
    # Candidates: keyword {0, 1, 3} (positive BM25) ∪ vector {0, 1, 2} (has a vector).
    # minmax(kw)  over [0,1,2,3] = [1, 1/3, 0, 2/3]
    # minmax(vec) over [0.1, 0.9, 0.5, 0 (no vector)] = [1/9, 1, 5/9, 0]
    # fused = .5 vec + .5 kw = [5/9, 2/3, 5/18, 1/3]
    assert r.positions.tolist() == [1, 0, 3, 2]
    assert r.fused.tolist() == pytest.approx([2 / 3, 5 / 9, 1 / 3, 5 / 18], rel=1e-5)
    assert r.keyword_norm.tolist() == pytest.approx([1 / 3, 1, 2 / 3, 0], rel=1e-5)
    assert r.vector_norm.tolist() == pytest.approx([1, 1 / 9, 0, 5 / 9], rel=1e-5)
    assert r.vector.tolist() == pytest.approx([0.9, 0.1, 0.0, 0.5])
    assert r.keyword_rank == {0: 1, 3: 2, 1: 3}
    assert r.vector_rank == {1: 1, 2: 2, 0: 3}


@pytest.mark.parametrize(("alpha", "best"), [(0.0, 0), (1.0, 1)])
def test_alpha_extremes_pick_one_channel(alpha: float, best: int) -> None:
    kw, vec = f32(5, 1), f32(0.1, 0.8)
    r = fuse(kw, vec, everything(2), everything(2), alpha=alpha, limit=10)
    assert r.positions[0] == best
    assert r.fused[0] == pytest.approx(1.0)


def test_mask_excludes_rows_from_both_channels() -> None:
    kw, vec = f32(5, 4, 3), f32(0.9, 0.8, 0.7)
    mask = np.array([False, True, True])
    r = fuse(kw, vec, mask, everything(3), alpha=0.5, limit=10)
    assert sorted(r.positions.tolist()) == [1, 2]
    assert 0 not in r.keyword_rank and 0 not in r.vector_rank


def test_limit_cuts_the_fused_list() -> None:
    kw = np.arange(1, 21, dtype=np.float32)
    r = fuse(kw, None, everything(20), None, alpha=0.5, limit=3)
    assert r.positions.tolist() == [19, 18, 17]
    assert len(r.fused) == len(r.keyword) == len(r.keyword_norm) == 3


def test_ties_are_broken_by_position() -> None:
    kw = f32(1, 2, 1, 2, 1)
    r = fuse(kw, None, everything(5), None, alpha=0.5, limit=10)
    assert r.positions.tolist() == [1, 3, 0, 2, 4]
    again = fuse(kw.copy(), None, everything(5), None, alpha=0.5, limit=10)
    assert np.array_equal(r.positions, again.positions)


def test_all_equal_keyword_scores_normalise_to_one() -> None:
    r = fuse(f32(2, 2), None, everything(2), None, alpha=0.5, limit=10)
    assert r.fused.tolist() == [1.0, 1.0]
    assert r.positions.tolist() == [0, 1]


def test_nothing_matches() -> None:
    r = fuse(f32(0, 0), None, everything(2), None, alpha=0.5, limit=10)
    assert r.positions.tolist() == []
    r = fuse(f32(1, 1), f32(0.5, 0.5), np.zeros(2, bool), everything(2), alpha=0.5, limit=10)
    assert r.positions.tolist() == []


def test_candidates_per_channel_bounds_each_channel() -> None:
    n = CANDIDATES_PER_CHANNEL * 3
    kw = np.arange(n, 0, -1, dtype=np.float32)  # best keyword rows come first
    vec = np.linspace(-1, 1, n, dtype=np.float32)  # best vector rows come last
    r = fuse(kw, vec, everything(n), everything(n), alpha=0.5, limit=10)
    assert len(r.positions) == 10
    assert max(r.keyword_rank.values()) == CANDIDATES_PER_CHANNEL
    assert set(r.keyword_rank) == set(range(CANDIDATES_PER_CHANNEL))
    assert set(r.vector_rank) == set(range(n - CANDIDATES_PER_CHANNEL, n))


# ---- top_k ----------------------------------------------------------------------------------


def expected_top(scores: np.ndarray, mask: np.ndarray, k: int) -> list[int]:
    candidates = [p for p in range(len(scores)) if mask[p]]
    return sorted(candidates, key=lambda p: (-float(scores[p]), p))[: max(k, 0)]


def test_top_k_basic() -> None:
    scores = f32(0.5, 0.9, 0.1, 0.9, 0.7)
    assert top_k(scores, everything(5), 3).tolist() == [1, 3, 4]
    assert top_k(scores, everything(5), 0).tolist() == []
    assert top_k(scores, np.zeros(5, bool), 3).tolist() == []
    assert top_k(scores, everything(5), 99).tolist() == [1, 3, 4, 0, 2]


def test_top_k_ties_at_the_cut_keep_the_lowest_positions() -> None:
    scores = f32(1, 1, 1, 1, 1, 1, 1, 1)
    assert top_k(scores, everything(8), 3).tolist() == [0, 1, 2]
    scores = f32(1, 0, 0, 2, 0, 2, 2, 0)
    assert top_k(scores, everything(8), 5).tolist() == [3, 5, 6, 0, 1]


@given(
    st.lists(st.integers(min_value=0, max_value=2), min_size=0, max_size=60).flatmap(
        lambda values: st.tuples(
            st.just(values),
            st.lists(st.booleans(), min_size=len(values), max_size=len(values)),
            st.integers(min_value=0, max_value=len(values) + 2),
        )
    )
)
def test_top_k_equals_a_full_sort(case: tuple[list[int], list[bool], int]) -> None:
    # Small integer scores make ties common, which is where partial selection goes wrong.
    values, mask_values, k = case
    scores = np.array(values, dtype=np.float32) / 2
    mask = np.array(mask_values, dtype=bool)
    assert top_k(scores, mask, k).tolist() == expected_top(scores, mask, k)


@given(
    st.lists(
        st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, width=32),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=50),
)
def test_top_k_equals_a_full_sort_for_any_floats(values: list[float], k: int) -> None:
    scores = np.array(values, dtype=np.float32)
    mask = everything(len(values))
    assert top_k(scores, mask, k).tolist() == expected_top(scores, mask, k)

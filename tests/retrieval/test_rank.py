"""Fusion of the keyword and vector channels, and top-k selection. Pure numpy."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from recallnest.retrieval.topk import top_k


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def everything(n: int) -> np.ndarray:
    return np.ones(n, dtype=bool)


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

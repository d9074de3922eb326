"""Flat postings (decision 0027): positions packed as 16 low bits plus runs of high bits give
back exactly the positions and term frequencies they were built from, sorted per term."""

from __future__ import annotations

import numpy as np
import pytest

from recallnest.retrieval.flat import FlatPostings


def test_positions_past_65536_and_unsorted_slices_come_back_sorted() -> None:
    rng = np.random.default_rng(2)
    sizes = [0, 1, 5, 3000, 2, 700]
    positions = np.concatenate([rng.choice(1_000_000, n, replace=False) for n in sizes]).astype(
        np.int32
    )
    tfs = rng.integers(1, 60_000, len(positions)).astype(np.uint16)
    names = {f"t{k}": k for k in range(len(sizes))}
    flat = FlatPostings.build(names, positions, tfs, sizes)
    start = 0
    for k, n in enumerate(sizes):
        got = flat.get(f"t{k}")
        assert got is not None
        pos, tf = got
        want = positions[start : start + n]
        order = np.argsort(want, kind="stable")
        assert pos.dtype == np.int32 and pos.tolist() == want[order].tolist()
        assert tf.tolist() == tfs[start : start + n][order].tolist()
        start += n
    assert flat.get("absent") is None
    assert [t for t, _, _ in flat.items()] == list(names)


def test_a_dropped_or_unnamed_slice_is_dead() -> None:
    positions = np.arange(10, dtype=np.int32)
    flat = FlatPostings.build({"a": 0, "c": 2}, positions, np.ones(10, np.uint16), [4, 3, 3])
    assert len(flat) == 10 and flat.dead == 3 and flat.terms == 2
    flat.drop("a")
    assert flat.dead == 7 and "a" not in flat and flat.get("a") is None
    got = flat.get("c")
    assert got is not None and got[0].tolist() == [7, 8, 9]


def test_two_bytes_of_position_and_two_of_tf_a_posting() -> None:
    n = 200_000
    positions = np.sort(np.random.default_rng(1).choice(2_000_000, n, replace=False))
    flat = FlatPostings.build({"x": 0}, positions.astype(np.int32), np.ones(n, np.uint16), [n])
    assert flat.nbytes() < n * 4 + 4096
    got = flat.get("x")
    assert got is not None and np.array_equal(got[0], positions)


def test_sizes_must_cover_the_postings() -> None:
    with pytest.raises(ValueError):
        FlatPostings.build({"a": 0}, np.arange(3, dtype=np.int32), np.ones(3, np.uint16), [2])

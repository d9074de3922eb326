"""Postings in flat arrays (decision 0027): what the search index holds for the terms it loaded
in bulk, until a change gives a term arrays of its own (retrieval/index.py).

Every term's postings sit in one slice of three shared arrays: the low 16 bits of each row
position (uint16), its term frequency (uint16, decision 0026), and, per run of positions that
share their high bits, where the run starts and those bits. A term's positions are sorted, so
its high bits change at most once per 65,536 rows: runs are few (about one per term plus one
per frequent term and 65,536 rows), and a position costs 2 bytes instead of 4.

Memory against the per-term arrays it replaces: 8.05 -> 4.6 bytes a posting (6 bytes of data
before) and ~140 bytes of name and dict slot a term, where two numpy arrays and a tuple added
~300. Reading a term rebuilds its int32 positions (a repeat and an or, ~1 ms per million
postings).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from recallnest.retrieval.backing import FileBacking

I32 = npt.NDArray[np.int32]
U16 = npt.NDArray[np.uint16]
I64 = npt.NDArray[np.int64]

_LOW_BITS = 16
_EMPTY_I32: I32 = np.zeros(0, dtype=np.int32)
_EMPTY_U16: U16 = np.zeros(0, dtype=np.uint16)


class FlatPostings:
    """term -> (positions, term frequencies), read-only but for `drop`. Not thread-safe: the
    index holds its lock around every call."""

    def __init__(self) -> None:
        self._terms: dict[str, int] = {}  # term -> k; its slice is [bounds[k], bounds[k + 1])
        self._bounds: I64 = np.zeros(1, dtype=np.int64)
        self._low: U16 = _EMPTY_U16
        self._tf: U16 = _EMPTY_U16
        self._run_at: I64 = np.zeros(0, dtype=np.int64)  # where each run of high bits starts
        self._run_high: I32 = _EMPTY_I32  # ... and those bits (position >> 16)
        self.dead = 0  # postings in slices no term names any more

    @classmethod
    def build(
        cls,
        terms: Mapping[str, int],
        positions: I32,
        tfs: U16,
        sizes: Sequence[int] | I64,
        owned: bool = False,
        backing: FileBacking | None = None,
    ) -> FlatPostings:
        """Slice k holds the next sizes[k] postings of `positions` and `tfs`; `terms` names the
        slices (an unnamed one is dead). Positions are sorted within each slice here, in
        copies unless `owned` (the caller's int32 / uint16 arrays are no use to it after).
        With `backing`, the per-posting arrays (low bits, term frequencies) are built in its
        files (decision 0035): written once here, only read after."""
        flat = cls()
        bounds = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(np.asarray(sizes, dtype=np.int64), out=bounds[1:])
        n = int(bounds[-1])
        if len(positions) != n or len(tfs) != n:
            raise ValueError(f"{n} postings in the slices, {len(positions)} positions")
        if owned:
            positions, tfs = np.asarray(positions, np.int32), np.asarray(tfs, np.uint16)
        else:  # copies: sorted (and shifted) in place below
            positions, tfs = np.array(positions, np.int32), np.array(tfs, np.uint16)
        _sort_slices(positions, tfs, bounds)
        # The low bits (a cast keeps them), then the high bits in place of the positions: no
        # temporary array of every posting's int32 beyond the one given (the load's peak).
        if backing is None:
            flat._low = positions.astype(np.uint16)
        else:  # straight into the file: no anonymous copy beside it at the load's peak
            flat._low = backing.zeros("postings.low", (n,), np.uint16)
            np.copyto(flat._low, positions, casting="unsafe")  # keeps the low 16 bits
            if not backing.holds(tfs):
                tfs = backing.adopt("postings.tf", np.ascontiguousarray(tfs, dtype=np.uint16))
        high = positions
        np.right_shift(high, _LOW_BITS, out=high)
        starts = np.zeros(n, dtype=bool)
        np.not_equal(high[1:], high[:-1], out=starts[1:])
        starts[bounds[:-1][np.diff(bounds) > 0]] = True  # every slice starts a run
        flat._terms = dict(terms)
        flat._bounds = bounds
        flat._tf = np.ascontiguousarray(tfs, dtype=np.uint16)
        flat._run_at = np.flatnonzero(starts).astype(np.int64)
        flat._run_high = high[flat._run_at].astype(np.int32)
        flat.dead = n - sum(int(bounds[k + 1] - bounds[k]) for k in flat._terms.values())
        return flat

    def __len__(self) -> int:
        """Postings held, dead ones included."""
        return len(self._low)

    def __contains__(self, term: str) -> bool:
        return term in self._terms

    @property
    def terms(self) -> int:
        return len(self._terms)

    def get(self, term: str) -> tuple[I32, U16] | None:
        k = self._terms.get(term)
        return None if k is None else self._slice(int(self._bounds[k]), int(self._bounds[k + 1]))

    def drop(self, term: str) -> None:
        """The term's postings are held elsewhere from now on: its slice is dead."""
        k = self._terms.pop(term)
        self.dead += int(self._bounds[k + 1] - self._bounds[k])

    def items(self) -> Iterator[tuple[str, I32, U16]]:
        for term, k in self._terms.items():
            yield (term, *self._slice(int(self._bounds[k]), int(self._bounds[k + 1])))

    def per_posting(self) -> tuple[U16, U16]:
        """The arrays of one entry per posting (low bits, term frequencies)."""
        return self._low, self._tf

    def nbytes(self) -> int:
        """Arrays, the term dict and its names (the names are shared with nothing else)."""
        from sys import getsizeof

        arrays = (self._bounds, self._low, self._tf, self._run_at, self._run_high)
        return (
            sum(a.nbytes for a in arrays)
            + getsizeof(self._terms)
            + sum(map(getsizeof, self._terms))
        )

    def _slice(self, lo: int, hi: int) -> tuple[I32, U16]:
        if lo == hi:
            return _EMPTY_I32, _EMPTY_U16
        # Runs a..b-1 cover [lo, hi): a slice always starts one, so run_at[a] == lo.
        a = int(np.searchsorted(self._run_at, lo, side="right")) - 1
        b = int(np.searchsorted(self._run_at, hi, side="left"))
        edges = np.append(self._run_at[a:b], hi)
        high = np.repeat(self._run_high[a:b], np.diff(edges))
        positions: I32 = (high << _LOW_BITS) | self._low[lo:hi].astype(np.int32)
        return positions, self._tf[lo:hi]


def _sort_slices(positions: I32, tfs: U16, bounds: I64) -> None:
    """Sort each slice's positions (and their tfs along) in place, touching only the slices
    that are out of order (a bulk load interleaves turns and memories)."""
    n = len(positions)
    if n < 2:
        return
    down = np.flatnonzero(np.diff(positions) < 0)  # i: positions[i + 1] < positions[i]
    if not len(down):
        return
    slices = np.unique(np.searchsorted(bounds, down, side="right") - 1)
    for k in slices.tolist():
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        if hi - lo < 2 or not (np.diff(positions[lo:hi]) < 0).any():
            continue  # the drop was across two slices
        order = np.argsort(positions[lo:hi], kind="stable")
        positions[lo:hi] = positions[lo:hi][order]
        tfs[lo:hi] = tfs[lo:hi][order]

"""The search index's row maps as numpy arrays rather than Python dicts (issue 22, decision
0026): doc number -> row position, and row id -> row position. At 200k rows the two dicts and
the list of id strings they used held 338 bytes a row; these hold about 80.

Pure numpy; the index takes its lock around every call.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

# A doc number is kept in the table when it is below DENSE_SLACK x the rows + DENSE_MIN: doc
# numbers come from one sequence, so the table is about as long as the index. Any other doc
# (tests, a store renumbered from elsewhere) goes to a dict.
DENSE_SLACK = 4
DENSE_MIN = 65_536
# Ids appended or renamed since the sorted copy was built are looked up in a dict; past this
# share of the rows (and RESORT_MIN) the copy is rebuilt.
RESORT_SHARE = 8
RESORT_MIN = 8_192


class DocPositions:
    """doc number -> row position: a dense int32 table (-1 for none) plus a dict for docs far
    outside the sequence."""

    def __init__(self) -> None:
        self.table = np.full(0, -1, dtype=np.int32)
        self.extra: dict[int, int] = {}

    def get(self, doc: int) -> int | None:
        if 0 <= doc < len(self.table):
            pos = int(self.table[doc])
            return None if pos < 0 else pos
        return self.extra.get(doc)

    def set(self, doc: int, pos: int, rows: int) -> None:
        if 0 <= doc < len(self.table):
            self.table[doc] = pos
        else:
            self.set_many(np.array([doc]), np.array([pos]), rows)

    def pop(self, doc: int) -> None:
        if 0 <= doc < len(self.table):
            self.table[doc] = -1
        else:
            self.extra.pop(doc, None)

    def set_many(self, docs: np.ndarray, positions: np.ndarray, rows: int) -> None:
        """docs[k] -> positions[k]; `rows` is the index's size, which bounds the table."""
        docs = np.asarray(docs, dtype=np.int64)
        limit = DENSE_SLACK * rows + DENSE_MIN
        dense = (docs >= 0) & (docs < limit)
        if dense.any():
            top = int(docs[dense].max()) + 1
            if top > len(self.table):
                grown = np.full(max(top, int(len(self.table) * 1.25) + 1024), -1, np.int32)
                grown[: len(self.table)] = self.table
                self.table = grown
            self.table[docs[dense]] = positions[dense]
        if not dense.all():
            far = ~dense
            self.extra.update(zip(docs[far].tolist(), positions[far].tolist(), strict=True))

    def lookup(self, docs: np.ndarray) -> np.ndarray:
        """Row position of each doc (int32), -1 where none."""
        docs = np.asarray(docs, dtype=np.int64)
        inside = (docs >= 0) & (docs < len(self.table))
        out = np.full(len(docs), -1, dtype=np.int32)
        out[inside] = self.table[docs[inside]]
        if self.extra and not inside.all():
            outside = np.flatnonzero(~inside)
            out[outside] = [self.extra.get(d, -1) for d in docs[outside].tolist()]
        return out

    def nbytes(self) -> int:
        return self.table.nbytes + _dict_bytes(self.extra)


class RowIds:
    """Each row's id as fixed-width bytes (the width grows to the longest id: 36 for the
    UUIDs the store uses), and the rows holding an id: a sorted copy searched by bisection,
    plus a dict of the ids set since it was built."""

    def __init__(self, capacity: int) -> None:
        self.ids = np.zeros(capacity, dtype="S1")
        self._sorted = np.zeros(0, dtype="S1")
        self._order = np.zeros(0, dtype=np.int32)
        self._recent: dict[tuple[int, bytes], int] = {}
        self._stale = False  # ids set in bulk since the sorted copy was built

    def grow(self, n: int) -> None:
        out = np.zeros(n, dtype=self.ids.dtype)
        out[: len(self.ids)] = self.ids
        self.ids = out

    def get(self, pos: int) -> str:
        return bytes(self.ids[pos]).decode()

    def set(self, pos: int, kind: int, row_id: str) -> None:
        key = self._fit([row_id])[0]
        self.ids[pos] = key
        self._recent[(kind, key)] = pos

    def set_many(self, lo: int, row_ids: Sequence[str]) -> None:
        self.ids[lo : lo + len(row_ids)] = self._fit(row_ids)
        self._stale = True

    def candidates(self, kind: int, row_id: str, rows: int) -> Iterator[int]:
        """Positions whose id is `row_id`, the most recently set first (the caller checks
        kind and liveness: a replaced row keeps its id)."""
        key = row_id.encode()
        if self._stale or len(self._recent) > max(RESORT_MIN, rows // RESORT_SHARE):
            self._resort(rows)
        pos = self._recent.get((kind, key))
        if pos is not None and self.ids[pos] == key:
            yield pos
        if len(key) > self._sorted.dtype.itemsize:
            return
        lo = int(np.searchsorted(self._sorted, key, "left"))
        hi = int(np.searchsorted(self._sorted, key, "right"))
        for at in self._order[lo:hi][::-1].tolist():
            if self.ids[at] == key:  # the sorted copy may predate a rename
                yield at

    def with_prefix(self, prefix: str, rows: int) -> list[int]:
        """Positions whose id starts with `prefix` (the caller checks kind and liveness)."""
        key = prefix.encode()
        if self._stale:
            self._resort(rows)
        lo = int(np.searchsorted(self._sorted, key, "left"))
        hi = int(np.searchsorted(self._sorted, key + b"\xff", "right"))
        found = [*self._order[lo:hi].tolist(), *self._recent.values()]
        return [p for p in found if bytes(self.ids[p]).startswith(key)]

    def nbytes(self) -> int:
        return (
            self.ids.nbytes + self._sorted.nbytes + self._order.nbytes + _dict_bytes(self._recent)
        )

    def _resort(self, rows: int) -> None:
        order = np.argsort(self.ids[:rows], kind="stable")
        self._sorted = self.ids[:rows][order]
        self._order = order.astype(np.int32)
        self._recent.clear()
        self._stale = False

    def _fit(self, row_ids: Sequence[str]) -> np.ndarray:
        """The ids as bytes at this array's width, widened first if one is longer."""
        encoded = np.array([i.encode() for i in row_ids], dtype=bytes)
        if encoded.dtype.itemsize > self.ids.dtype.itemsize:
            self.ids = self.ids.astype(encoded.dtype)
        return encoded.astype(self.ids.dtype)


def _dict_bytes(d: Mapping[Any, int]) -> int:
    return sys.getsizeof(d) + sum(
        sys.getsizeof(k) + (0 if -5 <= v <= 256 else sys.getsizeof(v)) for k, v in d.items()
    )

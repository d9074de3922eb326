"""Which memories consolidation has compared, and with which text (issue 22, decision 0027).

The daemon's consolidation is incremental: a pass compares only the memories new or changed
since the last one. It used to keep a dict of memory id -> text for that, which kept a second
copy of every active memory's text alive between passes: 32.6 MiB at 100k memories, in
~200k small objects that each pin one of CPython's 1 MiB object arenas. Here each memory is
two 64-bit hashes (its id's and its text's) in two sorted numpy arrays: 16 bytes a memory.

The hashes are Python's own `hash(str)`, salted per process: the record never leaves the
process, and a string caches its hash, so asking costs nothing. Two different texts of one
memory with the same 64-bit hash would make a changed memory look compared (it would wait
for the next whole-store run); two ids with the same hash make one look changed (compared
again). Both are ~2**-64 per pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]


def _hashes(values: Iterable[str], count: int) -> npt.NDArray[np.int64]:
    return np.fromiter(map(hash, values), dtype=np.int64, count=count)


def id_hashes(ids: Sequence[str]) -> npt.NDArray[np.int64]:
    """The hashes `Settled` keeps memory ids as."""
    return _hashes(ids, len(ids))


class Settled:
    """Memory id -> text, remembered as hashes. Not thread-safe: the scheduler uses it under
    its lifecycle lock."""

    def __init__(self) -> None:
        self._ids = np.empty(0, dtype=np.int64)  # sorted, unique
        self._texts = np.empty(0, dtype=np.int64)  # the text hash of each id, same order

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def nbytes(self) -> int:
        return self._ids.nbytes + self._texts.nbytes

    def clear(self) -> None:
        self._ids = np.empty(0, dtype=np.int64)
        self._texts = np.empty(0, dtype=np.int64)

    def changed(self, ids: Sequence[str], texts: Sequence[str]) -> BoolArray:
        """For each (id, text): True unless that id was settled with that very text."""
        if len(ids) != len(texts):
            raise ValueError("one text per id")
        keys = _hashes(ids, len(ids))
        if not len(self._ids):
            return np.ones(len(keys), dtype=bool)
        at = np.searchsorted(self._ids, keys).clip(max=len(self._ids) - 1)
        same: BoolArray = (self._ids[at] == keys) & (self._texts[at] == _hashes(texts, len(texts)))
        return ~same

    def update(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Settle each id with its text (a later repeat of an id wins)."""
        if len(ids) != len(texts):
            raise ValueError("one text per id")
        if not len(ids):
            return
        keys, values = _hashes(ids, len(ids)), _hashes(texts, len(texts))
        # np.unique keeps the first of equal keys: reversed, that is the last one given.
        keys, first = np.unique(keys[::-1], return_index=True)
        values = values[::-1][first]
        keep = ~np.isin(self._ids, keys, assume_unique=True)
        merged_ids = np.concatenate([self._ids[keep], keys])
        merged_texts = np.concatenate([self._texts[keep], values])
        order = np.argsort(merged_ids, kind="stable")
        self._ids, self._texts = merged_ids[order], merged_texts[order]

    def merge(self, other: Settled) -> None:
        """Settle every id `other` holds with its text there (other's entry wins)."""
        if not len(other._ids):
            return
        keep = ~np.isin(self._ids, other._ids, assume_unique=True)
        merged_ids = np.concatenate([self._ids[keep], other._ids])
        merged_texts = np.concatenate([self._texts[keep], other._texts])
        order = np.argsort(merged_ids, kind="stable")
        self._ids, self._texts = merged_ids[order], merged_texts[order]

    def discard(self, ids: Sequence[str]) -> None:
        """Forget these ids (absent ones are ignored)."""
        if len(ids) and len(self._ids):
            self._keep(~np.isin(self._ids, _hashes(ids, len(ids))))

    def retain(self, ids: Sequence[str]) -> None:
        """Forget every id but these."""
        self.retain_hashed(id_hashes(ids))

    def retain_hashed(self, hashes: npt.NDArray[np.int64]) -> None:
        """Forget every id but those of these `id_hashes`."""
        self._keep(np.isin(self._ids, hashes))

    def _keep(self, mask: BoolArray) -> None:
        if not mask.all():
            self._ids, self._texts = self._ids[mask], self._texts[mask]

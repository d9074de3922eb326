"""The index's numpy row maps (decision 0026) against the dicts they replaced: the same
positions after appends, replacements, removals and renames, dense and sparse doc numbers,
ids of any length."""

from __future__ import annotations

import random

import numpy as np
import pytest

from recallnest.retrieval import rowmaps
from recallnest.retrieval.index import SearchIndex
from recallnest.retrieval.rowmaps import DocPositions, RowIds
from recallnest.store.types import IndexedDoc


def doc(n: int, row_id: str, kind: str = "turn") -> IndexedDoc:
    return IndexedDoc(n, kind, row_id, {"w": 1}, 1, {}, 0.0)


def test_doc_positions_dense_and_far_docs() -> None:
    table = DocPositions()
    table.set_many(np.array([1, 2, 5]), np.array([0, 1, 2]), 3)
    table.set(10**12, 3, 4)  # far outside the sequence: the dict
    table.set(-4, 4, 5)
    assert [table.get(d) for d in (1, 2, 3, 5, 10**12, -4)] == [0, 1, None, 2, 3, 4]
    assert table.lookup(np.array([5, 3, 10**12, -4, 7])).tolist() == [2, -1, 3, 4, -1]
    table.pop(5)
    table.pop(10**12)
    assert table.get(5) is None and table.get(10**12) is None
    assert len(table.table) < 70_000


def test_row_ids_widen_rename_and_prefix() -> None:
    ids = RowIds(4)
    ids.set_many(0, ["a1", "b2"])
    ids.set(2, 0, "a" * 50)  # longer than the width so far
    assert [ids.get(p) for p in range(3)] == ["a1", "b2", "a" * 50]
    assert list(ids.candidates(0, "b2", 3)) == [1]
    ids.set(1, 0, "c3")  # a rename: the sorted copy still says b2 at 1
    assert list(ids.candidates(0, "b2", 3)) == []
    assert list(ids.candidates(0, "c3", 3)) == [1]
    assert sorted(ids.with_prefix("a", 3)) == [0, 2]


def test_index_positions_match_a_dict_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # A small resort threshold, so the sorted copy is rebuilt many times on the way.
    monkeypatch.setattr(rowmaps, "RESORT_MIN", 16)
    rng = random.Random(5)
    index = SearchIndex()
    model: dict[tuple[str, str], int] = {}  # (kind, id) -> doc
    next_doc = 1
    for _ in range(1_500):
        action = rng.random()
        kind = rng.choice(("turn", "memory"))
        row_id = f"{kind[0]}{rng.randrange(200)}"
        if action < 0.6:  # add or replace (a new doc: its text changed)
            index.add([doc(next_doc, row_id, kind)])
            model[(kind, row_id)] = next_doc
            next_doc += 1
        elif action < 0.8 and (kind, row_id) in model:
            index.remove([model.pop((kind, row_id))])
        elif action < 0.9 and (kind, row_id) in model:
            new = f"{row_id}x{rng.randrange(10**6)}"
            if (kind, new) not in model:
                index.rename(kind, {row_id: new})
                model[(kind, new)] = model.pop((kind, row_id))
    for (kind, row_id), d in model.items():
        pos = index.position(kind, row_id)
        assert pos is not None and index.row(pos)[:2] == (kind, row_id)
        assert int(index._docs[pos]) == d
    for kind in ("turn", "memory"):
        for n in range(200):
            if (kind, f"{kind[0]}{n}") not in model:
                assert index.position(kind, f"{kind[0]}{n}") is None
    live = sorted(i for k, i in model if k == "memory" and i.startswith("m1"))
    assert index.ids_with_prefix("memory", "m1") == live

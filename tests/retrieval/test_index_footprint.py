"""The index's memory cost per indexed row (issue 22), measured in-process from the arrays and
containers it holds (SearchIndex.footprint), not from RSS. Loaded the way Engine.open loads it
(load_rows, load_postings, set_vectors) with uuid-shaped ids and ~60 postings a row, as the
100k-turn benchmark store has. bench/bench_footprint.py prints the same parts at 200k rows.

The budgets fail if the vectors go back to float32 (1,536 B a 384-d row against 388) or the
ids and id maps back to Python strings and dicts (338 B a row against 80; decision 0026), or
the loaded postings back to a pair of arrays per term with int32 positions (8.05 B a posting
against 4.7, decision 0027).
"""

from __future__ import annotations

import uuid
from pathlib import Path

import numpy as np
import pytest
from support.indexing import load_postings

from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.index import SearchIndex

ROWS = 20_000
POSTINGS_PER_ROW = 60
DIM = 384
TERMS = 8_000

# Budgets, bytes (bench/RESULTS.md "Memory footprint" has the figures they come from).
ROW_BYTES = 160  # facets, times, lengths, ids and the id maps, per row (143 measured)
ID_BYTES = 100  # ids and id maps alone, per row: 36 B of id, 4 of doc table, 40 sorted (80)
POSTING_BYTES = 5.0  # per posting: 2 bytes of position, a uint16 tf, per-term overhead (4.7)
TERM_BYTES = 160  # per distinct term beyond its postings: its name, a dict slot, a bound (~140)
# With the engine's file-backed arrays (decision 0035), anonymous bytes a row: ROW_BYTES, a
# float32 scale, and the postings' per-term overhead shared by the rows (8,000 terms here):
# 189 measured. Codes or postings back in anonymous memory add 384 or 240 a row.
ANONYMOUS_ROW_BYTES = 210
VECTOR_BYTES = DIM + 4  # int8 codes + a float32 scale (decision 0026), no slack after a bulk load


def loaded(
    rows: int = ROWS, dim: int = DIM, index: SearchIndex | None = None
) -> tuple[SearchIndex, int]:
    """An index as Engine.open builds it; returns it and its number of postings."""
    rng = np.random.default_rng(7)
    index = index or SearchIndex()
    docs = np.arange(1, rows + 1, dtype=np.int64)
    ids = [str(uuid.UUID(int=int(k))) for k in rng.integers(0, 2**62, rows)]
    index.load_rows(
        "turn",
        docs,
        ids,
        np.full(rows, POSTINGS_PER_ROW, dtype=np.int64),
        np.arange(rows, dtype=np.float64),
        {
            "agent": ["claude"] * rows,
            "session_id": [f"s{k // 40}" for k in range(rows)],
            "project": [f"/p/{k % 20}" for k in range(rows)],
        },
    )
    weights = 1.0 / np.arange(1, TERMS + 1)
    tids = rng.choice(TERMS, size=rows * POSTINGS_PER_ROW, p=weights / weights.sum())
    owners = np.repeat(docs, POSTINGS_PER_ROW)
    order = np.argsort(tids, kind="stable")
    terms: list[str | None] = [f"term{k}" for k in range(TERMS)]
    tfs = np.ones(len(tids), dtype=np.int32)
    load_postings(index, terms, tids[order], owners[order], tfs)
    index.set_model("bench", dim)
    index.set_vectors(docs, rng.standard_normal((rows, dim)).astype(np.float32))
    return index, len(tids)


def test_bytes_per_indexed_row_stay_within_budget() -> None:
    index, postings = loaded()
    some = index.row(5)[1]
    assert index.position("turn", some) == 5  # builds the sorted ids the lookups use
    parts = index.footprint()
    assert index.size == ROWS
    per_row = (parts["rows"] + parts["ids"] + parts["id_maps"]) / ROWS
    assert (parts["ids"] + parts["id_maps"]) / ROWS <= ID_BYTES, parts
    per_posting = parts["postings"] / postings
    assert per_row <= ROW_BYTES, parts
    assert per_posting <= POSTING_BYTES, parts
    assert parts["vectors"] / ROWS <= VECTOR_BYTES, parts
    assert parts["pending"] < 1024, parts  # a bulk load leaves nothing pending


def test_footprint_counts_what_the_index_holds() -> None:
    small, small_postings = loaded(rows=2_000, dim=16)
    big, big_postings = loaded(rows=8_000, dim=16)
    a, b = small.footprint(), big.footprint()
    assert b["vectors"] == 4 * a["vectors"] == 4 * 2_000 * (16 + 4)
    assert b["ids"] == pytest.approx(4 * a["ids"], rel=0.05)
    assert b["id_maps"] > 3 * a["id_maps"]
    # Postings grow with their count; the per-term overhead is shared by more of them.
    assert a["postings"] < b["postings"] < 4 * a["postings"]
    assert big_postings == 4 * small_postings


def test_a_rare_term_costs_its_name_and_a_slot_not_arrays_of_its_own() -> None:
    """Real histories hold many terms seen once or twice (paths, identifiers, hashes): the
    flat postings arrays (decision 0027) cost each ~140 bytes beyond its postings, where a
    pair of numpy arrays and a tuple per term cost ~450."""
    rows, terms_n = 5_000, 40_000
    index = SearchIndex()
    docs = np.arange(1, rows + 1, dtype=np.int64)
    index.load_rows(
        "turn", docs, [str(uuid.UUID(int=k)) for k in range(rows)],
        np.full(rows, 8, dtype=np.int64), np.zeros(rows), {"agent": ["claude"] * rows},
    )  # fmt: skip
    tids = np.arange(terms_n, dtype=np.int64).repeat(2)  # every term in two rows
    owners = np.random.default_rng(3).choice(docs, len(tids))
    terms: list[str | None] = [f"/src/pkg/module_{k}.py" for k in range(terms_n)]
    load_postings(index, terms, tids, owners, np.ones(len(tids), dtype=np.int32))
    postings = index.footprint()["postings"]
    per_term = (postings - len(tids) * 4) / terms_n
    assert per_term <= TERM_BYTES, per_term


def test_with_files_the_anonymous_cost_is_the_rows_and_the_scales(tmp_path: Path) -> None:
    """The engine's index (decision 0035) keeps the int8 codes and the flat postings in
    file-backed mappings, which the quiet release hands to the page cache: what stays in
    anonymous memory a row is the per-row arrays, ids and id maps, the vector's float32 scale
    and the per-term overhead of the postings (their bounds and names)."""
    index, postings = loaded(index=SearchIndex(backing=FileBacking(tmp_path)))
    index.position("turn", index.row(5)[1])
    parts = index.footprint()
    assert index.file_backed() == ROWS * DIM + 4 * postings  # codes, low bits + tf a posting
    anonymous = (sum(parts.values()) - index.file_backed()) / ROWS
    assert anonymous <= ANONYMOUS_ROW_BYTES, (anonymous, parts)

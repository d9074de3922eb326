"""The in-memory search index: BM25, facets and filters, vectors, growth. No database."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pytest
from support.indexing import load_postings

from recallnest.retrieval.index import BM25_B, BM25_K1, GATHER_SHARE, Filter, SearchIndex
from recallnest.store import IndexedDoc, PostingBlock
from recallnest.store.types import PostingStream


def doc(
    n: int,
    terms: Mapping[str, int],
    kind: str = "turn",
    row_id: str | None = None,
    ts: float = 0.0,
    **facets: str | None,
) -> IndexedDoc:
    return IndexedDoc(
        doc=n,
        kind=kind,
        id=row_id or f"{kind}-{n}",
        terms=dict(terms),
        length=sum(terms.values()),
        facets=facets,
        ts=ts,
    )


def pos_of(index: SearchIndex, row_id: str) -> int:
    alive = index.mask(Filter())
    hits = [p for p in range(index.size) if index.row(p)[1] == row_id and alive[p]]
    assert len(hits) == 1
    return hits[0]


def scores_by_id(index: SearchIndex, terms: list[str]) -> dict[str, float]:
    scores = index.bm25(terms)
    alive = index.mask(Filter())
    return {index.row(p)[1]: float(scores[p]) for p in range(index.size) if alive[p]}


# ---- BM25 -----------------------------------------------------------------------------------


def test_bm25_matches_the_formula() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 2, "b": 1}), doc(2, {"b": 1}), doc(3, {"c": 3})])
    n, avgdl = 3, (3 + 1 + 3) / 3
    idf = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * 3 / avgdl)
    expected = idf * 2 * (BM25_K1 + 1) / (2 + norm)
    got = scores_by_id(index, ["a"])
    assert got["turn-1"] == pytest.approx(expected, rel=1e-5)
    assert got["turn-2"] == 0 and got["turn-3"] == 0


def test_rarer_term_scores_higher() -> None:
    index = SearchIndex()
    index.add(
        [
            doc(1, {"common": 1, "rare": 1}),
            doc(2, {"common": 1, "other": 1}),
            doc(3, {"common": 1, "thing": 1}),
        ]
    )
    assert scores_by_id(index, ["rare"])["turn-1"] > scores_by_id(index, ["common"])["turn-1"]


def test_term_twice_beats_once_at_equal_length() -> None:
    index = SearchIndex()
    index.add([doc(1, {"pnpm": 2, "x": 1}), doc(2, {"pnpm": 1, "x": 2}), doc(3, {"y": 3})])
    got = scores_by_id(index, ["pnpm"])
    assert got["turn-1"] > got["turn-2"] > 0


def test_shorter_doc_beats_longer_for_the_same_tf() -> None:
    index = SearchIndex()
    index.add([doc(1, {"k": 1}), doc(2, {"k": 1, "pad": 5}), doc(3, {"z": 1})])
    got = scores_by_id(index, ["k"])
    assert got["turn-1"] > got["turn-2"] > 0


def test_repeated_query_terms_count_once() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}), doc(2, {"b": 1})])
    assert np.array_equal(index.bm25(["a", "a", "a"]), index.bm25(["a"]))


def test_unknown_term_and_empty_index_score_zero() -> None:
    assert SearchIndex().bm25(["x"]).tolist() == []
    index = SearchIndex()
    index.add([doc(1, {"a": 1})])
    assert index.bm25(["nope"]).tolist() == [0.0]
    assert index.bm25([]).tolist() == [0.0]


def test_removed_docs_are_never_returned() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}), doc(2, {"a": 1}), doc(3, {"b": 1})])
    index.bm25(["a"])  # move "a" from pending into the merged postings first
    gone = pos_of(index, "turn-2")
    index.remove([2, 999])  # unknown docs are ignored
    scores = index.bm25(["a"])
    assert scores[gone] == 0
    assert scores[pos_of(index, "turn-1")] > 0
    assert not index.mask(Filter())[gone]
    assert index.vector_coverage() == (0, 2)


def test_removed_docs_change_idf_and_average_length() -> None:
    before = SearchIndex()
    before.add([doc(1, {"a": 1}), doc(3, {"b": 1})])
    after = SearchIndex()
    after.add([doc(1, {"a": 1}), doc(2, {"a": 1, "pad": 9}), doc(3, {"b": 1})])
    after.remove([2])
    assert scores_by_id(after, ["a"])["turn-1"] == pytest.approx(
        scores_by_id(before, ["a"])["turn-1"]
    )


def test_pending_postings_merge_with_loaded_ones() -> None:
    index = SearchIndex()
    index.add_rows([doc(1, {}), doc(2, {})])
    # Bulk-loaded postings (term ids sorted): "a" in docs 1 and 2, "b" in doc 2.
    load_postings(
        index,
        ["a", "b"],
        np.array([0, 0, 1], dtype=np.int32),
        np.array([1, 2, 2], dtype=np.int64),
        np.array([1, 1, 1], dtype=np.int32),
    )
    index.add([doc(3, {"a": 1, "c": 1})])  # pending until "a" is next queried
    got = scores_by_id(index, ["a"])
    assert got["turn-1"] > 0 and got["turn-2"] > 0 and got["turn-3"] > 0
    assert scores_by_id(index, ["c"])["turn-3"] > 0
    # Merging is idempotent.
    assert scores_by_id(index, ["a"]) == got


def _random_docs(n: int, seed: int) -> list[IndexedDoc]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{k}" for k in range(40)]
    out = []
    for k in range(1, n + 1):
        words = rng.choice(vocab, size=int(rng.integers(1, 12)), replace=False)
        out.append(doc(k, {str(w): int(rng.integers(1, 70_000)) for w in words}))
    return out


def test_scores_do_not_depend_on_when_pending_postings_merge() -> None:
    """Bit-identical BM25 whether a term's postings were bulk-loaded, merged by an earlier
    query or still pending, with replacements and removals in between (tf above 2**16 too)."""
    docs = _random_docs(300, seed=5)
    queries = [["w1"], ["w2", "w3"], {"w4": 0.3, "w5": 1.0}, ["w39", "w0", "w7"]]
    eager, lazy = SearchIndex(capacity=4), SearchIndex(capacity=4)
    for start in range(0, 300, 50):
        batch = docs[start : start + 50]
        eager.add(batch)
        lazy.add(batch)
        for q in queries[: start // 50 % 4 + 1]:
            eager.bm25(q)  # merges the queried terms' pending postings now
    for index in (eager, lazy):
        index.add([doc(1007, {"w1": 3, "w9": 1}, row_id="turn-7")])  # new text: new doc
        index.remove([11, 12])
    final = [d for d in docs if d.doc not in (7, 11, 12)]
    final.append(doc(1007, {"w1": 3, "w9": 1}, row_id="turn-7"))
    loaded = _loaded(final)
    for q in queries:
        want = scores_by_id(loaded, list(q))
        assert scores_by_id(eager, list(q)) == want
        assert scores_by_id(lazy, list(q)) == want


def _loaded(docs: list[IndexedDoc], index: SearchIndex | None = None) -> SearchIndex:
    """`index` (a new one by default) bulk-loaded with `docs` (rows, then postings grouped by
    term id)."""
    index = SearchIndex() if index is None else index
    index.add_rows(docs)
    postings = sorted((t, d.doc, tf) for d in docs for t, tf in d.terms.items())
    terms = sorted({t for t, _, _ in postings})
    load_postings(
        index,
        terms,
        np.array([terms.index(t) for t, _, _ in postings], dtype=np.int32),
        np.array([d for _, d, _ in postings], dtype=np.int64),
        np.array([tf for _, _, tf in postings], dtype=np.int32),
    )
    return index


def test_flat_loaded_postings_answer_as_a_fresh_load_through_changes_and_compactions() -> None:
    """Decision 0027: loaded postings sit in flat arrays; a term that gains or loses rows gets
    arrays of its own and its flat slice dies; compact_postings folds them back. Scores stay
    those of an index loaded from scratch with the same rows."""
    docs = _random_docs(400, seed=21)
    index = _loaded(docs)
    live = {d.id: d for d in docs}
    queries = [["w1"], ["w2", "w3"], {"w4": 0.3, "w5": 1.0}, [f"w{k}" for k in range(40)]]
    rng = np.random.default_rng(4)
    next_doc = 1000
    for step in range(6):
        fresh = []
        for row_id in rng.choice(sorted(live), 30, replace=False):
            next_doc += 1  # new text for an existing row: a new doc
            terms = {f"w{int(k)}": int(rng.integers(1, 5)) for k in rng.integers(0, 40, 4)}
            fresh.append(doc(next_doc, terms, row_id=str(row_id)))
        index.add(fresh)
        live.update({d.id: d for d in fresh})
        gone = [live.pop(str(row_id)).doc for row_id in rng.choice(sorted(live), 10, False)]
        index.remove(gone)
        for q in queries[: step % 4 + 1]:
            index.bm25(q)  # merges these terms: own arrays, dead flat slices
        if step % 2:
            assert index.compact_postings(force=True)
            assert not index._postings and index._flat.dead == 0
        want = _loaded(sorted(live.values(), key=lambda d: d.doc))
        for q in queries:
            assert scores_by_id(index, list(q)) == scores_by_id(want, list(q))


def test_postings_compact_when_enough_of_them_are_dead() -> None:
    index = _loaded(_random_docs(200, seed=3))
    assert index.compact_postings() is False  # nothing dead yet
    index.remove(list(range(1, 121)))  # 60 % of the rows
    index.bm25([f"w{k}" for k in range(40)])  # every term drops its dead rows
    assert index._flat.dead > 0.25 * len(index._flat)
    before = index.footprint()["postings"]
    assert index.compact_postings() is True
    assert index.footprint()["postings"] < before
    assert index.compact_postings() is False


def test_a_second_load_of_postings_adds_to_the_first() -> None:
    docs = _random_docs(60, seed=9)
    index = _loaded(docs[:30])
    _loaded(docs[30:], index)  # and their postings loaded into an index that holds some
    want = _loaded(docs)
    for q in (["w1"], ["w2", "w3"], [f"w{k}" for k in range(40)]):
        assert scores_by_id(index, q) == scores_by_id(want, q)


def test_postings_given_as_blocks_index_like_terms() -> None:
    """The writer's PostingBlocks give the same index as each row's terms: rows a block does
    not cover fall back to their terms, and a block row that was not added (same doc again,
    or absent from the call) adds nothing."""
    docs = _random_docs(120, seed=11)
    by_terms, by_blocks = SearchIndex(), SearchIndex()
    for index in (by_terms, by_blocks):
        index.add(docs[:40])
    again = [*docs[30:40], *docs[40:120]]  # 30..39 are already indexed with the same doc
    by_terms.add(again)
    covered = [*docs[30:40], *docs[40:100], doc(999, {"w1": 5})]  # 999 is not in the call
    block = PostingBlock.of([d.doc for d in covered], [d.terms for d in covered])
    by_blocks.add(again, [block])
    assert by_blocks.size == by_terms.size == 120
    for q in (["w1"], ["w2", "w3"], [f"w{k}" for k in range(40)]):
        assert scores_by_id(by_blocks, q) == scores_by_id(by_terms, q)


def test_pending_postings_cost_eight_bytes_each() -> None:
    index = SearchIndex()
    docs = _random_docs(2000, seed=8)
    index.add(docs)
    postings = sum(len(d.terms) for d in docs)
    held = sum(a.buffer_info()[1] * a.itemsize for a in index._pending.values())
    assert postings * 8 <= held < postings * 8 * 1.2  # array over-allocation only


def test_postings_streamed_in_chunks_load_as_one_array() -> None:
    """Issue 22: the index load reads postings a doc range at a time, in any order, some of
    docs the index does not hold and some of term ids no term names; scores are those of the
    whole arrays loaded at once."""
    docs = _random_docs(500, seed=33)
    rows = [d for d in docs if d.doc % 7]  # docs 7, 14, ... have postings but no row
    whole = SearchIndex()
    whole.add_rows(rows)
    postings = sorted((t, d.doc, tf) for d in docs for t, tf in d.terms.items())
    terms: list[str | None] = sorted({t for t, _, _ in postings})
    tids = np.array([terms.index(t) for t, _, _ in postings], dtype=np.int32)
    owners = np.array([d for _, d, _ in postings], dtype=np.int64)
    tfs = np.array([tf for _, _, tf in postings], dtype=np.int32)
    terms[3] = None  # an id no term holds: its postings load dead
    load_postings(whole, terms, tids, owners, tfs)
    streamed = SearchIndex()
    streamed.add_rows(rows)
    rng = np.random.default_rng(2)
    order = rng.permutation(len(tids))
    chunks = [(tids[k], owners[k], tfs[k]) for k in np.array_split(order, 7)]
    counts = np.bincount(tids, minlength=len(terms))
    streamed.load_posting_stream(PostingStream(terms, counts, chunks))
    for q in (["w1"], ["w2", "w3"], [f"w{k}" for k in range(40)], ["w3"]):
        assert scores_by_id(streamed, q) == scores_by_id(whole, q)
    with pytest.raises(ValueError):
        SearchIndex().load_posting_stream(PostingStream(terms, counts + 1, chunks))


def test_load_postings_skips_docs_the_index_does_not_hold() -> None:
    index = SearchIndex()
    index.add_rows([doc(1, {})])
    load_postings(
        index,
        ["a"],
        np.array([0, 0], np.int32),
        np.array([1, 77], np.int64),
        np.array([1, 1], np.int32),
    )
    scores = index.bm25(["a"])
    assert scores.shape == (1,) and scores[0] > 0
    assert index.size == 1


@pytest.mark.parametrize("numbers", [[3, 5, 9, 10], [7, 10**12, 2**40 + 1], [1]])
def test_vectors_land_on_the_rows_of_their_docs_dense_or_sparse(numbers: list[int]) -> None:
    # Dense doc numbers take a lookup table, sparse ones a binary search: same answer, and a
    # doc the index does not hold (0, negative, between or above the live ones) is skipped.
    index = SearchIndex()
    index.set_model("m", 2)
    index.add([doc(n, {"a": 1}) for n in numbers])
    index.remove([numbers[0]])
    probes = [-3, 0, numbers[0], *numbers[1:], 2, max(numbers) + 1]
    index.set_vectors(probes, np.tile(unit(1.0, 0.0), (len(probes), 1)))
    _, has = index.cosine(unit(1.0, 0.0))
    assert has.tolist() == [False] + [True] * (len(numbers) - 1)


def test_readding_a_doc_with_new_text_replaces_its_postings() -> None:
    index = SearchIndex()
    index.add([doc(1, {"old": 1}, row_id="x"), doc(2, {"filler": 1})])
    index.bm25(["old"])
    index.add([doc(5, {"new": 1}, row_id="x")])  # the same id, a new doc number
    assert not any(index.bm25(["old"]))
    new_pos = pos_of(index, "x")
    assert index.bm25(["new"])[new_pos] > 0
    assert int(index.mask(Filter()).sum()) == 2


def test_readding_the_same_doc_updates_facets_only() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}, kind="memory", row_id="m", ts=1.0, status="active")])
    pos = pos_of(index, "m")
    index.add([doc(1, {"a": 1}, kind="memory", row_id="m", ts=2.0, status="archived")])
    assert index.size == 1
    assert index.row(pos) == ("memory", "m", 2.0)
    assert not index.mask(Filter(equals={"status": "active"}))[pos]
    assert index.mask(Filter(equals={"status": "archived"}))[pos]
    assert index.bm25(["a"])[pos] > 0


def test_turn_and_memory_with_the_same_id_are_distinct_rows() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}, kind="turn", row_id="same")])
    index.add([doc(2, {"a": 1}, kind="memory", row_id="same")])
    assert int(index.mask(Filter()).sum()) == 2


# ---- filters --------------------------------------------------------------------------------


@pytest.fixture
def faceted() -> SearchIndex:
    index = SearchIndex()
    index.add(
        [
            doc(1, {"a": 1}, "turn", "t1", 100.0, agent="claude", project="/p1", role="user"),
            doc(2, {"a": 1}, "turn", "t2", 200.0, agent="codex", project="/p2", role="user"),
            doc(3, {"a": 1}, "turn", "t3", 300.0, agent="claude", project=None, role="assistant"),
            doc(4, {"a": 1}, "memory", "m1", 150.0, scope="global", status="active"),
            doc(5, {"a": 1}, "memory", "m2", 250.0, scope="/p1", status="active"),
            doc(6, {"a": 1}, "memory", "m3", 350.0, scope="/p2", status="archived"),
        ]
    )
    return index


def ids_of(index: SearchIndex, mask: np.ndarray) -> set[str]:
    return {index.row(p)[1] for p in np.flatnonzero(mask)}


def test_filter_kinds(faceted: SearchIndex) -> None:
    assert ids_of(faceted, faceted.mask(Filter(kinds=("turn",)))) == {"t1", "t2", "t3"}
    assert ids_of(faceted, faceted.mask(Filter(kinds=("memory",)))) == {"m1", "m2", "m3"}
    assert len(ids_of(faceted, faceted.mask(Filter()))) == 6


def test_filter_equals_single_and_tuple(faceted: SearchIndex) -> None:
    assert ids_of(faceted, faceted.mask(Filter(equals={"agent": "claude"}))) == {"t1", "t3"}
    got = faceted.mask(Filter(kinds=("memory",), equals={"scope": ("/p1", "global")}))
    assert ids_of(faceted, got) == {"m1", "m2"}
    both = Filter(equals={"agent": "claude", "role": "user"})
    assert ids_of(faceted, faceted.mask(both)) == {"t1"}


def test_filter_unknown_value_matches_nothing(faceted: SearchIndex) -> None:
    assert not faceted.mask(Filter(equals={"agent": "gemini"})).any()
    assert not faceted.mask(Filter(equals={"scope": ("/nowhere",)})).any()


def test_filter_since_inclusive_until_exclusive(faceted: SearchIndex) -> None:
    got = faceted.mask(Filter(since=200.0, until=300.0))
    assert ids_of(faceted, got) == {"t2", "m2"}


def test_mask_any_is_the_union(faceted: SearchIndex) -> None:
    filters = [
        Filter(kinds=("turn",), equals={"project": "/p1"}),
        Filter(kinds=("memory",), equals={"scope": ("/p1", "global"), "status": "active"}),
    ]
    assert ids_of(faceted, faceted.mask_any(filters)) == {"t1", "m1", "m2"}
    assert faceted.mask_any([]).tolist() == [False] * 6


# ---- vectors --------------------------------------------------------------------------------


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_cosine_with_has_vec() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}), doc(2, {"b": 1}), doc(3, {"c": 1})])
    index.set_model("m", 3)
    index.set_vectors([1, 3, 42], np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(0, 0, 1)]))
    scores, has = index.cosine(unit(1, 1, 0))
    p1, p2, p3 = (pos_of(index, f"turn-{n}") for n in (1, 2, 3))
    assert has[p1] and has[p3] and not has[p2]
    assert scores[p1] == pytest.approx(1 / math.sqrt(2))
    assert scores[p3] == pytest.approx(1 / math.sqrt(2))
    assert scores[p2] == 0
    assert index.vector_coverage() == (2, 3)


def test_cosine_with_the_wrong_dimensions_is_empty() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1})])
    index.set_model("m", 3)
    index.set_vectors([1], np.stack([unit(1, 0, 0)]))
    index.set_vectors([1], np.ones((1, 4), dtype=np.float32))  # ignored: wrong width
    scores, has = index.cosine(unit(1, 0, 0, 0))
    assert scores.tolist() == [0.0] and has.tolist() == [False]
    assert index.cosine(unit(1, 0, 0))[0].tolist() == pytest.approx([1.0])


def test_quantised_cosines_stay_within_two_thousandths_of_float32() -> None:
    """Vectors are held as int8 with a scale per row (decision 0026): the cosines a search
    and the prompt gate see are the float32 ones to ~5e-4 on average, 2e-3 at most, and the
    stored vector a caller reads back points the same way."""
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((2_000, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    query = rows[7] + 0.3 * rng.standard_normal(384).astype(np.float32)
    query /= np.linalg.norm(query)
    index = SearchIndex()
    index.add([doc(k + 1, {"a": 1}) for k in range(len(rows))])
    index.set_model("m", 384)
    index.set_vectors(list(range(1, len(rows) + 1)), rows)
    scores, has = index.cosine(query)
    assert has.all()
    error = np.abs(scores - rows @ query)
    assert error.max() < 2e-3 and error.mean() < 5e-4
    back = index.vector_at(7)
    assert back is not None and back.dtype == np.float32
    assert float(back @ rows[7]) > 0.9999


def _projects_index(seed: int, projects: int, dead: int) -> tuple[np.ndarray, SearchIndex]:
    """1,300 rows over `projects` projects, several scan blocks; the last 51 without a vector
    and the row of doc `dead` removed."""
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((1_300, 16)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    index = SearchIndex()
    index.add([doc(k + 1, {"a": 1}, project=f"/p{k % projects}") for k in range(len(rows))])
    index.set_model("m", 16)
    index.set_vectors(list(range(1, len(rows) - 50)), rows[: len(rows) - 51])
    index.remove([dead])
    return rows, index


def test_a_masked_cosine_scans_only_the_rows_the_mask_keeps() -> None:
    """A filtered search scans only its rows (issue 23): the same cosines there as a full
    scan, across several scan blocks, and nothing (0, no vector) elsewhere."""
    rows, index = _projects_index(seed=5, projects=3, dead=7)
    mask = index.mask(Filter(equals={"project": "/p1"}))
    full, full_has = index.cosine(rows[4])
    scores, has = index.cosine(rows[4], mask)
    kept = mask & full_has
    assert has.tolist() == kept.tolist()
    assert 400 < int(kept.sum()) < len(rows) / 3
    assert np.allclose(scores[kept], full[kept], rtol=0, atol=1e-6)
    assert not scores[~kept].any()
    none = index.cosine(rows[4], np.zeros(index.size, dtype=bool))
    assert not none[0].any() and not none[1].any()


def test_a_mask_keeping_most_rows_gives_the_same_cosines_as_gathering_them() -> None:
    """A mask that keeps most rows is scanned whole and the rest zeroed (GATHER_SHARE): the
    same cosines and the same rows with a vector as the gathered scan of the same mask."""
    rows, index = _projects_index(seed=8, projects=5, dead=9)
    mask = ~index.mask(Filter(equals={"project": "/p2"}))  # four rows in five
    scores, has = index.cosine(rows[4], mask)
    keep = mask & index.cosine(rows[4])[1]
    gathered, gathered_has = index._cosine_rows(rows[4], np.flatnonzero(keep))
    assert int(keep.sum()) >= GATHER_SHARE * index.size
    assert has.tolist() == gathered_has.tolist() == keep.tolist()
    assert np.allclose(scores, gathered, rtol=0, atol=1e-6)
    assert not scores[~keep].any()


def test_set_model_change_drops_vectors() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1})])
    index.set_model("m", 2)
    index.set_vectors([1], np.stack([unit(1, 0)]))
    index.set_model("m", 2)  # same model: kept
    assert index.vector_coverage() == (1, 1)
    index.set_model("other", 2)
    assert index.vector_coverage() == (0, 1)


def test_removed_row_keeps_no_vector_coverage() -> None:
    index = SearchIndex()
    index.add([doc(1, {"a": 1}), doc(2, {"a": 1})])
    index.set_model("m", 2)
    index.set_vectors([1, 2], np.stack([unit(1, 0), unit(0, 1)]))
    index.remove([1])
    assert index.vector_coverage() == (1, 1)


# ---- growth ---------------------------------------------------------------------------------


def test_capacity_grows_past_the_initial_capacity() -> None:
    index = SearchIndex(capacity=2)
    index.set_model("m", 4)
    first = [doc(n, {"early": 1, f"t{n}": 1}, project=f"/p{n % 3}") for n in range(1, 4)]
    index.add(first[:2])
    index.set_vectors([1, 2], np.stack([unit(1, 0, 0, 0), unit(0, 1, 0, 0)]))
    index.add(first[2:])
    index.add(doc(n, {"late": 1}, ts=float(n), project=f"/p{n % 3}") for n in range(4, 301))
    assert index.size == 300
    # Vectors set before growth survive it; rows added later accept vectors.
    index.set_vectors([300], np.stack([unit(0, 0, 1, 0)]))
    scores, has = index.cosine(unit(1, 1, 1, 0))
    assert int(has.sum()) == 3
    assert has[pos_of(index, "turn-1")] and has[pos_of(index, "turn-300")]
    assert scores[pos_of(index, "turn-2")] == pytest.approx(1 / math.sqrt(3))
    # Postings and facets survive growth.
    assert int((index.bm25(["early"]) > 0).sum()) == 3
    assert int((index.bm25(["late"]) > 0).sum()) == 297
    assert int(index.mask(Filter(equals={"project": "/p1"})).sum()) == 100
    assert int(index.mask(Filter(since=250.0)).sum()) == 51


def test_bm25_over_some_rows_equals_bm25_of_those_rows() -> None:
    """Bit-identical to `bm25(terms)[rows]`, with pending postings, removals and a memo
    reused across queries (as admission uses it: one memo per scope and flush)."""
    index = SearchIndex(capacity=4)
    docs = _random_docs(400, seed=11)
    index.add(docs[:300])
    index.remove([d.doc for d in docs[10:40]])
    index.add(docs[300:])  # pending postings, merged by the first query that needs them
    rng = np.random.default_rng(3)
    rows = np.sort(rng.choice(np.flatnonzero(index.mask(Filter())), 120, replace=False))
    memo: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
    for query in (["w1"], ["w2", "w3", "w2"], ["w39", "w0", "w7"], ["nope"], ["w1", "w5"]):
        expected = index.bm25(query)[rows]
        got = index.bm25_rows(query, rows, memo)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), query
    assert expected.any()  # the last query does score some of the rows
    assert not index.bm25_rows(["w1"], rows[:0], {}).size

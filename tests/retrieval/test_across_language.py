"""Prompt-time recall across languages (issue 23, decision 0022 round 37 cross-language): e5's
cosine ranks a prompt's own language first, so the note in the other language that answers it
is picked among the notes of that language alone (ranking.across_language), and passes the
gate when it stands out there (relevance.across_language_passes)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

import numpy as np
from support.indexing import load_postings
from support.recall import chosen_ids

from recallnest.core.models import Explain, SearchHit
from recallnest.core.text import tokenize
from recallnest.retrieval.index import Filter, SearchIndex
from recallnest.retrieval.query import plan_query
from recallnest.retrieval.ranking import PROFILES, AcrossLanguage, across_language, retrieve
from recallnest.retrieval.relevance import (
    ACROSS_MARGIN,
    ACROSS_POOL_MIN,
    ACROSS_Z,
    across_language_passes,
)
from recallnest.store import IndexedDoc

NOW = datetime(2026, 12, 6, tzinfo=UTC)


def _memory(n: int, text: str) -> IndexedDoc:
    terms = dict(Counter(tokenize(text)))
    return IndexedDoc(n, "memory", f"m{n}", terms, sum(terms.values()), {"kind": None}, 0.0)


def _unit(*v: float) -> np.ndarray:
    a = np.array(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_a_row_written_in_chinese_is_marked_whether_added_or_loaded() -> None:
    texts = ["订单报表慢是因为缺索引", "Orders report was slow", "Use 中文 for comments"]
    added = SearchIndex()
    added.add([_memory(n, t) for n, t in enumerate(texts, 1)])
    loaded = SearchIndex()
    docs = [_memory(n, t) for n, t in enumerate(texts, 1)]
    loaded.add_rows([replace(d, terms={}) for d in docs])
    terms = sorted({t for d in docs for t in d.terms})
    pairs = sorted((terms.index(t), d.doc) for d in docs for t in d.terms)
    load_postings(
        loaded,
        terms,
        np.array([p[0] for p in pairs], np.int32),
        np.array([p[1] for p in pairs], np.int64),
        np.ones(len(pairs), np.int32),
    )
    # a Chinese word inside an English note (one term) does not make it Chinese
    assert added.chinese_mask().tolist() == [True, False, False]
    assert loaded.chinese_mask().tolist() == [True, False, False]


def _store(n_english: int) -> tuple[SearchIndex, np.ndarray]:
    """A Chinese note about anything, English notes, the first of which answers the query:
    the Chinese note is the closest of all (the language offset), the answer the closest
    English one."""
    index = SearchIndex()
    index.set_model("m", 3)
    docs = [_memory(1, "每天凌晨把订单表归档到冷存储")]
    docs += [_memory(2 + k, f"english fact number {k}") for k in range(n_english)]
    index.add(docs)
    vectors = [_unit(1.0, 0.0, 0.3), _unit(1.0, 0.1, 0.3)]
    vectors += [_unit(0.5, 1.0 + 0.1 * k, 0.0) for k in range(1, n_english)]
    index.set_vectors([d.doc for d in docs], np.array(vectors, np.float32))
    return index, _unit(1.0, 0.0, 0.3)


def test_the_closest_memory_of_the_other_language_is_found_beyond_the_own_language() -> None:
    index, query = _store(30)
    cos, has = index.cosine(query)
    vector = np.where(has, cos, -1.0).astype(np.float32)
    assert int(np.argmax(vector)) == 0  # the Chinese fact is the closest of all
    found = across_language(index, "订单报表又变慢了，上次是什么原因", vector)
    assert found is not None and index.row(found.position)[1] == "m2"
    assert found.pool == 30 and found.margin > 0 and found.z > 2
    # an English query's other language is Chinese: one note, no pool to compare
    assert across_language(index, "the orders report is slow again", vector) is None


def test_retrieve_reports_it_even_when_no_word_matches() -> None:
    index, query = _store(30)
    plan = plan_query("订单报表又变慢了，上次是什么原因", NOW)
    across: list[AcrossLanguage] = []
    retrieve(index, plan, [Filter()], query, PROFILES["default"], 8, NOW.timestamp(), across=across)
    assert [index.row(a.position)[1] for a in across] == ["m2"]


def test_the_gate_bar_needs_a_pool_a_margin_and_a_z_score() -> None:
    assert across_language_passes(ACROSS_MARGIN, ACROSS_Z, ACROSS_POOL_MIN)
    assert not across_language_passes(ACROSS_MARGIN - 0.001, ACROSS_Z, ACROSS_POOL_MIN)
    assert not across_language_passes(ACROSS_MARGIN, ACROSS_Z - 0.1, ACROSS_POOL_MIN)
    assert not across_language_passes(1.0, 10.0, ACROSS_POOL_MIN - 1)


def _choose(hits: list[SearchHit]) -> list[str]:
    return chosen_ids("订单报表又变得很慢了，上次是什么原因？", hits)


def test_a_memory_marked_as_the_other_languages_closest_passes_with_no_shared_word() -> None:
    answer = SearchHit(
        kind="memory",
        id="m2",
        text="The orders report was slow because of a missing index on orders(created_at).",
        score=0.0,
    )
    marked = replace(
        answer, explain=Explain(ranks={}, parts={"across_margin": 0.05, "across_z": 3.6})
    )
    assert _choose([answer]) == []
    assert _choose([marked]) == ["m2"]
    assert _choose([replace(marked, kind="turn")]) == []  # a raw turn never passes on meaning

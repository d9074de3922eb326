"""Engine.search_with_affinities (issue 23): the prompt's embedding cosine with each search
hit, from the real local model, and nothing from an embedder the gate was not calibrated on."""

from __future__ import annotations

from pathlib import Path

import pytest

from recallnest.core.config import Settings
from recallnest.engine import Engine, SearchRequest


def _engine(home: Path, embedder: str) -> Engine:
    return Engine.open(Settings.load(flags={"home": str(home), "embedder": embedder}, env={}))


def _fill(engine: Engine) -> None:
    for text in (
        "Commit messages follow Conventional Commits: feat:, fix:, chore:",
        "The staging database is Postgres 16 on db-staging.internal",
        "提交说明使用中文，首行不超过五十个字",
    ):
        engine.remember(text, category="preferences")
    while engine.embed_pending():
        pass


@pytest.mark.integration
def test_the_local_model_gives_each_hit_a_cosine(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "rn", "local")
    try:
        _fill(engine)
        query = "how should I word the commit message"
        hits, near = engine.search_with_affinities(SearchRequest(query, limit=5, record=False))
        assert set(near) == {h.id for h in hits} and len(near) >= 2
        assert all(-1.0 <= v <= 1.0 for v in near.values())
        best = max(near, key=near.__getitem__)
        assert "Commit" in next(h.text for h in hits if h.id == best)
    finally:
        engine.close()


def test_an_uncalibrated_embedder_gives_none(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "rn", "hash")
    try:
        _fill(engine)
        hits, near = engine.search_with_affinities(
            SearchRequest("commit message", limit=5, record=False)
        )
        assert hits and near == {}
    finally:
        engine.close()


@pytest.mark.integration
def test_a_chinese_prompt_gets_the_english_note_that_answers_it_marked(tmp_path: Path) -> None:
    """No word of the prompt is stored and the prompt's cosine favours Chinese text; among the
    English notes the answer stands out in meaning (decision 0022, round 37 cross-language).
    Only prompt-time recall's search (`turns_by_keyword`) marks it."""
    from recallnest.evaluation.prompt_recall import background
    from recallnest.retrieval.relevance import across_language

    engine = _engine(tmp_path / "rn", "local")
    try:
        for text in background(30, 37, "en"):
            engine.remember(text, category="entities")
        answer = engine.remember(
            "The orders report was slow because of a missing index on orders(created_at); "
            "adding it took the query from 9 s to 40 ms.",
            category="cases",
        )
        while engine.embed_pending():
            pass
        prompt = "订单报表又变得很慢了，上次是什么原因？"
        plain, _ = engine.search_with_affinities(SearchRequest(prompt, limit=8, record=False))
        assert not any(across_language(h.explain) for h in plain)
        req = SearchRequest(prompt, limit=8, record=False, turns_by_keyword=True)
        hits, near = engine.search_with_affinities(req)
        marked = [h.id for h in hits if across_language(h.explain)]
        assert marked == [answer.id] and answer.id in near
    finally:
        engine.close()


@pytest.mark.integration
def test_vectors_that_are_no_embedding_of_their_text_are_no_evidence(tmp_path: Path) -> None:
    """Rows whose stored vectors are not the model's embedding of their text (another model's,
    a stand-in's: the latency bench's clustered vectors) sit at cosine ~0 from a real prompt,
    and their margins look as clear as real ones: under the model's floor
    (relevance.COSINE_FLOORS) they get no cosine and no cross-language mark, so the prompt
    gate reads them by their words alone. Their real embeddings get both back."""
    import numpy as np

    from recallnest.retrieval.relevance import across_language

    engine = _engine(tmp_path / "rn", "local")
    try:
        assert engine.embedder is not None
        for k in range(30):
            engine.remember(f"服务 {k} 的部署窗口在周{k % 7 + 1}晚上", category="entities")
        model = engine.embedder.model_id
        engine.store.drop_vectors()  # `remember` embedded them: these rows get stand-ins
        todo = engine.store.missing_vectors(model, 100)
        assert len(todo) == 30
        docs = [doc for doc, _ in todo]
        stand_ins = np.random.default_rng(3).standard_normal((len(docs), 384)).astype(np.float32)
        stand_ins /= np.linalg.norm(stand_ins, axis=1, keepdims=True)
        engine.store.add_vectors(model, docs, stand_ins)
        engine.index.set_vectors(docs, stand_ins)
        req = SearchRequest(
            "draft a limerick about the deploy window", limit=8, record=False, turns_by_keyword=True
        )
        hits, near = engine.search_with_affinities(req)
        assert hits and near == {}
        assert not any(across_language(h.explain) for h in hits)

        real = engine.embedder.embed_passages([text for _, text in todo])
        engine.index.set_vectors(docs, real)
        hits, near = engine.search_with_affinities(req)
        assert set(near) == {h.id for h in hits}
    finally:
        engine.close()

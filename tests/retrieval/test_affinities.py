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

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

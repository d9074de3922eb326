"""Query embeddings beside the search (issue 23): computed once on the query thread, a late one
leaves that search keyword-only and serves the next, a failed one is tried again."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from recallnest.core.config import Settings
from recallnest.core.errors import EmbedError
from recallnest.engine import Engine, SearchRequest
from recallnest.retrieval.embed import FloatArray, HashEmbedder
from recallnest.retrieval.query_vectors import QueryVectors


class HeldEmbedder(HashEmbedder):
    """The deterministic test embedder whose query embeddings wait until `release` is set (a
    model still busy), and fail while `failing` is set (an unreachable API)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.failing = False
        self.queries: list[str] = []

    def embed_query(self, text: str) -> FloatArray:
        self.queries.append(text)
        if not self.release.wait(30):
            raise AssertionError("never released")
        if self.failing:
            raise EmbedError("embedding API unreachable")
        return super().embed_query(text)

    def embed_passages(self, texts: Sequence[str]) -> FloatArray:
        return super().embed_passages(texts)


def test_a_late_embedding_returns_none_then_serves_the_next_search() -> None:
    embedder = HeldEmbedder()
    vectors = QueryVectors(embedder)
    try:
        assert vectors.get("deploy staging", timeout=0.0) is None
        embedder.release.set()
        vec = vectors.get("deploy staging")
        assert vec is not None
        assert np.allclose(vec, HashEmbedder().embed_query("deploy staging"))
        assert vectors.get("deploy staging", timeout=0.0) is vec
        assert embedder.queries == ["deploy staging"]  # embedded once
    finally:
        vectors.close()


def test_a_failed_embedding_is_not_kept() -> None:
    embedder = HeldEmbedder()
    embedder.release.set()
    embedder.failing = True
    vectors = QueryVectors(embedder)
    try:
        assert vectors.get("deploy staging") is None
        embedder.failing = False
        assert vectors.get("deploy staging") is not None
        assert embedder.queries == ["deploy staging", "deploy staging"]
    finally:
        vectors.close()


def test_the_cache_keeps_the_newest_queries() -> None:
    embedder = HeldEmbedder()
    embedder.release.set()
    vectors = QueryVectors(embedder, cache_size=2)
    try:
        for text in ("a one", "b two", "c three", "b two"):
            assert vectors.get(text) is not None
        vectors.get("a one")
        assert embedder.queries == ["a one", "b two", "c three", "a one"]
    finally:
        vectors.close()


def test_a_search_past_its_vector_deadline_answers_by_keywords(tmp_path: Path) -> None:
    embedder = HeldEmbedder()
    settings = Settings.load(flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={})
    engine = Engine.open(settings, embedder)
    try:
        engine.remember("We deploy staging with make ship", category="preferences")
        engine.remember("The cache expires after 45 minutes", category="preferences")
        while engine.embed_pending():
            pass
        late = engine.search(
            SearchRequest("deploy staging", limit=5, record=False, explain=True, vector_wait=0.0)
        )
        assert [h.text for h in late][:1] == ["We deploy staging with make ship"]
        assert all("vector" not in h.explain.ranks for h in late if h.explain)
        embedder.release.set()
        waited = engine.search(SearchRequest("deploy staging", limit=5, record=False, explain=True))
        assert [h.text for h in waited][:1] == ["We deploy staging with make ship"]
        assert waited[0].explain is not None and "vector" in waited[0].explain.ranks
        assert embedder.queries.count("deploy staging") == 1
    finally:
        embedder.release.set()
        engine.close()


def test_prepare_query_starts_the_embedding_the_search_then_uses(tmp_path: Path) -> None:
    embedder = HeldEmbedder()
    embedder.release.set()
    settings = Settings.load(flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={})
    engine = Engine.open(settings, embedder)
    try:
        engine.remember("We deploy staging with make ship", category="preferences")
        while engine.embed_pending():
            pass
        engine.prepare_query("how do we deploy staging?")
        hits = engine.search(SearchRequest("how do we deploy staging?", record=False, explain=True))
        assert hits and hits[0].explain is not None and "vector" in hits[0].explain.ranks
        assert len(embedder.queries) == 1  # the search found it started
    finally:
        engine.close()


def test_a_prompt_too_long_to_embed_in_time_is_answered_by_keywords(tmp_path: Path) -> None:
    from recallnest.server.handlers import dispatch

    embedder = HeldEmbedder()
    embedder.release.set()
    settings = Settings.load(flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={})
    engine = Engine.open(settings, embedder)
    try:
        engine.remember("The zeta3 service listens on port 8003", category="preferences")
        while engine.embed_pending():
            pass
        context = (
            "I'm picking up yesterday's config work and want to be sure about the networking "
            "side first, because the health checks kept failing after a restart and the proxy "
            "needs the right upstream; "
        )
        long_prompt = context * 2 + "which port does the zeta3 service listen on?"
        answer = dispatch(engine, "recall", {"prompt": long_prompt, "session_id": "s1"})
        assert embedder.queries == []  # never started: it could not finish by the deadline
        assert answer["skip"] in (None, "irrelevant")  # searched (by keywords), not skipped
        dispatch(
            engine, "recall", {"prompt": "which port does zeta3 listen on?", "session_id": "s2"}
        )
        assert len(embedder.queries) == 1  # a short prompt is embedded
    finally:
        engine.close()


def test_a_hooks_deadline_counts_from_the_hooks_own_start(tmp_path: Path) -> None:
    """The prompt hook says how long it ran before asking (`elapsed`): its embedding's wait is
    what is left of HOOK_VECTOR_DEADLINE_SECONDS from the hook's start, none when a slow start
    used it all (the search then runs on keywords, without waiting for a model still busy)."""
    from recallnest.continuity.recall import HOOK_VECTOR_DEADLINE_SECONDS, VECTOR_DEADLINE_SECONDS
    from recallnest.server.handlers import dispatch

    embedder = HeldEmbedder()
    settings = Settings.load(flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={})
    engine = Engine.open(settings, embedder)
    waits: list[float | None] = []
    search = engine.search_with_affinities

    def recording(req: SearchRequest) -> tuple[list[object], dict[str, float]]:
        waits.append(req.vector_wait)
        return search(req)  # type: ignore[return-value]

    try:
        embedder.release.set()
        engine.remember("The zeta3 service listens on port 8003", category="preferences")
        while engine.embed_pending():
            pass
        embedder.release.clear()  # the model is busy from now on
        engine.search_with_affinities = recording  # type: ignore[method-assign]
        ask = "which port does the zeta3 service listen on?"
        late = dispatch(engine, "recall", {"prompt": ask, "session_id": "s1", "elapsed": 10.0})
        assert waits == [0.0]  # not waiting for the busy model: searched by keywords
        assert late["skip"] in (None, "irrelevant")
        dispatch(engine, "recall", {"prompt": ask + " now", "session_id": "s2", "elapsed": 0.0})
        dispatch(engine, "recall", {"prompt": ask + " again", "session_id": "s3"})
        assert 0.0 <= waits[1] <= HOOK_VECTOR_DEADLINE_SECONDS  # type: ignore[operator]
        assert 0.0 <= waits[2] <= VECTOR_DEADLINE_SECONDS  # type: ignore[operator]
        embedder.release.set()
        dispatch(engine, "recall", {"prompt": ask + " at last", "vector_deadline": None,
                                    "session_id": "s4", "elapsed": 10.0})  # fmt: skip
        assert waits[3] is None  # the eval waits for the model, whatever the hook's start
    finally:
        embedder.release.set()
        engine.close()

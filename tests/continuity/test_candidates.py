"""Resume candidates patched from the memories a write changed must be exactly what reading
them all again gives: random stores, random writes, compared with `Store.resume_memories`."""

from __future__ import annotations

import random
import tempfile
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from recallnest.continuity import service as service_module
from recallnest.continuity.candidates import _round6, patch_candidates
from recallnest.continuity.service import Continuity
from recallnest.core.models import GLOBAL_SCOPE, Memory
from recallnest.engine import Engine
from recallnest.store import Batch, Store

T0 = datetime(2026, 5, 1, tzinfo=UTC)
SCOPES = (GLOBAL_SCOPE, "/p/one", "/p/two")
GROUPS = [
    (GLOBAL_SCOPE, ("profile", "preferences")),
    (GLOBAL_SCOPE, ("entities", "events")),
    ("/p/one", ("entities", "events", "cases")),
    ("/p/one", ("preferences",)),
]
PER_GROUP = 4
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def random_memory(rng: random.Random, n: int) -> Memory:
    when = T0 + timedelta(minutes=rng.choice([0, 1, 2, n]))  # ties on purpose
    return Memory(
        id=f"m{n:04d}",
        scope=rng.choice(SCOPES),
        category=rng.choice(("profile", "preferences", "entities", "events", "cases")),
        text=f"memory {n}",
        importance=rng.choice([0.2, 0.5, 0.7, 0.7, rng.random()]),
        confidence=rng.choice([1.0, 0.85, rng.random()]),
        tier=rng.choice(("core", "working", "peripheral")),
        pinned=rng.random() < 0.1,
        created_at=when,
        updated_at=rng.choice([when, None]),
    )


def changed_rows(rng: random.Random, live: dict[str, Memory], start: int) -> Batch:
    rows: list[Memory] = []
    deleted: list[str] = []
    for k in range(rng.randint(1, 4)):
        action = rng.random()
        if action < 0.4 or not live:
            rows.append(random_memory(rng, start + k))
            continue
        old = live[rng.choice(sorted(live))]
        if action < 0.6:
            rows.append(replace(old, importance=min(1.0, old.importance + 0.3)))  # reinforced
        elif action < 0.75:
            rows.append(replace(old, importance=old.importance / 3))  # decayed
        elif action < 0.85:
            rows.append(replace(old, status="superseded", superseded_by="m9999"))
        elif action < 0.92:
            rows.append(replace(old, pinned=not old.pinned))
        else:
            deleted.append(old.id)
    rows = [m for m in rows if m.id not in deleted]
    return Batch(memories=rows, deleted_memory_ids=deleted)


@settings(max_examples=examples(12), deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_patched_candidates_equal_a_fresh_read(seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="rn-cand-") as tmp:
        store = Store(Path(tmp) / "db.duckdb")
        first = [random_memory(rng, n) for n in range(rng.randint(0, 30))]
        store.write(Batch(memories=first))
        live = {m.id: m for m in first}
        cached = store.resume_memories(GROUPS, PER_GROUP)
        since = store.generation
        patched_some = False
        for step in range(12):
            batch = changed_rows(rng, live, 100 + 10 * step)
            store.write(batch)
            for m in batch.memories:
                live[m.id] = m
            for gone in batch.deleted_memory_ids:
                live.pop(gone, None)
            changed = store.changes_since(since)
            assert changed == {m.id for m in batch.memories} | set(batch.deleted_memory_ids)
            fresh = store.memories(sorted(changed))
            patched = patch_candidates(cached, fresh, changed, GROUPS, PER_GROUP)
            expected = store.resume_memories(GROUPS, PER_GROUP)
            if patched is not None:
                patched_some = True
                assert [m.id for m in patched] == [m.id for m in expected]
                assert patched == expected
            cached, since = expected, store.generation
        assert patched_some or not first
        store.close()


@settings(max_examples=examples(300), deadline=None)
@given(st.floats(0, 1), st.floats(0, 1))
def test_round6_is_duckdbs_round(importance: float, confidence: float) -> None:
    product = importance * confidence
    (duck,) = duckdb.sql(f"SELECT round({product!r}::DOUBLE, 6)").fetchone()  # type: ignore[misc]
    assert _round6(product) == duck


def test_round6_halves_go_away_from_zero() -> None:
    assert _round6(0.0000005) == duckdb.sql("SELECT round(0.0000005::DOUBLE, 6)").fetchone()[0]  # type: ignore[index]
    assert _round6(2.5e-6) == 3e-6


def test_changes_since_is_unknown_after_anything_but_the_memory_write_path(
    store: Store,
) -> None:
    store.write(Batch(memories=[Memory(id="a", scope=GLOBAL_SCOPE, category="profile", text="a")]))
    before = store.generation
    assert store.changes_since(before) == frozenset()
    store.write(Batch(memories=[Memory(id="b", scope=GLOBAL_SCOPE, category="profile", text="b")]))
    assert store.changes_since(before) == {"b"}
    store.write_checkpoint("cp", "s1", "claude", "/p", T0, "manual", "{}")
    assert store.changes_since(before) is None  # a checkpoint: read everything again
    assert store.changes_since(store.generation) == frozenset()
    assert store.changes_since(-5) is None  # older than the log reaches


def count_resume_reads(engine: Engine) -> list[int]:
    """One entry per group read of the resume's candidates from now on (not a patch)."""
    reads: list[int] = []
    real = engine.store.resume_memories

    def counted(*args: object, **kwargs: object) -> list[Memory]:
        reads.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    engine.store.resume_memories = counted  # type: ignore[method-assign]
    return reads


def test_the_service_patches_after_a_capture_and_shows_what_a_fresh_one_shows(
    engine: Engine,
) -> None:
    for n in range(8):
        engine.remember(f"The staging host number {n} is heron-{n}", scope="/p/one")
    service = engine.continuity
    first = service.resume("/p/one", "claude", "startup", "s1", now=NOW)
    reads = count_resume_reads(engine)
    engine.remember("We deploy the api with make ship, never by hand", scope="/p/one")
    patched = service.resume("/p/one", "claude", "startup", "s2", now=NOW)
    assert reads == []  # patched from the one row written, not read again
    fresh = Continuity(engine).resume("/p/one", "claude", "startup", "s2", now=NOW)
    assert patched == fresh
    assert patched != first


def test_undo_and_history_rows_leave_the_changes_describable(store: Store) -> None:
    """An automatic change (retier, consolidation) writes its undo entry and history beside
    the memory rows: those rows are no resume's input, so the change stays described by
    the ids it wrote (decision 0038: maintenance in a quiet spell made every cached resume
    read again whole, and the first session start after it paid for it)."""
    store.write(Batch(memories=[Memory(id="a", scope=GLOBAL_SCOPE, category="profile", text="a")]))
    before = store.generation
    undo_id = store.add_undo("retier", ["a"], "[]", "[]", "{}", T0)
    store.write(Batch(memories=[Memory(id="a", scope=GLOBAL_SCOPE, category="profile", text="a")]))
    store.add_memory_events([(T0, "retier", "a", None, undo_id)])
    assert store.generation > before
    assert store.changes_since(before) == {"a"}


def test_the_service_patches_after_a_retier_and_shows_what_a_fresh_one_shows(
    engine: Engine,
) -> None:
    for n in range(8):
        engine.remember(f"The staging host number {n} is heron-{n}", scope="/p/one")
    service = engine.continuity
    service.resume("/p/one", "claude", "startup", "s1", now=NOW)
    reads = count_resume_reads(engine)
    held = engine.store.find_memories({"scope": "/p/one"})
    promoted = [replace(m, tier="core") for m in held[:2] if m.tier != "core"]
    assert promoted
    applied = engine.maintenance._apply("retier", held[:2], promoted, NOW)
    assert applied.changed == len(promoted)
    patched = service.resume("/p/one", "claude", "startup", "s2", now=NOW)
    assert reads == []  # patched from the rows the retier wrote
    fresh = Continuity(engine).resume("/p/one", "claude", "startup", "s2", now=NOW)
    assert patched == fresh


def test_many_changed_memories_are_read_whole_not_patched(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past PATCH_MAX_IDS changed ids the by-id read costs more than the group reads."""
    monkeypatch.setattr(service_module, "PATCH_MAX_IDS", 3)
    engine.remember("The staging host is heron", scope="/p/one")
    service = engine.continuity
    service.resume("/p/one", "claude", "startup", "s1", now=NOW)
    reads = count_resume_reads(engine)
    for n in range(4):
        engine.remember(f"The build host number {n} is egret-{n}", scope="/p/one")
    got = service.resume("/p/one", "claude", "startup", "s2", now=NOW)
    assert reads == [1]
    assert got == Continuity(engine).resume("/p/one", "claude", "startup", "s2", now=NOW)

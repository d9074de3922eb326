"""Decay, tiers, conversation time, read counting, expiry and the maintenance scheduler
(issue 7)."""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from recallnest.capture.admission import keyword_tokens
from recallnest.core.errors import StoreError
from recallnest.core.models import Memory, Turn
from recallnest.engine import Engine
from recallnest.lifecycle.decay import (
    DEMOTE_BELOW,
    PROMOTE_AT,
    TIER_FLOORS,
    AccessTracker,
    Clocks,
    ConversationClock,
    decay_score,
    expired,
    half_life_days,
    memory_from_json,
    memory_to_json,
    retier,
)
from recallnest.lifecycle.scheduler import IDLE_SECONDS, INTERVALS, Maintenance
from recallnest.store import Batch

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def mem(mem_id: str = "m", **kw: object) -> Memory:
    fields: dict[str, object] = {
        "id": mem_id,
        "scope": "global",
        "category": "preferences",
        "text": f"memory {mem_id}",
        "importance": 0.5,
        "created_at": T0,
        "updated_at": T0,
    }
    fields.update(kw)
    return Memory(**fields)  # type: ignore[arg-type]


def at(days: float) -> datetime:
    return T0 + timedelta(days=days)


# ---- decay ---------------------------------------------------------------------------------------


def test_decay_is_one_at_creation_and_falls_with_age() -> None:
    m = mem()
    scores = [decay_score(m, at(d)) for d in (0, 10, 100, 1000)]
    assert scores[0] == pytest.approx(1.0)
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] < DEMOTE_BELOW


def test_half_life_halves_what_is_above_the_floor() -> None:
    m = mem()
    floor = TIER_FLOORS["working"]
    score = decay_score(m, at(half_life_days(m)))
    assert score == pytest.approx(floor + (1 - floor) * 0.5)


def test_importance_and_reads_and_restatements_slow_decay() -> None:
    base = mem()
    day = at(200)
    assert decay_score(replace(base, importance=0.9), day) > decay_score(base, day)
    assert decay_score(replace(base, importance=0.1), day) < decay_score(base, day)
    assert decay_score(replace(base, access_count=5), day) > decay_score(base, day)
    assert decay_score(replace(base, evidence=("a", "b", "c")), day) > decay_score(base, day)


def test_events_fade_faster_than_preferences() -> None:
    day = at(90)
    assert decay_score(mem(category="events"), day) < decay_score(mem(), day)


def test_pinned_never_decays_and_core_never_fades_out() -> None:
    decade = at(3650)
    assert decay_score(mem(pinned=True), decade) == 1.0
    core = decay_score(mem(tier="core", importance=0.1), decade)
    assert core >= TIER_FLOORS["core"] > PROMOTE_AT


def test_a_read_restarts_the_age() -> None:
    m = mem(last_accessed_at=at(500))
    assert decay_score(m, at(500)) == pytest.approx(1.0)


# ---- conversation time ---------------------------------------------------------------------------


def test_conversation_clock_counts_only_days_with_conversation() -> None:
    clock = ConversationClock.of([date(2026, 1, 2), date(2026, 1, 3), date(2026, 6, 1)])
    assert clock.elapsed(T0, at(1)) == 1.0
    assert clock.elapsed(T0, at(300)) == 3.0
    assert clock.elapsed(at(10), at(100)) == 0.0


def test_no_conversation_means_no_decay() -> None:
    idle = ConversationClock()
    assert decay_score(mem(), at(365), idle) == pytest.approx(1.0)
    busy = ConversationClock.of(T0.date() + timedelta(days=d) for d in range(1, 366))
    assert decay_score(mem(), at(365), busy) == pytest.approx(decay_score(mem(), at(365)))


def test_clocks_per_project_fall_back_to_global() -> None:
    clocks = Clocks({"/p": [date(2026, 1, 5)], "/q": [date(2026, 2, 1), date(2026, 2, 2)]})
    assert clocks.for_scope("/p").elapsed(T0, at(60)) == 1.0
    assert clocks.for_scope("global").elapsed(T0, at(60)) == 3.0
    assert clocks.for_scope("/unknown") is clocks.global_clock


# ---- tiers ---------------------------------------------------------------------------------------


def test_retier_demotes_faded_and_promotes_reinforced() -> None:
    faded = mem("faded", category="events")
    fresh = mem("fresh", updated_at=at(999))
    read_again = mem("back", tier="peripheral", last_accessed_at=at(999))
    still_faded = mem("low", tier="peripheral", category="events")
    changed = {m.id: m.tier for m in retier([faded, fresh, read_again, still_faded], at(1000))}
    assert changed == {"faded": "peripheral", "back": "working"}


def test_retier_has_hysteresis() -> None:
    m = mem()
    # An age where the score sits between the two thresholds: no tier changes either way.
    day = next(d for d in range(1, 5000) if decay_score(m, at(d)) < PROMOTE_AT)
    assert DEMOTE_BELOW <= decay_score(m, at(day)) < PROMOTE_AT
    assert retier([m, replace(m, id="p", tier="peripheral")], at(day)) == []


def test_retier_never_touches_pinned_core_or_inactive() -> None:
    old = dict(category="events", importance=0.1)
    keep = [
        mem("pinned", pinned=True, **old),
        mem("core", tier="core", **old),
        mem("gone", status="superseded", **old),
        mem("archived", status="archived", **old),
    ]
    assert retier(keep, at(5000)) == []


def test_expired_archives_only_active_memories_past_their_date() -> None:
    rows = [
        mem("past", valid_until=at(1)),
        mem("future", valid_until=at(30)),
        mem("never"),
        mem("done", status="superseded", valid_until=at(1)),
    ]
    out = expired(rows, at(2))
    assert [(m.id, m.status) for m in out] == [("past", "archived")]


# ---- reads ---------------------------------------------------------------------------------------


def test_access_tracker_counts_in_memory_and_drains_once() -> None:
    tracker = AccessTracker()
    tracker.record(["a", "b", "a"], at(1))  # one read of a per call
    tracker.record(["a"], at(3))
    assert tracker.drain() == {"a": (2, at(3)), "b": (1, at(1))}
    assert tracker.drain() == {}
    tracker.record(["a"], at(5))
    tracker.restore({"a": (2, at(3))})
    assert tracker.drain() == {"a": (3, at(5))}


def test_reads_are_written_only_when_flushed(engine: Engine) -> None:
    engine.apply(Batch(memories=[mem("a"), mem("b")]))
    engine.record_access(["a", "b"], at(1))
    engine.record_access(["a"], at(2))
    assert engine.store.memories(["a"])[0].access_count == 0  # no write per read
    assert engine.maintenance.flush_access() == 2
    a, b = engine.store.memories(["a", "b"])
    assert (a.access_count, a.last_accessed_at) == (2, at(2))
    assert (b.access_count, b.last_accessed_at) == (1, at(1))
    assert engine.maintenance.flush_access() == 0


def test_failed_flush_keeps_the_counts(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    engine.record_access(["a"], at(1))

    def broken(counts: object) -> int:
        raise StoreError("disk full")

    monkeypatch.setattr(engine.store, "bump_access", broken)
    with pytest.raises(StoreError):
        engine.maintenance.flush_access()
    assert len(engine.maintenance.access) == 1


# ---- exact row codec -----------------------------------------------------------------------------


def test_memory_json_round_trip_is_exact() -> None:
    m = mem(
        evidence=("t1", "t2"),
        importance=0.123456789,
        last_accessed_at=datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC),
        valid_until=at(9),
        pinned=True,
        subject="editor",
        superseded_by="x",
    )
    assert memory_from_json(memory_to_json(m)) == m


# ---- maintenance over an engine ------------------------------------------------------------------


def test_expire_archives_hides_from_resume_and_undoes(engine: Engine) -> None:
    engine.apply(Batch(memories=[mem("old", text="I prefer tabs over spaces", valid_until=at(1))]))
    before = engine.store.memories(["old"])
    shown = engine.continuity.resume("/tmp", "claude", record=False, now=at(0))
    assert "tabs" in shown.text
    result = engine.maintenance.expire(at(2))
    assert result.changed == 1
    assert engine.store.memories(["old"])[0].status == "archived"
    context = engine.continuity.resume("/tmp", "claude", record=False, now=at(2))
    assert "tabs" not in context.text
    engine.maintenance.undo(kind="expire")
    assert engine.store.memories(["old"]) == before


def test_retier_through_maintenance_is_undoable(engine: Engine) -> None:
    rows = [mem("e", category="events"), mem("p", category="events", pinned=True)]
    engine.apply(Batch(memories=rows))
    before = engine.store.find_memories({})
    result = engine.maintenance.retier(at(3000))  # no turns: calendar days would not apply
    assert result.changed == 0  # no conversation recorded, so no time has passed
    turns = [
        Turn("claude", "s", "user", f"hi {d}", at(d), "/t", f"r{d}", d, project="/p")
        for d in range(1, 400)
    ]
    engine.apply(Batch(turns=turns))
    result = engine.maintenance.retier(at(400))
    assert result.changed == 1
    tiers = {m.id: m.tier for m in engine.store.find_memories({})}
    assert tiers == {"e": "peripheral", "p": "working"}
    engine.maintenance.undo(kind="retier")
    assert engine.store.find_memories({}) == before


def test_retier_holds_one_batch_of_memories_at_a_time(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decision 0032: retier over the whole store read every memory at once (+139 MiB of
    Memory objects at 100k memories); it reads them a batch at a time and decides the same."""
    from recallnest.lifecycle import scheduler
    from recallnest.store import lifecycle as store_lifecycle

    rows = [mem(f"e{k:03d}", category="events") for k in range(23)]
    rows += [mem("p", category="events", pinned=True)]
    engine.apply(Batch(memories=rows))
    turns = [
        Turn("claude", "s", "user", f"hi {d}", at(d), "/t", f"r{d}", d, project="/p")
        for d in range(1, 400)
    ]
    engine.apply(Batch(turns=turns))
    seen: list[int] = []
    whole = scheduler.retier

    def spy(memories: list[Memory], now: datetime, clocks: object) -> list[Memory]:
        seen.append(len(memories))
        return whole(memories, now, clocks)  # type: ignore[arg-type]

    monkeypatch.setattr(scheduler, "retier", spy)
    monkeypatch.setattr(store_lifecycle, "MEMORY_BATCH", 5)
    result = engine.maintenance.retier(at(400))
    assert seen == [5, 5, 5, 5, 4]
    assert result.changed == 23
    tiers = {m.id: m.tier for m in engine.store.find_memories({})}
    assert tiers == {**{r.id: "peripheral" for r in rows[:-1]}, "p": "working"}


class _FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_scheduler_flushes_always_and_runs_tasks_only_when_idle(engine: Engine) -> None:
    clock = _FakeClock()
    m = Maintenance(engine, monotonic=clock)
    assert m.tick(idle=False) == ["flush_access"]
    clock.now += 1
    assert m.tick(idle=True) == []  # idle, but not for IDLE_SECONDS yet
    clock.now += IDLE_SECONDS
    ran, step = [], m.tick(idle=True)
    while step:  # sliced tasks take one slice a tick, the others wait for them
        ran += step
        step = m.tick(idle=True)
    assert set(ran) >= {"expire", "retier", "consolidate", "retention", "prune_undo", "compact"}
    clock.now += 1
    assert m.tick(idle=True) == []  # every task waits for its interval
    clock.now += INTERVALS["expire"]
    assert "expire" in m.tick(idle=True)


def test_the_scheduler_gives_memory_back_once_when_quiet_after_work(engine: Engine) -> None:
    """Decision 0027: after work (turns, requests) and IDLE_SECONDS of quiet, the engine's
    release runs once (the memo caches the work filled are dropped; DuckDB's eviction is
    tests/store/test_memory.py's); not again while nothing happens."""
    clock = _FakeClock()
    m = Maintenance(engine, monotonic=clock)
    clock.now += IDLE_SECONDS + 1
    while m.tick(idle=True):  # every task once, so none is due below
        pass
    keyword_tokens("the deploy script retries three times")
    m.note_request()  # a search: work
    clock.now += 1
    assert m.tick(idle=True) == []  # not quiet yet: nothing released
    assert keyword_tokens.cache_info().currsize > 0
    clock.now += IDLE_SECONDS
    assert m.tick(idle=True) == []  # quiet: released, though no task was due
    assert keyword_tokens.cache_info().currsize == 0
    keyword_tokens("the deploy script retries three times")
    clock.now += 5
    m.tick(idle=True)
    assert keyword_tokens.cache_info().currsize == 1  # no work since: nothing dropped again


def test_counted_reads_flushed_or_work_noted_are_released_once_quiet(engine: Engine) -> None:
    """The read counts' UPDATE and the daemon's own work (checkpoints, a backup) read blocks
    back in after a release: one more release follows (decision 0027)."""
    clock = _FakeClock()
    m = Maintenance(engine, monotonic=clock)
    clock.now += IDLE_SECONDS + 1
    while m.tick(idle=True):
        pass
    mem = engine.remember("the deploy script retries three times")
    m.access.record([mem.id], T0)
    clock.now += 61  # flush_access is due: it writes the count, then the release follows
    keyword_tokens("the deploy script retries three times")
    assert m.tick(idle=True) == ["flush_access"]
    assert keyword_tokens.cache_info().currsize == 0
    keyword_tokens("the deploy script retries three times")
    m.note_work()
    clock.now += 1
    m.tick(idle=True)
    assert keyword_tokens.cache_info().currsize == 0


def test_scheduler_logs_task_failures_and_goes_on(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    clock = _FakeClock()
    m = Maintenance(engine, monotonic=clock)
    m.tick(idle=True)
    clock.now += IDLE_SECONDS + 1

    def broken(now: datetime | None = None) -> dict[str, object]:
        raise StoreError("damaged block")

    monkeypatch.setattr(m, "expire", broken)
    with caplog.at_level(logging.WARNING):
        ran = m.tick(idle=True)
    assert "expire" not in ran and "retier" in ran
    assert "damaged block" in caplog.text


def test_decay_parameters_are_sane() -> None:
    # A typical preference, never read again, is still working after a year of daily use
    # (~200 conversation days), and demoted after about two.
    m = mem()
    clock = ConversationClock(tuple(range(T0.toordinal() + 1, T0.toordinal() + 501)))
    assert decay_score(m, at(200), clock) >= DEMOTE_BELOW
    assert decay_score(m, at(500), clock) < DEMOTE_BELOW
    assert math.isclose(decay_score(m, at(0), clock), 1.0)

"""Retention of raw turns and compaction of the database file (issue 7)."""

from __future__ import annotations

import os
import stat
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recallnest.core.models import Memory, Turn
from recallnest.engine import Engine, SearchRequest
from recallnest.lifecycle.reports import Retention, SizeReport
from recallnest.lifecycle.retention import (
    RetentionPolicy,
    apply_retention,
    needs_compaction,
    size_report,
)
from recallnest.store import Batch, Store

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def turns(n: int, session: str = "s", project: str = "/p", start: datetime = T0) -> list[Turn]:
    return [
        Turn(
            "claude",
            session,
            "user",
            f"turn {k} of {session}: the deploy pipeline step {k} writes build artefacts "
            f"under /var/cache/{session}/{k} and ships them to the staging bucket",
            start + timedelta(hours=k),
            f"/t/{session}.jsonl",
            f"{session}-{k}",
            k,
            project=project,
        )
        for k in range(n)
    ]


def count(store: Store, table: str) -> int:
    row = store._cur().execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


# ---- compaction ----------------------------------------------------------------------------------


def test_compact_keeps_every_row_and_returns_the_space(engine: Engine) -> None:
    store = engine.store
    engine.apply(Batch(turns=turns(3000)))
    engine.apply(Batch(memories=[Memory("m1", "global", "entities", "the staging bucket")]))
    doomed = [t.id for t in turns(3000)[:2700]]
    engine.apply(Batch(retracted_turn_ids=doomed))
    before_counts = store.counts()
    report = size_report(store)
    assert report.file_bytes > report.live_bytes

    result = engine.compact_store()
    assert result.after_bytes < result.before_bytes
    assert store.counts() == before_counts
    assert not Path(f"{store.path}.wal").exists()
    assert not Path(f"{store.path}.compact").exists()
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    after = size_report(store)
    assert after.file_bytes <= 1.5 * after.live_bytes

    # The store works on the new file: new rows get fresh doc numbers, search still answers.
    docs = store._cur().execute("SELECT max(doc) FROM turns").fetchone()
    engine.apply(Batch(turns=turns(5, session="later")))
    fresh = store._cur().execute("SELECT min(doc) FROM turns WHERE session_id = 'later'")
    row = fresh.fetchone()
    assert docs is not None and row is not None and row[0] > docs[0]
    assert engine.search(SearchRequest("staging bucket", limit=3))


def test_cursors_of_other_threads_are_renewed(engine: Engine) -> None:
    engine.apply(Batch(turns=turns(10)))
    seen: list[int] = []
    ready, go, done = threading.Event(), threading.Event(), threading.Event()

    def reader() -> None:
        seen.append(engine.store.counts()["turns"])  # this thread's cursor is created here
        ready.set()
        go.wait(60)
        seen.append(engine.store.counts()["turns"])  # after the swap: a new cursor
        done.set()

    thread = threading.Thread(target=reader)
    thread.start()
    ready.wait(60)
    engine.compact_store()
    go.set()
    done.wait(60)
    thread.join(60)
    assert seen == [10, 10]


def test_live_estimate_is_close_to_a_fresh_copy(engine: Engine) -> None:
    engine.apply(Batch(turns=turns(3000)))
    engine.apply(Batch(retracted_turn_ids=[t.id for t in turns(3000)[::2]]))
    estimate = size_report(engine.store).live_bytes
    engine.compact_store()
    actual = engine.store.path.stat().st_size
    assert 0.7 * actual <= estimate <= 1.3 * actual


def test_needs_compaction_wants_ratio_and_slack() -> None:
    mb = 1024 * 1024
    assert needs_compaction(SizeReport(100 * mb, 40 * mb, 2.5))
    assert not needs_compaction(SizeReport(70 * mb, 40 * mb, 1.75))
    assert not needs_compaction(SizeReport(6 * mb, 2 * mb, 3.0))  # not worth it


def test_compaction_asked_from_another_thread_runs_on_the_ticking_thread(
    engine: Engine,
) -> None:
    maintenance = engine.maintenance
    ran_on: list[int] = []
    real = engine.compact_store

    def spy() -> dict[str, object]:
        ran_on.append(threading.get_ident())
        return real()

    engine.compact_store = spy  # type: ignore[method-assign]
    stop = threading.Event()

    def loop() -> None:  # stands in for the daemon's ingest loop
        while not stop.is_set():
            maintenance.tick(idle=False)
            stop.wait(0.05)

    ticker = threading.Thread(target=loop)
    ticker.start()
    try:
        while maintenance._tick_thread is None:
            stop.wait(0.01)
        result = maintenance.compact(if_needed=False)
    finally:
        stop.set()
        ticker.join(60)
    assert result.compacted is True
    assert ran_on == [ticker.ident]


# ---- retention -----------------------------------------------------------------------------------


def test_retention_by_age_keeps_evidence_ids_and_the_clock(engine: Engine) -> None:
    rows = turns(48)  # two days, one turn an hour
    engine.apply(Batch(turns=rows))
    evidence = (rows[0].id, rows[47].id)
    engine.apply(
        Batch(memories=[Memory("m", "/p", "entities", "the staging bucket", evidence=evidence)])
    )
    now = T0 + timedelta(days=2, hours=12)
    result = apply_retention(engine, RetentionPolicy(max_age_days=1), now)
    assert result.turns == 36
    assert count(engine.store, "turns") == 12
    assert engine.store.memories(["m"])[0].evidence == evidence
    assert len(engine.store.activity_days()["/p"]) == 3  # recorded before the delete
    hits = engine.search(SearchRequest("deploy pipeline", kind="turns", limit=100))
    assert len(hits) == 12


def test_retention_by_count_keeps_the_newest(engine: Engine) -> None:
    engine.apply(Batch(turns=turns(30)))
    apply_retention(engine, RetentionPolicy(max_turns=10), T0 + timedelta(days=5))
    kept = engine.store.turn_ids_where()
    assert sorted(kept) == sorted(t.id for t in turns(30)[20:])


def test_no_policy_deletes_nothing(engine: Engine) -> None:
    engine.apply(Batch(turns=turns(5)))
    assert apply_retention(engine, RetentionPolicy(), T0 + timedelta(days=9999)) == Retention(0, 0)


@pytest.mark.parametrize("flag", [["--retention-days", "1"], ["--max-turns", "2"]])
def test_maintain_applies_explicit_retention(cli, flag: list[str]) -> None:  # type: ignore[no-untyped-def]
    from recallnest.cli import cli as group
    from recallnest.cli.lifecycle import register
    from recallnest.core.config import Settings

    register(group)
    engine = Engine.open(Settings.load())
    try:
        engine.apply(Batch(turns=turns(5)))
    finally:
        engine.close()
    result = cli(["maintain", *flag])
    assert result.exit_code == 0, result.output
    assert "turns dropped" in result.output and "turns dropped 0" not in result.output

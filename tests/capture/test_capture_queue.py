"""Queued capture (decision 0009): a large flush stores its turns at once and queues their
capture; draining the queue writes exactly the memories that capturing in the flush would have,
survives a crash, keeps conversation order, and never trusts a worker whose input changed."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.paths import ROOT

from recallnest import engine as engine_module
from recallnest.capture import worker as capture_worker
from recallnest.core.config import Settings
from recallnest.core.models import Turn
from recallnest.engine import Engine
from recallnest.server.daemon import Daemon
from recallnest.store import Batch

CASES = ROOT / "eval" / "capture" / "cases.jsonl"
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
# Small enough for a test, large enough for worker processes (CAPTURE_JOB_MIN) to take part.
GROUP = 120


def corpus_turns(n: int, first: int = 0) -> list[Turn]:
    """`n` turns of labelled capture-eval text (EN and ZH, captures and negatives), in
    sessions of 20, so real capture rules fire."""
    texts = [json.loads(line) for line in CASES.read_text().splitlines()]
    return [
        Turn(
            agent="claude",
            session_id=f"s{k // 20}",
            role=texts[k % len(texts)]["role"],
            text=texts[k % len(texts)]["text"],
            timestamp=T0 + timedelta(minutes=k),
            path=f"/t/s{k // 20}.jsonl",
            record_id=f"r{k}",
            offset=k,
            project="/home/dev/app",
        )
        for k in range(first, first + n)
    ]


def snapshot(engine: Engine) -> list[tuple[str, ...]]:
    fields = ("id", "scope", "category", "text", "evidence", "status", "superseded_by",
              "importance", "confidence", "subject", "rule",
              "created_at", "updated_at")  # fmt: skip
    memories = engine.store.list_memories(status=None)
    return sorted(tuple(str(getattr(m, f)) for f in fields) for m in memories)


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Queue every flush of GROUP turns or more; start workers for groups of 50 or more."""
    monkeypatch.setattr(engine_module, "CAPTURE_LATER_MIN", GROUP)
    monkeypatch.setattr(engine_module, "CAPTURE_JOB_MIN", 50)


def inline_snapshot(tmp_path: Path, flushes: list[list[Turn]]) -> list[tuple[str, ...]]:
    """The memories of the same flushes captured in their own transactions (no queue)."""
    engine = Engine.open(Settings.load(flags={"home": str(tmp_path / "inline")}))
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(engine_module, "CAPTURE_LATER_MIN", 10**9)
            for turns in flushes:
                engine.ingest_batch(Batch(turns=list(turns)))
        assert not engine.capture_pending
        return snapshot(engine)
    finally:
        engine.close()


@pytest.fixture
def flushes() -> list[list[Turn]]:
    turns = corpus_turns(3 * GROUP + 40)
    return [
        turns[:GROUP],
        turns[GROUP : 2 * GROUP],
        turns[2 * GROUP : 3 * GROUP],
        turns[3 * GROUP :],
    ]


@pytest.mark.slow
def test_a_large_flush_queues_capture_and_the_drain_writes_the_same_memories(
    engine: Engine,
    flushes: list[list[Turn]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = inline_snapshot(tmp_path, flushes)
    assert len(expected) > 20  # the corpus really captures things
    monkeypatch.setattr(engine_module, "CAPTURE_LATER_MIN", GROUP)
    monkeypatch.setattr(engine_module, "CAPTURE_JOB_MIN", 50)
    for turns in flushes:
        engine.ingest_batch(Batch(turns=list(turns)))
    # Every turn is stored and searchable; no memory yet, and the small last flush queued
    # behind the others (conversation order).
    assert engine.store.counts()["turns"] == sum(map(len, flushes))
    assert snapshot(engine) == []
    assert engine.store.queued_capture_count() == sum(map(len, flushes))
    assert engine.capture_pending
    assert engine.drain_capture() == sum(map(len, flushes))
    assert not engine.capture_pending and engine.store.queued_capture_count() == 0
    assert snapshot(engine) == expected
    assert engine.drain_capture() == 0


@pytest.mark.slow
def test_the_queue_survives_a_crash_and_later_flushes_wait_behind_it(
    settings: Settings,
    flushes: list[list[Turn]],
    tmp_path: Path,
    small_groups: None,
) -> None:
    expected = inline_snapshot(tmp_path, flushes)
    engine = Engine.open(settings)
    engine.ingest_batch(Batch(turns=list(flushes[0])))
    engine.ingest_batch(Batch(turns=list(flushes[1])))
    engine.close()  # as after a kill: the queue is in the database, the workers are gone
    engine = Engine.open(settings)
    try:
        assert engine.capture_pending
        engine.ingest_batch(Batch(turns=list(flushes[2])))
        engine.ingest_batch(Batch(turns=list(flushes[3])))  # small, but queued in order
        assert snapshot(engine) == []
        engine.drain_capture()
        assert snapshot(engine) == expected
    finally:
        engine.close()


@pytest.mark.slow
def test_a_drain_stops_when_asked_and_resumes(
    engine: Engine, flushes: list[list[Turn]], small_groups: None
) -> None:
    for turns in flushes[:3]:
        engine.ingest_batch(Batch(turns=list(turns)))
    calls: list[tuple[int, int]] = []
    done = engine.drain_capture(stop=lambda: bool(calls), on_progress=lambda *a: calls.append(a))
    assert done == GROUP
    assert calls == [(GROUP, 3 * GROUP)]
    assert engine.store.queued_capture_count() == 2 * GROUP
    assert engine.drain_capture() == 2 * GROUP


@pytest.mark.slow
def test_a_turn_changed_while_queued_is_captured_once_from_its_new_text(
    engine: Engine, small_groups: None
) -> None:
    turns = corpus_turns(GROUP)
    turns[5] = Turn(
        **{**_fields(turns[5]), "text": "I always use okapifmt, never black, for this repo"}
    )
    engine.ingest_batch(Batch(turns=turns))
    changed = Turn(
        **{**_fields(turns[5]), "text": "I always use quaggafmt, never black, for this repo"}
    )
    engine.ingest_batch(Batch(turns=[changed]))
    assert engine.store.queued_capture_count() == GROUP  # moved to the newer group, not doubled
    engine.drain_capture()
    texts = [m.text for m in engine.store.list_memories(status=None)]
    assert any("quaggafmt" in t for t in texts)
    assert not any("okapifmt" in t for t in texts)


@pytest.mark.slow
def test_a_failing_worker_is_redone_in_process(
    engine: Engine,
    flushes: list[list[Turn]],
    tmp_path: Path,
    small_groups: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = inline_snapshot(tmp_path, flushes)
    monkeypatch.setattr(capture_worker.sys, "executable", "/bin/false")
    for turns in flushes:
        engine.ingest_batch(Batch(turns=list(turns)))
    engine.drain_capture()
    assert snapshot(engine) == expected


@pytest.mark.slow
def test_a_deleted_queued_turn_is_skipped(engine: Engine, small_groups: None) -> None:
    turns = corpus_turns(GROUP)
    engine.ingest_batch(Batch(turns=turns))
    engine.ingest_batch(Batch(retracted_turn_ids=[t.id for t in turns]))
    assert engine.drain_capture() == 1  # the group is taken off the queue, with no turns
    assert snapshot(engine) == [] and not engine.capture_pending


@pytest.mark.slow
def test_a_backfill_reports_its_store_and_capture_phases(
    settings: Settings, small_groups: None
) -> None:
    from recallnest.server.control import backfill

    root = settings.claude_dir / "projects" / "-home-dev-app"
    root.mkdir(parents=True)
    for session in range(8):
        lines = [
            json.dumps(
                {
                    "type": t.role,
                    "uuid": f"u{session}-{t.record_id}",
                    "sessionId": f"sess-{session}",
                    "timestamp": t.timestamp.isoformat() if t.timestamp else None,
                    "cwd": "/home/dev/app",
                    "message": {"role": t.role, "content": t.text},
                }
            )
            for t in corpus_turns(40, first=40 * session)
        ]
        (root / f"sess-{session}.jsonl").write_text("\n".join(lines) + "\n")
    progress: list[tuple[int, int]] = []
    done = backfill(settings, None, [], None, on_capture=lambda d, t: progress.append((d, t)))
    report = done.backfill
    assert report.new_turns > 300 and report.memories > 10  # a few texts are filtered
    assert report.store_seconds >= 0 and report.capture_seconds >= 0
    assert progress[-1] == (report.new_turns, report.new_turns)
    engine = Engine.open(settings)
    try:
        assert not engine.capture_pending and len(snapshot(engine)) == report.memories
    finally:
        engine.close()


@pytest.mark.slow
def test_the_daemon_drains_a_queue_left_by_a_crash(
    settings: Settings, flushes: list[list[Turn]], tmp_path: Path, small_groups: None
) -> None:
    expected = inline_snapshot(tmp_path, flushes)
    engine = Engine.open(settings)
    for turns in flushes:
        engine.ingest_batch(Batch(turns=list(turns)))
    engine.close()
    d = Daemon(settings, Engine.open(settings))
    d.start()
    try:
        deadline = time.monotonic() + 60
        while d.engine.capture_pending and time.monotonic() < deadline:
            time.sleep(0.05)
        assert snapshot(d.engine) == expected
    finally:
        d.stop()


def _fields(turn: Turn) -> dict[str, object]:
    return {name: getattr(turn, name) for name in Turn.__dataclass_fields__}


@pytest.mark.slow
def test_the_daemon_captures_a_group_per_pass_even_while_lines_keep_coming(
    settings: Settings, flushes: list[list[Turn]], small_groups: None
) -> None:
    engine = Engine.open(settings)
    for turns in flushes[:3]:
        engine.ingest_batch(Batch(turns=list(turns)))
    d = Daemon(settings, engine)  # not started: its loop's steps are called by hand
    try:
        d.paths.put("/somewhere/new.jsonl")  # new lines wait: no more than one group
        d._capture_step()
        assert engine.store.queued_capture_count() == 2 * GROUP
        d.paths.get_nowait()
        d._capture_step()  # nothing waits: the rest
        assert not engine.capture_pending
    finally:
        d.stop()  # closes the engine


@pytest.mark.slow
def test_two_threads_draining_at_once_admit_each_group_once(
    engine: Engine, flushes: list[list[Turn]], tmp_path: Path, small_groups: None
) -> None:
    expected = inline_snapshot(tmp_path, flushes)
    for turns in flushes:
        engine.ingest_batch(Batch(turns=list(turns)))
    done: list[int] = []
    threads = [threading.Thread(target=lambda: done.append(engine.drain_capture())) for _ in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(done) == sum(map(len, flushes))  # every group captured by exactly one thread
    assert snapshot(engine) == expected

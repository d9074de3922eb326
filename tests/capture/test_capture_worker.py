"""Capture split across a child process: same captures, same order, and a failing child never
loses or changes anything (its share is captured in-process)."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from pathlib import Path

import pytest
from support.paths import ROOT

from recallnest.capture import worker as capture_worker
from recallnest.capture.admission import previous_turns
from recallnest.capture.heuristics import capture_turn
from recallnest.capture.worker import PARALLEL_MIN, capture_pairs
from recallnest.core.models import Turn

CASES = ROOT / "eval" / "capture" / "cases.jsonl"


def pairs(n: int) -> list[tuple[Turn, Turn | None]]:
    """`n` turns of labelled capture-eval text (EN and ZH, captures and negatives)."""
    texts = [json.loads(line) for line in CASES.read_text().splitlines()]
    turns = [
        Turn(
            agent="claude",
            session_id=f"s{k // 20}",
            role=texts[k % len(texts)]["role"],
            text=texts[k % len(texts)]["text"],
            timestamp=None,
            path="/tmp/t.jsonl",
            record_id=f"r{k}",
            offset=k,
            project="/home/dev/app" if k % 3 else None,
        )
        for k in range(n)
    ]
    return list(zip(turns, previous_turns(turns), strict=True))


def inline(batch: list[tuple[Turn, Turn | None]]) -> list[list[object]]:
    return [capture_turn(t, p, project=t.project) for t, p in batch]


@pytest.mark.slow
def test_a_large_batch_through_the_child_equals_capturing_in_process(
    caplog: pytest.LogCaptureFixture,
) -> None:
    batch = pairs(PARALLEL_MIN + 37)
    expected = inline(batch)
    assert sum(map(len, expected)) > 100  # the batch really captures things
    with caplog.at_level(logging.INFO, logger="recallnest.capture.worker"):
        assert capture_pairs(batch) == expected
    assert "in a child process" in caplog.text  # the child did its share: no fallback
    assert "failed" not in caplog.text


def test_a_small_batch_stays_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no child for a small batch")

    monkeypatch.setattr(capture_worker, "CaptureJob", refuse)
    batch = pairs(PARALLEL_MIN - 1)
    assert capture_pairs(batch) == inline(batch)


@pytest.mark.slow
@pytest.mark.parametrize(
    "executable", ["/nonexistent/python", "/bin/false"], ids=["cannot-start", "exits-nonzero"]
)
def test_a_failing_child_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, executable: str
) -> None:
    monkeypatch.setattr(capture_worker.sys, "executable", executable)
    batch = pairs(PARALLEL_MIN)
    with caplog.at_level(logging.WARNING, logger="recallnest.capture.worker"):
        assert capture_pairs(batch) == inline(batch)
    assert "capture worker failed" in caplog.text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("answer", "logged"),
    [
        ("sys.stdout.write('not a pickle')", "unreadable result"),
        ("sys.stdout.buffer.write(pickle.dumps([[]]))", "wrong length"),
    ],
)
def test_a_child_answering_garbage_is_not_trusted(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    answer: str,
    logged: str,
) -> None:
    fake = tmp_path / "python"
    code = f"import pickle, sys; sys.stdin.buffer.read(); {answer}"
    fake.write_text(f'#!/bin/sh\nexec {sys.executable} -c "{code}"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(capture_worker.sys, "executable", str(fake))
    batch = pairs(PARALLEL_MIN)
    with caplog.at_level(logging.WARNING, logger="recallnest.capture.worker"):
        assert capture_pairs(batch) == inline(batch)
    assert logged in caplog.text


def test_the_child_finds_this_package_without_putting_site_packages_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = Path(capture_worker.__file__).resolve().parent.parent
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setattr(capture_worker.site, "getsitepackages", lambda: ["/nowhere"])
    assert capture_worker._child_env()["PYTHONPATH"] == str(root)  # a source checkout
    monkeypatch.setattr(capture_worker.site, "getsitepackages", lambda: [str(root)])
    assert "PYTHONPATH" not in capture_worker._child_env()  # installed: found anyway


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_child_runs_at_the_lowest_priority() -> None:
    job = capture_worker.CaptureJob(pairs(4 * PARALLEL_MIN))
    assert job.proc is not None
    seen: set[int] = set()
    while not job.ready():
        with contextlib.suppress(OSError, IndexError):
            stat = Path(f"/proc/{job.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            seen.add(int(stat[16]))  # field 19 of stat: nice
        if capture_worker.WORKER_NICE in seen:
            break
        time.sleep(0.005)
    assert job.result() is not None
    assert capture_worker.WORKER_NICE in seen, seen

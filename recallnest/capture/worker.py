"""Capture on the second core: a child process runs `capture_turn` over part of a large batch.

Capture is pure and CPU-bound (regexes, ~0.5 ms a turn), and during a backfill it was the
largest single cost of a flush while the second core sat idle (bench_ingest --backfill
--profile; decision 0008). `capture_pairs` splits a large batch: a child interpreter running
this module captures the first part while the caller captures the rest, and the results come
back in order, identical to capturing everything in one process (`capture_turn` has no state).

The child is started per batch with the caller's interpreter and package path, reads pickled
`(turn, previous)` pairs on stdin and writes pickled capture lists on stdout; nothing else. If
it cannot start, fails or returns something unexpected, its part is captured in-process and a
warning is logged: a backfill is never lost or changed by the worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import site
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import Capture, Turn

log = logging.getLogger(__name__)

Pair = tuple[Turn, Turn | None]

# Below this many turns a batch is captured in-process: starting the child (~0.3 s, mostly
# compiling the capture regexes) would cost more than half the batch's capture time.
PARALLEL_MIN = 1_500
# The child's share is below half because it starts ~0.3 s after the caller.
CHILD_SHARE = 0.42
CHILD_TIMEOUT_S = 600.0
WORKER_NICE = 19


def capture_pairs(pairs: Sequence[Pair], parallel: bool = True) -> list[list[Capture]]:
    """`capture_turn(turn, previous, project=turn.project)` for each pair, in order."""
    if not parallel or len(pairs) < PARALLEL_MIN:
        return _capture_here(pairs)
    split = int(len(pairs) * CHILD_SHARE)
    child = CaptureJob(pairs[:split])
    rest = _capture_here(pairs[split:])
    first = child.result()
    if first is None:
        first = _capture_here(pairs[:split])
    else:
        log.info("captured %d of %d turns in a child process", split, len(pairs))
    return first + rest


def _capture_here(pairs: Sequence[Pair]) -> list[list[Capture]]:
    return [capture_turn(turn, previous, project=turn.project) for turn, previous in pairs]


class CaptureJob:
    """`capture_turn` over `pairs` in one worker process, fed in a background thread (the pipe
    is larger than its buffer). `result()` waits for it; None means redo the pairs here."""

    def __init__(self, pairs: Sequence[Pair]) -> None:
        self.count = len(pairs)
        self.out: bytes | None = None
        self.error: str | None = None
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", "recallnest.capture.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=_child_env(),
            )
        except OSError as exc:
            self.proc, self.error = None, f"could not start: {exc}"
            return
        payload = pickle.dumps(list(pairs), protocol=pickle.HIGHEST_PROTOCOL)
        self.thread = threading.Thread(target=self._talk, args=(payload,), daemon=True)
        self.thread.start()

    def _talk(self, payload: bytes) -> None:
        assert self.proc is not None
        try:
            out, err = self.proc.communicate(payload, timeout=CHILD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.proc.kill()
            self.error = f"{type(exc).__name__}: {exc}"
            return
        if self.proc.returncode != 0:
            self.error = f"exit {self.proc.returncode}: {err.decode(errors='replace')[-300:]}"
        else:
            self.out = out

    def ready(self) -> bool:
        """Whether `result()` would return without waiting."""
        return self.proc is None or not self.thread.is_alive()

    def cancel(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()

    def result(self) -> list[list[Capture]] | None:
        """The child's captures, or None (logged) when it must be redone in-process."""
        if self.proc is not None:
            self.thread.join()
        if self.out is not None:
            try:
                found = pickle.loads(self.out)
            except Exception as exc:  # a truncated or foreign stream: redo, never trust it
                self.error = f"unreadable result: {exc}"
            else:
                if isinstance(found, list) and len(found) == self.count:
                    return found
                self.error = "result of the wrong length"
        log.warning(
            "capture worker failed (%s); capturing its %d turns here", self.error, self.count
        )
        return None


def _child_env() -> dict[str, str]:
    # The child must import this very package, also when the caller put it on sys.path by hand
    # (a source checkout). An installed package is found anyway, and putting site-packages on
    # PYTHONPATH would rank it above the standard library.
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    installed = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if root not in installed:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    return env


def main() -> None:
    # Lowest priority: a worker takes only CPU that storing turns, DuckDB's threads, hooks and
    # the user's own programs leave idle (a 50k-turn backfill stored its turns ~8 % sooner;
    # decision 0009). Its result is waited for only once the turns are stored.
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICE)
    pairs = pickle.load(sys.stdin.buffer)
    sys.stdout.buffer.write(pickle.dumps(_capture_here(pairs), protocol=pickle.HIGHEST_PROTOCOL))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()

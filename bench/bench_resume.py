"""Session-start hook latency against the REAL daemon holding 100k memories and 100k turns.

    python bench/bench_resume.py [--quick] [-n RUNS]

Measures the installed `recallnest` console script run as a fresh process with a Claude
SessionStart payload on stdin (exactly what an agent runs), with the daemon up, and with the
daemon stopped (fail-open: exit 0, no output), plus the daemon-side `resume` op alone.
Targets (issue 5): p50 <= 60 ms and p95 <= 100 ms with the daemon; p95 <= 300 ms without.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    PROJECTS,
    bench_settings,
    fmt,
    load1,
    machine_line,
    make_memories,
    make_turns,
    median,
    note,
    p95,
    print_table,
)

from recallnest.server import protocol


def populate(home: Path, memories: int, turns: int) -> None:
    from recallnest.engine import Engine
    from recallnest.store import Batch

    engine = Engine.open(bench_settings(home))
    try:
        rows = make_memories(memories)
        for k in range(0, memories, 10_000):
            engine.apply(Batch(memories=rows[k : k + 10_000]))
        trows = make_turns(turns)
        for k in range(0, turns, 10_000):
            engine.apply(Batch(turns=trows[k : k + 10_000]))
    finally:
        engine.close()


def hook_runs(
    argv: list[str], env: dict[str, str], payload: str, runs: int, expect_output: bool
) -> tuple[list[float], int]:
    """(wall ms per run, runs whose output was not the expected kind). A hook over its budget
    prints the agent's empty form (fail-open): counted, not fatal."""
    times, misses = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run(argv, input=payload, capture_output=True, text=True, env=env)
        times.append((time.perf_counter() - t0) * 1000)
        if out.returncode != 0 or out.stderr:
            raise SystemExit(f"hook failed: {out!r}")
        misses += bool(out.stdout.strip()) != expect_output
    return times, misses


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", "--runs", type=int, default=60)
    parser.add_argument(
        "--script",
        help="the `recallnest` console script to time (default: the one on PATH); point it at "
        "a venv made with `pip install .` to measure what a user runs, without the editable "
        "install's import hook",
    )
    args = parser.parse_args()
    size = 5_000 if args.quick else 100_000
    runs = 8 if args.quick else args.runs
    script = args.script or shutil.which("recallnest")
    if script is None:
        raise SystemExit("the `recallnest` console script is not on PATH (pip install the repo)")
    note(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-resume-") as tmp_s:
        tmp = Path(tmp_s)
        home = tmp / "rn"
        t0 = time.perf_counter()
        populate(home, size, size)
        note(f"populated {size} memories + {size} turns in {time.perf_counter() - t0:.1f}s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER="none")
        payload = json.dumps(
            {
                "session_id": "bench",
                "cwd": PROJECTS[0],
                "source": "startup",
                "hook_event_name": "SessionStart",
            }
        )
        argv = [script, "hook", "session-start", "--agent", "claude"]
        subprocess.run([script, "daemon", "start"], env=env, check=True, capture_output=True)
        try:
            sock = str(home / protocol.SOCKET_NAME)
            op = []
            for _ in range(runs):
                t1 = time.perf_counter()
                protocol.request(
                    sock,
                    "resume",
                    {"cwd": PROJECTS[0], "agent": "claude", "source": "startup", "record": False},
                    10.0,
                )
                op.append((time.perf_counter() - t1) * 1000)
            up, up_miss = hook_runs(argv, env, payload, runs, expect_output=True)
        finally:
            subprocess.run([script, "daemon", "stop"], env=env, check=True, capture_output=True)
        down, down_miss = hook_runs(argv, env, payload, runs, expect_output=False)
        base, _ = hook_runs([sys.executable, "-c", "pass"], env, "", runs, expect_output=False)
    rows = [
        ["python -c pass (reference)", runs, fmt(median(base)), fmt(p95(base)), "-"],
        ["resume op in the daemon", runs, fmt(median(op)), fmt(p95(op)), "-"],
        [
            "hook, daemon up (installed script)",
            runs,
            fmt(median(up)),
            fmt(p95(up)),
            f"{up_miss} over budget (printed the empty form)",
        ],
        [
            "hook, daemon stopped (fail-open)",
            runs,
            fmt(median(down)),
            fmt(p95(down)),
            f"{down_miss} printed something",
        ],
    ]
    print_table(
        f"Session-start hook, {size} memories + {size} turns (load1 {load1():.2f})",
        ["what", "runs", "p50 ms", "p95 ms", "notes"],
        rows,
    )


if __name__ == "__main__":
    main()

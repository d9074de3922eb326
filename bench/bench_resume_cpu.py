"""The resume op's CPU time at 100k memories + 100k turns, after the daemon's quiet release
(issue 22): the op the session-start hook waits for, measured in-process with
`time.process_time`, so that another session's load on the machine changes the figure far less
than it changes wall time (which is printed too).

    python bench/bench_resume_cpu.py [--runs 40] [--keep DIR] [--embedder local]

The home is bench_footprint's (`--keep DIR` shares its homes); the engine opens a copy. Each
run releases memory as the idle daemon does (`Engine.release_memory`: DuckDB's blocks, the
memo caches) and resumes the next of the 20 projects. To compare two trees, run this file
from each with `PYTHONPATH=<tree>`, one after the other, twice.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_footprint import footprint_home, model_of
from common import PROJECTS, bench_settings, fmt, load1, machine_line, median, p95


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--keep", type=Path, default=None, help="share bench_footprint's homes")
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100_000)
    args = parser.parse_args()
    from recallnest.engine import Engine

    print(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-resume-cpu-") as tmp:
        built = footprint_home(
            args.keep, Path(tmp), args.memories, args.turns, model_of(args.embedder)
        )
        home = Path(tmp) / "copy"
        shutil.copytree(built, home)
        engine = Engine.open(bench_settings(home))
        try:
            _ = engine.index  # waits for the index load, as the daemon does before serving
            for project in PROJECTS:  # the first resume of each reads its checkpoint rows
                engine.continuity.resume(project, "claude", "startup", None, record=False)
            cpu: list[float] = []
            wall: list[float] = []
            for run in range(args.runs):
                engine.release_memory()
                c0, w0 = time.process_time(), time.perf_counter()
                engine.continuity.resume(
                    PROJECTS[run % len(PROJECTS)], "claude", "startup", None, record=False
                )
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
        finally:
            engine.close()
    print(f"resume after release, {args.runs} runs, load1 {load1():.2f} at the end")
    print(f"  cpu  ms p50 {fmt(median(cpu))}  p95 {fmt(p95(cpu))}")
    print(f"  wall ms p50 {fmt(median(wall))}  p95 {fmt(p95(wall))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

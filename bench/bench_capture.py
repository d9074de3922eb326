"""Capture latency per turn: median and p95 of `capture_turn` over the labelled set, repeated.

    python bench/bench_capture.py [--repeat 20] [--cases eval/capture/cases.jsonl] [--json]

Target: median <= 1 ms per turn (the daemon captures every turn in real time). Each timing is
one `capture_turn(turn, previous, project)` call, gate included; the first pass warms the regex
caches and is not timed. Wall-clock and thread CPU time are both reported: on a loaded machine
the wall-clock tail is mostly scheduler preemption, which CPU time leaves out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from recallnest.capture.heuristics import capture_turn
from recallnest.evaluation.capture import case_turns, load_jsonl

DEFAULT_CASES = Path(__file__).resolve().parents[1] / "eval" / "capture" / "cases.jsonl"
TARGET_MEDIAN_US = 1000.0


def bench(cases_path: Path, repeat: int) -> dict[str, float]:
    """Per-turn capture timings in microseconds over `repeat` passes of the labelled set."""
    turns = [case_turns(case) for case in load_jsonl(cases_path)]
    for turn, previous in turns:  # warm-up
        capture_turn(turn, previous, project="bench")
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        for turn, previous in turns:
            start_wall, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
            capture_turn(turn, previous, project="bench")
            cpu.append((time.thread_time_ns() - start_cpu) / 1000)
            wall.append((time.perf_counter_ns() - start_wall) / 1000)
    return {
        "turns": float(len(turns)),
        "samples": float(len(wall)),
        "mean_chars": round(statistics.mean(len(t.text) for t, _ in turns), 1),
        **_summary("wall", wall),
        **_summary("cpu", cpu),
    }


def _summary(name: str, samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        f"{name}_median_us": round(statistics.median(ordered), 1),
        f"{name}_p95_us": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        f"{name}_max_us": round(ordered[-1], 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_capture")
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = bench(args.cases, args.repeat)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"capture_turn over {int(result['turns'])} turns x {args.repeat}", end="")
        print(f" (target median <= {TARGET_MEDIAN_US:g} us)")
        for clock in ("wall", "cpu"):
            print(
                f"  {clock:<4} median {result[f'{clock}_median_us']} us, "
                f"p95 {result[f'{clock}_p95_us']} us, max {result[f'{clock}_max_us']} us"
            )
    return 0 if result["wall_median_us"] <= TARGET_MEDIAN_US else 1


if __name__ == "__main__":
    sys.exit(main())

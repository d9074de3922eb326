"""Batched writes: Store.write(Batch(...)) throughput, embedding excluded.

    python bench/bench_store.py [--quick] [--profile]

One file-backed store in a temp RECALLNEST_HOME. In order, each case repeated:
- new memories (50-300 chars) in batches of 1,000 and 10,000;
- new turns (150-600 chars) in batches of 1,000 and 10,000;
- upserts of existing memories and turns: same ids + same text, then same ids + changed text.
The tables grow as the run goes (the last 10k batch lands on a ~100k-row table). Data is
generated before the clock starts. DuckDB's automatic checkpoint (16 MiB of WAL) fires during
some commits; it is part of the cost and shows in the p95.

Target: >= 10,000 memories/s for new memories. `--profile` adds a cProfile of one 10k batch.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import pstats
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    TextGen,
    bench_home,
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

from recallnest.store import Batch, Store

TARGET_MEMORIES_PER_S = 10_000


@dataclasses.dataclass
class Case:
    name: str
    batch: int
    wall_ms: list[float]
    cpu_ms: list[float]
    loads: list[float]

    def row(self) -> list[str]:
        med, high = median(self.wall_ms), p95(self.wall_ms)
        return [
            self.name,
            f"{self.batch:,}",
            str(len(self.wall_ms)),
            fmt(med),
            fmt(high),
            fmt(self.batch / med * 1000, 0),
            fmt(self.batch / high * 1000, 0),
            fmt(median(self.cpu_ms)),
            f"{median(self.loads):.2f}",
        ]


HEADERS = [
    "case",
    "batch",
    "batches",
    "median ms",
    "p95 ms",
    "rows/s (median)",
    "rows/s (p95 batch)",
    "CPU ms (median)",
    "load1",
]


def run_batches(store: Store, name: str, batches: Sequence[Batch], size: int) -> Case:
    case = Case(name, size, [], [], [])
    for batch in batches:
        cpu, started = time.process_time(), time.perf_counter()
        store.write(batch)
        case.wall_ms.append((time.perf_counter() - started) * 1000)
        case.cpu_ms.append((time.process_time() - cpu) * 1000)
        case.loads.append(load1())
    return case


def chunks(rows: Sequence[Any], size: int, count: int) -> list[list[Any]]:
    return [list(rows[k * size : (k + 1) * size]) for k in range(count)]


def changed(rows: Sequence[Any], gen: TextGen, lo: int, hi: int) -> list[Any]:
    """Same ids, new text."""
    texts = gen.texts(len(rows), lo, hi)
    return [dataclasses.replace(r, text=t) for r, t in zip(rows, texts, strict=True)]


def plan(quick: bool) -> list[tuple[int, int]]:
    """(batch size, repeats) for the small and the large batch."""
    return [(200, 3), (1_000, 2)] if quick else [(1_000, 20), (10_000, 6)]


def run(quick: bool) -> list[Case]:
    sizes = plan(quick)
    total = sum(size * count for size, count in sizes)
    note(f"generating {total:,} memories and {total:,} turns ...")
    memories = make_memories(total, seed=1)
    turns = make_turns(total, seed=2)
    gen = TextGen(seed=99)
    cases: list[Case] = []
    with bench_home() as home:
        home.mkdir(parents=True)
        store = Store(home / "bench.duckdb")
        try:
            for rows, label, field in (
                (memories, "memories", "memories"),
                (turns, "turns", "turns"),
            ):
                at = 0
                for size, count in sizes:
                    part = chunks(rows[at:], size, count)
                    at += size * count
                    batches = [Batch(**{field: b}) for b in part]
                    cases.append(run_batches(store, f"new {label}", batches, size))
            for rows, label, field, lo, hi in (
                (memories, "memories", "memories", 50, 300),
                (turns, "turns", "turns", 150, 600),
            ):
                at = 0
                for size, count in sizes:
                    part = chunks(rows[at:], size, count)  # rows no earlier case rewrote
                    at += size * count
                    same = [Batch(**{field: b}) for b in part]
                    cases.append(run_batches(store, f"upsert {label}, same text", same, size))
                    new_text = [Batch(**{field: changed(b, gen, lo, hi)}) for b in part]
                    cases.append(
                        run_batches(store, f"upsert {label}, changed text", new_text, size)
                    )
            note(f"final table sizes: {store.counts()}")
        finally:
            store.close()
    return cases


def profile(quick: bool) -> None:
    """cProfile of one batch of new memories on top of an existing table."""
    size = 1_000 if quick else 10_000
    rows = make_memories(size * 3, seed=3)
    with bench_home() as home:
        home.mkdir(parents=True)
        store = Store(home / "bench.duckdb")
        try:
            store.write(Batch(memories=rows[:size]))
            store.write(Batch(memories=rows[size : 2 * size]))
            prof = cProfile.Profile()
            prof.enable()
            store.write(Batch(memories=rows[2 * size :]))
            prof.disable()
        finally:
            store.close()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(18)
    note(f"\ncProfile of one batch of {size:,} new memories (load1 {load1():.2f}):")
    note("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])


def verdict(cases: Sequence[Case], quick: bool) -> str:
    rates = [c.batch / median(c.wall_ms) * 1000 for c in cases if c.name == "new memories"]
    worst = min(rates)
    met = "MET" if worst >= TARGET_MEMORIES_PER_S else "MISSED"
    scope = " (quick run: small batches, not the target's)" if quick else ""
    return (
        f"target >= {TARGET_MEMORIES_PER_S:,} new memories/s at the median batch: {met} "
        f"(slowest batch size {fmt(worst, 0)}/s){scope}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small batches, a few repeats")
    parser.add_argument("--profile", action="store_true", help="also cProfile one batch")
    args = parser.parse_args(argv)
    note(machine_line())
    cases = run(args.quick)
    print_table(
        "Batched writes (Store.write, one transaction per batch)", HEADERS, [c.row() for c in cases]
    )
    note("\n" + verdict(cases, args.quick))
    if args.profile:
        profile(args.quick)


if __name__ == "__main__":
    main()

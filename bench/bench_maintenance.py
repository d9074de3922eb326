"""Lifecycle maintenance at 10k and 100k memories: how long it holds the daemon's ingest thread.

    python bench/bench_maintenance.py --source /tmp/bench/h100k.orig [--sizes 10000,100000]

`--source` is a home with (at least) the largest size of memories; each size works on a copy
of it (the source is never written), cut down to its first N memories by doc. Keyword-only
consolidation (RECALLNEST_EMBEDDER=none), the daemon's own scheduler code:

- full pass: a consolidation pass of a fresh daemon (nothing compared yet) and a retier pass,
  each planned and run slice by slice as the ingest thread does (one slice a tick);
- incremental: the consolidation pass after 100 new memories (restatements of existing ones);
- longest tick: the longest single planning step or slice (what holds the ingest thread);
- stop: `Daemon.stop()` latency while a consolidation pass is in progress (real daemon,
  IDLE_SECONDS set to 0 so maintenance starts at once).

Every figure is printed with the 1-minute load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duckdb
from common import fmt, load1, machine_line, median, p95

from recallnest.core.config import Settings
from recallnest.engine import Engine
from recallnest.lifecycle import scheduler as maintenance_module
from recallnest.lifecycle.scheduler import Maintenance
from recallnest.store import Batch

DB = "recallnest.duckdb"


def cut_home(source: Path, target: Path, size: int) -> None:
    """Copy `source` to `target` keeping its first `size` memories (by doc)."""
    shutil.copytree(source, target)
    con = duckdb.connect(str(target / DB))
    try:
        (total,) = con.execute("SELECT count(*) FROM memories").fetchone() or (0,)
        if total > size:
            cut = "SELECT doc FROM memories ORDER BY doc OFFSET ?"
            for table in ("postings", "vectors"):
                con.execute(f"DELETE FROM {table} WHERE doc IN ({cut})", [size])
            con.execute(f"DELETE FROM memories WHERE doc IN ({cut})", [size])
        con.execute("CHECKPOINT")
    finally:
        con.close()


def run_pass(m: Maintenance, plan: str) -> dict[str, Any]:
    """Plan one sliced task and run its slices as the ingest thread would; seconds of each."""
    steps = [_timed(getattr(m, plan))]
    while m._slices:
        _, part = m._slices.pop(0)
        steps.append(_timed(part))
    return {"total": sum(steps), "steps": steps, "load1": load1()}


def _timed(call: Any) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def add_restatements(engine: Engine, n: int) -> None:
    rows = engine.store.find_memories({"status": "active"}, limit=n)
    engine.apply(
        Batch(memories=[replace(r, id=r.id[:-4] + "beef", text=r.text + " again") for r in rows])
    )


def stop_latency(home: Path) -> dict[str, Any]:
    """Start a real daemon, wait until a consolidation pass is in progress, time stop()."""
    from recallnest.server.daemon import Daemon

    maintenance_module.IDLE_SECONDS = 0.0
    settings = Settings.load()
    engine = Engine.open(settings)
    daemon = Daemon(settings, engine)
    daemon.start()
    deadline = time.monotonic() + 600
    m = engine.maintenance
    while not any(name == "consolidate" for name, _ in list(m._slices)):
        if time.monotonic() > deadline:
            raise SystemExit(f"no consolidation pass started in {home}")
        time.sleep(0.05)
    time.sleep(0.5)  # in the middle of the pass
    pending = len(m._slices)
    seconds = _timed(daemon.stop)
    return {"seconds": seconds, "pending_slices": pending, "load1": load1()}


def measure(source: Path, size: int, scratch: Path) -> dict[str, Any]:
    home = scratch / f"h{size}"
    cut_home(source, home, size)
    os.environ["RECALLNEST_HOME"] = str(home)
    engine = Engine.open(Settings.load())
    try:
        m = Maintenance(engine)
        out = {
            "retier": run_pass(m, "_plan_retier"),
            "full": run_pass(m, "_plan_consolidation"),
        }
        add_restatements(engine, 100)
        out["incremental"] = run_pass(m, "_plan_consolidation")
    finally:
        engine.close()
    out["stop"] = stop_latency(home)
    shutil.rmtree(home)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=Path("/tmp/bench/h100k.orig"))
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    os.environ["RECALLNEST_EMBEDDER"] = "none"
    print(machine_line())
    print()
    print("| memories | task | total s | slices | slice median ms | slice p95 ms | longest ms "
          "| load1 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    stops = []
    with tempfile.TemporaryDirectory(prefix="bench-maint-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            found = measure(args.source, size, Path(tmp))
            for task in ("full", "incremental", "retier"):
                r = found[task]
                ms = [s * 1000 for s in r["steps"]]
                print(
                    f"| {size:,} | {task} | {r['total']:.2f} | {len(ms)} | {fmt(median(ms))} "
                    f"| {fmt(p95(ms))} | {fmt(max(ms))} | {r['load1']:.2f} |",
                    flush=True,
                )
            stops.append((size, found["stop"]))
    print()
    print("| memories | daemon stop during a consolidation pass, s | slices left | load1 |")
    print("|---|---|---|---|")
    for size, s in stops:
        print(f"| {size:,} | {s['seconds']:.2f} | {s['pending_slices']} | {s['load1']:.2f} |")


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()

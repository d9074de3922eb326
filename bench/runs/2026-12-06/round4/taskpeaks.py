"""Peak of Python allocations (tracemalloc) of each maintenance task, in-process, on a copy of
a home (issue 22, round four; decision 0032). From the repo root:

    python bench/runs/2026-12-06/round4/taskpeaks.py HOME
"""

# ruff: noqa: E402, E501, B018  (a run record: glibc's arenas are limited before the imports)
import sys
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/runs/2026-12-06")
from recallnest.core import heap

heap.limit_arenas()
from common import bench_settings
from probe import pymalloc

from recallnest.engine import Engine

home = Path(sys.argv[1])
engine = Engine.open(bench_settings(home, embedder="local"))
engine.index
time.sleep(3)
m = engine.maintenance
now = datetime.now(UTC)
tracemalloc.start(1)
for name, fn in [
    ("flush", m.flush_access),
    ("expire", lambda: m.expire(now)),
    ("retier", lambda: m.retier(now)),
    ("consolidate", lambda: m.consolidate(now=now)),
    ("retention", lambda: m.apply_retention(now)),
    ("prune", lambda: m.prune_undo(now)),
    ("compact", lambda: m.compact(if_needed=True)),
]:
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    t = time.perf_counter()
    fn()
    cur, peak = tracemalloc.get_traced_memory()
    print(
        f"{name:12s} {time.perf_counter() - t:6.1f}s traced peak +{(peak - base) / 2**20:.1f} MiB, kept +{(cur - base) / 2**20:.1f} | {pymalloc()}",
        flush=True,
    )
engine.close()

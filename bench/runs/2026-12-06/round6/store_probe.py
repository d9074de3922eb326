"""The store reads behind the hooks, warm and right after `Store.release_memory` (issue 22/23,
decision 0038): the session-start hook's candidate read for a project (`resume_memories`),
and the prompt hook's reads of hit rows by id (`memories`, `turns`). DuckDB's buffer in MiB
after each. On a copy of a bench home's database, no daemon.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round6/store_probe.py DB [--rounds 8]
        [--floor MiB]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import PROJECTS

from recallnest.continuity.compose import candidate_groups
from recallnest.continuity.service import RESUME_CANDIDATES_PER_GROUP
from recallnest.store import Store


def buffer_mb(store: Store) -> float:
    return sum(store.buffer_memory().values()) / 2**20


def ms(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("db", type=Path)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--floor", type=int, default=16)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rn-storeprobe-"))
    shutil.copy(args.db, tmp / "db.duckdb")
    store = Store(tmp / "db.duckdb")
    ids = [
        r[0] for r in store._cur().execute("SELECT id FROM memories USING SAMPLE 2000").fetchall()
    ]
    tids = [r[0] for r in store._cur().execute("SELECT id FROM turns USING SAMPLE 2000").fetchall()]
    rng = random.Random(7)
    t: dict[str, list[float]] = {}

    def resume(p: str) -> Callable[[], object]:
        return lambda: store.resume_memories(candidate_groups(p), RESUME_CANDIDATES_PER_GROUP)

    def by_id() -> Callable[[], object]:
        a, b = rng.sample(ids, 20), rng.sample(tids, 20)
        return lambda: (store.memories(a), store.turns(b))

    print("load1", os.getloadavg()[0], "buffer at open", f"{buffer_mb(store):.1f}")
    for r in range(args.rounds):
        p, q = PROJECTS[r % 20], PROJECTS[(r + 10) % 20]
        resume(p)()
        by_id()()
        t.setdefault("resume, project read before, warm", []).append(ms(resume(p)))
        t.setdefault("resume, other project, warm", []).append(ms(resume(q)))
        t.setdefault("rows by id, warm", []).append(ms(by_id()))
        warm_mb = buffer_mb(store)
        store.release_memory(args.floor)
        rel_mb = buffer_mb(store)
        t.setdefault("resume, after release", []).append(ms(resume(p)))
        store.release_memory(args.floor)
        t.setdefault("rows by id, after release", []).append(ms(by_id()))
        after_mb = buffer_mb(store)
        print(
            f"round {r}: buffer warm {warm_mb:.1f} released {rel_mb:.1f} after reads {after_mb:.1f}"
        )
    for k, v in t.items():
        v.sort()
        print(
            f"{k:40s} p50 {statistics.median(v):6.1f} max {v[-1]:6.1f}"
            f"  {' '.join(f'{x:.0f}' for x in v)}"
        )
    print(
        "by tag, after the last reads:",
        {k: round(v / 2**20, 1) for k, v in store.buffer_memory().items()},
    )
    store.close()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

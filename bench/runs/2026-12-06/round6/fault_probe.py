"""What faulting released index pages back costs (decision 0038): a file-backed int8 matrix
and a uint16 array of the bench's sizes, released as the quiet release does, then read by a
scan; against resident, and against one madvise(MADV_POPULATE_READ) before the scan.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round6/fault_probe.py DIR [--rounds 8]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from recallnest.retrieval.backing import FileBacking

MADV_POPULATE_READ = 22


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--rounds", type=int, default=8)
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    backing = FileBacking(args.dir)
    matrix = backing.zeros("codes", (200_000, 384), np.int8)
    matrix[...] = np.random.default_rng(1).integers(-127, 127, matrix.shape, dtype=np.int8)
    q = np.random.default_rng(2).integers(-127, 127, 384).astype(np.int8)
    t: dict[str, list[float]] = {}

    def scan() -> float:
        s = time.perf_counter()
        (matrix @ q.astype(np.int32).astype(np.int8))
        return (time.perf_counter() - s) * 1000

    for _ in range(args.rounds):
        t.setdefault("resident", []).append(scan())
        backing.release()
        t.setdefault("after release", []).append(scan())
        backing.release()
        s = time.perf_counter()
        for m in [f.map for f in backing._files.values()]:
            m.madvise(MADV_POPULATE_READ)
        pop = (time.perf_counter() - s) * 1000
        t.setdefault("populate alone", []).append(pop)
        t.setdefault("populate + scan", []).append(pop + scan())
    for k, v in t.items():
        print(f"{k:18s} p50 {statistics.median(v):6.1f}  {' '.join(f'{x:.1f}' for x in sorted(v))}")


if __name__ == "__main__":
    main()

"""The int8 scan (SearchIndex.cosine) over 200k x 384 rows held anonymous, file-backed and
resident, and file-backed right after a release (its pages faulted back from the page cache
by the scan itself), median and max ms of `--n` scans each (decision 0035).

    PYTHONPATH=<code> python bench/runs/2026-12-06/round5/scan_probe.py DIR [--n 30]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.index import SearchIndex

ROWS, DIM = 200_000, 384


def built(backing: FileBacking | None) -> SearchIndex:
    rng = np.random.default_rng(1)
    index = SearchIndex(capacity=ROWS, backing=backing)
    docs = np.arange(1, ROWS + 1, dtype=np.int64)
    index.load_rows(
        "turn", docs, [f"{k:036d}" for k in range(ROWS)], np.ones(ROWS, np.int64),
        np.zeros(ROWS), {"agent": ["claude"] * ROWS},
    )  # fmt: skip
    index.set_model("m", DIM)
    for lo in range(0, ROWS, 20_000):
        index.set_vectors(docs[lo : lo + 20_000], rng.standard_normal((20_000, DIM), np.float32))
    return index


def timed(index: SearchIndex, n: int, release: bool) -> list[float]:
    rng = np.random.default_rng(3)
    out = []
    for _ in range(n):
        if release:
            index.release_pages()
        q = rng.standard_normal(DIM).astype(np.float32)
        t = time.perf_counter()
        index.cosine(q)
        out.append((time.perf_counter() - t) * 1000)
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--n", type=int, default=30)
    args = ap.parse_args()
    plain, backed = built(None), built(FileBacking(args.dir))
    for _ in range(3):  # alternated, the machine is shared
        for name, index, release in (
            ("anonymous", plain, False),
            ("file-backed, resident", backed, False),
            ("file-backed, after a release", backed, True),
        ):
            got = timed(index, args.n, release)
            print(
                f"{name}: p50 {got[len(got) // 2]:.1f} p95 {got[int(0.95 * (len(got) - 1))]:.1f}"
                f" max {got[-1]:.1f} ms",
                flush=True,
            )


if __name__ == "__main__":
    main()

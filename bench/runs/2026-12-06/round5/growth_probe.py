"""Capacity growth of a file-backed index (decision 0035): 200k rows of 384-d int8 vectors in
a file, released, then rows appended past the capacity a flush at a time. RssAnon and RssFile
before and after, and the wall time of each growth; `--anonymous` for the arrays as before.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round5/growth_probe.py DIR [--anonymous]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.index import SearchIndex
from recallnest.store.types import IndexedDoc

ROWS, DIM, FLUSH = 200_000, 384, 5_000


def rss() -> str:
    f = {}
    for ln in Path("/proc/self/status").read_text().splitlines():
        k, _, v = ln.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            f[k] = int(v.split()[0]) / 1024
    return (
        f"RSS {f['VmRSS']:.0f} (anon {f['RssAnon']:.0f}, file {f['RssFile']:.0f})"
        f" HWM {f['VmHWM']:.0f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", type=Path)
    ap.add_argument("--anonymous", action="store_true")
    ap.add_argument("--flushes", type=int, default=12)
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    index = SearchIndex(capacity=ROWS, backing=None if args.anonymous else FileBacking(args.dir))
    docs = np.arange(1, ROWS + 1, dtype=np.int64)
    index.load_rows(
        "turn", docs, [f"{k:036d}" for k in range(ROWS)], np.ones(ROWS, np.int64),
        np.zeros(ROWS), {"agent": ["claude"] * ROWS},
    )  # fmt: skip
    index.set_model("m", DIM)
    for lo in range(0, ROWS, 20_000):
        index.set_vectors(docs[lo : lo + 20_000], rng.standard_normal((20_000, DIM), np.float32))
    index.release_pages()
    print("loaded + released:", rss(), flush=True)
    next_doc = ROWS + 1
    for k in range(args.flushes):
        new = list(range(next_doc, next_doc + FLUSH))
        next_doc += FLUSH
        cap = len(index._docs)
        t = time.perf_counter()
        index.add(
            IndexedDoc(doc=d, kind="turn", id=f"{d:036d}", terms={"w": 1}, length=1,
                       facets={"agent": "claude"}, ts=0.0)
            for d in new
        )  # fmt: skip
        took = (time.perf_counter() - t) * 1000
        index.set_vectors(new, rng.standard_normal((FLUSH, DIM), np.float32))
        grew = len(index._docs) != cap
        print(f"flush {k + 1}: add {took:.0f} ms{' (grew)' if grew else ''}; {rss()}", flush=True)
    index.release_pages()
    print("released:", rss())


if __name__ == "__main__":
    sys.exit(main())

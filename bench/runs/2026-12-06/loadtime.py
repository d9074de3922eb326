"""Index load time and the process's VmHWM / VmRSS after it, in-process: Engine.open on a copy
of a footprint home with the local embedder's model id (model not loaded), until the index is
ready (issue 22, round three). Run once per checkout (PYTHONPATH picks it).

    python bench/runs/2026-12-06/loadtime.py HOME
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import bench_settings

import recallnest
from recallnest.engine import Engine
from recallnest.retrieval.embed import make_embedder


def status() -> tuple[float, float]:
    f = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            f[k] = int(v.split()[0]) / 1024
    return f["VmRSS"], f["VmHWM"]


def main() -> None:
    home = Path(sys.argv[1])
    settings = bench_settings(home, embedder="local")
    t0 = time.perf_counter()
    engine = Engine.open(settings, make_embedder("local"))
    index = engine.index
    took = time.perf_counter() - t0
    time.sleep(3)  # the release after the load
    rss, hwm = status()
    parts = index.footprint()
    print(
        f"{Path(recallnest.__file__).parent}: load {took:.2f} s, index "
        f"{sum(parts.values()) / 2**20:.1f} MiB ({parts['postings'] / 2**20:.1f} postings), "
        f"VmHWM {hwm:.0f} MiB, VmRSS {rss:.0f} MiB"
    )
    engine.close()


if __name__ == "__main__":
    main()

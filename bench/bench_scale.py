"""Search latency at 10k, 100k and 1M records (issue 6 "Scale"), warm, in-process through
Engine.search, the code the daemon runs for every `search` request.

    python bench/bench_scale.py [--quick] [--sizes 10000,100000,1000000]

Records are synthetic memories (bench/common.py) with clustered 384-d vectors stored in the
database; query vectors are precomputed so the figures are the index's, not the model's (the
model's query cost is in bench_search.py). Half the records are memories, half turns.
Targets: fused p50 <= 30 ms / p95 <= 80 ms at 100k; p95 <= 300 ms at 1M.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search import DIM, Dataset, build_store, query_set
from common import (
    FixedEmbedder,
    bench_home,
    bench_settings,
    fmt,
    load1,
    machine_line,
    median,
    note,
    p95,
    print_table,
    rss_mib,
)

from recallnest.engine import Engine, SearchRequest

TARGETS = {100_000: (30.0, 80.0), 1_000_000: (None, 300.0)}


def measure(size: int, n_queries: int, keep: Path | None) -> list[str]:
    texts, _, vectors = query_set(n_queries)
    embedder = FixedEmbedder(dict(zip(texts, vectors, strict=True)), DIM)
    with bench_home() as temp_home:
        home = temp_home if keep is None else keep / f"scale-{size}"
        built = float("nan")
        if not (home / "recallnest.duckdb").exists():
            note(f"building {size} records in {home} ...")
            t0 = time.perf_counter()
            build_store(home, Dataset(f"{size}", size // 2, size - size // 2), embedder.model_id)
            built = time.perf_counter() - t0
        else:
            note(f"reusing the {size}-record home {home}")
        t0 = time.perf_counter()
        engine = Engine.open(bench_settings(home), embedder)
        opened = time.perf_counter() - t0
        try:
            for text in texts[:10]:
                engine.search(SearchRequest(text))
            wall = []
            for text in texts:
                t1 = time.perf_counter()
                engine.search(SearchRequest(text))
                wall.append((time.perf_counter() - t1) * 1000)
        finally:
            engine.close()
    p50_target, p95_target = TARGETS.get(size, (None, None))
    ok = (p50_target is None or median(wall) <= p50_target) and (
        p95_target is None or p95(wall) <= p95_target
    )
    verdict = "-" if size not in TARGETS else ("met" if ok else "MISSED")
    return [
        f"{size:,}",
        fmt(built, 0) if built == built else "reused",
        fmt(opened, 1),
        fmt(median(wall), 1),
        fmt(p95(wall), 1),
        fmt(rss_mib()[1], 0),
        f"{load1():.2f}",
        verdict,
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument(
        "--keep",
        type=Path,
        help="build each home under this directory and keep it; a later run with the same "
        "--keep reuses it (build column blank) so only the queries are measured again",
    )
    args = parser.parse_args()
    sizes = [2_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    note(machine_line())
    rows = [measure(size, 10 if args.quick else 100, args.keep) for size in sizes]
    print_table(
        "Fused search at scale (warm, in-process = daemon code path)",
        ["records", "build s", "open s", "p50 ms", "p95 ms", "peak RSS MiB", "load1", "target"],
        rows,
    )


if __name__ == "__main__":
    main()

"""Which objects a maintenance pass leaves alive once the per-pass caches are cleared: by
count, since each pins its pymalloc arena (1 MiB) however small it is (issue 22, round three).

    python bench/runs/2026-12-06/survivors.py HOME
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_settings
from probe import pymalloc, rss

from recallnest.capture import admission
from recallnest.core import aliases, heap
from recallnest.engine import Engine, SearchRequest, build_embedder


def clear(engine: Engine) -> None:
    admission.keyword_tokens.cache_clear()
    admission.stated_attribute.cache_clear()
    aliases._CANONICAL_CACHE.clear()
    engine.maintenance._token_cache.clear()
    engine.maintenance._settled.clear()
    heap.release(collect=True)


def main() -> None:
    home = Path(sys.argv[1])
    settings = bench_settings(home, embedder="local")
    emb = build_embedder(settings)
    emb.embed_query("warm up")
    engine = Engine.open(settings, emb)
    engine.index  # noqa: B018
    time.sleep(2)
    engine.search(SearchRequest("deploy script retry"))
    print("loaded", rss(), pymalloc())
    tracemalloc.start(3)
    first = tracemalloc.take_snapshot()
    engine.maintenance.run_all()
    clear(engine)
    print("pass, caches cleared", rss(), pymalloc())
    diff = tracemalloc.take_snapshot().compare_to(first, "traceback")
    diff.sort(key=lambda d: -d.count_diff)
    for d in diff[:25]:
        frames = " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in d.traceback)
        print(f"  +{d.count_diff:7d} objs {d.size_diff / 2**20:7.2f} MiB  {frames}")
    engine.close()


if __name__ == "__main__":
    main()

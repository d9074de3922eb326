"""The daemon's own idle maintenance, in-process: the engine as the daemon opens it (model
loaded, one search), then Maintenance.tick(idle=True) as the ingest loop calls it, with the
idle clock moved past IDLE_SECONDS, until every task ran and no slice is left. Prints RSS
(anon/file), CPython's object arenas, DuckDB's jemalloc and the largest anonymous mappings
after the load and after the pass (issue 22, round three).

    python bench/runs/2026-12-06/sliced.py HOME [--top N]
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_settings
from probe import anon_maps, jemalloc, mallinfo, pymalloc, rss

from recallnest.engine import Engine, SearchRequest, build_embedder
from recallnest.lifecycle import scheduler


def main() -> None:
    home = Path(sys.argv[1])
    traced = "--trace" in sys.argv
    if traced:
        tracemalloc.start(1)
    settings = bench_settings(home, embedder="local")
    emb = build_embedder(settings)
    emb.embed_query("warm up")
    engine = Engine.open(settings, emb)
    engine.index  # noqa: B018
    time.sleep(2)
    engine.search(SearchRequest("deploy script retry"))
    m = engine.maintenance
    m.tick(idle=False)  # work happened (the search): a release is due once quiet
    print("loaded           ", rss(), "|", pymalloc(), "|", jemalloc())
    print("   ", mallinfo())
    m._busy_at -= scheduler.IDLE_SECONDS + 1
    t0 = time.perf_counter()
    ticks, peak = 0, 0.0
    ran_all: list[str] = []
    while True:
        ran = m.tick(idle=True)
        ticks += 1
        ran_all += ran
        peak = max(peak, float(rss().split()[1]))
        if not m._slices and ticks > 1 and not ran:
            break
    print(
        f"pass: {ticks} ticks, {time.perf_counter() - t0:.1f} s, max RSS seen {peak:.0f}; "
        f"ran {sorted(set(ran_all))}"
    )
    print("after the pass   ", rss(), "|", pymalloc(), "|", jemalloc())
    print("   ", mallinfo())
    print(
        "   duckdb buffer",
        engine.store.buffer_memory(),
        "settled",
        len(m._settled),
        m._settled.nbytes if hasattr(m._settled, "nbytes") else "",
    )
    anon_maps(20)
    if traced:
        live = tracemalloc.get_traced_memory()[0]
        print(f"traced live Python allocations {live / 2**20:.1f} MiB; top sites:")
        snap = tracemalloc.take_snapshot().statistics("lineno")
        for st in snap[:15]:
            frame = st.traceback[0]
            print(
                f"    {Path(frame.filename).name}:{frame.lineno} {st.size / 2**20:.1f} MiB "
                f"{st.count} blocks"
            )
    engine.close()


if __name__ == "__main__":
    main()

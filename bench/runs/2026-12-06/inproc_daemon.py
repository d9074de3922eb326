"""The daemon run in this process (its threads, its socket), so its memory can be read from
inside: RSS by kind, glibc's and DuckDB's allocators, and with PYTHONTRACEMALLOC=1 the live
Python allocation sites. Steps as bench_steady: catch-up, one search over the socket, then
the idle scheduler's maintenance until `--seconds` pass (issue 22, round three).

    PYTHONMALLOC=malloc MALLOC_ARENA_MAX=2 [PYTHONTRACEMALLOC=1] \
        python bench/runs/2026-12-06/inproc_daemon.py HOME [--seconds 150]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_settings
from probe import anon_maps, jemalloc, mallinfo, rss

from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.daemon import Daemon, setup_logging


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--seconds", type=float, default=150.0)
    ap.add_argument("--bg", action="store_true", help="SET allocator_background_threads")
    args = ap.parse_args()
    os.environ["HOME"] = str(args.home / "user")
    (args.home / "user").mkdir(exist_ok=True)
    settings = bench_settings(args.home, embedder="local")
    setup_logging(args.home)
    daemon = Daemon(settings, Engine.open(settings))
    if args.bg:
        daemon.engine.store._cur().execute("SET allocator_background_threads = true")
    daemon.start()
    sock = str(args.home / protocol.SOCKET_NAME)
    while not daemon.caught_up:
        time.sleep(0.2)
    protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
    print("caught up + search", rss(), f"threads {threading.active_count()}")
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        time.sleep(10)
        buffer = sum(daemon.engine.store.buffer_memory().values()) / 2**20
        print(
            f"  {time.perf_counter() - t0:5.0f}s {rss()} | {jemalloc()[9:40]} | "
            f"{mallinfo()[7:40]} | buffer {buffer:.1f}",
            flush=True,
        )
    print("after", f"{args.seconds:.0f} s", rss(), f"threads {threading.active_count()}")
    print("   ", jemalloc())
    print("   ", mallinfo())
    print("    duckdb buffer", daemon.engine.store.buffer_memory())
    anon_maps(12)
    cache = daemon.engine.continuity._cache
    print(
        f"    resume input cache: {len(cache)} projects, "
        f"{sum(len(v[1]) for v in cache.values())} memories"
    )
    if tracemalloc.is_tracing():
        live = tracemalloc.get_traced_memory()[0]
        print(f"traced live Python allocations {live / 2**20:.1f} MiB; top sites:")
        for st in tracemalloc.take_snapshot().statistics("filename")[:25]:
            frame = st.traceback[0]
            print(f"    {frame.filename[-60:]} {st.size / 2**20:.1f} MiB {st.count} blocks")
    daemon.stop()


if __name__ == "__main__":
    main()

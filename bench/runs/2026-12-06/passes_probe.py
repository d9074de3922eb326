"""Where the daemon's memory goes at 100k memories + 100k turns with the local embedder, and
what a maintenance pass leaves behind (issue 22, round four). The daemon runs in this
process; after catch-up and one search, `--passes` whole passes (`maintain`) are asked, each
followed by the quiet release. After each stage: RSS by kind, the model file, glibc's heap
(mallinfo2), CPython's object arenas, DuckDB's jemalloc, the index's own count; with
PYTHONTRACEMALLOC=N also the allocation sites that grew since the stage before.

    [PYTHONTRACEMALLOC=8] python bench/runs/2026-12-06/passes_probe.py HOME [--passes 3]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_settings
from probe import jemalloc, pymalloc

from recallnest.core import heap
from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.daemon import Daemon, setup_logging


class Info(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def glibc() -> str:
    fn = ctypes.CDLL(None).mallinfo2
    fn.restype = Info
    i = fn()
    mb = 2**20
    return (
        f"glibc heap {i.arena / mb:.0f} (in use {i.uordblks / mb:.0f}, free {i.fordblks / mb:.0f}),"
        f" mmapped {i.hblkhd / mb:.0f} in {i.hblks}"
    )


def status() -> str:
    f = {}
    for ln in Path("/proc/self/status").read_text().splitlines():
        k, _, v = ln.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            f[k] = int(v.split()[0]) / 1024
    files: dict[str, float] = {}
    name = ""
    for ln in Path("/proc/self/smaps").read_text().splitlines():
        parts = ln.split()
        if not parts[0].endswith(":"):
            name = Path(parts[5]).name if len(parts) > 5 else "[anon]"
        elif parts[0] == "Rss:" and not name.startswith("["):
            files[name] = files.get(name, 0.0) + int(parts[1]) / 1024
    top = sorted(files.items(), key=lambda kv: -kv[1])[:5]
    return (
        f"RSS {f['VmRSS']:.0f} (anon {f['RssAnon']:.0f}, file {f['RssFile']:.0f}), HWM "
        f"{f['VmHWM']:.0f}; files: " + ", ".join(f"{k} {v:.0f}" for k, v in top)
    )


last: tracemalloc.Snapshot | None = None


def report(stage: str, daemon: Daemon) -> None:
    global last
    engine = daemon.engine
    print(f"== {stage}: {status()}", flush=True)
    print("   ", glibc(), "|", pymalloc())
    print("   ", jemalloc())
    print(
        "    duckdb buffer",
        {k: round(v / 2**20, 1) for k, v in engine.store.buffer_memory().items()},
    )
    try:
        fp = engine.index.footprint()
        print("    index", {k: round(v / 2**20, 1) for k, v in fp.items()})
    except Exception as exc:
        print("    index footprint failed", exc)
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)]
        )
        live = sum(s.size for s in snap.statistics("filename"))
        print(f"    traced live {live / 2**20:.1f} MiB")
        if last is not None:
            for st in snap.compare_to(last, "traceback")[:12]:
                if abs(st.size_diff) < 256 * 1024:
                    continue
                diff, now = st.size_diff / 2**20, st.size / 2**20
                print(f"    {diff:+.1f} MiB ({st.count_diff:+d}) now {now:.1f}")
                for fr in st.traceback.format()[-16:]:
                    if "recallnest" in fr or "bench" in fr:
                        print("        ", fr.strip())
        else:
            for st in snap.statistics("traceback")[:25]:
                print(f"    {st.size / 2**20:.2f} MiB {st.count} blocks")
                for fr in st.traceback.format()[-24:]:
                    if "recallnest" in fr or "bench" in fr:
                        print("        ", fr.strip())
        last = snap


def pinners() -> None:
    """Which live small objects sit in which MiB of the address space (CPython's object
    arenas are 1 MiB): the MiBs holding little live data are the fragmented arenas, and the
    types found there are what pins them."""
    import gc
    from collections import Counter, defaultdict

    gc.collect()
    seen: set[int] = set()
    buckets: dict[int, list[tuple[str, int]]] = defaultdict(list)
    todo = gc.get_objects()
    while todo:
        more = []
        for o in todo:
            i = id(o)
            if i in seen:
                continue
            seen.add(i)
            size = sys.getsizeof(o)
            if size <= 512:
                buckets[i >> 20].append((type(o).__name__, size))
            more.extend(
                r for r in gc.get_referents(o) if not gc.is_tracked(r) and id(r) not in seen
            )
        todo = more
    live = {b: sum(s for _, s in v) for b, v in buckets.items()}
    sparse = [b for b, n in live.items() if n < 256 * 1024]
    print(
        f"    small objects in {len(buckets)} MiB-buckets, {sum(live.values()) / 2**20:.1f} MiB;"
        f" {len(sparse)} buckets hold < 256 KiB"
    )
    kinds: Counter[str] = Counter()
    for b in sparse:
        for name, size in buckets[b]:
            kinds[name] += size
    print("    in those:", ", ".join(f"{k} {v / 1024:.0f}K" for k, v in kinds.most_common(15)))
    dense: Counter[str] = Counter()
    for b in live:
        if b not in sparse:
            for name, size in buckets[b]:
                dense[name] += size
    print("    elsewhere:", ", ".join(f"{k} {v / 1024:.0f}K" for k, v in dense.most_common(10)))


def quiet(daemon: Daemon, seconds: float) -> None:
    time.sleep(seconds)


def main() -> None:
    global last
    heap.limit_arenas()  # as the daemon's entry point does, before any thread
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--quiet", type=float, default=45.0)
    ap.add_argument("--experiments", action="store_true")
    ap.add_argument("--survivors", type=int, default=0, help="trace each pass, N frames")
    args = ap.parse_args()
    os.environ["HOME"] = str(args.home / "user")
    (args.home / "user").mkdir(exist_ok=True)
    settings = bench_settings(args.home, embedder="local")
    setup_logging(args.home)
    daemon = Daemon(settings, Engine.open(settings))
    daemon.start()
    sock = str(args.home / protocol.SOCKET_NAME)
    while not daemon.caught_up:
        time.sleep(0.2)
    protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
    report("caught up + search", daemon)
    quiet(daemon, args.quiet)
    report("quiet", daemon)
    for n in range(args.passes):
        if args.survivors:
            # From here on only this pass's allocations are traced: what is left of them
            # after the pass and the quiet release is what the pass kept.
            if not tracemalloc.is_tracing():
                tracemalloc.start(args.survivors)
            tracemalloc.clear_traces()
        t = time.perf_counter()
        protocol.request(sock, "maintain", {}, 900.0)
        print(f"pass {n + 1} took {time.perf_counter() - t:.1f} s")
        report(f"pass {n + 1} done", daemon)
        quiet(daemon, args.quiet)
        if args.survivors:
            last = None
        report(f"pass {n + 1} + quiet", daemon)
    if args.experiments:
        import gc

        pinners()

        from recallnest.core import heap as _heap

        cont = daemon.engine.continuity
        print(
            f"resume cache: {len(cont._cache)} projects, "
            f"{sum(len(v[1]) for v in cont._cache.values())} memories"
        )
        with cont._cache_lock:
            cont._cache.clear()
        gc.collect()
        _heap.release()
        report("resume cache cleared", daemon)
        cont.rewarm()
        report("rewarm (empty cache)", daemon)
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        report("one search", daemon)
    daemon.stop()


if __name__ == "__main__":
    main()

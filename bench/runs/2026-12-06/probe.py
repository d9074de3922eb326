"""What part of the daemon's anonymous memory each allocator holds after the index load and
after a maintenance pass, and what DuckDB's allocator settings, a lower memory floor, glibc's
malloc_trim and Python's caches give back (issue 22, round three). In-process, model loaded.

    python bench/runs/2026-12-06/probe.py HOME [--arena-max N] [--pass]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path


def rss() -> str:
    f = {}
    for ln in Path("/proc/self/status").read_text().splitlines():
        k, _, v = ln.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile"):
            f[k] = int(v.split()[0]) / 1024
    return f"RSS {f['VmRSS']:6.1f} anon {f['RssAnon']:6.1f} file {f['RssFile']:5.1f}"


def pymalloc() -> str:
    with tempfile.TemporaryFile() as t:
        saved = os.dup(2)
        os.dup2(t.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        t.seek(0)
        text = t.read().decode()
    vals = {}
    for ln in text.splitlines():
        if (
            ln.startswith("# arenas allocated current")
            or ln.startswith("# bytes in allocated blocks")
            or ln.startswith("Total")
        ):
            k, _, v = ln.rpartition("=")
            vals[k.strip("# ").strip()] = v.strip().replace(",", "")
    arenas = int(vals.get("arenas allocated current", 0))
    used = int(vals.get("bytes in allocated blocks", 0)) / 2**20
    return f"pymalloc arenas {arenas} (1 MiB each), in blocks {used:.1f} MiB"


def jemalloc() -> str:
    """DuckDB's bundled jemalloc (exported as duckdb_je_mallctl): what it holds."""
    import duckdb

    lib = ctypes.CDLL(
        duckdb.__file__.replace("duckdb/__init__.py", "")
        + "_duckdb"
        + ".cpython-311-x86_64-linux-gnu.so"
    )
    ctl = lib.duckdb_je_mallctl
    ctl.argtypes = [
        ctypes.c_char_p,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.c_void_p,
        ctypes.c_size_t,
    ]
    epoch = ctypes.c_uint64(1)
    sz = ctypes.c_size_t(8)
    ctl(b"epoch", None, None, ctypes.byref(epoch), 8)
    out = []
    for name in (
        "stats.allocated",
        "stats.active",
        "stats.resident",
        "stats.mapped",
        "stats.retained",
    ):
        v = ctypes.c_size_t(0)
        sz = ctypes.c_size_t(8)
        ctl(name.encode(), ctypes.byref(v), ctypes.byref(sz), None, 0)
        out.append(f"{name[6:]} {v.value / 2**20:.1f}")
    for name in ("opt.dirty_decay_ms", "opt.muzzy_decay_ms", "opt.narenas"):
        v = ctypes.c_ssize_t(0) if "decay" in name else ctypes.c_uint(0)
        sz = ctypes.c_size_t(ctypes.sizeof(v))
        ctl(name.encode(), ctypes.byref(v), ctypes.byref(sz), None, 0)
        out.append(f"{name[4:]} {v.value}")
    return "jemalloc " + ", ".join(out)


def anon_maps(top: int = 15) -> None:
    """The largest resident anonymous mappings, with their size."""
    maps = []
    head = ""
    for ln in Path("/proc/self/smaps").read_text().splitlines():
        parts = ln.split()
        if not parts[0].endswith(":"):
            head = ln
        elif parts[0] == "Rss:":
            fields = head.split()
            if len(fields) < 6 or fields[5] in ("[heap]", "[stack]"):
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                maps.append(
                    (
                        (int(parts[1]) / 1024),
                        (hi - lo) / 2**20,
                        fields[5] if len(fields) > 5 else "anon",
                    )
                )
    maps.sort(reverse=True)
    print(
        "    largest anon mappings (rss/size MiB):",
        ", ".join(f"{r:.1f}/{s:.1f}{'' if n == 'anon' else n}" for r, s, n in maps[:top]),
    )
    big = sum(r for r, s, _ in maps if s >= 1)
    print(f"    anon mappings: {len(maps)}, rss in those >= 1 MiB size: {big:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--arena-max", type=int)
    ap.add_argument("--pass", dest="run_pass", action="store_true")
    args = ap.parse_args()
    libc = ctypes.CDLL(None)
    if args.arena_max:
        print("mallopt(M_ARENA_MAX) ->", libc.mallopt(-8, args.arena_max))
    from recallnest.core import heap
    from recallnest.engine import Engine, SearchRequest, build_embedder

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from common import bench_settings

    settings = bench_settings(args.home, embedder="local")
    emb = build_embedder(settings)
    emb.embed_query("warm up")
    engine = Engine.open(settings, emb)
    engine.index  # noqa: B018
    time.sleep(2)
    while engine._release_owed:
        time.sleep(0.2)
    engine.search(SearchRequest("deploy script retry"))
    print("after load+release+search     ", rss(), "|", pymalloc())
    print("   ", jemalloc())
    cur = engine.store._cur()
    if args.run_pass:
        engine.maintenance.run_all()
        print("after run_all (released)      ", rss(), "|", pymalloc())
        print("   duckdb", engine.store.buffer_memory())
        print("   ", jemalloc())
    from recallnest.capture import admission
    from recallnest.core import aliases

    admission.keyword_tokens.cache_clear()
    admission.stated_attribute.cache_clear()
    aliases._CANONICAL_CACHE.clear()
    engine.maintenance._token_cache.clear()
    engine.maintenance._settled.clear()
    heap.release(collect=True)
    print("python caches cleared, trimmed", rss(), "|", pymalloc())
    cur.execute("SET allocator_flush_threshold = '1MiB'")
    cur.execute("SELECT count(*) FROM turns").fetchall()
    print("flush threshold 1 MiB + query ", rss())
    engine.store.release_memory(floor_mb=16)
    print("release floor 16 MiB          ", rss(), engine.store.buffer_memory())
    cur.execute("SET allocator_background_threads = true")
    time.sleep(12)
    print("jemalloc background 12 s      ", rss())
    engine.store.release_memory(floor_mb=1)
    print("release floor 1 MiB           ", rss(), engine.store.buffer_memory())
    print("   ", jemalloc())
    anon_maps(25)
    t = time.perf_counter()
    hits = engine.search(SearchRequest("deploy script retry"))
    print(f"search after it {1000 * (time.perf_counter() - t):.0f} ms", len(hits), rss())
    heap.release(collect=True)
    print("trim again                    ", rss())
    engine.close()


if __name__ == "__main__":
    main()


def mallinfo() -> str:
    """glibc's mallinfo2: bytes in use, free inside the heaps, and mmapped chunks (MiB)."""

    class Info(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                "uordblks", "fordblks", "keepcost",
            )
        ]  # fmt: skip

    fn = ctypes.CDLL(None).mallinfo2
    fn.restype = Info
    i = fn()
    mib = 2**20
    return (
        f"glibc: heaps {i.arena / mib:.1f} (in use {i.uordblks / mib:.1f}, free "
        f"{i.fordblks / mib:.1f}, {i.ordblks} free chunks), mmapped {i.hblkhd / mib:.1f}"
    )

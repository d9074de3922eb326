"""RSS of a daemon-like process by stage (issue 22, round three): imports, the e5 model,
the index load and release, a search, a maintenance pass. Prints VmRSS / RssAnon / RssFile,
smaps grouped by mapping, glibc arenas (malloc_stats), threads and DuckDB settings.

    python bench/runs/2026-12-06/stages.py HOME [--embedder local] [--no-model] [--no-pass]
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path

T0 = time.perf_counter()


def status() -> dict[str, float]:
    out = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "VmHWM", "Threads"):
            out[k] = int(v.split()[0]) / (1024 if k != "Threads" else 1)
    return out


def line(stage: str) -> None:
    s = status()
    print(
        f"{stage:<34} RSS {s['VmRSS']:7.1f}  anon {s['RssAnon']:7.1f}  file {s['RssFile']:6.1f}"
        f"  HWM {s['VmHWM']:7.1f}  threads {int(s['Threads'])}  t {time.perf_counter() - T0:6.1f}s",
        flush=True,
    )


def smaps(top: int = 12) -> None:
    by: dict[str, float] = collections.defaultdict(float)
    name = ""
    for ln in Path("/proc/self/smaps").read_text().splitlines():
        parts = ln.split()
        if "-" in parts[0] and len(parts) >= 5 and not parts[0].endswith(":"):
            name = parts[5] if len(parts) > 5 else "[anon]"
            name = os.path.basename(name) if name.startswith("/") else name
        elif parts[0] == "Rss:":
            by[name] += int(parts[1]) / 1024
    for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {k:<50} {v:8.1f} MiB")


def arenas() -> None:
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile() as f:
        saved = os.dup(2)
        sys.stderr.flush()
        os.dup2(f.fileno(), 2)
        try:
            libc.malloc_stats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        f.seek(0)
        text = f.read().decode()
    n = text.count("Arena ")
    tail = [ln for ln in text.splitlines() if ln.startswith(("Total", "max mmap"))]
    sysb = [int(ln.split("=")[1]) for ln in text.splitlines() if "system bytes" in ln]
    used = [int(ln.split("=")[1]) for ln in text.splitlines() if "in use bytes" in ln]
    print(
        f"    glibc arenas: {n}; per arena system/in-use MiB: "
        + ", ".join(
            f"{a / 2**20:.0f}/{b / 2**20:.0f}" for a, b in zip(sysb[:n], used[:n], strict=True)
        )
        + " | "
        + "; ".join(tail)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--no-model", action="store_true")
    ap.add_argument("--no-pass", action="store_true")
    ap.add_argument("--db-mb", type=int)
    args = ap.parse_args()
    line("python")
    import numpy  # noqa: F401

    from recallnest.core import heap
    from recallnest.core.config import Settings
    from recallnest.engine import Engine, SearchRequest
    from recallnest.server import daemon  # noqa: F401

    line("imports (engine, daemon)")
    flags: dict[str, object] = {"home": args.home, "embedder": args.embedder}
    if args.db_mb:
        flags["db_memory_mb"] = args.db_mb
    settings = Settings.load(
        flags={k: str(v) if isinstance(v, Path) else v for k, v in flags.items()},
        env={"HOME": str(args.home), "RECALLNEST_HOME": str(args.home)},
    )
    from recallnest.engine import build_embedder

    embedder = build_embedder(settings)
    if embedder is not None and not args.no_model:
        embedder.embed_query("warm up")
        line("+ model loaded, one query")
    engine = Engine.open(settings, embedder)
    engine.index  # noqa: B018
    t = time.perf_counter()
    while engine._release_owed or time.perf_counter() - t < 1.0:  # the load's release
        time.sleep(0.2)
    time.sleep(1.0)
    line("+ index loaded, released")
    parts = engine.index.footprint()
    print(
        f"    index {sum(parts.values()) / 2**20:.1f} MiB; duckdb buffer "
        f"{sum(engine.store.buffer_memory().values()) / 2**20:.1f} MiB; duckdb threads "
        + str(engine.store._cur().execute("SELECT current_setting('threads')").fetchone())
    )
    arenas()
    smaps()
    engine.search(SearchRequest("deploy script retry"))
    line("+ one search")
    if not args.no_pass:
        t = time.perf_counter()
        engine.maintenance.run_all()
        line(f"+ run_all ({time.perf_counter() - t:.1f}s)")
        print(f"    duckdb buffer {sum(engine.store.buffer_memory().values()) / 2**20:.1f} MiB")
        arenas()
        smaps()
        heap.release(collect=True)
        line("+ gc + malloc_trim")
    engine.close()


if __name__ == "__main__":
    main()

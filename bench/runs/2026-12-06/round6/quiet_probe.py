"""Where the first session-start and prompt ops after a quiet release spend their time (issue
22/23, decision 0038). The daemon in this process on a copy of a bench home; each round runs
one part of `Engine.release_memory` (or all of it, or none), waits, then times the `resume`
and `recall` ops over the socket, then the same ops warm. Variants alternate round by round.
With `--profile` the op after a full release also runs under cProfile (top functions printed).

    PYTHONPATH=<code> python bench/runs/2026-12-06/round6/quiet_probe.py HOME --rounds 6
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import PROJECTS, bench_settings

import recallnest
from recallnest.core import heap
from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.daemon import Daemon, setup_logging


def rss() -> str:
    f = {}
    for ln in Path("/proc/self/status").read_text().splitlines():
        k, _, v = ln.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile"):
            f[k] = int(v.split()[0]) / 1024
    return f"RSS {f['VmRSS']:.0f} (anon {f['RssAnon']:.0f} file {f['RssFile']:.0f})"


def variants(engine: Engine) -> dict[str, Callable[[], object]]:
    return {
        "none": lambda: None,
        "full": engine.release_memory,
        "duckdb": engine.store.release_memory,
        "caches": heap.drop_caches,
        "pages": engine.index.release_pages,
        "trim": heap.release,
    }


def main() -> None:
    heap.limit_arenas()
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--only", default="")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    print("code:", recallnest.__file__, "load1", os.getloadavg()[0])
    tmp = Path(tempfile.mkdtemp(prefix="rn-quietprobe-"))
    home = tmp / "home"
    shutil.copytree(args.home, home)
    os.environ["HOME"] = str(home / "user")
    (home / "user").mkdir(exist_ok=True)
    settings = bench_settings(home, embedder="local")
    setup_logging(home)
    daemon = Daemon(settings, Engine.open(settings))
    daemon.start()
    sock = str(home / protocol.SOCKET_NAME)
    try:
        while not daemon.caught_up:
            time.sleep(0.2)
        engine = daemon.engine
        engine.index  # noqa: B018 - wait for the load
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        print("caught up:", rss(), flush=True)
        kinds = variants(engine)
        names = [n for n in kinds if not args.only or n in args.only.split(",")]
        times: dict[str, list[float]] = {}
        for r in range(args.rounds):
            for name in names:
                cwd = PROJECTS[(r * 7 + len(name)) % len(PROJECTS)]
                body = {
                    "resume": {"cwd": cwd, "agent": "claude", "source": "startup"},
                    "recall": {
                        "prompt": f"how do we retry the deploy script when staging run {r} fails?",
                        "cwd": cwd,
                    },
                }
                for op in ("resume", "recall"):
                    kinds[name]()
                    time.sleep(0.3)
                    for label in ("first", "warm"):
                        sid = f"{name}{r}{op}{label}"
                        prof = (
                            cProfile.Profile()
                            if args.profile and name == "full" and label == "first"
                            else None
                        )
                        t = time.perf_counter()
                        if prof:
                            prof.enable()
                        protocol.request(sock, op, {**body[op], "session_id": sid}, 60.0)
                        if prof:
                            prof.disable()
                            s = io.StringIO()
                            pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(25)
                            print(s.getvalue()[:6000])
                        times.setdefault(f"{op} {label} after {name}", []).append(
                            (time.perf_counter() - t) * 1000
                        )
            print(f"round {r + 1}: {rss()} load1 {os.getloadavg()[0]:.2f}", flush=True)
        for key, got in sorted(times.items()):
            got.sort()
            print(
                f"{key:32s} p50 {statistics.median(got):6.1f}  max {got[-1]:6.1f}"
                f"  all {' '.join(f'{x:.0f}' for x in got)}"
            )
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

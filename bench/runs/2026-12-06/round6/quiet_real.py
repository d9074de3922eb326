"""The daemon in this process on a copy of a bench home, asked as the hooks ask after a real
quiet spell (issue 22/23, decision 0038): each round waits `--quiet` s without a request (the
idle release and maintenance run as in the daemon), then sends the session-start `resume`
op and the prompt `recall` op for a project, then both again at once (warm). Each op runs
under cProfile in the daemon's request thread; the first after the quiet prints its top
functions (cumulative) with `--top N`.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round6/quiet_real.py HOME --rounds 4
        [--quiet 35] [--same-project] [--top 25]
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
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import PROJECTS, bench_settings

from recallnest.core import heap
from recallnest.engine import Engine
from recallnest.server import handlers, protocol
from recallnest.server.daemon import Daemon, setup_logging

PROFILES: list[tuple[str, float, str]] = []


def profiled(name: str, op: Any) -> Any:
    def run(engine: Engine, a: Mapping[str, Any]) -> Any:
        prof = cProfile.Profile()
        t = time.perf_counter()
        prof.enable()
        try:
            return op(engine, a)
        finally:
            prof.disable()
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(TOP)
            PROFILES.append((name, (time.perf_counter() - t) * 1000, s.getvalue()))

    return run


TOP = 25


def main() -> None:
    global TOP
    heap.limit_arenas()
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--quiet", type=float, default=35.0)
    ap.add_argument("--same-project", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--log", type=Path, help="copy the daemon's log here at the end")
    args = ap.parse_args()
    TOP = args.top
    for name in ("resume", "recall"):
        handlers.OPS[name] = profiled(name, handlers.OPS[name])
    tmp = Path(tempfile.mkdtemp(prefix="rn-quietreal-"))
    home = tmp / "home"
    shutil.copytree(args.home, home)
    os.environ["HOME"] = str(home / "user")
    (home / "user").mkdir(exist_ok=True)
    settings = bench_settings(home, embedder="local")
    setup_logging(home)
    engine0 = Engine.open(settings)
    store = engine0.store
    raw = type(store).resume_memories

    def counted(self: Any, *a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return raw(self, *a, **k)
        finally:
            print(
                f"{time.strftime('%H:%M:%S')} [{threading.current_thread().name}] resume_memories"
                f" {(time.perf_counter() - t) * 1000:.1f} ms gen {self.generation}",
                flush=True,
            )

    type(store).resume_memories = counted  # type: ignore[method-assign]
    daemon = Daemon(settings, engine0)
    daemon.start()
    sock = str(home / protocol.SOCKET_NAME)
    times: dict[str, list[float]] = {}
    try:
        while not daemon.caught_up:
            time.sleep(0.2)
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        print("load1 at start", os.getloadavg()[0], flush=True)
        for r in range(args.rounds):
            time.sleep(args.quiet)
            cwd = PROJECTS[0 if args.same_project else r % len(PROJECTS)]
            for label in ("after quiet", "warm"):
                for op, body in (
                    ("resume", {"cwd": cwd, "agent": "claude", "source": "startup"}),
                    ("recall", {"prompt": f"how do we retry the deploy script when staging run"
                                          f" {r} fails?", "cwd": cwd}),
                ):  # fmt: skip
                    PROFILES.clear()
                    t = time.perf_counter()
                    protocol.request(sock, op, {**body, "session_id": f"{r}{label}{op}"}, 60.0)
                    wall = (time.perf_counter() - t) * 1000
                    times.setdefault(f"{op} {label}", []).append(wall)
                    inner = PROFILES[0][1] if PROFILES else float("nan")
                    print(
                        f"{time.strftime('%H:%M:%S')} round {r} {op} {label}: socket"
                        f" {wall:.1f} ms, handler {inner:.1f} ms",
                        flush=True,
                    )
                    if label == "after quiet" and args.top and PROFILES:
                        lines = [ln for ln in PROFILES[0][2].splitlines() if "(" in ln]
                        print("\n".join(ln[:170] for ln in lines[: args.top]), flush=True)
            print(f"load1 {os.getloadavg()[0]:.2f}", flush=True)
        for key, got in sorted(times.items()):
            got.sort()
            print(
                f"{key:22s} p50 {statistics.median(got):6.1f} max {got[-1]:6.1f}"
                f"  {' '.join(f'{x:.0f}' for x in got)}"
            )
    finally:
        daemon.stop()
        if args.log:
            shutil.copy(home / "logs" / "daemon.log", args.log)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

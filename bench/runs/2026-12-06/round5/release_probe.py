"""The daemon in this process on a copy of a bench home (issue 22, round five, decision 0035):
RSS by kind after catch-up, after the quiet release, and the wall time of searches over the
socket right after a release (the first one faults the released pages back) and warm. The
ids each search returned go to `--ids FILE` (JSON), to compare two codes' top k. Then, with
`--ops N`, N rounds of the session-start `resume` op and the prompt hook's `recall` op over
the socket, each right after a release (`Engine.release_memory`, what the idle tick calls)
and again warm.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round5/release_probe.py HOME [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import PROJECTS, TextGen, bench_settings

import recallnest
from recallnest.core import heap
from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.daemon import Daemon, setup_logging


def status() -> str:
    f = {}
    for ln in Path("/proc/self/status").read_text().splitlines():
        k, _, v = ln.partition(":")
        if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM"):
            f[k] = int(v.split()[0]) / 1024
    return (
        f"RSS {f['VmRSS']:.0f} (anon {f['RssAnon']:.0f}, file {f['RssFile']:.0f}, shmem "
        f"{f['RssShmem']:.0f}) HWM {f['VmHWM']:.0f}"
    )


def ops(engine: Engine, sock: str, rounds: int) -> None:
    times: dict[str, list[float]] = {}
    for k in range(rounds):
        cwd = PROJECTS[k % len(PROJECTS)]
        asked = {
            "resume": {"cwd": cwd, "agent": "claude", "source": "startup", "session_id": f"r{k}"},
            "recall": {
                "prompt": f"how do we retry the deploy script when the staging run {k} fails?",
                "cwd": cwd,
                "session_id": f"p{k}",
            },
        }
        for op, body in asked.items():
            for label in ("after a release", "warm"):
                if label == "after a release":
                    engine.release_memory()
                    time.sleep(0.5)
                t = time.perf_counter()
                protocol.request(
                    sock, op, {**body, "session_id": f"{body['session_id']}{label[0]}"}, 60.0
                )
                times.setdefault(f"{op}, {label}", []).append((time.perf_counter() - t) * 1000)
    for name, got in times.items():
        got.sort()
        print(
            f"{name}: p50 {got[len(got) // 2]:.1f} p95 {got[int(0.95 * (len(got) - 1))]:.1f}"
            f" max {got[-1]:.1f} ms ({len(got)})"
        )


def main() -> None:
    heap.limit_arenas()
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warm", type=int, default=10)
    ap.add_argument("--ids", type=Path)
    ap.add_argument("--ops", type=int, default=0)
    args = ap.parse_args()
    print("code:", recallnest.__file__)
    tmp = Path(tempfile.mkdtemp(prefix="rn-release-"))
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
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        engine = daemon.engine
        print("caught up + search:", status(), flush=True)
        fp = engine.index.footprint()
        print("index MiB", {k: round(v / 2**20, 1) for k, v in fp.items()})
        queries = TextGen(29).texts(args.rounds * (args.warm + 1), 15, 50)
        got: dict[str, list[str]] = {}
        first: list[float] = []
        warm: list[float] = []
        q = iter(queries)
        for r in range(args.rounds):
            engine.release_memory()
            time.sleep(1.0)
            print(f"round {r + 1} released:", status(), flush=True)
            for k in range(args.warm + 1):
                query = next(q)
                t = time.perf_counter()
                res = protocol.request(sock, "search", {"query": query}, 60.0)
                (first if k == 0 else warm).append((time.perf_counter() - t) * 1000)
                got[query] = [str(h.get("id")) for h in res]
            print(f"round {r + 1} searched:", status(), flush=True)
        first.sort()
        warm.sort()
        print(f"first search after a release ms: {', '.join(f'{x:.1f}' for x in first)}")
        print(
            f"warm ms p50 {warm[len(warm) // 2]:.1f} p95 {warm[int(0.95 * (len(warm) - 1))]:.1f}"
            f" max {warm[-1]:.1f}"
        )
        if args.ids:
            args.ids.write_text(json.dumps(got, indent=0, sort_keys=True))
        if args.ops:
            ops(engine, sock, args.ops)
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

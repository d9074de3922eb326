"""cProfile of the session-start `resume` op and the prompt `recall` op, called in-process
(handlers.dispatch) on the daemon's engine, in three states: a project not asked before
(no release), the same project right after a full quiet release, and warm. Decision 0038.

    PYTHONPATH=<code> python bench/runs/2026-12-06/round6/op_profile.py HOME [--top 30]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import PROJECTS, bench_settings

from recallnest.core import heap
from recallnest.engine import Engine
from recallnest.server import protocol
from recallnest.server.daemon import Daemon, setup_logging
from recallnest.server.handlers import dispatch


def timed(engine: Engine, op: str, body: dict[str, object], top: int, label: str) -> None:
    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    dispatch(engine, op, body)
    prof.disable()
    ms = (time.perf_counter() - t) * 1000
    print(f"==== {op} {label}: {ms:.1f} ms", flush=True)
    if top:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(top)
        print("\n".join(s.getvalue().splitlines()[6 : 8 + top]))


def main() -> None:
    heap.limit_arenas()
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="rn-opprof-"))
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
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        for r in range(args.rounds):
            cwd = PROJECTS[r]
            resume = {"cwd": cwd, "agent": "claude", "source": "startup"}
            recall = {"prompt": f"how do we retry the deploy script when staging run {r} fails?",
                      "cwd": cwd}  # fmt: skip
            for op, body in (("resume", resume), ("recall", recall)):
                timed(engine, op, {**body, "session_id": f"a{r}"}, args.top, "new project")
                timed(engine, op, {**body, "session_id": f"b{r}"}, 0, "warm")
                engine.release_memory()
                time.sleep(0.3)
                timed(engine, op, {**body, "session_id": f"c{r}"}, args.top, "after release")
                timed(engine, op, {**body, "session_id": f"d{r}"}, 0, "warm")
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

"""The first search right after the daemon's catch-up, `--times` times, each on a fresh copy of
a bench home (issue 22, round five): does it ever fail? On a failure the daemon's log is kept
and its path printed.

    python bench/runs/2026-12-06/round5/first_search.py HOME --script S [--times 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench_footprint import daemon, wait_caught_up

from recallnest.server import protocol


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("home", type=Path)
    ap.add_argument("--script", required=True)
    ap.add_argument("--times", type=int, default=5)
    args = ap.parse_args()
    failed = 0
    for k in range(args.times):
        tmp = Path(tempfile.mkdtemp(prefix="rn-first-search-"))
        work = tmp / "run"
        shutil.copytree(args.home, work)
        (tmp / "user").mkdir()
        env = {n: v for n, v in os.environ.items() if not n.startswith("RECALLNEST_")}
        env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(work), RECALLNEST_EMBEDDER="local")
        log = work / "logs" / "daemon.log"
        keep = False
        with daemon(args.script, env, log) as proc:
            sock = str(work / protocol.SOCKET_NAME)
            wait_caught_up(proc, sock, log, 300.0)
            t = time.perf_counter()
            try:
                protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
                print(f"{k}: ok {(time.perf_counter() - t) * 1000:.0f} ms", flush=True)
            except protocol.ProtocolError as exc:
                failed += 1
                keep = True
                print(f"{k}: FAILED {str(exc)[:200]} (log {log})", flush=True)
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{failed} of {args.times} first searches failed")


if __name__ == "__main__":
    main()

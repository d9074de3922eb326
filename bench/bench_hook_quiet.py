"""The session-start hook when the daemon has been quiet for a while (issue 22): since decision
0027 the daemon gives its caches back (DuckDB's blocks down to 16 MiB, the memo caches) once
quiet for 30 s after work, so a session started later pays for reading them again.

    python bench/bench_hook_quiet.py [--rounds 12] [--quiet 35] [--embedder local]
        [--keep DIR] [--script PATH]

The home is bench_footprint's (100k memories + 100k turns, `--keep DIR` shares its homes); the
real daemon runs on a copy. Each round waits `--quiet` seconds without a request, then runs
the installed hook (`recallnest hook session-start`, a fresh process, as an agent does) for a
project of the home, then once more at once ("warm"). Printed: p50/p95 wall ms of both.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_footprint import (
    console_script,
    daemon,
    footprint_home,
    model_of,
    proc_status,
    wait_caught_up,
)
from common import PROJECTS, fmt, load1, machine_line, median, note, p95, print_table

from recallnest.server import protocol


def hook_ms(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, int]:
    """Wall ms of one session-start hook and the length of what it printed."""
    payload = json.dumps(
        {"session_id": str(uuid.uuid4()), "cwd": cwd, "hook_event_name": "SessionStart",
         "source": "startup"}
    )  # fmt: skip
    t0 = time.perf_counter()
    out = subprocess.run(argv, input=payload, capture_output=True, text=True, env=env)
    took = (time.perf_counter() - t0) * 1000
    if out.returncode != 0:
        raise SystemExit(f"hook failed: {out!r}")
    return took, len(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--quiet", type=float, default=35.0)
    parser.add_argument("--embedder", default="local", choices=("hash", "none", "local"))
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    args = parser.parse_args()
    script = console_script(args.script)
    note(machine_line())
    model = model_of(args.embedder)
    with tempfile.TemporaryDirectory(prefix="rn-bench-hookq-") as tmp_s:
        tmp = Path(tmp_s)
        home = footprint_home(args.keep, tmp, args.memories, args.turns, model)
        work = tmp / "run"
        shutil.copytree(home, work)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(
            HOME=str(tmp / "user"), RECALLNEST_HOME=str(work), RECALLNEST_EMBEDDER=args.embedder
        )
        (tmp / "user").mkdir()
        argv = [script, "hook", "session-start", "--agent", "claude"]
        quiet: list[float] = []
        warm: list[float] = []
        printed: list[int] = []
        rss: list[float] = []
        start_load = load1()
        with daemon(script, env, work / "logs" / "daemon.log") as proc:
            sock = str(work / protocol.SOCKET_NAME)
            wait_caught_up(proc, sock, work / "logs" / "daemon.log", 900.0)
            protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
            for k in range(args.rounds):
                time.sleep(args.quiet)
                rss.append(proc_status(proc.pid)[0])
                cwd = PROJECTS[k % len(PROJECTS)]
                took, size = hook_ms(argv, env, cwd)
                quiet.append(took)
                printed.append(size)
                warm.append(hook_ms(argv, env, cwd)[0])
                note(f"round {k}: after quiet {took:.0f} ms, warm {warm[-1]:.0f} ms")
        print_table(
            f"Session-start hook, daemon up at {args.memories:,} memories + {args.turns:,} turns,"
            f" {args.rounds} rounds, {args.quiet:.0f} s quiet before each",
            ["hook", "p50 ms", "p95 ms", "max ms", "daemon RSS before (p50)", "load1 start/end"],
            [
                ["after quiet", fmt(median(quiet), 1), fmt(p95(quiet), 1), fmt(max(quiet), 1),
                 fmt(median(rss), 0), f"{start_load:.2f}/{load1():.2f}"],
                ["warm (right after)", fmt(median(warm), 1), fmt(p95(warm), 1),
                 fmt(max(warm), 1), "", ""],
            ],
        )  # fmt: skip
        note(f"printed {min(printed)}-{max(printed)} characters")


if __name__ == "__main__":
    main()

"""The session-start hook when the daemon has been quiet for a while (issue 22): since decision
0027 the daemon gives its caches back (DuckDB's blocks down to 16 MiB, the memo caches) once
quiet for 30 s after work, so a session started later pays for reading them again.

    python bench/bench_hook_quiet.py [--rounds 12] [--quiet 35] [--embedder local]
        [--keep DIR] [--script PATH] [--phases]

The home is bench_footprint's (100k memories + 100k turns, `--keep DIR` shares its homes); the
real daemon runs on a copy. Each round waits `--quiet` seconds without a request, then runs
the installed hook (`recallnest hook session-start`, a fresh process, as an agent does) for a
project of the home, then once more at once ("warm"). Printed: p50/p95 wall ms of both; with
`--phases`, the hook after quiet runs under strace and its time is split into the process's
start-up, the daemon's answer, the exit and the rest. Rounds start once the daemon's re-check
of the copied home's stored texts (if the redactor changed since the home was built) is over.
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
    wait_recheck,
)
from common import PROJECTS, fmt, load1, machine_line, median, note, p95, print_table

from recallnest.server import protocol

STRACE = ["strace", "-f", "--seccomp-bpf", "-ttt", "-e"]
STRACE += ["trace=execve,connect,sendto,recvfrom,exit_group"]
PHASES = ("start-up", "daemon", "exit", "outside")


def phases(trace: Path, wall_ms: float) -> dict[str, float]:
    """The hook's ms by phase from its strace (--phases): its start until it connects to the
    daemon (interpreter, imports, stdin), the request until the last reply bytes, those
    until the process exits, and the rest of the wall time (spawning it under a loaded
    machine, strace's own start)."""
    at: dict[str, float] = {}
    for line in trace.read_text().splitlines():
        parts = line.split(maxsplit=2)
        if len(parts) < 3 or "ENOENT" in line or "resumed>" in parts[2]:
            continue
        call, stamp = parts[2].split("(", 1)[0], float(parts[1])
        at.setdefault(call, stamp)
        if call == "recvfrom":
            at["reply"] = stamp  # the last read of the answer
        if call == "exit_group":
            at["end"] = stamp
    if not {"execve", "connect", "sendto", "reply", "end"} <= at.keys():
        return {}  # the hook never asked the daemon (it answered from the store itself)
    traced = (at["end"] - at["execve"]) * 1000
    return {
        "start-up": (at["connect"] - at["execve"]) * 1000,
        "daemon": (at["reply"] - at["sendto"]) * 1000,
        "exit": (at["end"] - at["reply"]) * 1000,
        "outside": wall_ms - traced,
    }


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
    parser.add_argument(
        "--phases", action="store_true", help="strace the hooks after quiet: ms by phase"
    )
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
        split: list[dict[str, float]] = []
        start_load = load1()
        with daemon(script, env, work / "logs" / "daemon.log") as proc:
            sock = str(work / protocol.SOCKET_NAME)
            wait_caught_up(proc, sock, work / "logs" / "daemon.log", 900.0)
            rechecked = wait_recheck(work / "logs" / "daemon.log", 900.0)
            if rechecked:
                note(f"waited {rechecked:.0f} s for the re-check of the copied home's texts")
            protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
            for k in range(args.rounds):
                time.sleep(args.quiet)
                rss.append(proc_status(proc.pid)[0])
                cwd = PROJECTS[k % len(PROJECTS)]
                trace = tmp / f"strace-{k}.txt"
                traced = [*STRACE, "-o", str(trace), *argv] if args.phases else argv
                took, size = hook_ms(traced, env, cwd)
                if args.phases and (found := phases(trace, took)):
                    split.append(found)
                elif args.phases:
                    note(f"round {k}: no daemon request in the trace; kept in {trace}")
                    trace.rename(Path(tempfile.gettempdir()) / f"hookq-notrace-{k}.txt")
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
        if split:
            print_table(
                "The hooks after quiet by phase (strace; its own cost is in start-up and outside)",
                ["phase", "p50 ms", "p95 ms", "max ms", "rounds (ms)"],
                [
                    [name, fmt(median(v), 1), fmt(p95(v), 1), fmt(max(v), 1),
                     ", ".join(f"{x:.0f}" for x in v)]
                    for name in PHASES
                    for v in [[row[name] for row in split]]
                ],
            )  # fmt: skip


if __name__ == "__main__":
    main()

"""Two builds' `recall` op side by side (issue 23): one daemon per venv, each on its own copy of
a home bench_prompt_hook kept, and the same fresh prompts sent to each in turn over their
sockets, so both see the same load (this machine is shared, and runs minutes apart differ by
more than a change does). Each round's session gets its session-start resume first (untimed).
A second pass sends the same prompts again: their embeddings are then cached, which times the
work after the model.

    python bench/bench_prompt_op_ab.py --home /tmp/ph-keep/rn-100000-100000 \\
        --a /tmp/rnp-venv-base --b /tmp/rnp-venv [-n 100]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_prompt_hook import prompts
from bench_resume_scale import OWN
from common import fmt, load1, median, note, p95, print_table

from recallnest.server import protocol


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True, help="a home bench_prompt_hook kept")
    parser.add_argument("--a", type=Path, required=True, help="the first venv (pip install .)")
    parser.add_argument("--b", type=Path, required=True, help="the second venv")
    parser.add_argument("-n", "--runs", type=int, default=100)
    args = parser.parse_args()
    venvs = {"a": args.a, "b": args.b}
    with tempfile.TemporaryDirectory(prefix="rn-bench-ab-", dir="/tmp") as tmp_s:
        tmp = Path(tmp_s)
        envs, socks = {}, {}
        for name, venv in venvs.items():
            shutil.copytree(args.home, tmp / name / "rn")
            env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
            env.update(
                HOME=str(tmp / name / "u"),
                RECALLNEST_HOME=str(tmp / name / "rn"),
                RECALLNEST_EMBEDDER="local",
            )
            envs[name] = env
            socks[name] = str(tmp / name / "rn" / protocol.SOCKET_NAME)
            start = [str(venv / "bin" / "recallnest"), "daemon", "start"]
            subprocess.run(start, env=env, check=True, capture_output=True)
        try:
            note(f"load1 {load1():.2f} at start")
            rows = [
                [f"{label}, {name} ({venvs[name]})", fmt(median(v)), fmt(p95(v))]
                for label, times in (
                    ("fresh prompts", run(socks, args.runs)),
                    ("the same prompts again", run(socks, args.runs)),
                )
                for name, v in times.items()
            ]
        finally:
            for name, venv in venvs.items():
                stop = [str(venv / "bin" / "recallnest"), "daemon", "stop"]
                subprocess.run(stop, env=envs[name], check=False, capture_output=True)
    title = f"recall op over the socket, side by side, {args.runs} prompts each"
    print_table(f"{title} (load1 {load1():.2f} at end)", ["what", "p50 ms", "p95 ms"], rows)


def run(socks: dict[str, str], runs: int) -> dict[str, list[float]]:
    for sock in socks.values():  # loads the model, untimed
        warm = {"prompt": "warm up: which port is zeta?", "cwd": OWN, "session_id": "warm"}
        protocol.request(sock, "recall", {**warm, "vector_deadline": None}, 120.0)
    times: dict[str, list[float]] = {name: [] for name in socks}
    for k in range(runs):
        order = list(socks) if k % 2 else list(reversed(list(socks)))
        for name in order:
            session = f"ab-{k}-{time.monotonic_ns()}"
            began = {"cwd": OWN, "agent": "claude", "source": "startup", "session_id": session}
            protocol.request(socks[name], "resume", began, 10.0)
            ask = {"prompt": f"{prompts(k)['relevant']} ({k})", "cwd": OWN, "session_id": session}
            start = time.perf_counter()
            protocol.request(socks[name], "recall", ask, 10.0)
            times[name].append((time.perf_counter() - start) * 1000)
    return times


if __name__ == "__main__":
    main()

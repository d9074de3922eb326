"""Latency of prompt-time recall (issue 23) against the real daemon at 100k memories.

The store of bench_resume_scale (100k memories, the project's own 50 notes among them). The
real daemon serves; the hook is a fresh `recallnest hook user-prompt --agent claude` process per
prompt, as Claude Code and Codex run it. Prompts alternate: one about a stored note (recall
should inject it), one with nothing stored about it, one chatter (skipped before any search).
Each round's session first gets its session-start resume from the daemon (untimed), as the
session-start hook does before any prompt. The home has the checkpoints a running daemon would
have made (`checkpoint_home`), so the daemon does not build them beside the timed prompts.
Reports p50/p95 ms of the `recall` op over the socket and of the hook process, how many
prompts got an injection and, for the prompts about a note the session's resume did not
already hold, how many got that note ("right").
Every prompt's text is new to the daemon, so no query embedding comes from its cache.

    python bench/bench_prompt_hook.py [-n 40] [--quick] [--script PATH] [--embedder local]
        [--turns 100000] [--keep DIR] [--raw FILE] [--quiet 35]

`--quiet S` leaves the daemon without a request for S seconds before each round's prompts, so
its idle release (30 s after the last request) has run and the first hook reads what it gave
back (decision 0035); the op over the socket is then timed after the hooks.

With `--embedder local` (the shipped default) every row gets a clustered vector under the local
model's id, so the daemon has nothing to embed, and each prompt's query is embedded by the
real model (the daemon loads it on a warm-up prompt before timing starts); the cosine then
joins the gate (continuity.recall). The default `none` times the lexical path alone.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_footprint import wait_recheck
from bench_resume_scale import OWN, OWN_FACTS, populate
from common import (
    fmt,
    load1,
    machine_line,
    make_turns,
    median,
    note,
    p95,
    print_table,
    vectorise_home,
)

from recallnest.server import protocol


def prompts(k: int) -> dict[str, str]:
    """For round `k`: about a stored note (short, and in a long paragraph of ~120 tokens as
    users also write), about nothing stored, chatter. Every text is new to the daemon (its
    query embedding is not cached from an earlier round or from the op's timing)."""
    fact = k % OWN_FACTS
    ask = f"which port does service zeta{fact} run on? I need port {8000 + fact} for the config"
    if k >= OWN_FACTS:
        ask += f" (take {k // OWN_FACTS + 1})"
    return {
        "relevant": ask,
        "long": (
            "I'm picking up the config work from yesterday and before I touch the compose file "
            "again I want to be sure about the networking side, because last time the health "
            "checks kept failing after a restart and we lost an hour to it; the reverse proxy "
            f"also needs the right upstream, so {ask} and whether anything else listens there"
        ),
        "absent": f"draft a limerick about otters juggling kumquats, variation {k}",
        "chatter": "thanks!",
    }


def op_prompt(k: int) -> str:
    """The op's own wording of round k's question: timing it must not embed the hook's text."""
    fact = k % OWN_FACTS
    return f"service zeta{fact}: is it on port {8000 + fact}? asking for the config, round {k}"


def the_note(k: int) -> str:
    """The text of the note round k's relevant prompts ask for."""
    fact = k % OWN_FACTS
    return f"service zeta{fact} runs on port {8000 + fact}"


def payload(prompt: str, session: str) -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": OWN,
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", "--runs", type=int, default=40)
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    parser.add_argument(
        "--quiet",
        type=float,
        default=0.0,
        help="seconds without a request before each round's prompts (35: after the idle release)",
    )
    parser.add_argument("--embedder", choices=("none", "local"), default="none")
    parser.add_argument("--turns", type=int, default=100_000, help="past turns beside the memories")
    parser.add_argument("--keep", type=Path, help="build the home here once and reuse it")
    parser.add_argument("--raw", type=Path, help="write every timing (ms, in order) as JSON")
    args = parser.parse_args()
    size = 5_000 if args.quick else 100_000
    turns = 5_000 if args.quick else args.turns
    runs = 8 if args.quick else args.runs
    script = args.script or shutil.which("recallnest")
    if script is None:
        raise SystemExit("the `recallnest` console script is not on PATH (pip install the repo)")
    note(machine_line())
    labels = ("relevant", "long", "absent", "chatter")
    times: dict[str, list[float]] = {"op": [], **{label: [] for label in labels}}
    injected = dict.fromkeys(labels, 0)
    right = dict.fromkeys(labels, 0)  # the note asked for, when the resume did not hold it
    needed = dict.fromkeys(labels, 0)
    with tempfile.TemporaryDirectory(prefix="rn-bench-prompt-") as tmp_s:
        tmp = Path(tmp_s)
        home = tmp / "rn"
        built = args.keep / f"rn-{size}-{turns}" if args.keep else None
        if built is not None and built.exists():
            note(f"{checkpoint_home(built)} sessions checkpointed in the kept home")
            shutil.copytree(built, home)
        else:
            t0 = time.perf_counter()
            populate(home, size)
            write_turns(home, turns)
            note(f"populated {size} memories + {turns} turns in {time.perf_counter() - t0:.1f}s")
            note(f"{checkpoint_home(home)} sessions checkpointed")
        if args.embedder == "local":
            note(f"{vectorise_home(home)} rows given vectors under the local model's id")
        if built is not None and not built.exists():
            shutil.copytree(home, built)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(
            HOME=str(tmp / "user"), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER=args.embedder
        )
        subprocess.run([script, "daemon", "start"], env=env, check=True, capture_output=True)
        try:
            sock = str(home / protocol.SOCKET_NAME)
            warm = {"prompt": "warm up: which port is zeta?", "cwd": OWN, "session_id": "warm"}
            protocol.request(sock, "recall", warm, 120.0)  # loads the model, if any
            rechecked = wait_recheck(home / "logs" / "daemon.log", 900.0)
            if rechecked:
                note(f"waited {rechecked:.0f} s for the re-check of the copied home's texts")
            argv = [script, "hook", "user-prompt", "--agent", "claude"]
            for k in range(runs):
                asked = prompts(k)
                # The session-start hook ran first, through this daemon, as in every session:
                # recall knows what the session received without composing its resume again.
                began = {"cwd": OWN, "agent": "claude", "source": "startup"}
                # One session per prompt: a note sent at one prompt is never sent again in
                # its session, so the long prompt must not follow the short one in the same.
                in_resume: dict[str, bool] = {}
                for label in (*asked, "op"):
                    session = {**began, "session_id": f"{label}-{k}"}
                    resumed = protocol.request(sock, "resume", session, 10.0)
                    in_resume[label] = f"own-{k % OWN_FACTS:03d}" in resumed["items"]
                args_ = {"prompt": op_prompt(k), "cwd": OWN, "session_id": f"op-{k}"}
                if args.quiet:
                    # The daemon's idle release runs 30 s after the last request: the first
                    # hook then reads what it released (decision 0035); the op comes last.
                    time.sleep(args.quiet)
                else:
                    start = time.perf_counter()
                    protocol.request(sock, "recall", args_, 10.0)
                    times["op"].append((time.perf_counter() - start) * 1000)
                for label, prompt in asked.items():
                    start = time.perf_counter()
                    out = subprocess.run(
                        argv,
                        input=payload(prompt, f"{label}-{k}"),
                        capture_output=True,
                        text=True,
                        env=env,
                    )
                    times[label].append((time.perf_counter() - start) * 1000)
                    if out.returncode != 0 or out.stderr:
                        raise SystemExit(f"hook failed: {out!r}")
                    injected[label] += "additionalContext" in out.stdout
                    if label in ("relevant", "long") and not in_resume[label]:
                        needed[label] += 1
                        right[label] += the_note(k) in out.stdout
                if args.quiet:
                    start = time.perf_counter()
                    protocol.request(sock, "recall", args_, 10.0)
                    times["op"].append((time.perf_counter() - start) * 1000)
        finally:
            subprocess.run([script, "daemon", "stop"], env=env, check=True, capture_output=True)
    if args.raw:
        args.raw.write_text(json.dumps(times))
    rows = [
        [
            "recall op over the socket (relevant prompt)",
            runs,
            fmt(median(times["op"])),
            fmt(p95(times["op"])),
            "-",
        ]
    ]
    for label in labels:
        asked = f", {right[label]} of {needed[label]} right" if needed[label] else ""
        rows.append(
            [
                f"hook process, {label} prompt",
                runs,
                fmt(median(times[label])),
                fmt(p95(times[label])),
                f"{injected[label]} injected{asked}",
            ]
        )
    title = (
        f"Prompt-time recall with {size} memories + {turns} turns, embedder {args.embedder}"
        f" (load1 {load1():.2f})"
    )
    print_table(title, ["what", "runs", "p50 ms", "p95 ms", "notes"], rows)


def checkpoint_home(home: Path) -> int:
    """Checkpoint the sessions a daemon would find without one (the newest of each project),
    as a daemon that ran leaves its store; once per home. Without it the daemon spent its
    first seconds (3.2 s of CPU for 60 sessions) building them beside the timed prompts."""
    from recallnest.core.config import Settings
    from recallnest.engine import Engine

    marker = home / "bench-checkpoints"
    if marker.exists():
        return 0
    settings = Settings.load(flags={"home": str(home), "embedder": "none"}, env={})
    engine = Engine.open(settings)
    try:
        missed = engine.store.sessions_missing_checkpoint()
        for session_id in missed:
            engine.continuity.checkpoint(session_id, "idle")
    finally:
        engine.close()
    marker.write_text(f"{len(missed)}\n")
    return len(missed)


def write_turns(home: Path, n: int) -> None:
    """`n` past turns (bench/common.make_turns) beside the memories, as the issue's 100k
    memories + 100k turns."""
    from recallnest.store import Batch, Store

    store = Store(home / "recallnest.duckdb")
    try:
        rows = make_turns(n, seed=12)
        for k in range(0, len(rows), 10_000):
            store.write(Batch(turns=rows[k : k + 10_000]))
    finally:
        store.close()


if __name__ == "__main__":
    main()

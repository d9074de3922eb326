"""Resume at scale: does a project keep its own facts next to 100k other memories, and how fast?

    python bench/bench_resume_scale.py [--quick] [-n RUNS] [--script PATH]

The store holds `size` memories, almost all of them global or other projects' (drawn by
`make_memories` with its importance spread, then re-scoped: 70 % global, 30 % other projects),
plus the project's own 40 facts and 10 preferences and cases at low to middling importance
(0.2-0.6, as captured facts are). Reported:
- how many of the project's facts the resume shows ("This project" items that are its own),
  and how many the old candidate query (one top 300 over global and project together) held;
- the `resume` op in the daemon, cached (no write since the last resume) and uncached (a
  `remember` before each call, the first resume after a write);
- the installed hook as a fresh process, daemon up (target: p95 <= 100 ms at 100k, issue 5):
  with no write since the last resume, at once after a write, and 1.5 s after one (the
  daemon's idle loop has recomputed the inputs by then).
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
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_resume import hook_runs
from common import (
    BASE_TIME,
    PROJECTS,
    bench_settings,
    fmt,
    load1,
    machine_line,
    make_memories,
    median,
    note,
    p95,
    print_table,
)

from recallnest.core.models import GLOBAL_SCOPE, Memory
from recallnest.server import protocol

OWN = PROJECTS[0]
OWN_FACTS = 40
OWN_OTHER = 10
OLD_CANDIDATES = 300


def own_memories() -> list[Memory]:
    out = []
    for k in range(OWN_FACTS + OWN_OTHER):
        category = (
            ("entities", "events")[k % 2] if k < OWN_FACTS else ("preferences", "cases")[k % 2]
        )
        out.append(
            Memory(
                id=f"own-{k:03d}",
                scope=OWN,
                category=category,
                text=f"project-00 own {category} note {k}: service zeta{k} runs on port {8000 + k}",
                importance=round(0.2 + 0.4 * (k % 9) / 8, 3),
                confidence=0.8,
                created_at=BASE_TIME + timedelta(days=k),
                updated_at=BASE_TIME + timedelta(days=k),
                source="capture",
                rule="bench",
            )
        )
    return out


def crowd(size: int) -> list[Memory]:
    rows = make_memories(size)
    others = PROJECTS[1:]
    return [
        replace(m, scope=GLOBAL_SCOPE if k % 10 < 7 else others[k % len(others)])
        for k, m in enumerate(rows)
    ]


OLD_QUERY = (
    "SELECT * FROM memories WHERE status = 'active' AND scope IN (?, ?) "
    "ORDER BY importance * confidence DESC, updated_at DESC NULLS LAST, id LIMIT ?"
)


def populate(home: Path, size: int) -> tuple[int, list[float], list[float]]:
    """The store. Returns how many own facts the old single top-300 query held, and the
    in-process times (ms) of the old query and of the per-section queries, interleaved."""
    from recallnest.continuity.compose import candidate_groups
    from recallnest.continuity.service import RESUME_CANDIDATES_PER_GROUP
    from recallnest.engine import Engine
    from recallnest.store import Batch

    engine = Engine.open(bench_settings(home))
    try:
        rows = [*crowd(size - OWN_FACTS - OWN_OTHER), *own_memories()]
        for k in range(0, len(rows), 10_000):
            engine.apply(Batch(memories=rows[k : k + 10_000]))
        cur = engine.store._cur()
        held = cur.execute(OLD_QUERY, [GLOBAL_SCOPE, OWN, OLD_CANDIDATES]).fetchall()
        old_ms, new_ms = [], []
        groups = candidate_groups(OWN)
        for _ in range(15):
            old_ms.append(
                timed(lambda: cur.execute(OLD_QUERY, [GLOBAL_SCOPE, OWN, 300]).fetchall())
            )
            new_ms.append(
                timed(lambda: engine.store.resume_memories(groups, RESUME_CANDIDATES_PER_GROUP))
            )
    finally:
        engine.close()
    return sum(1 for r in held if str(r[0]).startswith("own-")), old_ms, new_ms


def timed(call: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    call()
    return (time.perf_counter() - t0) * 1000


def resume(sock: str) -> dict[str, object]:
    args = {"cwd": OWN, "agent": "claude", "source": "startup", "record": False}
    out: dict[str, object] = protocol.request(sock, "resume", args, 10.0)
    return out


def op_times(sock: str, runs: int, write_first: bool) -> list[float]:
    times = []
    for k in range(runs):
        if write_first:
            text = f"bench write {k} before the resume"
            protocol.request(sock, "remember", {"text": text, "scope": OWN}, 10.0)
        t0 = time.perf_counter()
        resume(sock)
        times.append((time.perf_counter() - t0) * 1000)
    return times


# A session starts seconds after the last write of the one before; the daemon's idle loop
# (every 0.5 s at most) recomputes the resume inputs meanwhile (Continuity.rewarm).
REWARM_WAIT = 1.5


def hooks_after_writes(
    sock: str, argv: list[str], env: dict[str, str], payload: str, runs: int, wait: float
) -> tuple[list[float], int]:
    times, misses = [], 0
    for k in range(runs):
        text = f"bench write {k} before the hook, then {wait} s"
        protocol.request(sock, "remember", {"text": text, "scope": OWN}, 10.0)
        time.sleep(wait)
        one, miss = hook_runs(argv, env, payload, 1, expect_output=True)
        times, misses = times + one, misses + miss
    return times, misses


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", "--runs", type=int, default=40)
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    args = parser.parse_args()
    size = 5_000 if args.quick else 100_000
    runs = 8 if args.quick else args.runs
    script = args.script or shutil.which("recallnest")
    if script is None:
        raise SystemExit("the `recallnest` console script is not on PATH (pip install the repo)")
    note(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-scale-") as tmp_s:
        tmp = Path(tmp_s)
        home = tmp / "rn"
        t0 = time.perf_counter()
        old_own, old_ms, new_ms = populate(home, size)
        note(f"populated {size} memories in {time.perf_counter() - t0:.1f}s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER="none")
        payload = json.dumps(
            {
                "session_id": "bench",
                "cwd": OWN,
                "source": "startup",
                "hook_event_name": "SessionStart",
            }
        )
        subprocess.run([script, "daemon", "start"], env=env, check=True, capture_output=True)
        try:
            sock = str(home / protocol.SOCKET_NAME)
            shown = resume(sock)
            cached = op_times(sock, runs, write_first=False)
            uncached = op_times(sock, runs, write_first=True)
            argv = [script, "hook", "session-start", "--agent", "claude"]
            up, up_miss = hook_runs(argv, env, payload, runs, expect_output=True)
            fresh, fresh_miss = hooks_after_writes(sock, argv, env, payload, runs, 0.0)
            warm, warm_miss = hooks_after_writes(sock, argv, env, payload, runs, REWARM_WAIT)
        finally:
            subprocess.run([script, "daemon", "stop"], env=env, check=True, capture_output=True)
    text = str(shown["text"])
    project_lines = (
        text.split("This project:\n", 1)[1].split("\n") if "This project:" in text else []
    )
    own_shown = sum(1 for line in project_lines if "project-00 own" in line)
    note(
        f"project facts: {OWN_FACTS} stored; {own_shown} shown under 'This project' "
        f"({len([x for x in shown['items'] if str(x).startswith('own-')])} own items in all); "
        f"the old single top-{OLD_CANDIDATES} candidate query held {old_own} of them"
    )
    rows = [
        [
            "old candidate query (top 300 overall), in-process",
            15,
            fmt(median(old_ms)),
            fmt(p95(old_ms)),
            "-",
        ],
        [
            "per-section candidate queries, in-process",
            15,
            fmt(median(new_ms)),
            fmt(p95(new_ms)),
            "-",
        ],
        ["resume op, cached", runs, fmt(median(cached)), fmt(p95(cached)), "-"],
        ["resume op, first after a write", runs, fmt(median(uncached)), fmt(p95(uncached)), "-"],
        ["hook, daemon up", runs, fmt(median(up)), fmt(p95(up)), f"{up_miss} over budget"],
        [
            "hook, daemon up, at once after a write",
            runs,
            fmt(median(fresh)),
            fmt(p95(fresh)),
            f"{fresh_miss} over budget",
        ],
        [
            f"hook, daemon up, {REWARM_WAIT} s after a write",
            runs,
            fmt(median(warm)),
            fmt(p95(warm)),
            f"{warm_miss} over budget",
        ],
    ]
    print_table(
        f"Resume with {size} memories, project keeps its facts (load1 {load1():.2f})",
        ["what", "runs", "p50 ms", "p95 ms", "notes"],
        rows,
    )


if __name__ == "__main__":
    main()

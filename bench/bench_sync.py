"""Sync through a local bare git repository (issue 21): the first sync of N memories, and an
incremental round with nothing new and with 100 new memories.

    python bench/bench_sync.py [--n 100000] [--repeat 5] [--new 100]

Two homes, A and B, one bare repository, the real git binary. A holds N synthetic memories
(written straight into its store, as a long-used home would hold them). Measured:
- first sync, A: export N events, seal them, write 256 log files, push;
- first sync, B: fetch, open and check N events, merge, write N memories into its store;
- quiet round (A, then B): nothing new anywhere (`--repeat` rounds each);
- 100 new (A sends, then B receives): `--new` memories remembered on A between rounds.
Targets: first sync of 100k <= 60 s; quiet <= 1 s; 100 new <= 3 s. A first sync happens once
per home, so it is one figure per run (median = p95 = that figure).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import (
    TextGen,
    bench_home,
    bench_settings,
    fmt,
    machine_line,
    median,
    note,
    p95,
    print_table,
)

from recallnest.core.models import GLOBAL_SCOPE, Memory, memory_id
from recallnest.engine import Engine
from recallnest.store.types import Batch
from recallnest.sync.codec import new_key, write_key
from recallnest.sync.config import Remote, SyncConfig


def _engine(home: Path, remote: Remote, key: bytes) -> Engine:
    engine = Engine.open(bench_settings(home))
    config = SyncConfig.new()
    config.remotes.append(remote)
    config.save(home)
    write_key(SyncConfig.key_path(home, remote.name), key)
    return engine


def _memories(texts: list[str]) -> list[Memory]:
    return [
        Memory(id=memory_id(GLOBAL_SCOPE, t), scope=GLOBAL_SCOPE, category="facts", text=t)
        for t in texts
    ]


def _round(engine: Engine) -> float:
    started = time.perf_counter()
    report = engine.sync.sync()
    seconds = time.perf_counter() - started
    errors = [r["error"] for r in report["remotes"].values() if r.get("error")]
    if errors:
        raise SystemExit(f"sync failed: {errors}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--new", type=int, default=100)
    args = parser.parse_args()
    note(machine_line())
    gen = TextGen(seed=7)
    texts = gen.texts(args.n + args.new * args.repeat)
    key = new_key()
    with bench_home() as root:
        bare = root.parent / "remote.git"
        subprocess.run(["git", "init", "--bare", "-q", str(bare)], check=True)
        remote = Remote("personal", str(bare), "git")
        a = _engine(root.parent / "a", remote, key)
        b = _engine(root.parent / "b", remote, key)
        try:
            for start in range(0, args.n, 10_000):
                a.apply(Batch(memories=_memories(texts[start : min(start + 10_000, args.n)])))
            note(f"A holds {args.n} memories")
            first_a = _round(a)
            first_b = _round(b)
            if len(b.export()) != args.n:
                raise SystemExit("B did not receive every memory")
            quiet_a = [_round(a) for _ in range(args.repeat)]
            quiet_b = [_round(b) for _ in range(args.repeat)]
            new_a, new_b = [], []
            for n in range(args.repeat):
                start = args.n + n * args.new
                a.apply(Batch(memories=_memories(texts[start : start + args.new])))
                new_a.append(_round(a))
                new_b.append(_round(b))
            if len(b.export()) != args.n + args.new * args.repeat:
                raise SystemExit("B did not receive the new memories")
        finally:
            a.close()
            b.close()
    rows = []
    for name, values, target in (
        (f"first sync, A sends {args.n}", [first_a], 60.0),
        (f"first sync, B receives {args.n}", [first_b], 60.0),
        ("quiet round, A", quiet_a, 1.0),
        ("quiet round, B", quiet_b, 1.0),
        (f"{args.new} new, A sends", new_a, 3.0),
        (f"{args.new} new, B receives", new_b, 3.0),
    ):
        rows.append(
            [name, len(values), fmt(median(values), 2), fmt(p95(values), 2), f"<= {target:g}"]
        )
    print_table(
        "sync through a local bare git repository (seconds)",
        ["round", "runs", "median s", "p95 s", "target s"],
        rows,
    )


if __name__ == "__main__":
    main()

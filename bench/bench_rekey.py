"""Migration m007 (issue 21): re-keying a store from before portable ids.

    python bench/bench_rekey.py [--n 100000] [--projects 20]

Builds a store at schema v6 holding N memories with path-made ids, spread over P projects in
git (a `.git/config` with an origin each, so no git runs) plus one project outside git and the
global scope, with one conflict, one lifecycle event and one undo entry per 100 memories; then
times the open that migrates it (every memory of a git project moves to its new id), and an
old-id lookup afterwards. One figure per run: a store migrates once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import TextGen, bench_home, bench_settings, fmt, machine_line, note, print_table

from recallnest.core.aliases import canonical
from recallnest.core.models import GLOBAL_SCOPE, Memory, memory_id_of_basis
from recallnest.core.paths import db_path, ensure_home
from recallnest.engine import Engine
from recallnest.store import Batch, Store
from recallnest.store import base as store_base
from recallnest.store.migrations import MIGRATIONS

CHUNK = 10_000


def _projects(root: Path, n: int) -> list[str]:
    out = []
    for k in range(n):
        path = root / f"p{k}"
        (path / ".git").mkdir(parents=True)
        (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = git@h.io:o/p{k}.git\n')
        out.append(str(path))
    plain = root / "notes"
    plain.mkdir()
    return [*out, str(plain), GLOBAL_SCOPE]


def _build(path: Path, scopes: list[str], texts: list[str]) -> list[Memory]:
    rows = [
        Memory(
            id=memory_id_of_basis(scopes[k % len(scopes)], canonical(t)),
            scope=scopes[k % len(scopes)],
            category="facts",
            text=t,
        )
        for k, t in enumerate(texts)
    ]
    saved = store_base.MIGRATIONS
    store_base.MIGRATIONS = MIGRATIONS[:6]
    try:
        store = Store(path)
    finally:
        store_base.MIGRATIONS = saved
    try:
        for start in range(0, len(rows), CHUNK):
            store.write(Batch(memories=rows[start : start + CHUNK]))
        con = store._cur()
        for k in range(0, len(rows) - 1, 100):
            a, b = rows[k].id, rows[k + 1].id
            con.execute(
                "INSERT INTO conflicts VALUES (?, ?, ?, ?, 'facts', 'r', NULL, 'open', "
                "now()::TIMESTAMP, NULL, NULL, NULL)",
                [k, a, b, rows[k].scope],
            )
            con.execute(
                "INSERT INTO memory_events VALUES (now()::TIMESTAMP, 'merged', ?, ?, ?)",
                [a, b, k],
            )
            before = json.dumps([{"id": b, "text": rows[k + 1].text}])
            con.execute(
                "INSERT INTO undo_log VALUES (?, 'merge', now()::TIMESTAMP, ?, ?, '[]', 's', NULL)",
                [k, [a, b], before],
            )
    finally:
        store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--projects", type=int, default=20)
    args = parser.parse_args()
    note(machine_line())
    texts = TextGen(seed=5).texts(args.n)
    with bench_home() as home:
        settings = bench_settings(home)
        ensure_home(home)
        scopes = _projects(home.parent / "src", args.projects)
        rows = _build(db_path(home), scopes, texts)
        started = time.perf_counter()
        store = Store(db_path(home))
        migrate_s = time.perf_counter() - started
        mapped = len(store.id_map())
        store.close()
        engine = Engine.open(settings)
        try:
            git_rows = [m for m in rows if m.scope.startswith(str(home.parent / "src" / "p"))]
            started = time.perf_counter()
            found = engine.memory(git_rows[-1].id)
            lookup_ms = (time.perf_counter() - started) * 1000
            assert found.id != git_rows[-1].id and found.text == git_rows[-1].text
        finally:
            engine.close()
    print_table(
        f"Migration m007 at {args.n:,} memories ({args.projects} git projects)",
        ["step", "figure"],
        [
            ["memories re-keyed", f"{mapped:,} of {args.n:,}"],
            ["open that migrates (s)", fmt(migrate_s, 2)],
            ["old-id lookup after (ms)", fmt(lookup_ms, 2)],
        ],
    )


if __name__ == "__main__":
    main()

"""What checking a home's stored texts against a changed redactor costs (decision 0031), on the
100k home of bench_footprint / bench_steady (`--keep DIR` shares it).

    python bench/bench_rescan.py --keep DIR [--memories 100000] [--turns 100000]
        [--embedder local] [--secrets 200] [--busy 30] [--script PATH]

The home is copied; `--secrets` turns holding a token the current redactor masks are added to
the copy, written straight to the store (as an older redactor let them through), and an old
fingerprint is recorded. Then:

1. in process: `audit.scan` over the whole store, as `recallnest audit secrets` does (the cost a
   synchronous check at the daemon's start would add), and the daemon's chunked walk
   (`RedactionRecheck.run`), with the longest hold of the writer lock by one chunk;
2. the real daemon on a fresh copy: the latency of `ping` and of a `search` asked every 0.25 s
   (what a hook waits) during the first `--busy` seconds of its walk, against the same requests
   once it is done; then no request until the walk ends, and how long it took.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_footprint import console_script, daemon, footprint_home, model_of
from common import fmt, machine_line, median, note, p95, print_table

from recallnest.server import protocol

TOKEN = "ghp_" + "Zq8Wm3Kx7Lp2Rt5Vn9Bc4Hd6Jf1Gs0Ya7Ue3Io"
OLD = "0" * 32


def plant(home: Path, n: int) -> None:
    from recallnest.core.models import Turn
    from recallnest.server.rescan import FINGERPRINT_KEY
    from recallnest.store import Batch, Store

    store = Store(home / "recallnest.duckdb")
    try:
        turns = [
            Turn(
                "claude",
                f"planted-{k % 7}",
                "user",
                f"the staging deploy token is {TOKEN}{k:04d}, rotate it on friday",
                None,
                f"/planted/{k % 7}.jsonl",
                f"planted-{k}",
                k,
                "/work/planted",
            )
            for k in range(n)
        ]
        store.write(Batch(turns=turns))
        store.set_meta({FINGERPRINT_KEY: OLD})
        store.flush_wal()
    finally:
        store.close()


def in_process(home: Path, embedder: str) -> list[list[object]]:
    from recallnest.core.config import Settings
    from recallnest.engine import Engine
    from recallnest.server import rescan
    from recallnest.server.audit import scan
    from recallnest.store import Store

    store = Store(home / "recallnest.duckdb", read_only=True)
    t0 = time.perf_counter()
    scanned, findings = scan(store)
    whole = time.perf_counter() - t0
    store.close()
    rows = sum(scanned.values())
    out: list[list[object]] = [["audit scan (synchronous)", f"{rows:,}", len(findings), fmt(whole)]]

    holds: list[float] = []
    chunk = rescan.RedactionRecheck._chunk

    def timed_chunk(self: rescan.RedactionRecheck, store: object, walk: object) -> None:
        started = time.perf_counter()
        chunk(self, store, walk)  # type: ignore[arg-type]
        holds.append(time.perf_counter() - started)

    rescan.RedactionRecheck._chunk = timed_chunk  # type: ignore[method-assign]
    engine = Engine.open(Settings.load({"home": str(home), "embedder": embedder}))
    try:
        walk = rescan.RedactionRecheck(home)
        t0 = time.perf_counter()
        walk.run(engine)
        took = time.perf_counter() - t0
    finally:
        engine.close()
        rescan.RedactionRecheck._chunk = chunk  # type: ignore[method-assign]
    out.append(
        [
            f"daemon walk, {len(holds)} chunks (longest {fmt(max(holds) * 1000, 0)} ms, "
            f"p95 {fmt(p95(holds) * 1000, 0)} ms)",
            f"{rows:,}",
            walk.fixed,
            fmt(took),
        ]
    )
    return out


def ask_ms(sock: str, op: str, args: dict[str, object]) -> float | None:
    t0 = time.perf_counter()
    try:
        protocol.request(sock, op, args, 10.0)
    except (OSError, protocol.ProtocolError):
        return None
    return (time.perf_counter() - t0) * 1000


def with_daemon(home: Path, script: str, busy_seconds: float) -> list[list[object]]:
    """The real daemon on `home`: `busy_seconds` of requests every 0.25 s (the walk then goes
    a chunk every 2 s beside them), then none until the walk is done, then 20 more."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
    env.update(RECALLNEST_HOME=str(home), HOME=str(home.parent / "user"))
    (home.parent / "user").mkdir(exist_ok=True)
    sock = str(home / protocol.SOCKET_NAME)
    log = home / "logs" / "daemon.log"
    search = {"query": "deploy token staging", "kind": "all", "limit": 5}
    during: dict[str, list[float]] = {"ping": [], "search": []}
    after: dict[str, list[float]] = {"ping": [], "search": []}

    def text() -> str:
        return log.read_text(errors="replace") if log.exists() else ""

    def ask_both(into: dict[str, list[float]]) -> None:
        for op, args in (("ping", {}), ("search", search)):
            ms = ask_ms(sock, op, args)
            if ms is not None:
                into[op].append(ms)

    t0 = time.perf_counter()
    with daemon(script, env, log):
        while "checking them" not in text() and time.perf_counter() - t0 < 300:
            time.sleep(0.1)
        ask_ms(sock, "search", search)  # loads the embedder's model, as a first search does
        walk_from = time.perf_counter()
        while time.perf_counter() - walk_from < busy_seconds and "new redactor" not in text():
            ask_both(during)
            time.sleep(0.25)
        while "database reopened" not in text() and time.perf_counter() - t0 < 3600:
            time.sleep(0.5)
        done = time.perf_counter() - walk_from
        ask_ms(sock, "search", search)  # waits for the reopened engine's index load
        time.sleep(3.0)
        while len(after["search"]) < 20:
            ask_both(after)
            time.sleep(0.25)
        lines = [ln for ln in text().splitlines() if "new redactor" in ln]
    note(lines[-1] if lines else "no rescan line in the log")
    note(f"from the walk's start to the engine reopened: {fmt(done)} s")
    rows: list[list[object]] = []
    for name, got in ((f"the first {busy_seconds:.0f} s of the walk", during), ("after", after)):
        rows.append(
            [
                name,
                len(got["search"]),
                fmt(median(got["ping"])) if got["ping"] else "-",
                fmt(p95(got["ping"])) if got["ping"] else "-",
                fmt(median(got["search"])) if got["search"] else "-",
                fmt(p95(got["search"])) if got["search"] else "-",
                fmt(max(got["search"])) if got["search"] else "-",
            ]
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", type=Path, help="the homes bench_footprint builds (reused)")
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--embedder", default="local", choices=("hash", "none", "local"))
    parser.add_argument("--secrets", type=int, default=200)
    parser.add_argument("--busy", type=float, default=30.0, help="seconds of requests")
    parser.add_argument("--daemon-only", action="store_true", help="skip the in-process part")
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    args = parser.parse_args()
    script = console_script(args.script)
    note(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-rescan-") as tmp_s:
        tmp = Path(tmp_s)
        home = footprint_home(args.keep, tmp, args.memories, args.turns, model_of(args.embedder))
        work = tmp / "a" / "home"
        shutil.copytree(home, work)
        plant(work, args.secrets)
        if not args.daemon_only:
            print_table(
                f"Checking {args.memories:,} memories + {args.turns:,} turns "
                f"(+{args.secrets} with a secret) against a changed redactor, in process",
                ["what", "rows", "rows fixed", "seconds"],
                in_process(work, args.embedder),
            )
        shutil.rmtree(work)
        shutil.copytree(home, work)
        plant(work, args.secrets)
        print_table(
            "The daemon meanwhile: request latency (ms) from another process",
            ["", "searches", "ping median", "ping p95", "search median", "search p95", "max"],
            with_daemon(work, script, args.busy),
        )


if __name__ == "__main__":
    main()

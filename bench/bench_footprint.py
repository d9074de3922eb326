"""The daemon's memory footprint at 100k memories + 100k turns (issue 22).

    python bench/bench_footprint.py [--embedder hash|none|local] [--seconds 90]
        [--memories 100000] [--turns 100000] [--keep DIR] [--no-breakdown] [--db-mb N]

1. Builds a home (bench/common.py generators, as bench_search.build_store: synthetic memories
   and turns written through Store.write, one clustered vector per row stored under the
   embedder's model id, so the daemon has nothing to embed). `--keep DIR` builds it once there
   and reuses it.
2. Starts the real daemon (`recallnest daemon run`, RECALLNEST_HOME in a temp dir, no
   transcript roots), waits for its "caught up" log line, runs one search (which loads the
   embedder's model, as a user's first search does), then samples VmRSS/VmHWM from
   /proc/<pid>/status once a second for `--seconds`. One third in, it asks for one full
   maintenance pass (the `maintain` socket op: expire, retier, consolidate, retention,
   prune_undo, compact), as the idle scheduler would run them.
   Printed: RSS median and p95 over the whole window and after the pass, the peak (VmHWM),
   and CPU % (utime+stime, every thread) before the pass and from SETTLE_SECONDS after it.
3. With the daemon stopped, an in-process breakdown (same settings, Engine.open): bytes held
   by the search index by part (SearchIndex.footprint, per indexed row), DuckDB's buffer
   (duckdb_memory()), and tracemalloc's top Python allocation sites; then one maintenance
   pass (run_all) and the sites whose allocations it left live.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    add_clustered_vectors,
    bench_settings,
    fmt,
    load1,
    machine_line,
    make_memories,
    make_turns,
    median,
    note,
    p95,
    print_table,
    rss_mib,
)

from recallnest.server import protocol

MIB = 1024 * 1024
WRITE_BATCH = 10_000
SETTLE_SECONDS = 15.0  # idle CPU is measured from this long after the maintenance pass


def model_of(name: str) -> tuple[str, int] | None:
    """(model id, dimensions) of the embedder the daemon builds for `name`, None for none.
    Built without loading a model (LocalE5Embedder loads on first use)."""
    if name == "none":
        return None
    from recallnest.retrieval.embed import make_embedder

    embedder = make_embedder(name)
    return embedder.model_id, embedder.dimensions


def build(home: Path, memories: int, turns: int, model: tuple[str, int] | None) -> None:
    from recallnest.store import Batch, Store

    home.mkdir(parents=True, exist_ok=True)
    store = Store(home / "recallnest.duckdb")
    try:
        mem = make_memories(memories, seed=11)
        for k in range(0, memories, WRITE_BATCH):
            store.write(Batch(memories=mem[k : k + WRITE_BATCH]))
        del mem
        tur = make_turns(turns, seed=12)
        for k in range(0, turns, WRITE_BATCH):
            store.write(Batch(turns=tur[k : k + WRITE_BATCH]))
        del tur
        if model is not None:
            add_clustered_vectors(store, model)
        store.flush_wal()
    finally:
        store.close()


def console_script(given: str | None) -> str:
    """The `recallnest` console script the daemon runs as: `given`, else the one on PATH."""
    script = given or shutil.which("recallnest")
    if script is None:
        raise SystemExit("the `recallnest` console script is not on PATH (pip install the repo)")
    return script


def footprint_home(
    keep: Path | None, tmp: Path, memories: int, turns: int, model: tuple[str, int] | None
) -> Path:
    """The benchmark's home: built once under `keep` (named by its sizes and model) and
    reused, or built in `tmp`."""
    name = f"fp-{memories}m-{turns}t-{model[0].replace(':', '_') if model else 'none'}"
    home = (keep / name) if keep else tmp / "home"
    if (home / "recallnest.duckdb").exists():
        note(f"reusing {home}")
        return home
    t0 = time.perf_counter()
    build(home, memories, turns, model)
    took = time.perf_counter() - t0
    note(f"built {memories:,} memories + {turns:,} turns in {home} in {took:.0f} s")
    return home


def proc_status(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of `pid` in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def cpu_seconds(pid: int) -> float:
    """utime + stime of every thread of `pid`, in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def daemon(script: str, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [script, "daemon", "run"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def wait_caught_up(proc: subprocess.Popen[bytes], sock: str, log: Path, limit: float) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited ({proc.returncode}); see {log}")
        try:
            protocol.request(sock, "ping", {}, 2.0)
            if log.exists() and "caught up" in log.read_text(errors="replace"):
                return time.perf_counter() - t0
        except (OSError, protocol.ProtocolError):  # not listening yet
            pass
        time.sleep(0.5)
    raise SystemExit(f"no catch-up after {limit:.0f} s; see {log}")


RECHECK_STARTED = "the redactor changed since the stored texts were checked"
RECHECK_DONE = "stored texts checked against the new redactor"


def wait_recheck(log: Path, limit: float) -> float:
    """Seconds until the daemon's re-check of a copied home's stored texts is over (a home
    built by an older redactor: ~75-130 s at 100k + 100k, server/rescan.py), 0 when it has
    none. Timings taken beside it measure the re-check, not the code under test."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        text = log.read_text(errors="replace") if log.exists() else ""
        if RECHECK_STARTED not in text or RECHECK_DONE in text:
            return time.perf_counter() - t0
        time.sleep(1.0)
    raise SystemExit(f"the re-check of stored texts did not end in {limit:.0f} s; see {log}")


def sample_daemon(
    home: Path, tmp: Path, embedder: str, seconds: float, db_mb: int | None, script: str
) -> tuple[list[str], dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
    env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER=embedder)
    if db_mb is not None:
        env["RECALLNEST_DB_MEMORY_MB"] = str(db_mb)
    (tmp / "user").mkdir(exist_ok=True)
    sock = str(home / protocol.SOCKET_NAME)
    log = home / "logs" / "daemon.log"
    with daemon(script, env, log) as proc:
        caught = wait_caught_up(proc, sock, log, 900.0)
        # One search, as a user's first: it loads the embedder's model (on first use).
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        at_catch_up = proc_status(proc.pid)[0]
        note(f"caught up after {caught:.1f} s, RSS {at_catch_up:.0f} MiB")
        before: list[float] = []
        after: list[float] = []
        pass_at = seconds / 3
        t0 = time.perf_counter()
        cpu0 = cpu_seconds(proc.pid)
        idle_cpu = float("nan")
        maintained = 0.0
        pass_end = 0.0
        settled: float | None = None
        settled_cpu = 0.0
        while (elapsed := time.perf_counter() - t0) < seconds:
            if not maintained and elapsed >= pass_at:
                idle_cpu = 100 * (cpu_seconds(proc.pid) - cpu0) / elapsed
                t1 = time.perf_counter()
                protocol.request(sock, "maintain", {}, 600.0)
                maintained = time.perf_counter() - t1
                note(
                    f"maintenance pass: {maintained:.1f} s, RSS {proc_status(proc.pid)[0]:.0f} MiB"
                )
                continue
            if maintained and settled is None and elapsed >= pass_end + SETTLE_SECONDS:
                settled, settled_cpu = elapsed, cpu_seconds(proc.pid)
            (after if maintained else before).append(proc_status(proc.pid)[0])
            time.sleep(1.0)
            if maintained and not pass_end:
                pass_end = time.perf_counter() - t0
        peak = proc_status(proc.pid)[1]
        late_cpu = float("nan")
        if settled is not None:
            spent = cpu_seconds(proc.pid) - settled_cpu
            late_cpu = 100 * spent / (time.perf_counter() - t0 - settled)
    every = before + after
    row = [
        embedder,
        str(db_mb or "default"),
        fmt(at_catch_up, 0),
        fmt(median(every), 0),
        fmt(p95(every), 0),
        fmt(median(after), 0),
        fmt(peak, 0),
        f"{idle_cpu:.2f}",
        f"{late_cpu:.2f}",
        fmt(maintained, 1),
        f"{load1():.2f}",
    ]
    return row, {"caught_up_s": caught}


def breakdown(home: Path, embedder: str, db_mb: int | None, top: int, maintain: bool) -> None:
    """The same engine in this process: the index's parts, DuckDB's buffer, Python's heap."""
    from recallnest.engine import Engine

    flags: dict[str, object] = {"embedder": embedder}
    if db_mb is not None:
        flags["db_memory_mb"] = db_mb
    settings = bench_settings(home, **flags)
    gc.collect()
    base = rss_mib()[0]
    tracemalloc.start(1)
    engine = Engine.open(settings)
    try:
        index = engine.index  # waits for the load
        rows = index.size
        parts = index.footprint()
        snap = tracemalloc.take_snapshot()
        traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        buffer = engine.store.buffer_memory()
        rss = rss_mib()[0]
        grown: list[tracemalloc.StatisticDiff] = []
        if maintain:
            tracemalloc.start(1)
            first = tracemalloc.take_snapshot()
            engine.maintenance.run_all()
            gc.collect()
            grown = tracemalloc.take_snapshot().compare_to(first, "lineno")
            kept = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            buffer_after = engine.store.buffer_memory()
            rss_after = rss_mib()[0]
    finally:
        engine.close()
    total = sum(parts.values())
    print_table(
        f"Search index by part: {rows:,} rows, {total / MIB:.1f} MiB, "
        f"{total / max(rows, 1):,.0f} B/row",
        ["part", "MiB", "bytes/row"],
        [[k, fmt(v / MIB, 1), fmt(v / max(rows, 1), 0)] for k, v in parts.items()],
    )
    print_table(
        f"DuckDB buffer (duckdb_memory()), {sum(buffer.values()) / MIB:.1f} MiB",
        ["tag", "MiB"],
        [[k, fmt(v / MIB, 1)] for k, v in sorted(buffer.items(), key=lambda kv: -kv[1])],
    )
    stats = snap.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__)]).statistics(
        "lineno"
    )
    print_table(
        f"Python heap (tracemalloc): {traced[0] / MIB:.1f} MiB traced, peak "
        f"{traced[1] / MIB:.1f}; process RSS {base:.0f} -> {rss:.0f} MiB",
        ["site", "MiB", "blocks"],
        [
            [
                f"{Path(s.traceback[0].filename).name}:{s.traceback[0].lineno}",
                fmt(s.size / MIB, 1),
                s.count,
            ]
            for s in stats[:top]
        ],
    )
    if not grown:
        return
    print_table(
        f"One maintenance pass in-process: Python heap +{kept[0] / MIB:.1f} MiB kept (peak "
        f"{kept[1] / MIB:.1f}), DuckDB buffer {sum(buffer_after.values()) / MIB:.1f} MiB, "
        f"RSS {rss:.0f} -> {rss_after:.0f} MiB",
        ["site", "MiB kept", "blocks"],
        [
            [
                f"{Path(d.traceback[0].filename).name}:{d.traceback[0].lineno}",
                fmt(d.size_diff / MIB, 1),
                d.count_diff,
            ]
            for d in sorted(grown, key=lambda d: -d.size_diff)[:top]
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="hash", choices=("hash", "none", "local"))
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the home here once and reuse it")
    parser.add_argument("--db-mb", type=int, help="RECALLNEST_DB_MEMORY_MB for the daemon")
    parser.add_argument("--no-breakdown", action="store_true")
    parser.add_argument(
        "--no-maintain", action="store_true", help="no maintenance pass in the breakdown"
    )
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    args = parser.parse_args()
    script = console_script(args.script)
    note(machine_line())
    model = model_of(args.embedder)
    with tempfile.TemporaryDirectory(prefix="rn-bench-footprint-") as tmp_s:
        tmp = Path(tmp_s)
        home = footprint_home(args.keep, tmp, args.memories, args.turns, model)
        work = tmp / "run"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(home, work)  # the maintenance pass changes the store: run on a copy
        row, _ = sample_daemon(work, tmp, args.embedder, args.seconds, args.db_mb, script)
        print_table(
            f"Daemon RSS, {args.memories:,} memories + {args.turns:,} turns, "
            f"{args.seconds:.0f} s after catch-up, one maintenance pass at 1/3",
            [
                "embedder",
                "db MiB",
                "RSS at catch-up",
                "RSS p50",
                "RSS p95",
                "p50 after pass",
                "peak (HWM)",
                "CPU % before pass",
                f"idle CPU % {SETTLE_SECONDS:.0f}s+ after",
                "pass s",
                "load1",
            ],
            [row],
        )
        if not args.no_breakdown:
            breakdown(work, args.embedder, args.db_mb, args.top, not args.no_maintain)


if __name__ == "__main__":
    main()

"""The daemon's steady state over a long window (issue 22): does its RSS stay put while its own
maintenance runs, and what CPU does it use once it has caught up?

    python bench/bench_steady.py [--embedder local] [--minutes 15] [--every 5]
        [--memories 100000] [--turns 100000] [--keep DIR] [--passes 2] [--db-mb N]
        [--csv FILE] [--searches N] [--script PATH] [--upgraded]

1. The home is bench_footprint's (same generators and vectors; `--keep DIR` shares its homes).
2. The real daemon (`recallnest daemon run`, no transcript roots) runs on a copy; after its
   "caught up" line one search loads the embedder's model, as a user's first search does.
3. For `--minutes`, VmRSS and the CPU time of every thread are sampled every `--every` s.
   Nothing else is asked of the daemon, so its idle scheduler runs maintenance as it would
   for a user: 30 s after the last activity, each task at its interval (consolidation sliced
   one scope and category a tick). Each "maintenance: ... done" line of the daemon's log is
   a pass end; RSS is taken at the first sample after it. `--passes N` also asks for N whole
   maintenance passes (the `maintain` op, every task at once, as `recallnest maintain`) at
   even times in the first two thirds of the window, so passes repeat within the window.
4. Printed: RSS at catch-up, median and p95 of the window and of its last third, RSS after
   each pass, the largest sample and VmHWM; CPU % per minute once the first quiet minute
   after catch-up is reached (no pass in it), median and the last third's; load1 at start and
   end. `--csv` writes every sample (seconds, RSS MiB, CPU s). `--searches N` then times N
   searches over the socket (the daemon embeds each query), p50/p95.
5. `--upgraded` runs the copy as after an upgrade whose redactor recognises more: its recorded
   redactor fingerprint is set to an older one, so the daemon re-checks every stored text and
   then reopens its database inside the window (server/rescan.py); the reopen's time is
   printed with the RSS after it.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_footprint import (
    console_script,
    cpu_seconds,
    daemon,
    footprint_home,
    model_of,
    proc_status,
    wait_caught_up,
)
from common import TextGen, fmt, load1, machine_line, median, note, p95, print_table

from recallnest.core.paths import db_path
from recallnest.server import protocol
from recallnest.server.rescan import FINGERPRINT_KEY
from recallnest.store import Store

# A pass end ("maintenance: <tasks> done, memory released") or a reopen ("database reopened").
EVENT_LINE = re.compile(
    r"^(\S+ \S+).*(?:maintenance: (.*) done, memory released|(database reopened))"
)


def pass_ends(log: Path) -> list[tuple[float, str]]:
    """(wall time, tasks) of each pass end the daemon logged, and of each reopen."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text(errors="replace").splitlines():
        found = EVENT_LINE.match(line)
        if found:
            stamp = found.group(1).replace(",", ".")
            try:
                at = datetime.fromisoformat(stamp).timestamp()
            except ValueError:
                continue
            out.append((at, found.group(2) or found.group(3)))
    return out


def rss_kinds(pid: int) -> str:
    """RssAnon / RssFile of `pid` and its largest resident mappings, from /proc."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile", "Threads"):
            fields[key] = int(value.split()[0])
    maps: dict[str, float] = {}
    anon: list[tuple[float, float]] = []  # (resident, size) MiB of each anonymous mapping
    name, size = "", 0.0
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        parts = line.split()
        if not parts[0].endswith(":"):
            name = Path(parts[5]).name if len(parts) > 5 else "[anon]"
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            size = (hi - lo) / 2**20
        elif parts[0] == "Rss:":
            maps[name] = maps.get(name, 0.0) + int(parts[1]) / 1024
            if name in ("[anon]", "[heap]"):
                anon.append((int(parts[1]) / 1024, size))
    top = sorted(maps.items(), key=lambda kv: -kv[1])[:6]
    big = sorted(anon, reverse=True)[:10]
    return (
        f"anon {fields['RssAnon'] / 1024:.0f} MiB, file {fields['RssFile'] / 1024:.0f} MiB, "
        f"{fields['Threads']} threads; "
        + ", ".join(f"{k} {v:.0f}" for k, v in top)
        + "; largest anonymous mappings (resident/size MiB): "
        + ", ".join(f"{r:.0f}/{z:.0f}" for r, z in big)
    )


def timed_searches(sock: str, n: int) -> list[float]:
    """Wall ms of `n` searches (3-8 word queries from the generator's vocabulary) asked one
    after the other, as a user's searches reach the daemon."""
    queries = TextGen(29).texts(n, 15, 50)
    out = []
    for query in queries:
        t0 = time.perf_counter()
        protocol.request(sock, "search", {"query": query}, 60.0)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def run(args: argparse.Namespace, home: Path, tmp: Path, script: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
    env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER=args.embedder)
    if args.db_mb is not None:
        env["RECALLNEST_DB_MEMORY_MB"] = str(args.db_mb)
    (tmp / "user").mkdir(exist_ok=True)
    sock = str(home / protocol.SOCKET_NAME)
    log = home / "logs" / "daemon.log"
    start_load = load1()
    seconds = args.minutes * 60
    forced = [seconds * 2 / 3 * (k + 1) / (args.passes + 1) for k in range(args.passes)]
    samples: list[tuple[float, float, float]] = []  # (seconds after catch-up, RSS, CPU s)
    forced_rss: list[tuple[float, float, float]] = []  # (at, seconds it took, RSS after)
    asking: list[threading.Thread] = []

    def ask(at: float) -> None:
        t1 = time.perf_counter()
        protocol.request(sock, "maintain", {}, 900.0)
        took = time.perf_counter() - t1
        forced_rss.append((at, took, proc_status(proc.pid)[0]))
        note(f"maintain at {at:.0f} s: {took:.1f} s, RSS {forced_rss[-1][2]:.0f} MiB")

    with daemon(script, env, log) as proc:
        caught = wait_caught_up(proc, sock, log, 900.0)
        protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
        at_catch_up = proc_status(proc.pid)[0]
        note(f"caught up after {caught:.1f} s, RSS {at_catch_up:.0f} MiB")
        t0, wall0 = time.perf_counter(), time.time()
        while (elapsed := time.perf_counter() - t0) < seconds:
            if forced and elapsed >= forced[0] and not (asking and asking[-1].is_alive()):
                forced.pop(0)
                asking.append(threading.Thread(target=ask, args=(elapsed,)))
                asking[-1].start()  # sampling goes on while the pass runs
            rss = proc_status(proc.pid)[0]
            samples.append((elapsed, rss, cpu_seconds(proc.pid)))
            time.sleep(args.every)
        for thread in asking:
            thread.join()
        hwm = proc_status(proc.pid)[1]
        kinds = rss_kinds(proc.pid)
        searched = timed_searches(sock, args.searches)
        ends = [(at - wall0, tasks) for at, tasks in pass_ends(log) if at >= wall0]
    end_load = load1()
    note(f"at the end: {kinds}")
    if searched:
        print_table(
            f"Searches over the socket after the window ({len(searched)} queries, fused, the "
            "query embedded by the daemon's model)",
            ["p50 ms", "p95 ms", "max ms", "load1"],
            [[fmt(median(searched), 1), fmt(p95(searched), 1), fmt(max(searched), 1),
              f"{load1():.2f}"]],
        )  # fmt: skip
    if args.csv:
        with args.csv.open("w") as out:
            out.write("seconds,rss_mib,cpu_s\n")
            out.writelines(f"{t:.1f},{r:.1f},{c:.2f}\n" for t, r, c in samples)
    rss = [r for _, r, _ in samples]
    last = [r for t, r, _ in samples if t >= seconds * 2 / 3]
    after = []
    for at, tasks in ends:
        later = [r for t, r, _ in samples if t >= at]
        if later:
            after.append((at, tasks, later[0]))
    # CPU % per minute from the first minute without a pass end in it.
    minutes = []
    busy = [at for at, _ in ends] + [at for at, _, _ in forced_rss]
    for m in range(int(seconds // 60)):
        inside = [(t, c) for t, _, c in samples if m * 60 <= t <= (m + 1) * 60]
        if len(inside) < 2 or any(m * 60 - 60 <= b <= (m + 1) * 60 for b in busy):
            continue  # a pass ended in it or the minute before
        (ta, ca), (tb, cb) = inside[0], inside[-1]
        minutes.append((m, 100 * (cb - ca) / (tb - ta)))
    quiet_late = [c for m, c in minutes if m * 60 >= seconds * 2 / 3]
    print_table(
        f"Daemon over {args.minutes:.0f} min after catch-up, {args.memories:,} memories + "
        f"{args.turns:,} turns, embedder {args.embedder}, samples every {args.every:.0f} s",
        [
            "RSS at catch-up",
            "RSS p50",
            "RSS p95",
            "p50 last third",
            "max sample",
            "last sample",
            "peak (HWM)",
            "passes logged",
            "quiet minutes",
            "CPU % p50 quiet",
            "CPU % last third",
            "load1 start/end",
        ],
        [
            [
                fmt(at_catch_up, 0),
                fmt(median(rss), 0),
                fmt(p95(rss), 0),
                fmt(median(last), 0) if last else "-",
                fmt(max(rss), 0),
                fmt(rss[-1], 0),
                fmt(hwm, 0),
                str(len(ends)),
                str(len(minutes)),
                f"{median([c for _, c in minutes]):.2f}" if minutes else "-",
                f"{median(quiet_late):.2f}" if quiet_late else "-",
                f"{start_load:.2f}/{end_load:.2f}",
            ]
        ],
    )
    print_table(
        "RSS at the first sample after each pass end (and reopen) the daemon logged",
        ["s after catch-up", "tasks", "RSS MiB"],
        [[fmt(at, 0), tasks[:60], fmt(r, 0)] for at, tasks, r in after],
    )
    if forced_rss:
        print_table(
            "Whole passes asked for (`maintain`)",
            ["s after catch-up", "pass s", "RSS right after"],
            [[fmt(at, 0), fmt(took, 1), fmt(r, 0)] for at, took, r in forced_rss],
        )
    print_table(
        "CPU % per quiet minute (no pass ended in it or the minute before)",
        ["minute", "CPU %"],
        [[str(m), f"{c:.2f}"] for m, c in minutes],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedder", default="local", choices=("hash", "none", "local"))
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the home here once and reuse it")
    parser.add_argument("--passes", type=int, default=0, help="whole `maintain` passes to ask")
    parser.add_argument("--db-mb", type=int, help="RECALLNEST_DB_MEMORY_MB for the daemon")
    parser.add_argument("--csv", type=Path, help="write every sample here")
    parser.add_argument(
        "--searches", type=int, default=0, help="then time this many searches over the socket"
    )
    parser.add_argument("--script", help="the `recallnest` console script (default: on PATH)")
    parser.add_argument(
        "--upgraded", action="store_true", help="an older redactor's fingerprint: re-check, reopen"
    )
    args = parser.parse_args()
    script = console_script(args.script)
    note(machine_line())
    model = model_of(args.embedder)
    with tempfile.TemporaryDirectory(prefix="rn-bench-steady-") as tmp_s:
        tmp = Path(tmp_s)
        home = footprint_home(args.keep, tmp, args.memories, args.turns, model)
        work = tmp / "run"
        shutil.copytree(home, work)  # maintenance changes the store: run on a copy
        if args.upgraded:
            store = Store(db_path(work))
            try:
                store.set_meta({FINGERPRINT_KEY: "0" * 32})  # no redactor's: all is re-checked
            finally:
                store.close()
        run(args, work, tmp, script)


if __name__ == "__main__":
    main()

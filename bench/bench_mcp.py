"""MCP tool-call latency against the REAL daemon holding 100k memories.

    python bench/bench_mcp.py [--quick] [-n CALLS]

Populates a throw-away home with 100k synthetic memories (keyword-only: embedder "none"),
starts `python -m recallnest daemon run`, spawns `python -m recallnest mcp` through the MCP
SDK's stdio client (the initialize handshake agents use today) and times `search_memory`
calls end to end as the agent sees them: JSON-RPC over the pipes, the server's worker thread,
the daemon round trip, ranking and rendering. The daemon's `search` op over the socket with
the same arguments is the reference, so the difference is what MCP adds.
Target (MCP issue): search_memory p95 <= 50 ms at 100k memories.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    PROJECTS,
    TextGen,
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

from recallnest.server import protocol

START_WAIT_SECONDS = 300.0


def populate(home: Path, memories: int) -> None:
    from recallnest.engine import Engine
    from recallnest.store import Batch

    engine = Engine.open(bench_settings(home))
    try:
        rows = make_memories(memories)
        for k in range(0, memories, 10_000):
            engine.apply(Batch(memories=rows[k : k + 10_000]))
    finally:
        engine.close()


def start_daemon(env: dict[str, str], sock: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "recallnest", "daemon", "run"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_WAIT_SECONDS
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited with {proc.returncode}")
        try:
            protocol.request(sock, "ping", {}, 5.0)
            return proc
        except protocol.ProtocolError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the daemon did not answer in time")


def stop_daemon(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def socket_runs(sock: str, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        t0 = time.perf_counter()
        protocol.request(sock, "search", {"query": query, "kind": "all", "limit": 8}, 30.0)
        times.append((time.perf_counter() - t0) * 1000)
    return times


async def mcp_runs(
    env: dict[str, str], cwd: Path, calls: list[tuple[str, dict[str, Any]]]
) -> list[float]:
    """Milliseconds per tool call, in one MCP session (one warm-up call first)."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "recallnest", "mcp", "--agent", "claude"],
        env=env,
        cwd=str(cwd),
    )
    times = []
    async with Client(params, mode="legacy", read_timeout_seconds=60.0) as client:
        await client.call_tool(*calls[0])
        for name, arguments in calls:
            t0 = time.perf_counter()
            result = await client.call_tool(name, arguments)
            times.append((time.perf_counter() - t0) * 1000)
            if result.is_error:
                raise SystemExit(f"{name} failed: {result.content}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", "--calls", type=int, default=200)
    args = parser.parse_args()
    size = 5_000 if args.quick else 100_000
    calls = 30 if args.quick else args.calls
    note(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-mcp-") as tmp_s:
        tmp = Path(tmp_s)
        home, user = tmp / "rn", tmp / "user"
        user.mkdir()
        t0 = time.perf_counter()
        populate(home, size)
        note(f"populated {size} memories in {time.perf_counter() - t0:.1f}s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(user), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER="none")
        sock = str(home / protocol.SOCKET_NAME)
        queries = TextGen(7).queries(calls)
        proc = start_daemon(env, sock)
        try:
            note(f"daemon up (load1 {load1():.2f})")
            op = socket_runs(sock, queries)
            everywhere = [("search_memory", {"query": q}) for q in queries]
            in_project = [("search_memory", {"query": q, "project": PROJECTS[0]}) for q in queries]
            resume = [("resume_context", {"project": PROJECTS[0]})] * max(10, calls // 10)
            tool_all = asyncio.run(mcp_runs(env, tmp, everywhere))
            tool_project = asyncio.run(mcp_runs(env, tmp, in_project))
            tool_resume = asyncio.run(mcp_runs(env, tmp, resume))
        finally:
            stop_daemon(proc)
    rows = [
        ["daemon `search` op over the socket (reference)", op],
        ["search_memory via MCP, every project", tool_all],
        ["search_memory via MCP, one project", tool_project],
        ["resume_context via MCP", tool_resume],
    ]
    print_table(
        f"MCP tool calls, {size} memories, keyword-only (load1 {load1():.2f} at end)",
        ["what", "calls", "p50 ms", "p95 ms", "max ms"],
        [[what, len(t), fmt(median(t)), fmt(p95(t)), fmt(max(t))] for what, t in rows],
    )


if __name__ == "__main__":
    main()

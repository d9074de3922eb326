"""Web UI page latency against the REAL daemon holding 100k memories and 100k turns.

    python bench/bench_ui.py [--quick] [-n REQUESTS] [--home DIR] [--embedder local]

With `--embedder local` (the shipped default) every row gets a clustered vector under the local
model's id and the daemon runs the real e5 model: each search request asks a query of its own
(`deploy release <k>`), so every one pays the query embedding, as a user's new search does.

`--home DIR` keeps the populated home in DIR (populated on the first run, reused after: the
100k population takes a minute or more).

Populates a throw-away home (keyword-only: embedder "none"), starts `python -m recallnest
daemon run`, serves the UI (the thin process's server, in this process) and times each page
over HTTP with the login cookie: request, the page's socket ops, rendering, response. Next to
each page: the same socket ops timed straight against the daemon, which is what a UI served
inside the daemon would still pay; the difference is what the separate process adds (HTTP,
one socket round trip per op, HTML).
Target (issue 20): every page p95 <= 150 ms with 100k memories and 100k turns.
"""

from __future__ import annotations

import argparse
import http.client
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mcp import start_daemon, stop_daemon
from bench_resume import populate
from common import (
    PROJECTS,
    fmt,
    load1,
    machine_line,
    median,
    note,
    p95,
    print_table,
    vectorise_home,
)

from recallnest.server import protocol


def pages(sock: str, fresh: bool) -> dict[str, tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """Page -> (path, the socket ops it makes). With `fresh`, each search asks its own query
    (`{k}` is the request number), so no query embedding is reused."""
    tail = "+{k}" if fresh else ""
    mem = protocol.request(sock, "memories.find", {"limit": 1}, 30.0)[0]["id"]
    session = protocol.request(sock, "sessions.list", {"limit": 1}, 30.0)[0]["session_id"]
    project = PROJECTS[0]
    listing = {"status": "active", "sort": "updated", "limit": 100}
    return {
        "dashboard": (
            "/",
            [
                ("stats", {"sizes": False}),
                ("daemon.status", {}),
                ("stats.dashboard", {"days": 30}),
            ],
        ),
        "memories": ("/memories", [("projects.list", {}), ("memories.find", listing)]),
        "search": (
            f"/memories?q=deploy+release{tail}&explain=1",
            [
                ("projects.list", {}),
                ("search", {"query": "deploy release", "kind": "memories", "limit": 50}),
            ],
        ),
        "memory": (f"/memory/{mem}", [("memories.context", {"id": mem})]),
        "review": (
            "/review",
            [
                ("memories.find", {"sort": "created", "limit": 200, "status": "pending"}),
                ("memories.find", {"sort": "created", "limit": 60, "status": "active"}),
                ("undo.list", {}),
            ],
        ),
        "conflicts": ("/conflicts", [("conflicts.list", {})]),
        "sessions": (
            "/sessions",
            [("projects.list", {}), ("sessions.list", {"limit": 200})],
        ),
        "session": (f"/session/{session}", [("sessions.show", {"session_id": session})]),
        "resume": (
            f"/resume?project={quote(project)}&agent=claude",
            [
                ("projects.list", {}),
                ("resume", {"cwd": project, "agent": "claude", "record": False}),
            ],
        ),
    }


def http_runs(port: int, cookie: str, path: str, n: int) -> list[float]:
    times = []
    for k in range(n + 1):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        t0 = time.perf_counter()
        url = path.replace("{k}", str(k))
        conn.request("GET", url, headers={"Host": f"127.0.0.1:{port}", "Cookie": cookie})
        response = conn.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - t0) * 1000
        conn.close()
        if response.status != 200:
            raise SystemExit(f"{path}: {response.status} {body[:300]!r}")
        if k:  # the first request warms the daemon's caches
            times.append(elapsed)
    return times


def socket_runs(sock: str, ops: list[tuple[str, dict[str, Any]]], n: int) -> list[float]:
    times = []
    for k in range(n + 1):
        t0 = time.perf_counter()
        for op, args in ops:
            protocol.request(sock, op, args, 60.0)
        if k:
            times.append((time.perf_counter() - t0) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", "--requests", type=int, default=60)
    parser.add_argument("--home", type=Path, help="populated home to reuse (made if absent)")
    parser.add_argument("--embedder", choices=("none", "local"), default="none")
    args = parser.parse_args()
    size = 5_000 if args.quick else 100_000
    n = 15 if args.quick else args.requests
    note(machine_line())
    from recallnest.integrations.webui.server import UiServer
    from recallnest.server.client import DaemonClient

    with tempfile.TemporaryDirectory(prefix="rn-bench-ui-") as tmp_s:
        tmp = Path(tmp_s)
        home, user = args.home or tmp / "rn", tmp / "user"
        user.mkdir()
        if args.home is None or not home.exists():
            t0 = time.perf_counter()
            populate(home, size, size)
            took = time.perf_counter() - t0
            note(f"populated {size} memories and {size} turns in {took:.1f}s")
        if args.embedder == "local":
            note(f"{vectorise_home(home)} rows given vectors under the local model's id")
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(user), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER=args.embedder)
        sock = str(home / protocol.SOCKET_NAME)
        daemon = start_daemon(env, sock)
        server = UiServer(0, DaemonClient(sock).call, lambda: [])
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            cookie = f"recallnest_ui={server.gate.token}"
            rows = []
            for name, (path, ops) in pages(sock, args.embedder == "local").items():
                page = http_runs(server.gate.port, cookie, path, n)
                direct = socket_runs(sock, ops, n)
                rows.append(
                    [
                        name,
                        fmt(median(page)),
                        fmt(p95(page)),
                        fmt(median(direct)),
                        fmt(p95(direct)),
                        "yes" if p95(page) <= 150 else "NO",
                    ]
                )
        finally:
            server.shutdown()
            server.server_close()
            stop_daemon(daemon)
    print_table(
        f"web UI pages, {size} memories + {size} turns, {n} requests each,"
        f" embedder {args.embedder} (load1 {load1():.2f})",
        ["page", "page p50 ms", "page p95 ms", "its ops p50 ms", "its ops p95 ms", "p95<=150"],
        rows,
    )


if __name__ == "__main__":
    main()

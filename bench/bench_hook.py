"""Cold-start latency of the session-start hook, as an agent sees it.

Spawns the hook as a fresh process N times with a JSON payload on stdin and reports p50/p95
wall-clock milliseconds for:

    baseline   `python -c pass`: interpreter start-up alone, for reference
    no-daemon  RECALLNEST_HOME without a daemon socket (the fail-open path)
    STUB       a tiny in-process socket server answering `resume` with a fixed text.
               It is NOT the real daemon: the real-daemon figure is measured separately.
    snapshot   no daemon, but its resume snapshot of the project and a database: the hook
               prints the snapshot and finds a background start already under way (the
               bench holds the start lock, as the daemon a first hook started would)

    python bench/bench_hook.py [-n 50] [--agent claude] [--command "recallnest hook"]

By default the hook runs as `python -c "...recallnest.hook.main(...)"` from this checkout;
`--command` measures an installed entry point instead (e.g. the `recallnest` console script).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOOK = (
    "import os, sys; from recallnest.integrations.hook import main; "
    "sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, os.environ))"
)
PAYLOAD = json.dumps(
    {
        "session_id": "bench-session",
        "transcript_path": "/tmp/bench-session.jsonl",
        "cwd": str(ROOT),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
)
STUB_TEXT = "RECALLNEST RECALLED NOTES\n```\n" + "- a recalled note from the stub\n" * 40 + "```"


class StubServer:
    """Answers every request line with a fixed resume text. A stand-in, not the daemon."""

    def __init__(self, path: Path) -> None:
        reply = {"v": 1, "ok": True, "result": {"text": STUB_TEXT}}
        self._reply = json.dumps(reply).encode() + b"\n"
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(path))
        self._sock.listen(16)
        self._sock.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(self._reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


def measure(argv: list[str], env: dict[str, str], runs: int, expect_output: bool) -> list[float]:
    """Wall-clock milliseconds of `runs` fresh processes, each fed the payload."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(argv, input=PAYLOAD, capture_output=True, text=True, env=env)
        times.append((time.perf_counter() - start) * 1000)
        if result.returncode != 0 or result.stderr or bool(result.stdout) != expect_output:
            raise SystemExit(f"unexpected hook result: {result!r}")
    return times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"{label:<34} p50 {statistics.median(ordered):7.1f} ms   p95 {p95:7.1f} ms")


def measure_snapshot(argv: list[str], env: dict[str, str], home: Path, runs: int) -> list[float]:
    import fcntl

    from recallnest.continuity import snapshot
    from recallnest.core.paths import db_path
    from recallnest.core.project import project_of
    from recallnest.integrations import autostart

    project = project_of(str(ROOT))  # the payload's cwd
    snapshot.write(home, snapshot.Snapshot(project, "2026-12-02T00:00:00+00:00", STUB_TEXT))
    db_path(home).write_bytes(b"")  # a home recallnest has used: a start would be attempted
    fd = os.open(home / autostart.LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return measure(argv, {**env, "RECALLNEST_AUTOSTART": "1"}, runs, True)
    finally:
        os.close(fd)
        db_path(home).unlink()


def hook_argv(command: str | None, agent: str) -> list[str]:
    base = shlex.split(command) if command else [sys.executable, "-c", HOOK]
    return [*base, "session-start", "--agent", agent]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=50)
    parser.add_argument("--agent", default="claude", choices=["claude", "codex", "gemini"])
    parser.add_argument("--command", help='installed entry point, e.g. "recallnest hook"')
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="rn-bench-", dir="/tmp"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RECALLNEST_HOME": str(home)}
    argv = hook_argv(args.command, args.agent)
    expects_empty_output = args.agent != "gemini"  # Gemini's empty form is "{}"
    print(f"{args.runs} fresh processes each; agent {args.agent}; python {sys.version.split()[0]}")
    try:
        measure(argv, env, 3, not expects_empty_output)  # warm the page cache and .pyc files
        report(
            "baseline: python -c pass",
            measure([sys.executable, "-c", "pass"], env, args.runs, False),
        )
        report("hook, no daemon", measure(argv, env, args.runs, not expects_empty_output))
        report("hook, daemon down, snapshot", measure_snapshot(argv, env, home, args.runs))
        stub = StubServer(home / "daemon.sock")
        try:
            report("hook, STUB server (not the daemon)", measure(argv, env, args.runs, True))
        finally:
            stub.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Load: a realistic peak, and a large backlog.

1. Peak: ten agent sessions (Claude Code, Codex, Gemini CLI) append 2-5 turns/s each with
   bursts, while session-start hooks fire 20 times a second (fresh `recallnest hook` processes,
   or only their socket request with --hook-mode request) and the CLI searches once a second.
   Reports lost turns, hook and search latency, and the daemon's RSS.
2. Backlog: transcripts totalling --backlog-mb (default 100 MB; --gb 1 for 1 GB) written
   before the daemon starts; reports the catch-up rate and the daemon's peak RSS.

    python bench/bench_load.py [--seconds 30] [--hook-rate 20] [--hook-mode process|request]
                               [--backlog-mb 100 | --gb 1] [--skip-peak] [--skip-backlog]
                               [--quick]

Every table carries the 1-minute load average: the machine is shared (2 CPUs here).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import TextGen, fmt, load1, machine_line, median, note, p95, print_table

from recallnest.server import protocol

AGENTS = ("claude", "codex", "gemini")
PAYLOAD = {"cwd": "/bench/app", "hook_event_name": "SessionStart", "source": "startup"}


# ---- transcripts ------------------------------------------------------------------------------


class Session:
    """One agent session's transcript file; `append` writes whole lines (split in two writes,
    as agents flush) and counts them."""

    def __init__(self, user: Path, agent: str, n: int) -> None:
        self.agent = agent
        self.sid = f"00000000-0000-4000-8000-{n:012d}"
        self.k = 0
        self.path = session_path(user, agent, self.sid)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = header_line(agent, self.sid)
        self.path.write_text(header + "\n" if header else "")

    def append(self, texts: list[str]) -> None:
        with self.path.open("a") as fh:
            for text in texts:
                line = turn_line(self.agent, self.sid, self.k, text)
                fh.write(line[:40])
                fh.flush()
                fh.write(line[40:] + "\n")
                fh.flush()
                self.k += 1


def session_path(user: Path, agent: str, sid: str) -> Path:
    if agent == "claude":
        return user / ".claude" / "projects" / "-bench-app" / f"{sid}.jsonl"
    if agent == "codex":
        return (
            user
            / ".codex"
            / "sessions"
            / "2026"
            / "11"
            / "30"
            / f"rollout-2026-11-30T00-00-00-{sid}.jsonl"
        )
    return user / ".gemini" / "tmp" / "benchhash" / "chats" / f"session-{sid}.jsonl"


def header_line(agent: str, sid: str) -> str | None:
    if agent == "codex":
        return json.dumps({"type": "session_meta", "payload": {"id": sid, "cwd": "/bench/app"}})
    if agent == "gemini":
        return json.dumps({"sessionId": sid, "projectHash": "benchhash"})
    return None


def turn_line(agent: str, sid: str, k: int, text: str) -> str:
    stamp = f"2026-11-30T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"
    if agent == "claude":
        role = "user" if k % 2 == 0 else "assistant"
        content: object = text if role == "user" else [{"type": "text", "text": text}]
        return json.dumps(
            {
                "type": role,
                "uuid": f"{sid}-{k}",
                "sessionId": sid,
                "timestamp": stamp,
                "cwd": "/bench/app",
                "message": {"role": role, "id": f"m-{sid}-{k}", "content": content},
            }
        )
    if agent == "codex":
        role, part = ("user", "input_text") if k % 2 == 0 else ("assistant", "output_text")
        payload = {"type": "message", "role": role, "id": f"item-{k}"}
        payload["content"] = [{"type": part, "text": text}]
        return json.dumps({"timestamp": stamp, "type": "response_item", "payload": payload})
    record: dict[str, object] = {"id": f"g-{k}", "timestamp": stamp}
    record.update(
        {"type": "user", "content": [{"text": text}]}
        if k % 2 == 0
        else {"type": "gemini", "content": text}
    )
    return json.dumps(record)


# ---- the daemon --------------------------------------------------------------------------------


class Daemon:
    def __init__(self, tmp: Path, embedder: str) -> None:
        self.home, self.user = tmp / "rn", tmp / "user"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        self.env.update(
            HOME=str(self.user), RECALLNEST_HOME=str(self.home), RECALLNEST_EMBEDDER=embedder
        )
        self.sock = str(self.home / protocol.SOCKET_NAME)
        self.err = tmp / "daemon.err"
        self.proc: subprocess.Popen[bytes] | None = None
        self.rss: list[float] = []
        self.ready_rss = 0.0
        self._sampling = threading.Event()

    def start(self) -> None:
        with self.err.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "recallnest", "daemon", "run"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        threading.Thread(target=self._sample, daemon=True).start()
        while self.ask("ping") is None:
            if self.proc.poll() is not None:
                raise SystemExit(f"daemon exited: {self.err.read_text()[-2000:]}")
            time.sleep(0.05)
        self.ready_rss = _status_kib(self.proc.pid, "VmRSS") / 1024

    def ask(self, op: str, timeout: float = 30.0, **args: object) -> object:
        try:
            return protocol.request(self.sock, op, dict(args), timeout)
        except protocol.ProtocolError:
            return None

    def turns(self) -> int:
        stats = self.ask("stats")
        return int(stats["counts"]["turns"]) if isinstance(stats, dict) else -1

    def peak_rss_mib(self) -> float:
        return _status_kib(self.proc.pid, "VmHWM") / 1024 if self.proc else float("nan")

    def stop(self) -> None:
        self._sampling.set()
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(600)

    def _sample(self) -> None:
        while not self._sampling.is_set() and self.proc and self.proc.poll() is None:
            kib = _status_kib(self.proc.pid, "VmRSS")
            if kib:
                self.rss.append(kib / 1024)
            time.sleep(0.5)


def _status_kib(pid: int, field: str) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return float(line.split()[1])
    except OSError:
        pass
    return 0.0


# ---- 1. peak load ------------------------------------------------------------------------------


def peak(seconds: float, hook_rate: float, hook_mode: str, embedder: str) -> None:
    with tempfile.TemporaryDirectory(prefix="rn-load-", dir="/tmp") as tmp_s:
        tmp = Path(tmp_s)
        daemon = Daemon(tmp, embedder)
        sessions = [Session(daemon.user, AGENTS[n % 3], n) for n in range(10)]
        daemon.start()
        daemon.ask("remember", text="The bench app deploys with the heron pipeline")
        stop = threading.Event()
        hooks: list[float] = []
        hook_failures: list[str] = []
        searches: list[float] = []
        search_failures: list[str] = []
        gen = TextGen(seed=3)
        threads = [
            threading.Thread(target=_agent, args=(s, gen.texts(4000, 150, 700), stop, n))
            for n, s in enumerate(sessions)
        ]
        threads.append(
            threading.Thread(
                target=_hooks, args=(daemon, hook_rate, hook_mode, stop, hooks, hook_failures)
            )
        )
        threads.append(
            threading.Thread(target=_searches, args=(daemon, stop, searches, search_failures))
        )
        load_before = load1()
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - t0
        written = sum(s.k for s in sessions)
        catch_up = _wait_for_turns(daemon, written)
        stored = daemon.turns()
        load_after = load1()
        end_rss, peak_rss = daemon.rss[-1] if daemon.rss else 0.0, daemon.peak_rss_mib()
        daemon.stop()
    command = (
        f"python bench/bench_load.py --seconds {seconds:g} --hook-rate {hook_rate:g} "
        f"--hook-mode {hook_mode} --skip-backlog"
    )
    note(f"\n`{command}` (embedder {embedder})")
    print_table(
        "Peak load: 10 sessions appending, hooks firing, CLI searching",
        [
            "seconds",
            "turns written",
            "turns/s",
            "stored",
            "lost",
            "catch-up after load s",
            "hooks run",
            "hooks/s",
            "hook failures",
            "search failures",
            "load1 before",
            "load1 after",
        ],
        [
            [
                fmt(elapsed, 1),
                written,
                fmt(written / elapsed, 1),
                stored,
                written - stored,
                fmt(catch_up, 2),
                len(hooks),
                fmt(len(hooks) / elapsed, 1),
                len(hook_failures),
                len(search_failures),
                fmt(load_before, 2),
                fmt(load_after, 2),
            ]
        ],
    )
    print_table(
        "Latency under that load (ms)",
        ["what", "n", "median", "p95", "max"],
        [
            [f"hook ({hook_mode})", len(hooks), *_percentiles(hooks)],
            ["`recallnest search` (process)", len(searches), *_percentiles(searches)],
        ],
    )
    print_table(
        "Daemon memory under peak load",
        ["RSS when ready MiB", "RSS at the end MiB", "peak (VmHWM) MiB"],
        [[fmt(daemon.ready_rss, 0), fmt(end_rss, 0), fmt(peak_rss, 0)]],
    )
    for failure in sorted(set(hook_failures))[:3]:
        note(f"hook failure: {failure}")
    for failure in sorted(set(search_failures))[:3]:
        note(f"search failure: {failure}")


def _agent(session: Session, texts: list[str], stop: threading.Event, seed: int) -> None:
    """2-5 turns/s, and every few seconds a burst (a pasted log, a tool-heavy answer)."""
    rng = random.Random(seed)
    rate = rng.uniform(2, 5)
    at = 0
    next_burst = time.monotonic() + rng.uniform(2, 8)
    while not stop.is_set() and at < len(texts):
        n = 1
        if time.monotonic() >= next_burst:
            n = rng.randint(10, 30)
            next_burst = time.monotonic() + rng.uniform(3, 10)
        session.append(texts[at : at + n])
        at += n
        stop.wait(rng.expovariate(rate))


def _hooks(
    daemon: Daemon,
    rate: float,
    mode: str,
    stop: threading.Event,
    out: list[float],
    failures: list[str],
) -> None:
    """Fire hooks on a fixed schedule (open loop: a slow hook does not delay the next)."""
    running: list[tuple[float, subprocess.Popen[bytes]]] = []
    k = 0
    next_at = time.perf_counter()
    while not stop.is_set() or running:
        now = time.perf_counter()
        if not stop.is_set() and now >= next_at:
            payload = json.dumps({**PAYLOAD, "session_id": f"hook-{k}"}).encode()
            if mode == "process":
                running.append((now, _spawn_hook(daemon, payload)))
            else:
                threading.Thread(target=_request_hook, args=(daemon, out, failures)).start()
            k += 1
            next_at += 1.0 / rate
        for started, proc in list(running):
            if proc.poll() is not None:
                running.remove((started, proc))
                stdout = proc.stdout.read() if proc.stdout else b""
                if proc.returncode != 0 or b"RECALLNEST" not in stdout:
                    failures.append(f"exit {proc.returncode}, {len(stdout)} bytes of stdout")
                out.append((time.perf_counter() - started) * 1000)
        time.sleep(0.002)


def _spawn_hook(daemon: Daemon, payload: bytes) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "recallnest", "hook", "session-start", "--agent", "claude"],
        env=daemon.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(payload)
    proc.stdin.close()
    return proc


def _request_hook(daemon: Daemon, out: list[float], failures: list[str]) -> None:
    """Only the hook's daemon round trip, with its real 0.25 s budget."""
    t0 = time.perf_counter()
    args = {"cwd": "/bench/app", "agent": "claude", "source": "startup", "session_id": "h"}
    try:
        protocol.request(daemon.sock, "resume", args, 0.25)
    except protocol.ProtocolError as exc:
        failures.append(str(exc))
    out.append((time.perf_counter() - t0) * 1000)


def _searches(daemon: Daemon, stop: threading.Event, out: list[float], failures: list[str]) -> None:
    words = ["heron pipeline", "deploy", "database migration", "数据库 迁移", "timeout retry"]
    k = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "recallnest", "search", words[k % len(words)], "--json"],
            env=daemon.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            failures.append(done.stderr.strip()[-300:])
        out.append((time.perf_counter() - t0) * 1000)
        k += 1
        stop.wait(max(0.0, 1.0 - (time.perf_counter() - t0)))


def _wait_for_turns(daemon: Daemon, written: int, limit: float = 600.0) -> float:
    t0 = time.perf_counter()
    while daemon.turns() < written and time.perf_counter() - t0 < limit:
        time.sleep(0.1)
    return time.perf_counter() - t0


def _percentiles(values: list[float]) -> list[str]:
    if not values:
        return ["-", "-", "-"]
    return [fmt(median(values)), fmt(p95(values)), fmt(max(values))]


# ---- 2. backlog ---------------------------------------------------------------------------------


def backlog(megabytes: float, embedder: str) -> None:
    with tempfile.TemporaryDirectory(prefix="rn-backlog-", dir="/tmp") as tmp_s:
        tmp = Path(tmp_s)
        daemon = Daemon(tmp, embedder)
        t0 = time.perf_counter()
        turns, size = _write_backlog(daemon.user, megabytes)
        note(f"wrote {size / 1e6:.0f} MB ({turns} turns) in {time.perf_counter() - t0:.0f} s")
        load_before = load1()
        t0 = time.perf_counter()
        daemon.start()
        marks: dict[int, tuple[float, float, int]] = {}
        while (done := daemon.turns()) < turns:
            quarter = 4 * done // turns
            if quarter and quarter not in marks:
                rss = daemon.rss[-1] if daemon.rss else 0
                marks[quarter] = (time.perf_counter() - t0, rss, done)
            if daemon.proc and daemon.proc.poll() is not None:
                raise SystemExit(f"daemon exited: {daemon.err.read_text()[-2000:]}")
            time.sleep(0.5)
        seconds = time.perf_counter() - t0
        peak_rss = daemon.peak_rss_mib()
        db_mb = (daemon.home / "recallnest.duckdb").stat().st_size / 1e6
        daemon.stop()
    flag = f"--gb {megabytes / 1000:g}" if megabytes >= 1000 else f"--backlog-mb {megabytes:g}"
    note(f"\n`python bench/bench_load.py --skip-peak {flag}` (embedder {embedder})")
    print_table(
        "Backlog catch-up (transcripts written before the daemon starts)",
        [
            "transcripts MB",
            "turns",
            "seconds",
            "MB/s",
            "turns/s",
            "peak RSS MiB",
            "DB MB",
            "load1 before",
            "load1 after",
        ],
        [
            [
                fmt(size / 1e6, 0),
                turns,
                fmt(seconds, 1),
                fmt(size / 1e6 / seconds, 2),
                fmt(turns / seconds, 0),
                fmt(peak_rss, 0),
                fmt(db_mb, 0),
                fmt(load_before, 2),
                fmt(load1(), 2),
            ]
        ],
    )
    print_table(
        "Daemon RSS while catching up",
        ["progress", "seconds", "turns stored", "RSS MiB"],
        [[f"{25 * q}%", fmt(s, 1), n, fmt(r, 0)] for q, (s, r, n) in sorted(marks.items())]
        + [["100%", fmt(seconds, 1), turns, f"peak {fmt(peak_rss, 0)}"]],
    )
    if 1 in marks and 3 in marks and marks[3][2] > marks[1][2]:
        (_, r1, n1), (_, r3, n3) = marks[1], marks[3]
        note(f"RSS slope 25-75 %: {(r3 - r1) / (n3 - n1) * 1e4:.0f} MiB per 10k stored turns")


def _write_backlog(user: Path, megabytes: float) -> tuple[int, int]:
    """Sessions of 200 turns, agents in turn, until the files hold `megabytes`."""
    gen = TextGen(seed=9)
    target = megabytes * 1e6
    size = turns = n = 0
    while size < target:
        session = Session(user, AGENTS[n % 3], n)
        texts = gen.texts(200, 300, 1500)
        session.append(texts)
        size += session.path.stat().st_size
        turns += len(texts)
        n += 1
    return turns, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--hook-rate", type=float, default=20.0)
    parser.add_argument("--hook-mode", choices=["process", "request"], default="process")
    parser.add_argument("--backlog-mb", type=float, default=100.0)
    parser.add_argument("--gb", type=float, help="backlog size in GB (overrides --backlog-mb)")
    parser.add_argument("--embedder", default="hash", help="hash (default), none or local")
    parser.add_argument("--skip-peak", action="store_true")
    parser.add_argument("--skip-backlog", action="store_true")
    parser.add_argument("--quick", action="store_true", help="5 s at 5 hooks/s, 2 MB backlog")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.hook_rate, args.backlog_mb, args.gb = 5.0, 5.0, 2.0, None
    note(machine_line())
    if not args.skip_peak:
        peak(args.seconds, args.hook_rate, args.hook_mode, args.embedder)
    if not args.skip_backlog:
        backlog(args.gb * 1000 if args.gb else args.backlog_mb, args.embedder)


if __name__ == "__main__":
    main()

"""Crash safety under fault injection: SIGKILL the daemon at random points while Claude Code,
Codex and Gemini CLI transcripts grow (half lines included, backlogs to catch up on), restart
it, and check after every kill that the database opens cleanly and holds no turn twice and
none that was not written; at the end, that every turn is stored exactly once.

    python bench/bench_crash.py [--iterations 50] [--seed 1] [--max-delay 12] [--rate 60]
                                [--backlogs 0.2] [--quick]

One RECALLNEST_HOME for the whole run (the database grows across kills, as a user's does).
Expected turns come from running the parsers over the final files, so the check does not
depend on guessing record ids. tests/server/test_faults.py runs a 3-kill version in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt, load1, machine_line, note, print_table

from recallnest.core.models import Turn
from recallnest.core.paths import db_path
from recallnest.ingest import transcripts
from recallnest.server import protocol
from recallnest.server.repair import check_database
from recallnest.store import Store

WAIT_SECONDS = 600.0


class Corpus:
    """Transcript files of the three agents under a fake HOME, appended to by a thread."""

    def __init__(self, user: Path, rng: random.Random) -> None:
        self.user = user
        self.rng = rng
        self.files: list[tuple[str, Path]] = []
        self.lines = 0
        self.lock = threading.Lock()
        self.counters: Counter[str] = Counter()

    def new_session(self, agent: str) -> Path:
        n = len(self.files)
        sid = f"00000000-0000-4000-8000-{n:012d}"
        if agent == "claude":
            path = self.user / ".claude" / "projects" / "-bench-app" / f"{sid}.jsonl"
        elif agent == "codex":
            folder = self.user / ".codex" / "sessions" / "2026" / "11" / "30"
            path = folder / f"rollout-2026-11-30T00-00-00-{sid}.jsonl"
        else:
            path = self.user / ".gemini" / "tmp" / "benchhash" / "chats" / f"session-{sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        header = {
            "claude": None,
            "codex": {"type": "session_meta", "payload": {"id": sid, "cwd": "/bench/app"}},
            "gemini": {"sessionId": sid, "projectHash": "benchhash"},
        }[agent]
        path.write_text(json.dumps(header) + "\n" if header else "")
        self.files.append((agent, path))
        return path

    def line(self, agent: str, path: Path) -> str:
        k = self.counters[str(path)]
        self.counters[str(path)] += 1
        text = f"turn {k} of {path.stem[-6:]}: the {self.rng.choice(WORDS)} {k % 97} works"
        stamp = f"2026-11-30T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"
        if agent == "claude":
            role = "user" if k % 2 == 0 else "assistant"
            content: object = text if role == "user" else [{"type": "text", "text": text}]
            message = {"role": role, "content": content, "id": f"m-{path.stem}-{k}"}
            record: dict[str, object] = {
                "type": role,
                "uuid": f"{path.stem}-{k}",
                "sessionId": path.stem,
                "timestamp": stamp,
                "cwd": "/bench/app",
                "message": message,
            }
        elif agent == "codex":
            role, part = ("user", "input_text") if k % 2 == 0 else ("assistant", "output_text")
            payload = {"type": "message", "role": role, "id": f"item-{k}"}
            payload["content"] = [{"type": part, "text": text}]
            record = {"timestamp": stamp, "type": "response_item", "payload": payload}
        else:
            record = {"id": f"g-{k}", "timestamp": stamp}
            if k % 2 == 0:
                record.update(type="user", content=[{"text": text}])
            else:
                record.update(type="gemini", content=text)
        return json.dumps(record)

    def append(self, count: int) -> None:
        """`count` lines to random sessions (sometimes a new one), split in two writes."""
        for _ in range(count):
            if not self.files or self.rng.random() < 0.01:
                self.new_session(self.rng.choice(["claude", "codex", "gemini"]))
            agent, path = self.rng.choice(self.files)
            line = self.line(agent, path)
            cut = self.rng.randrange(len(line))
            with path.open("a") as fh:
                fh.write(line[:cut])
                fh.flush()
                fh.write(line[cut:] + "\n")
            with self.lock:
                self.lines += 1

    def expected_turn_ids(self) -> set[str]:
        ids: set[str] = set()
        for agent, path in self.files:
            parser = transcripts.new_parser(agent, str(path))
            offset = 0
            for raw in path.read_bytes().split(b"\n"):
                ids.update(e.id for e in parser.feed(raw, offset) if isinstance(e, Turn))
                offset += len(raw) + 1
        return ids


WORDS = ["heron", "ibis", "egret", "crane", "stork", "pelican", "cormorant", "bittern", "spoonbill"]


def stored(home: Path) -> tuple[list[str], str | None]:
    """(turn ids, problem) read by opening the database read-only after a kill."""
    if not db_path(home).exists():
        return [], None  # killed before DuckDB created the file
    try:
        store = Store(db_path(home), read_only=True)
    except Exception as exc:  # the bench reports whatever opening raised
        return [], f"{type(exc).__name__}: {exc}"
    try:
        return [i for i, _ in store.turn_records()], None
    finally:
        store.close()


def start(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "recallnest", "daemon", "run"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def answers(sock: str) -> bool:
    try:
        protocol.request(sock, "ping", {}, 0.3)
    except protocol.ProtocolError:
        return False
    return True


def run(iterations: int, seed: int, max_delay: float, rate: float, backlogs: float) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="rn-crash-", dir="/tmp") as tmp_s:
        tmp = Path(tmp_s)
        home, user = tmp / "rn", tmp / "user"
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(user), RECALLNEST_HOME=str(home), RECALLNEST_EMBEDDER="hash")
        sock = str(home / protocol.SOCKET_NAME)
        corpus = Corpus(user, rng)
        phases: Counter[str] = Counter()
        problems: list[str] = []
        wal_mb: list[float] = []
        committed = 0  # kills after which more turns were stored than after the previous one
        previous = 0
        started_at = time.perf_counter()
        for it in range(iterations):
            if rng.random() < backlogs:  # a backlog written while the daemon is down
                corpus.append(rng.randint(500, 3000))
            written_before = corpus.lines
            proc = start(env, tmp / "daemon.err")
            stop = threading.Event()
            writer_rng = random.Random(rng.random())
            writer = threading.Thread(target=_write_until, args=(corpus, stop, writer_rng, rate))
            writer.start()
            time.sleep(rng.uniform(0.0, max_delay))
            up = answers(sock)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            stop.set()
            writer.join()
            wal = db_path(home).with_name(db_path(home).name + ".wal")
            wal_mb.append(wal.stat().st_size / 1e6 if wal.exists() else 0.0)
            ids, problem = stored(home)
            if problem:
                problems.append(f"kill {it}: {problem}")
            if len(ids) != len(set(ids)):
                problems.append(f"kill {it}: duplicate turn ids")
            phases[_phase(up, len(ids), written_before)] += 1
            committed += len(ids) > previous
            previous = len(ids)
            if it % 10 == 9:
                note(f"  {it + 1} kills, {corpus.lines} lines written, {len(ids)} turns stored")
        proc = start(env, tmp / "daemon.err")
        expected = corpus.expected_turn_ids()
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            stats = _stats(sock)
            if stats and stats["counts"]["turns"] >= len(expected):
                break
            time.sleep(0.2)
        time.sleep(1.0)  # anything extra would show up now
        proc.send_signal(signal.SIGTERM)
        proc.wait(WAIT_SECONDS)
        ids, problem = stored(home)
        health = check_database(db_path(home))
        seconds = time.perf_counter() - started_at
    found = Counter(ids)
    lost = len(expected - set(found))
    unexpected = len(set(found) - expected)
    duplicated = sum(n - 1 for n in found.values() if n > 1)
    command = (
        f"python bench/bench_crash.py --iterations {iterations} --seed {seed} "
        f"--max-delay {max_delay:g} --rate {rate:g} --backlogs {backlogs:g}"
    )
    note(f"\n`{command}`: {seconds:.0f} s; exit code of the final graceful stop {proc.returncode}")
    print_table(
        "Kill-restart iterations (SIGKILL at a random point, 3 agents appending)",
        [
            "kills",
            "during startup",
            "during catch-up",
            "during live tailing",
            "kills after new commits",
            "lines written",
            "turns expected",
            "turns stored",
            "lost",
            "duplicated",
            "unexpected",
            "DB opened cleanly after every kill",
            "final health check",
            "load1",
        ],
        [
            [
                iterations,
                phases["startup"],
                phases["catch-up"],
                phases["live"],
                committed,
                corpus.lines,
                len(expected),
                len(ids),
                lost,
                duplicated,
                unexpected,
                "yes" if not problems else f"NO ({len(problems)})",
                "clean" if health is None and problem is None else f"{problem or health}",
                fmt(load1(), 2),
            ]
        ],
    )
    print_table(
        "WAL left behind by the kills (replayed on the next open)",
        ["median MB", "max MB"],
        [[fmt(statistics.median(wal_mb), 2), fmt(max(wal_mb), 2)]],
    )
    for line in problems[:10]:
        note(f"problem: {line}")


def _write_until(corpus: Corpus, stop: threading.Event, rng: random.Random, rate: float) -> None:
    """About `rate` lines/s across the sessions, with an occasional burst of 50-200."""
    while not stop.is_set():
        corpus.append(rng.randint(50, 200) if rng.random() < 0.02 else 1)
        stop.wait(rng.expovariate(rate))


def _phase(socket_up: bool, stored_turns: int, written_before: int) -> str:
    if not socket_up:
        return "startup"
    return "catch-up" if stored_turns < written_before else "live"


def _stats(sock: str) -> dict[str, object] | None:
    try:
        result = protocol.request(sock, "stats", {}, 30.0)
    except protocol.ProtocolError:
        return None
    return result if isinstance(result, dict) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=12.0, help="latest kill, seconds")
    parser.add_argument("--rate", type=float, default=60.0, help="lines appended per second")
    parser.add_argument(
        "--backlogs", type=float, default=0.2, help="share of restarts preceded by a backlog"
    )
    parser.add_argument("--quick", action="store_true", help="3 kills (a smoke run)")
    args = parser.parse_args()
    if args.quick:
        args.iterations, args.max_delay = 3, 3.0
    note(machine_line())
    run(args.iterations, args.seed, args.max_delay, args.rate, args.backlogs)


if __name__ == "__main__":
    main()

"""The red-team attacks of issue 18 (items 3, 5, 6, 7, 8, 10), repeated with random variations
against real processes and files, counting what each one used to break.

    python bench/bench_attacks.py [--trials 5] [--rewrites 200] [--seed 18]

Prints one table row per attack. Uses the daemon harness of the tests (tests/support/daemon.py);
everything runs in temporary directories with the hash embedder.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.daemon import WAIT_SECONDS, DaemonProcess, claude_line  # noqa: E402

from recallnest.core.config import Settings  # noqa: E402
from recallnest.engine import Engine  # noqa: E402
from recallnest.ingest.pipeline import Source, ingest_file  # noqa: E402

Row = tuple[str, str, str]


def scratch(fn: Callable[[Path], Any]) -> Any:
    root = Path(tempfile.mkdtemp(prefix="rna-", dir="/tmp"))
    try:
        return fn(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def cli(env: dict[str, str], *args: str | bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "recallnest", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )


def write(path: Path, session: str, start: int, n: int) -> None:
    with path.open("a") as fh:
        for k in range(start, start + n):
            fh.write(claude_line(session, k, f"{session} turn {k} about kestrels") + "\n")


# ---- item 3 ---------------------------------------------------------------------------------


def special_files(trials: int) -> Row:
    def one(root: Path) -> tuple[int, int, float, int]:
        d = DaemonProcess(root)
        os.mkfifo(d.projects / "a-fifo.jsonl")
        os.symlink("/dev/zero", d.projects / "a-zero.jsonl")
        with contextlib.suppress(PermissionError):  # devices need root
            os.mknod(d.projects / "a-dev.jsonl", 0o020600, os.makedev(1, 5))
        real = d.projects / "b-real.jsonl"
        write(real, "real", 0, 5)
        d.start()
        write(real, "real", 5, 5)
        d.wait_for(lambda: d.turns() == 10, "10 turns next to special files")
        stored = d.turns()
        started = time.monotonic()
        code = d.stop()
        return stored, 10, time.monotonic() - started, int(code or 0)

    results = [scratch(one) for _ in range(trials)]
    stored = sum(r[0] for r in results)
    stop_max = max(r[2] for r in results)
    codes = {r[3] for r in results}
    return (
        f"FIFO + /dev/zero symlink + char device next to a transcript, daemon ({trials} runs)",
        f"{stored} / {sum(r[1] for r in results)} turns stored",
        f"stop exit codes {sorted(codes)}, slowest stop {stop_max:.1f} s",
    )


# ---- item 5 ---------------------------------------------------------------------------------


def stale_pid(trials: int) -> Row:
    def one(root: Path) -> tuple[bool, bool]:
        d = DaemonProcess(root)
        d.home.mkdir(parents=True)
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        try:
            (d.home / "daemon.pid").write_text(str(other.pid))
            cli(d.env, "daemon", "stop")
            return other.poll() is None, not (d.home / "daemon.pid").exists()
        finally:
            other.kill()
            other.wait()

    results = [scratch(one) for _ in range(trials)]
    return (
        f"`daemon stop` with a stale pid file naming a live unrelated process ({trials} runs)",
        f"{sum(not alive for alive, _ in results)} unrelated processes signalled",
        f"stale pid file removed {sum(r for _, r in results)} / {trials}",
    )


def racing_starts(trials: int) -> Row:
    def one(root: Path) -> tuple[int, bool]:
        d = DaemonProcess(root)
        cmd = [sys.executable, "-m", "recallnest", "daemon", "start"]
        procs = [
            subprocess.Popen(cmd, env=d.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            for _ in range(3)
        ]
        said = [p.communicate(timeout=WAIT_SECONDS)[0].decode() for p in procs]
        pid = d.request("daemon.status")["pid"]
        cli(d.env, "daemon", "stop")
        return sum("started" in s for s in said), all(f"PID {pid})" in s for s in said)

    results = [scratch(one) for _ in range(trials)]
    return (
        f"3 concurrent `daemon start` ({trials} runs)",
        f"'started' said {sorted(n for n, _ in results)} times per run",
        f"every output names the winner's PID in {sum(r for _, r in results)} / {trials}",
    )


# ---- item 6 ---------------------------------------------------------------------------------


def in_place_rewrites(n: int, rng: random.Random, same_length: bool = False) -> Row:
    """`n` files of 5-600 lines (1-130 KB) rewritten in place: one line edited and lines
    appended, or (`same_length`) one character of one line changed and nothing else."""

    def run(root: Path) -> tuple[int, int, int, int]:
        settings = Settings.load(
            flags={"home": str(root / "rn"), "embedder": "hash"}, env={"HOME": str(root)}
        )
        engine = Engine.open(settings)
        lost = stale = skipped = restarts = 0
        try:
            for t in range(n):
                path = root / "projects" / "-w" / f"s{t}.jsonl"
                path.parent.mkdir(parents=True, exist_ok=True)
                count = rng.randint(5, 600)
                texts = [f"turn {k} of session {t} about cranes {k * 7}" for k in range(count)]
                path.write_bytes(_lines(f"s{t}", texts))
                ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
                edited = rng.randrange(count)
                if same_length:
                    texts[edited] = texts[edited].replace("cranes", "herons")
                else:
                    texts[edited] += " (edited: moved to the north quay)" * rng.randint(1, 3)
                    texts += [f"added turn {k}" for k in range(rng.randint(1, 4))]
                with path.open("r+b") as fh:
                    fh.write(_lines(f"s{t}", texts))
                known = engine.store.cursor(str(path))
                report = ingest_file(Source(str(path), "claude"), known, engine.ingest_batch)
                turns = engine.store.session_turns(f"s{t}", limit=10_000)
                stored = {x.record_id: x.text for x in turns}
                want = {f"s{t}-{k}": x for k, x in enumerate(texts)}
                lost += len(want.keys() - stored.keys())
                stale += sum(1 for k in want if k in stored and stored[k] != want[k])
                skipped += report.skipped_lines
                restarts += report.restarts
        finally:
            engine.close()
        return lost, stale, skipped, restarts

    lost, stale, skipped, restarts = scratch(run)
    what = "one character changed, same size" if same_length else "a line edited, lines added"
    return (
        f"in-place rewrite, same inode and head: {what} ({n} files of 1-130 KB)",
        f"{lost} lines lost, {stale} stale texts, {skipped} lines skipped",
        f"{restarts} / {n} re-read from the start",
    )


def _lines(session: str, texts: list[str]) -> bytes:
    return b"".join((claude_line(session, k, x) + "\n").encode() for k, x in enumerate(texts))


# ---- item 7 ---------------------------------------------------------------------------------


def ops_parity() -> Row:
    import test_ops_parity as parity

    from recallnest.core.paths import socket_path
    from recallnest.server import protocol
    from recallnest.server.client import LocalClient
    from recallnest.server.daemon import Daemon

    def run(root: Path) -> tuple[int, int]:
        a, b = parity.settings_in(root / "l"), parity.settings_in(root / "d")
        parity.seeded(a).close()
        local = LocalClient(a)
        try:
            without = parity.run(local.call)
        finally:
            local.close()
        daemon = Daemon(b, parity.seeded(b))
        daemon.start()
        try:
            path = str(socket_path(b.home))
            through = parity.run(lambda op, x: protocol.request(path, op, x, 60.0))
        finally:
            daemon.stop()
        differ = sum(
            parity.masked(x, root / "l") != parity.masked(y, root / "d")
            for x, y in zip(without, through, strict=True)
        )
        return len(parity.SCENARIO), differ

    calls, differ = scratch(run)
    ops = len({op for op, _ in parity.SCENARIO})
    return (
        f"every socket op with and without the daemon ({ops} ops, {calls} calls)",
        f"{differ} answers differ",
        "masked: times, sizes, PID, background progress",
    )


# ---- item 8 ---------------------------------------------------------------------------------


def repair_after_kill(trials: int, rng: random.Random) -> Row:
    def one(root: Path) -> tuple[int, int, int]:
        d = DaemonProcess(root)
        d.start()
        ids = [
            d.request("remember", text=f"Fact {k}: the build host {k} is heron-{k}")["id"]
            for k in range(30)
        ]
        picked = rng.sample(ids, 16)
        d.request("memories.flags", ids=picked[:5], pinned=True)
        d.request("memories.flags", ids=picked[5:10], tier="core")
        d.request("forget", ids=picked[10:])
        live = {r["id"]: (r["text"], r["pinned"], r["tier"]) for r in d.request("export")}
        d.kill()
        with (d.home / "recallnest.duckdb").open("r+b") as fh:
            fh.write(b"\x00" * 4096)
        cli(d.env, "repair")
        engine = Engine.open(Settings.load(flags={"home": str(d.home)}, env=d.env))
        try:
            back = {m.id: (m.text, m.pinned, m.tier) for m in engine.export()}
        finally:
            engine.close()
        same = sum(1 for k, v in live.items() if back.get(k) == v)
        return same, len(live), len(back.keys() - live.keys())

    results = [scratch(one) for _ in range(trials)]
    return (
        f"30 remembered, 10 edited, 6 forgotten, kill -9, damaged file, repair ({trials} runs)",
        f"{sum(r[0] for r in results)} / {sum(r[1] for r in results)} live memories back exactly",
        f"{sum(r[2] for r in results)} forgotten or unknown memories back",
    )


# ---- item 10 --------------------------------------------------------------------------------

KILL = (
    (ROOT / "tests" / "test_fault_attacks.py").read_text().split('KILL_DURING_CONSOLIDATION = """')
)
KILL_SCRIPT = KILL[1].split('"""')[0]


def consolidation_kills(trials: int) -> Row:
    def one(root: Path, point: str) -> int:
        env = {**os.environ, "RECALLNEST_HOME": str(root / "rn"), "RECALLNEST_EMBEDDER": "hash"}
        subprocess.run(
            [sys.executable, "-c", KILL_SCRIPT, str(ROOT / "tests"), point],
            env=env,
            capture_output=True,
            timeout=WAIT_SECONDS,
        )
        engine = Engine.open(Settings.load(flags={"home": str(root / "rn")}, env=env))
        try:
            changed = [m for m in engine.store.find_memories({}) if m.superseded_by]
            partial = bool(changed) or bool(engine.store.undo_entries())
        finally:
            engine.close()
        return int(partial)

    points = ["add_memory_events", "add_conflicts"]
    partial = sum(scratch(lambda r, p=p: one(r, p)) for p in points for _ in range(trials))
    return (
        f"consolidation SIGKILLed before its events / conflicts ({2 * trials} runs)",
        f"{partial} runs left a partial consolidation",
        "",
    )


def bad_input() -> Row:
    def run(root: Path) -> tuple[int, int]:
        afile = root / "afile"
        afile.write_text("x")
        env = {**os.environ, "RECALLNEST_HOME": str(root / "rn"), "RECALLNEST_EMBEDDER": "hash"}
        cases: list[tuple[dict[str, str], list[str | bytes]]] = [
            (env, ["remember", b"we use \xff pnpm"]),
            (env, ["search", b"pn\xffpm"]),
            (env, ["search", "pnpm"]),
        ]
        for home in (afile, Path("/proc"), afile / "rn"):
            for args in (["search", "x"], ["remember", "we use pnpm"], ["stats"]):
                cases.append(({**env, "RECALLNEST_HOME": str(home)}, list(args)))
        tracebacks = sum("Traceback" in cli(e, *a).stderr for e, a in cases)
        return len(cases), tracebacks

    cases, tracebacks = scratch(run)
    return (
        f"bad CLI input: non-UTF-8 arguments, bad --home ({cases} cases)",
        f"{tracebacks} tracebacks",
        "",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--rewrites", type=int, default=200)
    parser.add_argument("--seed", type=int, default=18)
    opts = parser.parse_args()
    rng = random.Random(opts.seed)
    logging.basicConfig(level=logging.ERROR)  # the re-read warnings would flood the table
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    rows = [
        special_files(opts.trials),
        stale_pid(opts.trials * 2),
        racing_starts(opts.trials),
        in_place_rewrites(opts.rewrites, rng),
        in_place_rewrites(opts.rewrites, rng, same_length=True),
        ops_parity(),
        repair_after_kill(max(1, opts.trials // 2), rng),
        consolidation_kills(opts.trials),
        bad_input(),
    ]
    print("| attack | result | detail |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(json.dumps({"load1": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()

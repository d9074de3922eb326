"""Round 40 probe: what the real daemon does while a session-start hook after a quiet spell
waits. The daemon runs on a copy of the bench_footprint home (as bench_hook_quiet); the rounds
start only once the redactor's re-check of the copied home is over. Each round: `--quiet`
seconds without a request, then py-spy samples the daemon (all threads, idle ones too) while
the installed hook runs, then once more warm. Writes, per round, py-spy's collapsed stacks
and the daemon log lines of the round into OUT.

    PYTHONPATH=<tree> python -P quiet_spy.py --script WRAPPER --keep DIR --out OUT
        [--rounds 4] [--quiet 35] [--no-spy]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(BENCH))

from bench_footprint import daemon, footprint_home, model_of, wait_caught_up  # noqa: E402
from bench_hook_quiet import hook_ms  # noqa: E402
from common import PROJECTS, load1, note  # noqa: E402

from recallnest.server import protocol  # noqa: E402

PY_SPY = str(Path(sys.executable).parent / "py-spy")
RECHECK_DONE = "stored texts checked against the new redactor"


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (utime + stime) of each thread of `pid`, by name (names repeat: summed)."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = task.name  # the thread id: every thread is named "python"
        fields = stat[stat.rindex(")") + 2 :].split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / 100.0
    return out


def cpu_timeline(
    pid: int, seconds: float, step: float, box: list[tuple[float, dict[str, float]]]
) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        box.append((time.perf_counter(), thread_cpu(pid)))
        time.sleep(step)


def wait_recheck(log: Path, limit: float) -> float:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        text = log.read_text(errors="replace")
        if RECHECK_DONE in text or "redactor changed" not in text:
            return time.perf_counter() - t0
        time.sleep(1.0)
    raise SystemExit("the re-check did not end")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--keep", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--quiet", type=float, default=35.0)
    parser.add_argument("--no-spy", action="store_true")
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--strace", action="store_true", help="trace the hook's socket calls")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rn-r40-spy-") as tmp_s:
        tmp = Path(tmp_s)
        home = footprint_home(args.keep, tmp, 100_000, 100_000, model_of("local"))
        work = tmp / "run"
        shutil.copytree(home, work)
        env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        env.update(HOME=str(tmp / "user"), RECALLNEST_HOME=str(work), RECALLNEST_EMBEDDER="local")
        (tmp / "user").mkdir()
        argv = [args.script, "hook", "session-start", "--agent", "claude"]
        log = work / "logs" / "daemon.log"
        with daemon(args.script, env, log) as proc:
            sock = str(work / protocol.SOCKET_NAME)
            note(f"caught up after {wait_caught_up(proc, sock, log, 900.0):.0f} s")
            note(f"re-check over after {wait_recheck(log, 600.0):.0f} more s")
            protocol.request(sock, "search", {"query": "deploy script retry"}, 120.0)
            for k in range(args.rounds):
                mark = len(log.read_text(errors="replace"))
                time.sleep(args.quiet - 6.0)
                box: list[tuple[float, dict[str, float]]] = []
                sampler = threading.Thread(target=cpu_timeline, args=(proc.pid, 7.0, 0.05, box))
                sampler.start()
                time.sleep(6.0 - (0.0 if args.no_spy else 0.6))
                spy = None
                if not args.no_spy:
                    spy = subprocess.Popen(
                        [PY_SPY, "record", "--pid", str(proc.pid), "--rate", str(args.rate),
                         "--duration", "2", "--format", "raw", "--threads", "--idle",
                         "--nonblocking", "-o", str(args.out / f"round{k}.txt")],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    )  # fmt: skip
                    time.sleep(0.6)
                at = time.strftime("%H:%M:%S")
                cwd = PROJECTS[k % len(PROJECTS)]
                traced = argv
                if args.strace:
                    traced = ["strace", "-f", "--seccomp-bpf", "-ttt", "-e",
                              "trace=execve,connect,sendto,recvfrom,write,exit_group",
                              "-o", str(args.out / f"strace{k}.txt"), *argv]  # fmt: skip
                t_hook = time.perf_counter()
                took, _ = hook_ms(traced, env, cwd)
                warm_argv = [*traced[:7], str(args.out / f"strace{k}w.txt"), *argv]
                warm, _ = hook_ms(warm_argv if args.strace else argv, env, cwd)
                if spy is not None:
                    spy.wait()
                sampler.join()
                (args.out / f"cpu{k}.txt").write_text("".join(
                    f"{t - t_hook:+.2f} " + " ".join(f"{n}={v:.2f}" for n, v in sorted(c.items()))
                    + "\n" for t, c in box))  # fmt: skip
                lines = log.read_text(errors="replace")[mark:]
                (args.out / f"round{k}.log").write_text(lines)
                note(f"round {k} at {at}: after quiet {took:.0f} ms, warm {warm:.0f} ms, "
                     f"load1 {load1():.2f}")  # fmt: skip


if __name__ == "__main__":
    main()

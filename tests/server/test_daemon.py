"""The daemon as a real process: live tailing (half lines too), exactly-once across SIGKILL,
one daemon per home, owner-only socket, malformed and oversized requests survive.

Waits are bounded polls, never wall-clock assertions."""

from __future__ import annotations

import json
import os
import platform
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from recallnest.core.paths import log_dir
from recallnest.server import protocol

pytestmark = pytest.mark.slow
WAIT = 60.0


def claude_line(session: str, k: int, text: str) -> str:
    return json.dumps(
        {
            "type": "user",
            "uuid": f"u{k}",
            "parentUuid": f"u{k - 1}" if k else None,
            "sessionId": session,
            "timestamp": f"2026-01-01T00:{k // 60 % 60:02d}:{k % 60:02d}Z",
            "cwd": "/work/app",
            "message": {"role": "user", "content": text},
        }
    )


class Env:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.home = tmp / "rn"
        self.projects = tmp / "user" / ".claude" / "projects" / "-work-app"
        self.projects.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RECALLNEST_")}
        self.env.update(
            HOME=str(tmp / "user"), RECALLNEST_HOME=str(self.home), RECALLNEST_EMBEDDER="hash"
        )
        self.sock = str(self.home / protocol.SOCKET_NAME)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        with (self.tmp / "daemon.err").open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "recallnest", "daemon", "run"],
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        self.wait_for(lambda: self.ask("ping") == {"pong": True}, "daemon to answer")
        return self.proc

    def ask(self, op: str, **args: object) -> object:
        try:
            return protocol.request(self.sock, op, dict(args), 10.0)
        except protocol.ProtocolError:
            return None

    def turns(self) -> int:
        stats = self.ask("stats")
        return int(stats["counts"]["turns"]) if isinstance(stats, dict) else -1

    def wait_for(self, check, what: str) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if check():
                return
            if self.proc is not None and self.proc.poll() is not None:
                err = (self.tmp / "daemon.err").read_text(errors="replace")
                raise AssertionError(f"daemon exited: {err[-2000:]}")
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    e = Env(tmp_path)
    yield e
    e.stop()


def test_live_append_with_half_lines_is_searchable(env: Env) -> None:
    env.start()
    path = env.projects / "s1.jsonl"
    line = claude_line("s1", 0, "the staging port is 8443 zebrafish")
    with path.open("a") as fh:
        fh.write(line[:25])
        fh.flush()
        time.sleep(0.3)
        fh.write(line[25:] + "\n")
    env.wait_for(lambda: env.turns() == 1, "the turn")
    hits = env.ask("search", query="zebrafish", kind="turns")
    assert isinstance(hits, list) and hits[0]["text"].endswith("zebrafish")
    assert hits[0]["agent"] == "claude" and hits[0]["record_id"] == "u0"


def test_sigkill_mid_stream_then_restart_gives_every_turn_exactly_once(env: Env) -> None:
    total = 300
    path = env.projects / "s2.jsonl"
    path.touch()
    proc = env.start()
    done = threading.Event()

    def writer() -> None:
        with path.open("a") as fh:
            for k in range(total):
                line = claude_line("s2", k, f"message number {k} about topic {k % 7}")
                fh.write(line[:10])
                fh.flush()
                fh.write(line[10:] + "\n")
                fh.flush()
                time.sleep(0.004)
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    env.wait_for(lambda: env.turns() > 20, "some turns before the kill")
    proc.kill()  # SIGKILL: no flush, no cleanup
    proc.wait()
    thread.join()
    assert done.is_set()
    env.start()
    env.wait_for(lambda: env.turns() == total, f"{total} turns after restart")
    time.sleep(1.0)
    assert env.turns() == total
    hits = env.ask("search", query="message number", kind="turns", limit=1000)
    assert isinstance(hits, list)
    ids = [h["record_id"] for h in hits]
    assert len(ids) == len(set(ids)) == total


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the daemon changes allocator on glibc only",
)
def test_the_daemon_limits_malloc_arenas_unless_the_user_chose(env: Env) -> None:
    """Decision 0027: `daemon run` lets glibc make two malloc arenas (its entry point, before
    any thread); a user's own MALLOC_ARENA_MAX is left alone."""
    log = log_dir(env.home) / "daemon.log"

    def logged(text: str) -> bool:
        return log.exists() and text in log.read_text()

    env.env.pop("MALLOC_ARENA_MAX", None)
    env.start()
    env.wait_for(lambda: logged("malloc arenas 2"), "the daemon's start line")
    env.stop()
    log.unlink()
    env.env["MALLOC_ARENA_MAX"] = "4"
    env.start()
    env.wait_for(lambda: logged("malloc arenas glibc's default"), "the daemon's start line")


def test_one_daemon_per_home_and_owner_only_socket(env: Env) -> None:
    env.start()
    second = subprocess.run(
        [sys.executable, "-m", "recallnest", "daemon", "run"],
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert second.returncode == 1
    assert "already running (PID" in second.stderr and "Traceback" not in second.stderr
    mode = stat.S_IMODE(os.stat(env.sock).st_mode)
    assert mode & 0o077 == 0
    assert stat.S_IMODE(env.home.stat().st_mode) == 0o700


def test_malformed_and_oversized_requests_get_errors_and_daemon_lives(env: Env) -> None:
    import socket

    env.start()
    for payload in (
        b"not json\n",
        b'{"op": 5}\n',
        b'{"op":"nope"}\n',
        b"[1,2]\n",
        b'{"op":"search","args":{"query":"x","limit":"many"}}\n',
        b'{"op":"search","args":{}}\n',
        b'{"op":"search","args":{"query":"' + b"a" * (protocol.MAX_REQUEST_BYTES + 10) + b'"}}\n',
    ):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(20)
            s.connect(env.sock)
            s.sendall(payload)
            reply = json.loads(s.makefile("rb").readline())
        assert reply["ok"] is False and reply["error"]
    assert env.ask("ping") == {"pong": True}


def test_cli_uses_the_daemon_and_stop_is_graceful(env: Env) -> None:
    proc = env.start()
    run = subprocess.run(
        [sys.executable, "-m", "recallnest", "remember", "I prefer tabs", "--json"],
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["text"] == "I prefer tabs"
    stop = subprocess.run(
        [sys.executable, "-m", "recallnest", "daemon", "stop"],
        env=env.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stop.returncode == 0 and "stopped" in stop.stdout
    assert proc.wait(30) == 0
    assert not Path(env.sock).exists()


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 0)])
def test_ctrl_c_exits_130_and_a_requested_stop_exits_0(
    env: Env, sig: signal.Signals, code: int
) -> None:
    proc = env.start()
    proc.send_signal(sig)
    assert proc.wait(30) == code
    assert not Path(env.sock).exists()  # shut down cleanly either way

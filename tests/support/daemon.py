"""A real `recallnest daemon run` process for end-to-end tests (fault injection, isolation,
secrets): start it, ask it over its socket, wait for a condition, SIGKILL or stop it.

Waits are bounded polls (WAIT_SECONDS), never timing assertions. Not a test module.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recallnest.server import protocol

WAIT_SECONDS = 90.0
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")


def claude_line(session: str, k: int, text: str, role: str = "user", cwd: str = "/work/app") -> str:
    """One Claude Code transcript record; its record id is `<session>-<k>`."""
    message: dict[str, object] = {"role": role, "content": text}
    if role == "assistant":
        content = [{"type": "text", "text": text}]
        message = {"role": role, "id": f"m-{session}-{k}", "content": content}
    return json.dumps(
        {
            "type": role,
            "uuid": f"{session}-{k}",
            "parentUuid": f"{session}-{k - 1}" if k else None,
            "sessionId": session,
            "timestamp": f"2026-01-01T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z",
            "cwd": cwd,
            "message": message,
        }
    )


class DaemonProcess:
    """A daemon with its own RECALLNEST_HOME (`root/rn`) and HOME (`root/user`). Keep `root`
    short: a Unix socket path is limited to about 100 bytes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "rn"
        self.user = root / "user"
        self.projects = self.user / ".claude" / "projects" / "-work-app"
        self.projects.mkdir(parents=True, exist_ok=True)
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("RECALLNEST_") and k not in AGENT_ENV
        }
        self.env.update(
            HOME=str(self.user),
            RECALLNEST_HOME=str(self.home),
            RECALLNEST_EMBEDDER="hash",
            RECALLNEST_AUTOSTART="0",  # hooks run here never start a daemon of their own
        )
        self.sock = str(self.home / protocol.SOCKET_NAME)
        self.err = root / "daemon.err"
        self.proc: subprocess.Popen[bytes] | None = None

    # ---- lifecycle ----------------------------------------------------------------------

    def start(self, wait: bool = True) -> subprocess.Popen[bytes]:
        with self.err.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "recallnest", "daemon", "run"],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        if wait:
            self.wait_for(lambda: self.ask("ping") == {"pong": True}, "the daemon to answer")
        return self.proc

    def kill(self) -> None:
        """SIGKILL: no flush, no cleanup."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> int | None:
        """SIGTERM and wait (SIGKILL after WAIT_SECONDS); the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    # ---- asking -------------------------------------------------------------------------

    def request(self, op: str, timeout: float = 20.0, **args: Any) -> Any:
        return protocol.request(self.sock, op, dict(args), timeout)

    def ask(self, op: str, **args: Any) -> Any:
        """The result, or None when the daemon does not answer or answers with an error."""
        try:
            return self.request(op, **args)
        except protocol.ProtocolError:
            return None

    def counts(self) -> dict[str, int]:
        stats = self.ask("stats")
        return dict(stats["counts"]) if isinstance(stats, dict) else {}

    def turns(self) -> int:
        return self.counts().get("turns", -1)

    def wait_for(self, check: Callable[[], object], what: str) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if check():
                return
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"daemon exited ({self.proc.returncode}): {self.errors()}")
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; {self.errors()}")

    def cli(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """`python -m recallnest ARGS` in this daemon's environment."""
        return subprocess.run(
            [sys.executable, "-m", "recallnest", *args],
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=WAIT_SECONDS,
        )

    # ---- what it left behind --------------------------------------------------------------

    def errors(self) -> str:
        return self.err.read_text(errors="replace")[-3000:] if self.err.exists() else ""

    def logs(self) -> str:
        """daemon.log (all generations), hook.log and the daemon's stderr."""
        parts = [self.errors()]
        logs = self.home / "logs"
        if logs.is_dir():
            parts += [p.read_text(errors="replace") for p in sorted(logs.iterdir()) if p.is_file()]
        return "\n".join(parts)


def start_ui(daemon: DaemonProcess) -> tuple[subprocess.Popen[str], str, int]:
    """`recallnest ui --no-open` over `daemon`: the process, its login URL (with the token),
    and its port, read from the first line it prints."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "recallnest", "ui", "--no-open"],
        env=daemon.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:(\d+)/login\?token=\S+)", first)
    assert found, first + (proc.stderr.read() if proc.stderr else "")
    return proc, found.group(1), int(found.group(2))

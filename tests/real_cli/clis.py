"""The real agent CLIs for tests/real_cli: pinned versions, an npm install cache, a loopback
stand-in for the model API, and runs bounded in time. Not a test module.

The versions live in `versions.json` next to this file (`bump.py` rewrites it). Each CLI is
installed once per version into `$RECALLNEST_CLI_CACHE` (default `~/.cache/recallnest-cli`),
outside the clone, so CI's fresh clones reuse it; a lock keeps parallel runs from installing
the same version twice, and a half-finished install is never used.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

VERSIONS_FILE = Path(__file__).with_name("versions.json")
OPT_IN_ENV = "RECALLNEST_REAL_CLI"
CACHE_ENV = "RECALLNEST_CLI_CACHE"
INSTALL_SECONDS = 600.0
RUN_SECONDS = 120.0
KILL_GRACE_SECONDS = 3.0
UNTIL_GRACE_SECONDS = 1.0
POLL_SECONDS = 0.2
COMPLETE_NAME = ".complete"


@dataclass(frozen=True, slots=True)
class Pin:
    """One CLI at one version: its npm package and the name of its executable."""

    agent: str
    package: str
    version: str
    bin: str


def pins(path: Path = VERSIONS_FILE) -> dict[str, Pin]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {agent: Pin(agent, **fields) for agent, fields in raw.items()}


def skip_reason(env: Mapping[str, str]) -> str | None:
    """Why the real-CLI suite cannot run here (one line), or None when it can."""
    if env.get(OPT_IN_ENV) != "1":
        return f"real-CLI suite is opt-in (it installs the CLIs from npm): set {OPT_IN_ENV}=1"
    missing = [tool for tool in ("node", "npm") if not shutil.which(tool, path=env.get("PATH"))]
    if missing:
        return f"real-CLI suite skipped: {' and '.join(missing)} not found on PATH"
    return None


def cache_root(env: Mapping[str, str]) -> Path:
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV])
    return Path(env.get("HOME") or Path.home()) / ".cache" / "recallnest-cli"


# --- npm install cache -------------------------------------------------------------------------


def executable(pin: Pin, root: Path) -> Path:
    """The CLI's executable, installing its pinned version into the cache on first use."""
    target = root / f"{pin.agent}-{pin.version}"
    exe = target / "node_modules" / ".bin" / pin.bin
    if (target / COMPLETE_NAME).exists():
        return exe
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root / f".{pin.agent}.lock"):
        if not (target / COMPLETE_NAME).exists():
            _npm_install(pin, target)
    return exe


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _npm_install(pin: Pin, target: Path) -> None:
    """Install into a scratch folder, then move it into place: never a partial install."""
    scratch = target.with_name(f".{target.name}.partial-{os.getpid()}")
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    scratch.mkdir(parents=True)
    spec = f"{pin.package}@{pin.version}"
    argv = ["npm", "install", "--prefix", str(scratch), "--no-audit", "--no-fund"]
    done = subprocess.run(
        [*argv, "--loglevel=error", spec],
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise RuntimeError(f"npm install {spec} failed ({done.returncode}): {done.stderr[-2000:]}")
    (scratch / COMPLETE_NAME).write_text(spec + "\n", encoding="utf-8")
    scratch.rename(target)  # npm's .bin links are relative: the move keeps them working


# --- a loopback stand-in for the model API -----------------------------------------------------


class RefusingApi:
    """`refusing_api.py` in a child process: every request gets 401 at once, so each CLI fails
    its model request in about a second instead of retrying against the internet."""

    def __init__(self) -> None:
        script = Path(__file__).with_name("refusing_api.py")
        self.proc = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


# --- bounded runs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Run:
    argv: list[str]
    returncode: int | None
    timed_out: bool
    output: str

    def describe(self) -> str:
        state = "timed out" if self.timed_out else f"exit {self.returncode}"
        return f"{' '.join(self.argv[:3])}… ({state}):\n{self.output[-3000:]}"


def run_bounded(
    argv: list[str],
    env: Mapping[str, str],
    cwd: Path,
    log: Path,
    seconds: float = RUN_SECONDS,
    until: Callable[[], bool] | None = None,
) -> Run:
    """Run in a process group of its own. It ends by itself, or once `until()` holds (then
    after UNTIL_GRACE_SECONDS it is sent SIGTERM, as a user's Ctrl-C), or at `seconds` (a
    time-out); then the whole group (MCP servers, hook children) is terminated. Output goes
    to `log`, never a pipe that a lingering child could hold open."""
    deadline = time.monotonic() + seconds
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv,
            env=dict(env),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = not _wait(proc, deadline, until)
        if proc.poll() is None:
            if not timed_out:
                time.sleep(UNTIL_GRACE_SECONDS)  # let it write what it was writing
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(KILL_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        kill_group(proc.pid)  # the leader is reaped: what is left are its children
    return Run(argv, proc.returncode, timed_out, log.read_text(errors="replace"))


def _wait(proc: subprocess.Popen[bytes], deadline: float, until: Callable[[], bool] | None) -> bool:
    """Until the process exits or `until()` holds (True), or the deadline passes (False)."""
    while time.monotonic() < deadline:
        try:
            proc.wait(POLL_SECONDS)
            return True
        except subprocess.TimeoutExpired:
            if until is not None and until():
                return True
    return False


def kill_group(pgid: int) -> None:
    """SIGTERM what is left of the group, then SIGKILL it after KILL_GRACE_SECONDS."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + KILL_GRACE_SECONDS
        while time.monotonic() < deadline:
            os.killpg(pgid, 0)
            time.sleep(0.05)
        os.killpg(pgid, signal.SIGKILL)


def main() -> None:
    """`python tests/real_cli/clis.py`: install every pinned CLI into the cache (CI's step)."""
    root = cache_root(os.environ)
    for pin in pins().values():
        print(f"{pin.package}@{pin.version}: {executable(pin, root)}", flush=True)


if __name__ == "__main__":
    main()

"""End-to-end continuity eval: real transcripts in, the session-start hook's own output out.

Each scenario (eval/continuity/e2e/*.json, format in eval/continuity/README.md) is a few
sessions of Claude Code, Codex and Gemini CLI over days, in one or two projects (and
worktrees). The runner plays them as a user's machine would see them, in a fresh home:

1. `recallnest daemon start` (or, for `ingest_before_daemon`, `recallnest ingest` first);
2. per session: the real `recallnest hook session-start` for that agent, its context written
   into the transcript the way that CLI stores it, the transcript file in the agent's own
   format and place, the daemon asked to ingest, and `recallnest hook session-end` unless the
   session was interrupted;
3. once the daemon has built its checkpoints, the next session's `hook session-start`: its
   stdout is what the agent would read. The checks run on that text, on what the store
   exports, and on every file in the home (secrets must never be there).

Processes, sockets and files are all real; only the embedder is the deterministic `hash` one
(the resume does not rank by vectors). `run_scenario` needs no network and cleans up after
itself.

    python -m recallnest.evaluation.e2e eval/continuity/e2e [--json] [--show] [--only ID] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recallnest.continuity.compose import estimate_tokens
from recallnest.core.marker import CONTEXT_MARKER
from recallnest.evaluation.transcripts import Session, steps_of, write_session
from recallnest.server import protocol

Scenario = Mapping[str, Any]

SETTLE_SECONDS = 30.0  # the longest wait for the daemon's checkpoints
IDLE_SECONDS = 2  # the daemon's idle checkpoint, shortened for the eval
HOOK_TIMEOUT = 10.0
AGENT_ENV = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
SECTIONS = (
    "Last session",
    "Resumed session",
    "Open loops:",
    "Next:",
    "You (",
    "This project:",
    "Past cases",
)


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    scenario_id: str
    agent: str
    passed: bool
    failures: tuple[str, ...]
    text: str
    tokens: int
    known_failure: str | None = None


# --- the machine -----------------------------------------------------------------------------


class Machine:
    """A throw-away user: HOME, RECALLNEST_HOME and repositories under one short temp dir
    (a Unix socket path must stay under ~100 bytes)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.user = root / "u"
        self.home = root / "h"
        self.user.mkdir()
        self.home.mkdir(mode=0o700)
        (self.home / "config.toml").write_text(f"idle_checkpoint_seconds = {IDLE_SECONDS}\n")
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("RECALLNEST_") and k not in AGENT_ENV
        }
        self.env |= {"HOME": str(self.user), "RECALLNEST_HOME": str(self.home)}
        self.env |= {"RECALLNEST_EMBEDDER": "hash", "PYTHONIOENCODING": "utf-8"}
        self.projects: dict[str, str] = {}

    def add_projects(self, spec: Mapping[str, Any]) -> None:
        """`{"api": {}, "api-wt": {"worktree_of": "api"}, "scratch": {"git": false}}`."""
        for name, options in spec.items():
            path = self.root / "r" / name
            path.mkdir(parents=True)
            self.projects[name] = str(path)
            main = options.get("worktree_of")
            if main:
                gitdir = Path(self.projects[main]) / ".git" / "worktrees" / name
                gitdir.mkdir(parents=True)
                (gitdir / "commondir").write_text("../..\n")
                (path / ".git").write_text(f"gitdir: {gitdir}\n")
            elif options.get("git", True):
                (path / ".git").mkdir()

    def cwd(self, name: str | None) -> str:
        if name is None:
            return str(self.user)
        return self.projects.get(name, name)

    def cli(self, *args: str, stdin: str = "", timeout: float = 120.0) -> str:
        """What `recallnest ARGS` printed on stdout (its exit code is not checked)."""
        return self.run(*args, stdin=stdin, timeout=timeout).stdout.decode("utf-8", "replace")

    def run(
        self, *args: str, stdin: str = "", timeout: float = 120.0
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "recallnest", *args],
            input=stdin.encode(),
            env=self.env,
            cwd=self.user,
            capture_output=True,
            timeout=timeout,
            check=False,
        )

    def ask(self, op: str, args: dict[str, Any] | None = None, timeout: float = 60.0) -> Any:
        return protocol.request(str(self.home / protocol.SOCKET_NAME), op, args or {}, timeout)


# --- playing a scenario ----------------------------------------------------------------------


def run_scenario(scenario: Scenario, now: datetime | None = None) -> ScenarioResult:
    root = Path(tempfile.mkdtemp(prefix="rne2e-", dir="/tmp"))
    try:
        machine = Machine(root)
        machine.add_projects(scenario.get("projects", {}))
        try:
            text = _play(machine, scenario, now or datetime.now(UTC))
            failures = check(scenario, text, machine)
        finally:
            machine.cli("daemon", "stop", timeout=60.0)
        failures += _leaks(scenario, machine)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    known = scenario.get("known_failure")
    return ScenarioResult(
        scenario_id=str(scenario["id"]),
        agent=str(scenario["next"].get("agent", "claude")),
        passed=not failures,
        failures=tuple(failures),
        text=text,
        tokens=round(estimate_tokens(text)) if text else 0,
        known_failure=str(known) if known else None,
    )


def _play(machine: Machine, scenario: Scenario, now: datetime) -> str:
    before = bool(scenario.get("ingest_before_daemon"))
    if not before:
        _start_daemon(machine)
    for n, raw in enumerate(scenario["sessions"]):
        _play_session(machine, raw, n, now, daemon=not before)
    if before:
        machine.cli("ingest")
        _start_daemon(machine)
    _settle(machine)
    nxt = scenario["next"]
    sid = _next_session_id(scenario)
    return _session_start(machine, str(nxt.get("agent", "claude")), nxt.get("cwd"), sid, nxt)


def _next_session_id(scenario: Scenario) -> str:
    """`"SESSION:<name>"` resumes a past session of the scenario; else a new id."""
    wanted = str(scenario["next"].get("session_id") or "")
    if not wanted.startswith("SESSION:"):
        return wanted or _session_id("next", str(scenario["id"]))
    name = wanted.removeprefix("SESSION:")
    past = next(s for s in scenario["sessions"] if s.get("id") == name)
    return _session_id(str(past["agent"]), name)


def _start_daemon(machine: Machine) -> None:
    """`recallnest daemon start` returns once the daemon answers, or fails with the reason."""
    done = machine.run("daemon", "start", timeout=60.0)
    if done.returncode != 0:
        raise RuntimeError(f"the daemon did not start: {done.stderr.decode(errors='replace')}")


def _play_session(
    machine: Machine, raw: Mapping[str, Any], n: int, now: datetime, daemon: bool
) -> None:
    agent = str(raw["agent"])
    sid = _session_id(agent, str(raw.get("id", f"s{n}")))
    cwd = machine.cwd(raw.get("cwd"))
    started = now - timedelta(
        days=float(raw.get("days_ago", 0)), hours=float(raw.get("hours_ago", 0))
    )
    context = _session_start(machine, agent, raw.get("cwd"), sid, {}) if daemon else ""
    session = Session(
        agent=agent,
        session_id=sid,
        cwd=cwd,
        started=started,
        steps=steps_of(raw["turns"]),
        context=context,
        headless=bool(raw.get("headless")),
    )
    write_session(session, machine.user)
    if daemon:
        machine.ask("ingest", {}, timeout=120.0)
    if not raw.get("interrupted"):
        payload = {"session_id": sid, "cwd": cwd, "hook_event_name": "SessionEnd"}
        _hook(machine, "session-end", agent, payload | {"reason": "exit"})


def _session_id(agent: str, name: str) -> str:
    """All three CLIs name sessions by UUID: a stable one per scenario name."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"recallnest-e2e/{agent}/{name}"))


def _session_start(
    machine: Machine, agent: str, cwd_name: str | None, sid: str, nxt: Mapping[str, Any]
) -> str:
    payload = {
        "session_id": sid,
        "cwd": machine.cwd(cwd_name),
        "hook_event_name": "SessionStart",
        "source": str(nxt.get("source", "startup")),
    }
    return context_of(agent, _hook(machine, "session-start", agent, payload))


def _hook(machine: Machine, event: str, agent: str, payload: dict[str, Any]) -> str:
    return machine.cli(
        "hook", event, "--agent", agent, stdin=json.dumps(payload), timeout=HOOK_TIMEOUT
    )


def context_of(agent: str, stdout: str) -> str:
    """The text an agent takes from the hook's stdout (all three read the JSON form)."""
    if not stdout.strip():
        return ""
    try:
        output = json.loads(stdout)
    except ValueError:
        return stdout.strip()  # plain stdout is context too
    if not isinstance(output, dict):
        return ""
    specific = output.get("hookSpecificOutput") or {}
    return str(specific.get("additionalContext") or "")


def _settle(machine: Machine) -> None:
    """Wait until the daemon has built what its hooks and idle timer asked for: no queued
    path and the checkpoint count unchanged past the idle delay."""
    time.sleep(IDLE_SECONDS + 2.0)
    deadline = time.monotonic() + SETTLE_SECONDS
    last = None
    while time.monotonic() < deadline:
        status = machine.ask("daemon.status")
        count = len(machine.ask("checkpoints.list", {"limit": 1000}) or [])
        if status.get("queued") == 0 and count == last:
            return
        last = count
        time.sleep(1.0)


# --- checks ----------------------------------------------------------------------------------


_HANDLE_RE = re.compile(r"(?<=- )\[[0-9a-f]{8}\] ")


def check(scenario: Scenario, text: str, machine: Machine | None = None) -> list[str]:
    """Every failed expectation of `scenario` on the context `text`, worded for humans."""
    expect = scenario.get("expect", {})
    failures: list[str] = []
    full = text
    # A note's handle ("- [019004f4] …") is an id the CLI takes, derived from the scope, which
    # holds the run's temporary path: checks read what the notes say, not their handles (a
    # must-not "900" failed when a handle happened to hold it).
    text = _HANDLE_RE.sub("", text)
    low = text.lower()
    if expect.get("expect_empty"):
        if text.strip():
            failures.append("expected no context, got some")
        return failures
    if not text.strip():
        return ["no context at all"]
    failures += _invariants(full)
    for phrase in expect.get("must_contain", []):
        if phrase.lower() not in low:
            failures.append(f"missing: {phrase!r}")
    for phrase in expect.get("must_not_contain", []):
        if phrase.lower() in low:
            failures.append(f"must not appear: {phrase!r}")
    for phrase in expect.get("must_contain_once", []):
        if low.count(phrase.lower()) != 1:
            failures.append(f"not exactly once ({low.count(phrase.lower())}x): {phrase!r}")
    for pattern in expect.get("must_match", []):
        if not re.search(pattern, text, re.IGNORECASE | re.MULTILINE):
            failures.append(f"no match: /{pattern}/")
    for pattern in expect.get("must_not_match", []):
        found = re.search(pattern, text, re.IGNORECASE | re.MULTILINE)
        if found:
            failures.append(f"must not match /{pattern}/: {found.group(0)!r}")
    for name, phrases in expect.get("sections", {}).items():
        body = section(text, name).lower()
        failures += [f"not under {name!r}: {p!r}" for p in phrases if p.lower() not in body]
    for name, phrases in expect.get("sections_without", {}).items():
        body = section(text, name).lower()
        failures += [f"under {name!r}: {p!r}" for p in phrases if p.lower() in body]
    last = expect.get("last_session")
    if last:
        body = last_session_block(text).lower()
        if not body:
            failures.append("no 'Last session'")
        failures += [f"'Last session' lacks {p!r}" for p in last.get("contains", [])
                     if p.lower() not in body]  # fmt: skip
        failures += [f"'Last session' has {p!r}" for p in last.get("not_contains", [])
                     if p.lower() in body]  # fmt: skip
    limit = expect.get("max_tokens")
    if limit and estimate_tokens(full) > limit:
        failures.append(f"{round(estimate_tokens(full))} tokens > {limit}")
    return failures


def _invariants(text: str) -> list[str]:
    failures = []
    if text.splitlines()[0].strip() != CONTEXT_MARKER:
        failures.append("the first line is not the context marker")
    if text.count(CONTEXT_MARKER) != 1:
        failures.append(f"the marker appears {text.count(CONTEXT_MARKER)} times")
    control = _CONTROL.search(text)
    if control:
        failures.append(f"a control or bidi character: U+{ord(control.group(0)):04X}")
    return failures


def section(text: str, name: str) -> str:
    """The lines of one section of a resume context, from its header to the next one."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(name)), None)
    if start is None:
        return ""
    body = [lines[start]]
    for line in lines[start + 1 :]:
        if any(line.startswith(s) for s in SECTIONS) or line.startswith("~~~"):
            break
        body.append(line)
    return "\n".join(body)


# The lists the composer prints under the newest checkpoint's head: its own open loops and next
# steps (`compose._checkpoint_items`). What it carried from an older session says "Earlier:".
_CHECKPOINT_LISTS = ("Open loops:", "Next:")
_CARRIED_ITEM = "- Earlier:"


def last_session_block(text: str) -> str:
    """The "Last session" block as the user reads it: the head with its Decided/Files/Ran lines
    and the checkpoint's own open loops and next steps, not what it carried from an older
    session (decision 0030)."""
    body = [section(text, "Last session")]
    if not body[0]:
        return ""
    for name in _CHECKPOINT_LISTS:
        lines = section(text, name).splitlines()
        body += [line for line in lines if not line.startswith(_CARRIED_ITEM)]
    return "\n".join(line for line in body if line)


def _leaks(scenario: Scenario, machine: Machine) -> list[str]:
    """A secret of the scenario in any file of the home, or in what the store exports."""
    failures = []
    secrets = [s.encode() for s in scenario.get("secrets", [])]
    exported = machine.cli("export").encode()
    for secret in secrets:
        if secret in exported:
            failures.append(f"secret in export: {secret.decode()[:12]}…")
        for path in machine.home.rglob("*"):
            if path.is_file() and not path.is_symlink() and secret in path.read_bytes():
                failures.append(f"secret in {path.relative_to(machine.home)}")
    marker = CONTEXT_MARKER.encode()
    if marker in exported:
        failures.append("our own context was stored as a memory")
    return failures


# --- the whole set ---------------------------------------------------------------------------


def load(directory: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]


def evaluate(scenarios: Sequence[Scenario], jobs: int = 2) -> list[ScenarioResult]:
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(run_scenario, scenarios))


def summary(results: Sequence[ScenarioResult]) -> dict[str, Any]:
    by_agent: dict[str, list[int]] = {}
    for r in results:
        by_agent.setdefault(r.agent, [0, 0])
        by_agent[r.agent][0] += r.passed
        by_agent[r.agent][1] += 1
    tokens = sorted(r.tokens for r in results if r.text)
    return {
        "scenarios": len(results),
        "passed": sum(r.passed for r in results),
        "by_agent": {a: f"{p}/{n}" for a, (p, n) in sorted(by_agent.items())},
        "failed_checks": sum(len(r.failures) for r in results),
        "must_not_violations": sum(
            1 for r in results for f in r.failures if f.startswith(("must not", "secret", "our "))
        ),
        "tokens_median": tokens[len(tokens) // 2] if tokens else 0,
        "tokens_max": tokens[-1] if tokens else 0,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.e2e")
    parser.add_argument("directory", type=Path)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    scenarios = [s for s in load(args.directory) if not args.only or s["id"] in args.only]
    results = evaluate(scenarios, args.jobs)
    if args.json:
        report = {"summary": summary(results), "results": [asdict(r) for r in results]}
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0 if all(r.passed for r in results) else 1
    for r in results:
        flag = "PASS" if r.passed else ("KNOWN" if r.known_failure else "FAIL")
        print(f"{flag}  {r.scenario_id}  ({r.agent}, {r.tokens} tokens)")
        for failure in r.failures:
            print(f"      - {failure}")
        if args.show:
            print("\n".join("      | " + line for line in r.text.splitlines()))
    print(json.dumps(summary(results), ensure_ascii=False))
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""The integration against the real Claude Code, Codex and Gemini CLIs, installed from npm at
the versions in versions.json (see clis.py and agents.py).

For each CLI, once: the user's own settings, a running daemon holding one project note,
`recallnest install`, the user's trust step, a headless first prompt and a second one in the
same session (the model API is a loopback server that refuses every request, so no answer
comes back, but the CLI runs its hooks, sends our context and writes its transcript first),
then `recallnest ingest` and `recallnest uninstall`. Each test asserts one property from the
files the CLI wrote.

Opt-in with RECALLNEST_REAL_CLI=1 (.ci/run sets it); skipped with a one-line reason when
node or npm is missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest
from real_cli import clis
from real_cli.agents import DRIVERS, Ctx, read_jsonl
from support.daemon import DaemonProcess

from recallnest.continuity import snapshot as resume_snapshot
from recallnest.core.marker import CONTEXT_MARKER
from recallnest.server.pidfile import read_pid

SKIP = clis.skip_reason(os.environ)
CACHE = clis.cache_root(os.environ)
BASE_PATH = os.environ.get("PATH", "")
pytestmark = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")

SCRIPT = Path(sys.executable).with_name("recallnest")
Snapshot = dict[str, bytes]


@dataclass
class Scenario:
    agent: str
    ctx: Ctx
    fact: str
    prompts: tuple[str, str]
    runs: list[clis.Run] = field(default_factory=list)
    first_records: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    turns: list[tuple[str, str]] = field(default_factory=list)
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    mcp: bool = False


@pytest.fixture(scope="module", params=sorted(DRIVERS))
def scenario(request: pytest.FixtureRequest) -> Iterator[Scenario]:
    agent = str(request.param)
    pin = clis.pins()[agent]
    exe = clis.executable(pin, CACHE)
    root = Path(tempfile.mkdtemp(prefix=f"rncli-{agent[:2]}-", dir="/tmp"))
    api = clis.RefusingApi()
    daemon: DaemonProcess | None = None
    try:
        ctx = Ctx(root=root, exe=exe, api_url=api.url)
        ctx.env = _environment(ctx)
        ctx.env.update(DRIVERS[agent].env(ctx))
        daemon = DaemonProcess(root)
        daemon.env = dict(ctx.env)
        yield _play(agent, ctx, daemon)
    finally:
        if daemon is not None:
            daemon.stop()
        api.close()
        shutil.rmtree(root, ignore_errors=True)


def _environment(ctx: Ctx) -> dict[str, str]:
    """Nothing inherited but the basics: the agents' state and ours live under `root`."""
    path = os.pathsep.join([str(SCRIPT.parent), BASE_PATH])
    return {
        "PATH": path,
        "HOME": str(ctx.user),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "RECALLNEST_HOME": str(ctx.root / "rn"),
        "RECALLNEST_EMBEDDER": "hash",
        "NO_COLOR": "1",
    }


def _play(agent: str, ctx: Ctx, daemon: DaemonProcess) -> Scenario:
    driver = DRIVERS[agent]
    fact = f"The staging API of this project listens on port 18443 (rcprobe-{agent}-note)"
    prompts = (
        f"Which port does the staging API use? rcprobe-{agent}-first",
        f"And which host serves it? rcprobe-{agent}-second",
    )
    play = Scenario(agent, ctx, fact, prompts)
    ctx.proj.mkdir(parents=True)
    driver.seed(ctx)
    daemon.start()
    _recallnest(ctx, "remember", fact, "--scope", "project", str(ctx.proj))
    play.snapshots["before"] = snapshot(ctx.user)
    _recallnest(ctx, "install", "--agent", agent)
    play.snapshots["installed"] = snapshot(ctx.user)
    driver.prepare(ctx)
    play.runs.append(_run(ctx, driver, driver.first(ctx, prompts[0]), prompts[0], "first"))
    play.first_records = _records(driver, ctx)
    paths = driver.transcripts(ctx)
    assert paths, f"{agent} wrote no transcript: {play.runs[-1].describe()}"
    session_id = driver.session_id(paths[0])
    second = driver.second(ctx, session_id, prompts[1])
    play.runs.append(_run(ctx, driver, second, prompts[1], "second"))
    play.records = _records(driver, ctx)
    play.mcp = driver.mcp_connected(ctx, play.first_records)
    play.snapshots["used"] = snapshot(ctx.user)
    daemon.stop()
    _recallnest(ctx, "ingest", "--agent", agent)
    play.turns = _turns(ctx, agent)
    _recallnest(ctx, "uninstall", "--agent", agent)
    play.snapshots["after"] = snapshot(ctx.user)
    return play


def _recallnest(ctx: Ctx, *args: str) -> str:
    log = ctx.root / "recallnest.log"
    run = clis.run_bounded([str(SCRIPT), *args], ctx.env, ctx.proj, log)
    assert run.returncode == 0 and not run.timed_out, run.describe()
    return run.output


def _run(ctx: Ctx, driver: Any, argv: list[str], prompt: str, name: str) -> clis.Run:
    """A CLI run; one whose model request hangs (Gemini, see refusing_api.py) is stopped
    once its transcript holds the prompt."""

    def recorded() -> bool:
        return any(prompt in p.read_text(errors="replace") for p in driver.transcripts(ctx))

    until = recorded if driver.stop_when_recorded else None
    return clis.run_bounded(argv, ctx.env, ctx.proj, ctx.root / f"{name}.log", until=until)


def _records(driver: Any, ctx: Ctx) -> list[dict[str, Any]]:
    return [record for path in driver.transcripts(ctx) for record in read_jsonl(path)]


def _turns(ctx: Ctx, agent: str) -> list[tuple[str, str]]:
    db = ctx.root / "rn" / "recallnest.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT role, text FROM turns WHERE agent = ?", [agent]).fetchall()
    finally:
        con.close()
    return [(str(role), str(text)) for role, text in rows]


def snapshot(folder: Path) -> Snapshot:
    """Every regular file under `folder`, by relative path."""
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            files[str(path.relative_to(folder))] = path.read_bytes()
    return files


# --- the CLI ran, and ran in bounded time --------------------------------------------------------


def test_each_run_ends_in_bounded_time(scenario: Scenario) -> None:
    for run in scenario.runs:
        assert not run.timed_out, run.describe()


def test_session_start_hook_ran(scenario: Scenario) -> None:
    driver = DRIVERS[scenario.agent]
    assert driver.hook_ran(scenario.first_records), scenario.runs[0].describe()


# --- our context reached the model exactly once --------------------------------------------------


def test_context_reaches_the_model_once(scenario: Scenario) -> None:
    injected = DRIVERS[scenario.agent].injected(scenario.first_records)
    assert len(injected) == 1, injected
    assert CONTEXT_MARKER in injected[0]
    assert scenario.fact in injected[0]


def test_second_prompt_gets_no_second_copy(scenario: Scenario) -> None:
    injected = DRIVERS[scenario.agent].injected(scenario.records)
    copies = [text for text in injected if scenario.fact in text]
    assert len(copies) == 1, injected
    assert any(scenario.prompts[1] in json.dumps(r) for r in scenario.records), scenario.runs[
        1
    ].describe()


# --- ingest keeps the user's words, and none of ours --------------------------------------------


def test_ingest_stores_each_typed_prompt_once(scenario: Scenario) -> None:
    for prompt in scenario.prompts:
        stored = [text for role, text in scenario.turns if prompt in text]
        assert stored == [prompt], (prompt, scenario.turns)
    roles = {role for role, text in scenario.turns if text in scenario.prompts}
    assert roles == {"user"}


def test_ingest_stores_none_of_our_context(scenario: Scenario) -> None:
    ours = [text for _, text in scenario.turns if CONTEXT_MARKER in text or scenario.fact in text]
    assert ours == []


# --- uninstall restores what install touched ---------------------------------------------------


def test_uninstall_restores_every_file_install_touched(scenario: Scenario) -> None:
    before, installed, used, after = (
        scenario.snapshots[k] for k in ("before", "installed", "used", "after")
    )
    touched = {p for p in before.keys() | installed.keys() if before.get(p) != installed.get(p)}
    assert touched, "install changed no file"
    for path in sorted(touched):
        if used.get(path) == installed.get(path):
            assert after.get(path) == before.get(path), f"{path} not restored byte for byte"
        else:
            _assert_cli_edits_kept(path, before.get(path), used[path], after.get(path))
    for path in sorted(used.keys() - touched):
        assert after.get(path) == used.get(path), f"uninstall changed {path}, not ours"


def _assert_cli_edits_kept(
    path: str, before: bytes | None, used: bytes, after: bytes | None
) -> None:
    """The CLI edited a file we had edited too: uninstall must take out only our entries."""
    assert after is not None, f"uninstall deleted {path}, which the CLI had edited since"
    assert b"recallnest" not in after, f"{path} keeps recallnest entries:\n{after.decode()}"
    assert _pruned(_parse(path, after)) == _without_ours(_parse(path, used)), path
    if before is not None:
        kept = after.decode().splitlines()
        lines = iter(kept)
        missing = [line for line in before.decode().splitlines() if line not in lines]
        assert not missing, f"{path} lost the user's lines {missing}"


def _parse(path: str, raw: bytes) -> Any:
    return tomllib.loads(raw.decode()) if path.endswith(".toml") else json.loads(raw)


def _without_ours(doc: Any) -> Any:
    """`doc` without what names recallnest (our MCP server, our hook groups) or is Codex's
    trust entry for one of our hook groups (the user has no hooks of their own here)."""
    if isinstance(doc, dict):
        kept = {}
        for key, value in doc.items():
            if "recallnest" in key or ".codex/hooks.json:" in key:
                continue
            if isinstance(value, dict | list):
                kept[key] = _without_ours(value)
            elif "recallnest" not in str(value):
                kept[key] = value
        return _pruned(kept)
    if isinstance(doc, list):
        return [_without_ours(item) for item in doc if "recallnest" not in json.dumps(item)]
    return doc


def _pruned(doc: Any) -> Any:
    """`doc` without tables and lists left empty (an empty `[hooks.state]` is no entry)."""
    if isinstance(doc, dict):
        cleaned = {key: _pruned(value) for key, value in doc.items()}
        return {key: value for key, value in cleaned.items() if value not in ({}, [])}
    if isinstance(doc, list):
        return [_pruned(item) for item in doc]
    return doc


# --- MCP ----------------------------------------------------------------------------------------


def test_cli_connects_our_mcp_server(scenario: Scenario) -> None:
    log = scenario.ctx.root / "mcp.log"
    said = log.read_text(encoding="utf-8") if log.exists() else ""
    assert scenario.mcp, f"{scenario.agent} did not connect recallnest's MCP server: {said}"


# --- the daemon down (issue 16 item 9), with a real CLI -----------------------------------------


def test_claude_session_gets_the_snapshot_and_restarts_the_daemon() -> None:
    """The user closed the daemon's terminal: the next Claude Code session still gets the
    project's notes (from the snapshot) and the daemon is running again afterwards."""
    driver = DRIVERS["claude"]
    exe = clis.executable(clis.pins()["claude"], CACHE)
    root = Path(tempfile.mkdtemp(prefix="rncli-dn-", dir="/tmp"))
    api = clis.RefusingApi()
    daemon = DaemonProcess(root)
    try:
        ctx = Ctx(root=root, exe=exe, api_url=api.url)
        ctx.env = {**_environment(ctx), **driver.env(ctx), "RECALLNEST_AUTOSTART": "1"}
        daemon.env = {**ctx.env, "RECALLNEST_AUTOSTART": "0"}
        ctx.proj.mkdir(parents=True)
        daemon.start()
        fact = "Release builds are signed on the build-07 machine (rcprobe-claude-down)"
        _recallnest(ctx, "remember", fact, "--scope", "project", str(ctx.proj))
        daemon.wait_for(lambda: _snapshot_holds(ctx, fact), "the project's snapshot")
        _recallnest(ctx, "install", "--agent", "claude")
        daemon.stop()
        daemon.proc = None
        run = _run(ctx, driver, driver.first(ctx, "Where are releases signed?"), "", "down")
        injected = driver.injected(_records(driver, ctx))
        assert len(injected) == 1 and fact in injected[0], run.describe()
        assert "did not answer" in injected[0]
        daemon.wait_for(lambda: daemon.ask("ping") == {"pong": True}, "the restarted daemon")
    finally:
        _stop_by_pid(daemon)
        api.close()
        shutil.rmtree(root, ignore_errors=True)


def _snapshot_holds(ctx: Ctx, text: str) -> bool:
    found = resume_snapshot.read(ctx.root / "rn", str(ctx.proj))
    return found is not None and text in found.text


def _stop_by_pid(daemon: DaemonProcess) -> None:
    """Stop whichever daemon runs in this home (the harness's, or one a hook started)."""
    daemon.stop()
    pid = read_pid(daemon.home)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + clis.RUN_SECONDS
        while time.monotonic() < deadline:
            os.kill(pid, 0)
            time.sleep(0.1)

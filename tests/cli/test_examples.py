"""Every documented example runs and does what the text next to it says.

Examples are discovered, never listed here: every `\\b` example block of every command's help
(the source of `--help` and of the README's CLI reference) and every `sh`/`console` code
block of the README outside the generated reference. Each runs as written, in bash, in a
seeded world of its own (a temporary HOME with Claude and Codex transcripts, a RECALLNEST_HOME
with memories, a conflict and an undo entry, a project directory as the working directory,
a small eval case set and a LoCoMo file); stdin is a real terminal (a pty) that answers "y",
as a person typing the example would. Upper-case words are placeholders (MEMORY_ID,
CONFLICT_ID), filled from the world.

Each example must exit 0 without a traceback, print valid JSON when it asks for --json, and
pass the effect check of its command (EFFECTS: what the help says the command does, looked
at in the world afterwards). A new example of an existing command is covered as it is; a new
command needs an entry in EFFECTS, and the test says so.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from support.cases import subset
from support.daemon import claude_line
from support.paths import ROOT

from recallnest.cli import cli
from recallnest.server import protocol

README = ROOT / "README.md"
REFERENCE = re.compile(r"<!-- cli-reference:start -->.*?<!-- cli-reference:end -->", re.S)
BIN = Path(sys.executable).parent
WAIT_SECONDS = 90.0
# Segments not run here, and who runs them instead.
ELSEWHERE = {
    "pip install": ".ci/run installs from a clean clone (a build here would need the network)",
    "python -m pytest": (
        ".ci/run runs the README's test command verbatim (tests/system/test_docs.py)"
    ),
}


@dataclass(frozen=True)
class Example:
    where: str
    script: str

    @property
    def command(self) -> str:
        """The first recallnest command path of the script: `forget`, `daemon stop`, ..."""
        m = re.search(
            r"(?:^|&&|\|)\s*recallnest\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)", self.script, re.M
        )
        if m is None:
            return "set-up" if "git clone" in self.script else "elsewhere"
        words = m.group(1).split()
        group = cli.commands.get(words[0])
        return " ".join(words if isinstance(group, click.Group) else words[:1])


COMMAND_LINE = re.compile(r"^(?:recallnest\s|\S.*\|\s*recallnest\s)")


def _examples_in(command: click.Command, path: str) -> Iterator[Example]:
    """The command lines of the help's `\\b` (verbatim) paragraphs."""
    for paragraph in (command.help or "").split("\n\n"):
        lines = paragraph.strip().splitlines()
        if lines and lines[0].strip() == "\b":
            for line in lines[1:]:
                if COMMAND_LINE.match(line.strip()):
                    yield Example(f"{path} --help".strip(), line.strip())


def _help_examples(group: click.Group, prefix: str = "recallnest") -> Iterator[Example]:
    if prefix == "recallnest":
        yield from _examples_in(group, prefix)
    for name, command in sorted(group.commands.items()):
        path = f"{prefix} {name}"
        yield from _examples_in(command, path)
        if isinstance(command, click.Group):
            yield from _help_examples(command, path)


def _readme_examples() -> Iterator[Example]:
    text = REFERENCE.sub("", README.read_text(encoding="utf-8"))
    for n, block in enumerate(re.findall(r"```(?:sh|console)\n(.*?)\n```", text, re.S)):
        yield Example(f"README block {n + 1}", block)


EXAMPLES = [*_help_examples(cli), *_readme_examples()]


def test_examples_are_found_in_help_and_readme() -> None:
    where = {e.where for e in EXAMPLES}
    assert "recallnest forget --help" in where and "README block 1" in where
    assert len(EXAMPLES) >= 30


# ---- the world -------------------------------------------------------------------------------


class World:
    """A temporary user: HOME (`user`) with transcripts, RECALLNEST_HOME (`rn`), the project
    `~/code/app` as the working directory. Paths are short (a Unix socket lives in `rn`)."""

    def __init__(self, root: Path, seeded: Seeded | None = None) -> None:
        self.root = root
        self.seeded = seeded
        self.user = root / "user"
        self.home = root / "rn"
        self.cwd = self.user / "code" / "app"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("RECALLNEST_")
            and k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME")
        }
        self.env |= {
            "HOME": str(self.user),
            "RECALLNEST_HOME": str(self.home),
            "RECALLNEST_EMBEDDER": "hash",
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "REPO_URL": str(ROOT),
            "PYTHONDONTWRITEBYTECODE": "1",
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "recallnest", *args],
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=WAIT_SECONDS,
            stdin=subprocess.DEVNULL,
        )

    def json(self, *args: str) -> Any:
        out = self.run(*args, "--json")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def memories(self) -> list[dict[str, Any]]:
        return list(self.json("memories", "find", "--status", "any", "-n", "1000"))

    def texts(self) -> set[str]:
        return {m["text"] for m in self.memories() if m["status"] == "active"}

    def counts(self) -> dict[str, int]:
        return dict(self.json("stats")["counts"])

    def daemon_answers(self) -> bool:
        try:
            return protocol.request(str(self.home / protocol.SOCKET_NAME), "ping", {}, 2.0) == {
                "pong": True
            }
        except protocol.ProtocolError:
            return False

    def placeholders(self, memories: list[dict[str, Any]]) -> dict[str, str]:
        deploy = [m for m in memories if m["text"] == "We deploy with make release"]
        conflicts = self.json("conflicts", "list")
        return {
            "MEMORY_ID": deploy[0]["id"] if deploy else "none",
            "CONFLICT_ID": str(conflicts[0]["id"]) if conflicts else "none",
        }


def _codex_rollout(world: World) -> None:
    now = datetime.now(UTC)
    day = world.user / ".codex" / "sessions" / now.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    sid = "cccccccc-0000-4000-8000-000000000001"
    stamp = now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    records = [
        {"type": "session_meta", "payload": {"id": sid, "timestamp": stamp, "cwd": str(world.cwd)}},
        {"type": "turn_context", "payload": {"cwd": str(world.cwd), "model": "gpt-5"}},
        {
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "The staging port is 8443 on codex"},
        },
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "Noted."}},
    ]
    lines = [json.dumps({"timestamp": stamp, **r}) for r in records]
    name = f"rollout-{now.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl"
    (day / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def _claude_transcript(world: World) -> None:
    old = world.user / "code" / "old-app"
    project = world.user / ".claude" / "projects" / str(old).replace("/", "-")
    project.mkdir(parents=True)
    line = claude_line("old-1", 0, "The old app used webpack 4", "user", str(old))
    (project / "old-1.jsonl").write_text(line + "\n", encoding="utf-8")
    project = world.user / ".claude" / "projects" / str(world.cwd).replace("/", "-")
    project.mkdir(parents=True)
    texts = [
        "We use pnpm, never npm, in this repo",
        "Which package manager do we use here?",
        "pnpm: the lockfile is pnpm-lock.yaml.",
    ]
    roles = ["user", "user", "assistant"]
    lines = [
        claude_line("app-1", k, t, r, str(world.cwd))
        for k, (t, r) in enumerate(zip(texts, roles, strict=True))
    ]
    (project / "app-1.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _locomo(world: World) -> None:
    data = world.user / "data" / "locomo"
    data.mkdir(parents=True)
    session = [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat called Miso."},
        {"speaker": "Bob", "dia_id": "D1:2", "text": "Lovely! How old is Miso?"},
        {"speaker": "Ann", "dia_id": "D1:3", "text": "Miso is two and loves the balcony."},
    ]
    conversation = {
        "speaker_a": "Ann",
        "speaker_b": "Bob",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": session,
        "qa": [{"question": "What is Ann's cat called?", "evidence": ["D1:1"], "category": 1}],
    }
    (data / "1.json").write_text(json.dumps(conversation), encoding="utf-8")


def _seed(world: World) -> None:
    for project in (world.cwd, world.user / "code" / "old-app"):
        (project / ".git").mkdir(parents=True)
    _claude_transcript(world)
    _codex_rollout(world)
    _locomo(world)
    subset(world.cwd / "eval", ["s01", "s05"])
    steps: list[tuple[str, ...]] = [
        ("ingest",),
        ("remember", "I prefer dark themes in every editor always"),
        ("remember", "I prefer dark themes in every editor"),  # merged: an undo entry
        ("remember", "The staging port is 8443", "--category", "entities"),
        ("import", "CONTRADICTION"),  # a conflict: see _contradicting
        ("remember", "The staging password rotates every month"),
        ("remember", "We deploy with make release"),
        ("remember", "Old app listens on port 3000", "--scope", "project", "../old-app"),
        ("consolidate",),
        ("export", "-o", "memories.jsonl"),
    ]
    for step in steps:
        if step == ("import", "CONTRADICTION"):
            path = _contradicting(world, "The staging port is 8443", "The staging port is 9443")
            step = ("import", str(path))
        out = world.run(*step)
        assert out.returncode == 0, (step, out.stdout, out.stderr)


def _contradicting(world: World, old: str, text: str) -> Path:
    """An export file holding one memory that contradicts the memory `old`. `remember` would
    supersede the old value at once; an import (another machine's export) leaves the pair to
    consolidation, which flags a conflict between two facts."""
    lines = world.run("export").stdout.splitlines()
    newest = next(r for r in map(json.loads, lines) if r["text"] == old)
    later = (datetime.fromisoformat(newest["created_at"]) + timedelta(minutes=1)).isoformat()
    record = {**newest, "id": "imported-contradiction", "text": text}
    record |= {"created_at": later, "updated_at": later}
    path = world.root / "contradiction.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class Seeded:
    root: Path
    seed: Path
    before: dict[str, Any]  # the seeded world's memories, texts and counts
    placeholders: dict[str, str]


@pytest.fixture(scope="module")
def seeded() -> Iterator[Seeded]:
    """A world built once at `root`, moved to the seed, and copied back to `root` for each
    example, so its absolute paths stay right."""
    root = Path("/tmp") / f"rnx-{uuid.uuid4().hex[:8]}"
    seed = Path(f"{root}-seed")
    try:
        w = World(root)
        _seed(w)
        memories = w.memories()
        before = {
            "memories": memories,
            "texts": {m["text"] for m in memories if m["status"] == "active"},
            "counts": w.counts(),
        }
        placeholders = w.placeholders(memories)
        root.rename(seed)
        yield Seeded(root, seed, before, placeholders)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(seed, ignore_errors=True)


@pytest.fixture
def world(seeded: Seeded) -> Iterator[World]:
    shutil.copytree(seeded.seed, seeded.root, symlinks=True)
    w = World(seeded.root, seeded)
    try:
        yield w
    finally:
        if w.daemon_answers():
            w.run("daemon", "stop")
        shutil.rmtree(seeded.root, ignore_errors=True)


# ---- running an example ----------------------------------------------------------------------


@dataclass
class Ran:
    code: int
    out: str
    err: str


def _prepare(example: Example, world: World) -> str:
    script = example.script
    assert world.seeded is not None
    for name, value in world.seeded.placeholders.items():
        script = script.replace(name, value)
    for segment, _why in ELSEWHERE.items():  # run elsewhere: see ELSEWHERE
        script = re.sub(rf"{re.escape(segment)}[^&\n]*(?:&&\s*)?", "", script)
    return script


def _run_script(script: str, world: World, cwd: Path) -> Ran:
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            ["bash", "-eo", "pipefail", "-c", script],
            env=world.env,
            cwd=cwd,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.write(master, b"y\n")
        out, err = proc.communicate(timeout=WAIT_SECONDS * 2)
    finally:
        os.close(master)
        os.close(slave)
    return Ran(proc.returncode, out, err)


def _run_daemon_run(script: str, world: World) -> Ran:
    """`recallnest daemon run` runs until Ctrl-C or SIGTERM: run it, see it answer, stop it."""
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {script.strip()}"],
        env=world.env,
        cwd=world.cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + WAIT_SECONDS
    answered = False
    while time.monotonic() < deadline and proc.poll() is None and not answered:
        answered = world.daemon_answers()
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=WAIT_SECONDS)
    return Ran(proc.returncode if answered else -1, out, err)


def _run_mcp(script: str, world: World) -> Ran:
    """`recallnest mcp` speaks JSON-RPC on stdio: initialise and list the tools."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "examples", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    proc = subprocess.Popen(
        ["bash", "-c", f"exec {script.strip()}"],
        env=world.env,
        cwd=world.cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(stdin)
    proc.stdin.flush()
    lines = [proc.stdout.readline(), proc.stdout.readline()]
    out, err = proc.communicate(timeout=WAIT_SECONDS)
    return Ran(proc.returncode, "".join(lines) + out, err)  # communicate closed stdin


def _run_ui(script: str, world: World) -> Ran:
    """`recallnest ui` serves until Ctrl-C or SIGTERM: read the URL it prints, open it (the
    login sets the cookie and redirects to the dashboard), keep the page, stop it."""
    import http.cookiejar
    import urllib.request

    proc = subprocess.Popen(
        ["bash", "-c", f"exec {script.strip()}"],
        env=world.env | {"BROWSER": "true"},  # "opening" the URL runs `true URL`
        cwd=world.cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    url = re.search(r"http://127\.0\.0\.1:\d+/login\?token=\S+", first)
    page = ""
    if url:
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(url.group(0), timeout=WAIT_SECONDS) as response:
            page = response.read().decode()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=WAIT_SECONDS)
    return Ran(proc.returncode, first + out + page, err)


# A git remote in an example: a fresh local bare repository stands in for it (no network).
GIT_REMOTE = re.compile(r"git@[\w.-]+:[\w./-]+\.git")
OTHER_MACHINE = "# every other machine"


def _run_sync(script: str, world: World) -> Ran:
    """`sync init` examples: each git URL becomes a local bare repository, and what follows
    "# every other machine" runs as a second machine (its own RECALLNEST_HOME, the same user,
    so the key file copied to ~ is there)."""
    for n, url in enumerate(dict.fromkeys(GIT_REMOTE.findall(script))):
        bare = world.root / "remotes" / f"r{n}.git"
        subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True, timeout=60)
        script = script.replace(url, str(bare))
    first, _, other = script.partition(OTHER_MACHINE)
    ran = _run_script(first, world, world.cwd)
    if ran.code != 0 or not other.strip():
        return ran
    second = World(world.root, world.seeded)
    second.home = world.root / "rn2"
    second.env = world.env | {"RECALLNEST_HOME": str(second.home)}
    then = _run_script(other, second, world.cwd)
    return Ran(then.code, ran.out + then.out, ran.err + then.err)


def run_example(example: Example, world: World) -> Ran:
    script = _prepare(example, world)
    if not script.strip():  # every segment runs elsewhere (ELSEWHERE)
        return Ran(0, "", "")
    if "recallnest daemon stop" in script:  # the example is about a running daemon
        world.run("daemon", "start")
        assert world.daemon_answers()
    if re.search(r"recallnest daemon run\b", script):
        return _run_daemon_run(script, world)
    if re.search(r"recallnest mcp\b", script):
        return _run_mcp(script, world)
    if re.search(r"recallnest ui\b", script):
        return _run_ui(script, world)
    if re.search(r"recallnest sync init\b", script):
        return _run_sync(script, world)
    if "git clone" in script:  # the set-up: a fresh clone and virtualenv, somewhere new
        return _run_script(script, world, world.user)
    return _run_script(script, world, world.cwd)


# ---- what each command says it does ---------------------------------------------------------

Check = Callable[[Example, World, Ran, dict[str, Any]], None]


def _remember(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    text = re.search(r'remember "([^"]+)"', e.script)
    assert text is not None
    stored = [m for m in w.memories() if m["text"] == text.group(1)]
    assert stored and r.out.startswith(("remembered ", "updated "))  # new, or already known
    assert (stored[0]["scope"] == "global") == ("--scope project" not in e.script)


def _search(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    hits = json.loads(r.out) if "--json" in e.script else r.out.splitlines()
    assert hits, "no results"
    if "package manager" in e.script:
        assert "pnpm" in r.out
    if "--agent codex" in e.script:
        assert "codex" in r.out and "8443" in r.out


def _capture(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert "nothing would be captured" not in r.out and re.match(r"\[\w+, ", r.out), r.out


def _forget(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    after = w.texts()
    gone = before["texts"] - after
    assert gone or "--session" in e.script, "nothing was forgotten"
    if "--query" in e.script:
        assert gone == {"The staging password rotates every month"}
    if "--project" in e.script:
        # what old-app holds: the remembered fact, and what capture may keep of its one turn
        assert "Old app listens on port 3000" in gone
        assert gone <= {"Old app listens on port 3000", "The old app used webpack 4"}, gone
    if "MEMORY_ID" in e.script:
        assert gone == {"We deploy with make release"}
    if "--with-turns" in e.script:
        assert w.counts()["turns"] < before["counts"]["turns"]


def _unchanged(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert w.memories() == before["memories"], "a read-only example changed memories"


def _conflicts_resolve(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert w.json("conflicts", "list") == []
    assert "The staging port is 8443" not in w.texts() and "The staging port is 9443" in w.texts()


def _undo(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    if "--list" in e.script:
        assert re.match(r"#\d+ .* consolidate: ", r.out), r.out
        _unchanged(e, w, r, before)
    else:  # the last consolidation merged the two tab preferences: both are back
        dark = "I prefer dark themes in every editor"
        assert {dark, f"{dark} always"} <= w.texts()


def _ingest(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert re.match(r"\d+ files, \d+ turns read \(0 new\)", r.out), r.out  # idempotent
    assert w.counts()["turns"] == before["counts"]["turns"]


def _install(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    settings = w.user / ".claude" / "settings.json"
    if "--dry-run" in e.script:
        assert not settings.exists(), "a dry run wrote settings"
        assert "claude" in r.out
    else:
        assert "recallnest hook session-start --agent claude" in settings.read_text()


def _resume(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert "RECALLNEST RECALLED NOTES" in r.out and "pnpm" in r.out, r.out


def _audit(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    if "--json" in e.script:
        report = json.loads(r.out)
        assert report["findings"] == [] and report["scanned"]["memories"] > 0, report
    else:
        assert r.out.startswith("no secrets found (scanned "), r.out
    _unchanged(e, w, r, before)


def _repair(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert w.texts() == before["texts"], "repair lost memories"
    if "daemon start" in e.script:
        assert w.daemon_answers()


def _daemon_run(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert "daemon started" in r.err and w.daemon_answers() is False  # it ran, then stopped


def _mcp(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    replies = [json.loads(line) for line in r.out.splitlines() if line.strip()]
    tools = {t["name"] for t in replies[-1]["result"]["tools"]}
    assert tools == {"search_memory", "remember", "forget", "recent_sessions", "resume_context"}


def _ui(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    assert "<h1>Dashboard</h1>" in r.out and w.daemon_answers(), r.out[-2000:]


def _eval_cases(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    report = json.loads(r.out) if "--json" in e.script else None
    if report is None:
        assert "hit@1" in r.out.lower() or "Hit@1" in r.out, r.out
    else:
        assert report["overall"]["n"] > 0
    if "--cache-dir" in e.script:
        assert list((w.user / ".cache" / "recallnest-eval").glob("*"))


def _eval_locomo(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    report = json.loads(r.out)
    assert report["categories"] and report["latency_ms"]["queries"] == 1, report


def _elsewhere(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert e.script in ci, "a command run elsewhere must be in .ci/run verbatim"


def _setup(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    clone = w.user / "recallnest"
    assert (clone / "pyproject.toml").exists() and (clone / ".venv" / "bin" / "python").exists()


def _sync(e: Example, w: World, r: Ran, before: dict[str, Any]) -> None:
    """Every home the example set up syncs with the remote it named, and its round ran."""
    homes = [w.home] + ([w.root / "rn2"] if OTHER_MACHINE in e.script else [])
    for home in homes:
        env = w.env | {"RECALLNEST_HOME": str(home)}
        status = subprocess.run(
            [sys.executable, "-m", "recallnest", "sync", "status", "--json"],
            env=env,
            cwd=w.cwd,
            capture_output=True,
            text=True,
            timeout=WAIT_SECONDS,
        )
        assert status.returncode == 0, status.stderr
        remotes = json.loads(status.stdout)["remotes"]
        assert remotes and all(not r["error"] for r in remotes.values()), remotes


EFFECTS: dict[str, Check] = {
    "remember": _remember,
    "search": _search,
    "capture": _capture,
    "forget": _forget,
    "consolidate": _unchanged,  # the examples are --dry-run
    "memories find": _unchanged,
    "conflicts resolve": _conflicts_resolve,
    "undo": _undo,
    "ingest": _ingest,
    "install": _install,
    "resume": _resume,
    "audit secrets": _audit,
    "repair": _repair,
    "daemon stop": _repair,  # the damaged-database recipe: stop, repair, start
    "daemon run": _daemon_run,
    "mcp": _mcp,
    "ui": _ui,
    "sync init": _sync,
    "eval cases": _eval_cases,
    "eval locomo": _eval_locomo,
    "set-up": _setup,  # the README's clone and virtualenv block
    "elsewhere": _elsewhere,
}


@pytest.mark.slow
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"{e.where}: {e.script[:50]}")
def test_example_does_what_it_says(example: Example, world: World) -> None:
    check = EFFECTS.get(example.command)
    assert check is not None, f"add an effect check for `{example.command}` to EFFECTS"
    assert world.seeded is not None
    before = world.seeded.before
    ran = run_example(example, world)
    assert ran.code == 0, f"exit {ran.code}\nstdout: {ran.out[-2000:]}\nstderr: {ran.err[-2000:]}"
    assert "Traceback" not in ran.err, ran.err
    if "--json" in example.script and example.command not in ("mcp",):
        json.loads(ran.out)
    check(example, world, ran, before)

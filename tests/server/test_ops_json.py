"""The JSON each operation answers, pinned byte for byte (issue 19: results are typed inside,
and what the socket, the MCP server, the web UI and `--json` carry must not change).

Pinned: every op of the shared scenario (support/ops_scenario.py) as the socket carries its
result; the ops the daemon answers itself (`daemon.status`, a hook's `checkpoint`, `ingest`)
as its socket writes them; and the `--json` of the commands that run without the socket
(`ingest`, `daemon status`, `repair`, `audit secrets`). What differs between any two runs
keeps its shape: a time's digits become 0, the home's path `<root>` (the repository's
`<repo>`), a PID, size or duration `<varies>`. Regenerate on purpose with
RECALLNEST_UPDATE_GOLDEN=1 and read the diff."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from conftest import Cli
from support.ops_scenario import SCENARIO, TRANSCRIPT, run, seeded, settings_in
from support.paths import GOLDEN, ROOT

from recallnest.core.config import Settings
from recallnest.core.models import Turn
from recallnest.core.paths import db_path
from recallnest.server import protocol
from recallnest.server.client import LocalClient
from recallnest.server.daemon import Daemon, _answer
from recallnest.store import Batch, Store

TIME = re.compile(
    r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?)?|\d{8}T\d{6}Z"
)
VARYING = re.compile(
    r'"(pid|ratio|seconds|uptime_seconds|\w+_seconds|\w+_bytes)":( ?)(-?[\d.e+-]+|null)'
)
# Assembled at run time so that no scanner flags this file.
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def transcripts(root: Path) -> str:
    """A folder holding the scenario's transcript alone (small: capture stays in process)."""
    folder = root / "transcripts"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TRANSCRIPT.name).write_bytes(TRANSCRIPT.read_bytes())
    return str(folder)


def shape(text: str, root: Path) -> str:
    text = text.replace(str(root), "<root>").replace(str(ROOT), "<repo>")
    text = TIME.sub(lambda m: re.sub(r"\d", "0", m.group(0)), text)
    return VARYING.sub(r'"\1":\2<varies>', text)


def wire(value: Any) -> str:
    """A result as the socket carries it (protocol.encode's separators)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def check(name: str, lines: list[str]) -> None:
    golden = GOLDEN / f"ops_{name}.txt"
    text = "\n".join(lines) + "\n"
    if os.environ.get("RECALLNEST_UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_socket_ops_answer_the_pinned_json(recallnest_home: Path) -> None:
    root = recallnest_home.parent / "pin"
    settings = settings_in(root)
    seeded(settings).close()
    local = LocalClient(settings)
    try:
        outcomes = run(local.call)
    finally:
        local.close()
    pairs = zip(SCENARIO, outcomes, strict=True)
    lines = [f"{op} {shape(wire(list(outcome)), root)}" for (op, _), outcome in pairs]
    check("socket", lines)


def test_the_daemons_own_ops_answer_the_pinned_json(recallnest_home: Path) -> None:
    root = recallnest_home.parent / "pin"
    settings = settings_in(root)
    daemon = Daemon(settings, seeded(settings))
    requests = [
        ("daemon.status", {}),
        ("checkpoint", {"session_id": "s-hook", "reason": "pre-compact"}),
        ("ingest", {"agent": "claude", "roots": [transcripts(root)]}),
        ("daemon.status", {}),
    ]
    try:
        lines = []
        for op, args in requests:
            raw = protocol.encode({"v": protocol.PROTOCOL_VERSION, "op": op, "args": args})
            reply = protocol.encode(_answer(daemon, raw)).decode()
            lines.append(f"{op} {shape(reply.rstrip(), root)}")
    finally:
        daemon.engine.close()
    check("daemon", lines)


def planted(settings: Settings) -> None:
    """A turn holding a token, written past redaction (what `audit secrets` looks for)."""
    store = Store(db_path(settings.home))
    try:
        text = f"the deploy token is {TOKEN}"
        turn = Turn("claude", "s1", "user", text, None, "/x/s1.jsonl", "r1", 0, "/work/app")
        store.write(Batch(turns=[turn]))
    finally:
        store.close()


def test_commands_without_the_socket_print_the_pinned_json(recallnest_home: Path, cli: Cli) -> None:
    root = recallnest_home.parent / "pin"
    settings = settings_in(root)
    home = ["--home", str(settings.home)]
    commands = [
        ["daemon", "status", "--json"],
        ["ingest", "--agent", "claude", "--root", transcripts(root), "--json"],
        ["audit", "secrets", "--json"],
        ["repair", "--force", "--json"],
    ]
    blocks = []
    for args in commands:
        result = cli([*home, *args])
        blocks.append(f"$ {' '.join(args)} (exit {result.exit_code})\n{result.stdout.rstrip()}")
    planted(settings)
    for args in (["audit", "secrets", "--json"], ["audit", "secrets", "--fix", "--json"]):
        result = cli([*home, *args])
        blocks.append(f"$ {' '.join(args)} (exit {result.exit_code})\n{result.stdout.rstrip()}")
    check("commands", [shape(b, root) for b in blocks])

"""Secrets never reach storage, logs or output, end to end: one test per path (the daemon, the
backfill, `remember`, the logs, `export`, error messages). Each checks the rows (through SQL,
with `recallnest audit secrets`), the raw database file and its WAL byte for byte, and every
output of the path.

The fake credentials are assembled at run time so that no scanner flags this repository."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.daemon import DaemonProcess, claude_line

from recallnest.core.config import Settings
from recallnest.core.paths import db_path, ensure_home
from recallnest.integrations import hook
from recallnest.server.audit import audit_secrets

GITHUB = "ghp_" + "Q9w8E7r6T5y4U3i2O1p0A9s8D7f6G5h4J3k2"
AWS = "AKIA" + "Z5XCVBNMQWERTYU2"
OPENAI = "sk-proj-" + "Pq8Rs7Tu6Vw5Xy4Za3Bc2De1Fg9Hi8Jk7Lm6No5"
SLACK = "xoxb-" + "5829301746-" + "Zx9Cv8Bn7Mq6Wk5Jh4Lp"
DB_PASSWORD = "Wm4pX9rT2qLz"
PRIVATE_KEY = (
    "-----BEGIN RSA "
    + "PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3k9Tq8vZx7YwL2mN4pQ8rS6tU1vW3xY5zA7bC9dE\n"
    + "-----END RSA "
    + "PRIVATE KEY-----"
)
SECRETS = (GITHUB, AWS, OPENAI, SLACK, DB_PASSWORD, "MIIEpAIBAAKCAQEA3k9Tq8vZx7YwL2mN4pQ8")
SAYINGS = (
    f"the deploy token is {GITHUB} for the walrus service",
    f"walrus staging runs with AWS key {AWS}",
    f"export OPENAI_API_KEY={OPENAI} before the walrus eval",
    f"walrus alerts post with {SLACK}",
    f"connect with postgres://walrus:{DB_PASSWORD}@db.internal:5432/walrus",
    f"the walrus deploy key is\n{PRIVATE_KEY}",
)


def leaked(text: str | bytes) -> list[str]:
    """The fake secrets (or their distinctive parts) found in `text`."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    return [s[:12] for s in SECRETS if s.encode() in data]


def assert_store_clean(home: Path) -> None:
    """No row holds a secret (SQL scan), and neither do the database file nor its WAL."""
    settings = Settings.load(flags={"home": str(home), "embedder": "hash"})
    result = audit_secrets(settings)
    assert sum(result.scanned.values()) > 0 and result.findings == []
    for path in (db_path(home), db_path(home).with_name("recallnest.duckdb.wal")):
        if path.exists():
            assert leaked(path.read_bytes()) == [], path


# ---- transcripts of the three agents ---------------------------------------------------------


def claude_transcript(folder: Path) -> None:
    lines = [claude_line("c1", k, text) for k, text in enumerate(SAYINGS)]
    tool = {
        "type": "assistant",
        "uuid": "c1-tool",
        "sessionId": "c1",
        "timestamp": "2026-01-01T01:00:00Z",
        "cwd": "/work/app",
        "message": {
            "role": "assistant",
            "id": "m-c1-tool",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_9",
                    "name": "Bash",
                    "input": {"command": f"curl -H 'Authorization: token {GITHUB}' api.example"},
                }
            ],
        },
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "c1.jsonl").write_text("\n".join([*lines, json.dumps(tool)]) + "\n")


def codex_transcript(codex_dir: Path) -> None:
    folder = codex_dir / "sessions" / "2026" / "01" / "01"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = "2026-01-01T00:00:00Z"
    records: list[dict[str, object]] = [
        {"timestamp": stamp, "type": "session_meta", "payload": {"id": "x1", "cwd": "/work/app"}}
    ]
    for k, text in enumerate(SAYINGS):
        role, part = ("user", "input_text") if k % 2 == 0 else ("assistant", "output_text")
        payload = {"type": "message", "role": role, "id": f"i{k}"}
        payload["content"] = [{"type": part, "text": text}]
        records.append({"timestamp": stamp, "type": "response_item", "payload": payload})
    call = {"command": ["bash", "-lc", f"aws configure set aws_access_key_id {AWS}"]}
    records.append(
        {
            "timestamp": stamp,
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "call_id": "call-1",
                "arguments": json.dumps(call),
            },
        }
    )
    path = folder / "rollout-2026-01-01T00-00-00-00000000-0000-4000-8000-000000000001.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")


def gemini_transcript(gemini_dir: Path) -> None:
    folder = gemini_dir / "tmp" / "walrushash" / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, object]] = [
        {"sessionId": "g1", "projectHash": "walrushash", "startTime": "2026-01-01T00:00:00Z"}
    ]
    for k, text in enumerate(SAYINGS):
        record: dict[str, object] = {"id": f"g{k}", "timestamp": "2026-01-01T00:00:01Z"}
        if k % 2 == 0:
            record.update(type="user", content=[{"text": text}])
        else:
            record.update(type="gemini", content=text)
        records.append(record)
    call = {"id": "t1", "name": "run_shell_command", "args": {"command": f"echo {OPENAI}"}}
    records.append({"id": "g-tool", "type": "gemini", "content": "", "toolCalls": [call]})
    (folder / "session-2026-01-01T00-00-g1.jsonl").write_text(
        "\n".join(json.dumps(r) for r in records) + "\n"
    )


def write_all_agents(settings: Settings) -> None:
    claude_transcript(settings.claude_dir / "projects" / "-work-app")
    codex_transcript(settings.codex_dir)
    gemini_transcript(settings.gemini_dir)


# ---- the daemon path ---------------------------------------------------------------------------


@pytest.fixture
def proc(recallnest_home: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(recallnest_home.parent / "d")
    yield d
    d.stop()


@pytest.mark.slow
def test_daemon_path(proc: DaemonProcess) -> None:
    settings = Settings.load(env=proc.env)
    proc.start()
    write_all_agents(settings)  # created while the daemon watches: the live path
    proc.wait_for(lambda: proc.turns() >= 3 * len(SAYINGS), "every agent's turns")
    proc.wait_for(lambda: proc.counts().get("tool_uses", 0) >= 3, "the three tool calls")
    remembered = proc.request("remember", text=f"walrus ops: rotate {SLACK} monthly")
    hits = proc.request("search", query="walrus deploy token key", limit=50)
    resume = proc.request("resume", cwd="/work/app", agent="claude", record=False)
    status = proc.cli("daemon", "status", "--json")
    assert hits and "[REDACTED:" in json.dumps(hits)
    for output in (remembered, hits, resume, status.stdout):
        assert leaked(json.dumps(output)) == []
    wal = db_path(proc.home).with_name("recallnest.duckdb.wal")
    assert wal.exists() and leaked(wal.read_bytes()) == []  # rows not yet checkpointed
    assert proc.stop() == 0  # a clean stop checkpoints the WAL into the file
    assert leaked(proc.logs()) == []
    assert_store_clean(proc.home)


# ---- the backfill path ---------------------------------------------------------------------


def test_backfill_path(settings: Settings, cli) -> None:
    write_all_agents(settings)
    result = cli(["ingest", "--json"])
    assert result.exit_code == 0 and leaked(result.output) == []
    summary = json.loads(result.output[result.output.index("{") :])
    assert summary["redactions"] >= 3 * len(SAYINGS) and summary["errors"] == []
    assert_store_clean(settings.home)


# ---- the CLI `remember` path ---------------------------------------------------------------------


def test_cli_remember_path(settings: Settings, cli) -> None:
    outputs = [cli(["remember", text, "--json"]).output for text in SAYINGS]
    assert all("[REDACTED:" in out for out in outputs)
    outputs.append(cli(["remember", f"again {GITHUB}"]).output)  # the human output too
    outputs.append(cli(["memories", "list", "--json"]).output)
    outputs.append(cli(["search", "walrus", "--json"]).output)
    first = json.loads(outputs[0])["id"]
    outputs.append(cli(["memories", "show", first]).output)
    assert [leaked(out) for out in outputs] == [[]] * len(outputs)
    assert_store_clean(settings.home)


# ---- logs ----------------------------------------------------------------------------------------


def test_logs_path(settings: Settings, tmp_path: Path) -> None:
    """daemon.log masks whatever a message or a traceback quotes; hook.log masks the agent's
    arguments and payload."""
    from recallnest.server.daemon import setup_logging

    home = ensure_home(settings.home)
    root = logging.getLogger()
    before = {handler: handler.formatter for handler in root.handlers}
    level = root.level
    stderr = io.StringIO()
    root.addHandler(logging.StreamHandler(stderr))  # as the CLI's stderr handler
    setup_logging(home)
    try:
        log = logging.getLogger("recallnest.server.daemon")
        log.warning("read %s: %d turns", f"/x/{OPENAI}.jsonl", 3)
        try:
            raise ValueError(f"bad value {AWS}")
        except ValueError:
            log.exception("ingest failed")
    finally:
        for handler in set(root.handlers) - set(before):
            handler.close()
            root.removeHandler(handler)
        for handler, formatter in before.items():
            handler.setFormatter(formatter)
        root.setLevel(level)
    daemon_log = (home / "logs" / "daemon.log").read_text()
    assert "ingest failed" in stderr.getvalue() and leaked(stderr.getvalue()) == []
    assert "ingest failed" in daemon_log and "[REDACTED:" in daemon_log
    payload = json.dumps({"cwd": f"/work/{GITHUB}", "session_id": SLACK, "source": "startup"})
    for argv in (["session-start", "--agent", GITHUB], ["session-start", "--agent", "claude"]):
        stdin = tmp_path / "stdin.json"
        stdin.write_text(payload)
        with stdin.open() as fh:
            out = (tmp_path / "stdout.txt").open("w")
            with out:
                assert hook.main(argv, fh, out, {"RECALLNEST_HOME": str(home)}) == 0
        assert (tmp_path / "stdout.txt").read_text() == ""
    hook_log = (home / "logs" / "hook.log").read_text()
    assert "unknown agent" in hook_log and "daemon not reachable" in hook_log
    assert leaked(daemon_log) == [] and leaked(hook_log) == []


# ---- export --------------------------------------------------------------------------------


def test_export_path(settings: Settings, cli, tmp_path: Path) -> None:
    for text in SAYINGS[:3]:
        assert cli(["remember", text]).exit_code == 0
    record = json.loads(cli(["memories", "list", "--json"]).output)[0]
    record = {**record, "id": "4f1d2a3b-0000-5000-8000-00000000beef", "text": SAYINGS[3]}
    incoming = tmp_path / "incoming.jsonl"
    incoming.write_text(json.dumps(record) + "\n")
    assert cli(["import", str(incoming)]).exit_code == 0  # an import is redacted too
    exported = cli(["export"]).output
    assert len(exported.splitlines()) == 4 and leaked(exported) == []
    out = tmp_path / "export.jsonl"
    assert cli(["export", "-o", str(out)]).exit_code == 0
    assert leaked(out.read_text()) == []
    assert_store_clean(settings.home)


# ---- error messages ------------------------------------------------------------------------


def test_error_messages_path(settings: Settings, cli, tmp_path: Path) -> None:
    errors = [
        cli(["memories", "show", GITHUB]),
        cli(["search", "walrus", "--since", AWS]),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "text": "t", "importance": SLACK}) + "\n")
    errors.append(cli(["import", str(bad)]))
    for result in errors:
        assert result.exit_code != 0 and leaked(result.output) == [], result.output
    # The daemon's error replies, which quote bad arguments.
    from recallnest.engine import Engine
    from recallnest.server.daemon import Daemon, _answer

    daemon = Daemon(settings, Engine.open(settings))
    try:
        requests = [
            {"op": "search", "args": {"query": "x", "limit": GITHUB}},
            {"op": "memories.show", "args": {"id": AWS}},
            {"op": OPENAI, "args": {}},
        ]
        for request in requests:
            reply = _answer(daemon, json.dumps(request).encode() + b"\n")
            assert reply["ok"] is False and reply["error"] and leaked(json.dumps(reply)) == []
    finally:
        daemon.stop()


@pytest.mark.slow
def test_cli_errors_in_a_fresh_process(settings: Settings) -> None:
    """What a user sees on the terminal (and a CI log keeps)."""
    env = {k: v for k, v in os.environ.items()}
    result = subprocess.run(
        [sys.executable, "-m", "recallnest", "memories", "show", GITHUB],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert leaked(result.stdout + result.stderr) == []

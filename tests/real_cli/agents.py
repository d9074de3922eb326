"""How each real CLI is driven headless and read back, for tests/real_cli. Not a test module.

Per agent: the user's own settings written before `recallnest install` (so that uninstall has
something to restore), the trust step a user takes, the two command lines (a first prompt and
a second one in the same session), where the transcript lands, and which of its records are
our injected context on its way to the model.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from real_cli.clis import kill_group

from recallnest.core.marker import CONTEXT_MARKER

DUMMY_KEY = "sk-recallnest-test-dummy-key"
MCP_WATCH_SECONDS = 60.0
HOOK_CONTEXT = re.compile(r"<hook_context>(.*?)</hook_context>", re.S)


@dataclass
class Ctx:
    """One scenario's folders and environment (root/user is $HOME, root/proj the project)."""

    root: Path
    exe: Path
    api_url: str
    env: dict[str, str] = field(default_factory=dict)

    @property
    def user(self) -> Path:
        return self.root / "user"

    @property
    def proj(self) -> Path:
        return self.root / "proj"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- Claude Code -------------------------------------------------------------------------------


class Claude:
    agent = "claude"
    stop_when_recorded = False  # it exits on the refused request

    def seed(self, ctx: Ctx) -> None:
        _write(
            ctx.user / ".claude" / "settings.json",
            '{\n    "permissions": {"allow": ["Bash(ls:*)"]},\n    "cleanupPeriodDays": 30\n}\n',
        )

    def prepare(self, ctx: Ctx) -> None:
        """`-p` runs skip the workspace-trust dialog: nothing to approve."""

    def env(self, ctx: Ctx) -> dict[str, str]:
        return {
            "ANTHROPIC_API_KEY": DUMMY_KEY,
            "ANTHROPIC_BASE_URL": ctx.api_url,
            "CLAUDE_CODE_MAX_RETRIES": "0",
            "API_TIMEOUT_MS": "20000",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }

    def first(self, ctx: Ctx, prompt: str) -> list[str]:
        return [str(ctx.exe), "-p", prompt]

    def second(self, ctx: Ctx, session_id: str, prompt: str) -> list[str]:
        return [str(ctx.exe), "-p", "--resume", session_id, prompt]

    def transcripts(self, ctx: Ctx) -> list[Path]:
        return sorted((ctx.user / ".claude" / "projects").glob("*/*.jsonl"))

    def session_id(self, path: Path) -> str:
        return path.stem

    def hook_ran(self, records: list[dict[str, Any]]) -> bool:
        return any(
            _attachment(r).get("type") == "hook_success"
            and _attachment(r).get("hookEvent") == "SessionStart"
            for r in records
        )

    def mcp_connected(self, ctx: Ctx, records: list[dict[str, Any]]) -> bool:
        """Claude Code records the instructions of each MCP server it connected."""
        return any(
            "recallnest" in _attachment(r).get("addedNames", [])
            for r in records
            if _attachment(r).get("type") == "mcp_instructions_delta"
        )

    def injected(self, records: list[dict[str, Any]]) -> list[str]:
        """The text of every `hook_additional_context` attachment (what the model is sent)."""
        texts = []
        for record in records:
            attachment = _attachment(record)
            if attachment.get("type") == "hook_additional_context":
                content = attachment.get("content")
                parts = content if isinstance(content, list) else [content]
                texts.append("\n".join(str(part) for part in parts))
        return texts


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _is_our_mcp_server(pid: int, ancestor: int) -> bool:
    """`recallnest mcp ...`, a descendant of the CLI's process (so started by it; Codex puts
    its MCP servers in process groups of their own)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    ours = any(a.endswith(b"recallnest") for a in argv) and b"mcp" in argv
    return ours and _descends_from(pid, ancestor)


def _descends_from(pid: int, ancestor: int) -> bool:
    for _ in range(64):
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return False
        pid = next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:")), 0
        )
    return False


def _attachment(record: dict[str, Any]) -> dict[str, Any]:
    attachment = record.get("attachment") if record.get("type") == "attachment" else None
    return attachment if isinstance(attachment, dict) else {}


# --- Codex CLI ---------------------------------------------------------------------------------


class Codex:
    agent = "codex"
    stop_when_recorded = False
    provider = "rn_loopback"

    def seed(self, ctx: Ctx) -> None:
        _write(
            ctx.user / ".codex" / "config.toml",
            f'# my own Codex settings\n[projects."{ctx.proj}"]\ntrust_level = "trusted"\n',
        )

    def prepare(self, ctx: Ctx) -> None:
        """Trust our hooks the way Codex's /hooks screen does: ask the app server for their
        keys and current hashes, then have it write `hooks.state` to config.toml."""
        with AppServer(ctx) as server:
            ours = [h for h in server.hooks() if "recallnest" in str(h.get("command"))]
            assert ours, "Codex lists none of the recallnest hooks"
            value = {h["key"]: {"trusted_hash": h["currentHash"]} for h in ours}
            edit = {"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": value}
            server.call("config/batchWrite", {"edits": [edit]})
            untrusted = [h["key"] for h in server.hooks() if h.get("trustStatus") != "trusted"]
            assert not untrusted, f"still untrusted after trusting: {untrusted}"

    def env(self, ctx: Ctx) -> dict[str, str]:
        return {"OPENAI_API_KEY": DUMMY_KEY}

    def _config(self, ctx: Ctx) -> list[str]:
        provider = (
            f'{{name="loopback", base_url="{ctx.api_url}/v1", env_key="OPENAI_API_KEY", '
            'wire_api="responses", request_max_retries=0, stream_max_retries=0}'
        )
        return [
            "-c",
            f'model_provider="{self.provider}"',
            "-c",
            f"model_providers.{self.provider}={provider}",
        ]

    def first(self, ctx: Ctx, prompt: str) -> list[str]:
        return [str(ctx.exe), "exec", "--skip-git-repo-check", *self._config(ctx), prompt]

    def second(self, ctx: Ctx, session_id: str, prompt: str) -> list[str]:
        head = [str(ctx.exe), "exec", "--skip-git-repo-check", *self._config(ctx)]
        return [*head, "resume", session_id, prompt]

    def transcripts(self, ctx: Ctx) -> list[Path]:
        return sorted((ctx.user / ".codex" / "sessions").rglob("rollout-*.jsonl"))

    def session_id(self, path: Path) -> str:
        for record in read_jsonl(path):
            if record.get("type") == "session_meta":
                return str(record["payload"]["id"])
        raise AssertionError(f"no session_meta in {path}")

    def hook_ran(self, records: list[dict[str, Any]]) -> bool:
        return bool(self.injected(records))

    def mcp_connected(self, ctx: Ctx, records: list[dict[str, Any]]) -> bool:
        """`codex exec` records no MCP connection in its rollout, and `codex mcp list` only
        reads config.toml: a third run is watched for the `recallnest mcp` child it starts."""
        argv = self.first(ctx, "Which MCP tools are there? rcprobe-codex-mcp")
        proc = subprocess.Popen(
            argv,
            env=ctx.env,
            cwd=ctx.proj,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        seen = False
        deadline = time.monotonic() + MCP_WATCH_SECONDS
        try:
            while proc.poll() is None and time.monotonic() < deadline and not seen:
                seen = any(_is_our_mcp_server(pid, proc.pid) for pid in _pids())
                time.sleep(0.05)
        finally:
            kill_group(proc.pid)
            proc.wait()
            kill_group(proc.pid)
        (ctx.root / "mcp.log").write_text(f"recallnest mcp child seen: {seen}\n", "utf-8")
        return seen

    def injected(self, records: list[dict[str, Any]]) -> list[str]:
        """Developer messages whose content kind is `hooks.additional_context`."""
        texts = []
        for record in records:
            payload = record.get("payload") or {}
            if record.get("type") != "response_item" or payload.get("type") != "message":
                continue
            meta = payload.get("internal_chat_message_metadata_passthrough") or {}
            if "hooks.additional_context" in (meta.get("content_item_kinds") or []):
                assert payload.get("role") == "developer", payload
                texts.append("\n".join(str(c.get("text", "")) for c in payload["content"]))
        return texts


class AppServer:
    """`codex app-server` over stdio (JSON-RPC, one JSON object a line)."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.next_id = 0
        self.proc = subprocess.Popen(
            [str(ctx.exe), "app-server"],
            env=ctx.env,
            cwd=ctx.proj,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def __enter__(self) -> AppServer:
        self.call("initialize", {"clientInfo": {"name": "recallnest-tests", "version": "1"}})
        self._send({"method": "initialized"})
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _replies(self) -> Iterator[dict[str, Any]]:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            yield json.loads(line)

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        for reply in self._replies():
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                return reply["result"]
        raise AssertionError(f"codex app-server closed before answering {method}")

    def hooks(self) -> list[dict[str, Any]]:
        result = self.call("hooks/list", {"cwds": [str(self.ctx.proj)]})
        return [hook for entry in result["data"] for hook in entry["hooks"]]


# --- Gemini CLI --------------------------------------------------------------------------------


class Gemini:
    agent = "gemini"
    # A failed request makes Gemini withdraw the prompt from its chat file; its streaming
    # request is held open instead (refusing_api.py) and the run stopped once recorded.
    stop_when_recorded = True

    def seed(self, ctx: Ctx) -> None:
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
        }
        _write(ctx.user / ".gemini" / "settings.json", json.dumps(settings, indent=4) + "\n")
        # The user trusted the project folder (Gemini 0.61 runs settings hooks only there).
        trusted = {str(ctx.proj): "TRUST_FOLDER"}
        _write(ctx.user / ".gemini" / "trustedFolders.json", json.dumps(trusted) + "\n")

    def prepare(self, ctx: Ctx) -> None:
        """The folder was trusted in `seed`: nothing more to approve."""

    def env(self, ctx: Ctx) -> dict[str, str]:
        return {"GEMINI_API_KEY": DUMMY_KEY, "GOOGLE_GEMINI_BASE_URL": ctx.api_url}

    def first(self, ctx: Ctx, prompt: str) -> list[str]:
        return [str(ctx.exe), "-p", prompt]

    def second(self, ctx: Ctx, session_id: str, prompt: str) -> list[str]:
        return [str(ctx.exe), "-p", prompt, "--resume", "latest"]

    def transcripts(self, ctx: Ctx) -> list[Path]:
        return sorted((ctx.user / ".gemini" / "tmp").glob("*/chats/*.jsonl"))

    def session_id(self, path: Path) -> str:
        return str(read_jsonl(path)[0]["sessionId"])

    def hook_ran(self, records: list[dict[str, Any]]) -> bool:
        return bool(self.injected(records))

    def mcp_connected(self, ctx: Ctx, records: list[dict[str, Any]]) -> bool:
        """`gemini mcp list` connects to each server and says so."""
        argv = [str(ctx.exe), "mcp", "list"]
        done = subprocess.run(
            argv,
            env=ctx.env,
            cwd=ctx.proj,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        said = f"exit {done.returncode}\n{done.stdout}{done.stderr}"  # the list is on stderr
        (ctx.root / "mcp.log").write_text(said, encoding="utf-8")
        return any("recallnest" in line and "Connected" in line for line in said.splitlines())

    def injected(self, records: list[dict[str, Any]]) -> list[str]:
        """Every `<hook_context>` span of ours in a message the CLI recorded (each message
        once, by id: `$set` records repeat earlier ones)."""
        texts = []
        for message in _gemini_messages(records).values():
            for part in message.get("content") or []:
                text = part.get("text", "") if isinstance(part, dict) else ""
                texts += [span for span in HOOK_CONTEXT.findall(text) if CONTEXT_MARKER in span]
        return texts


def _gemini_messages(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    messages: dict[str, dict[str, Any]] = {}
    for record in records:
        listed = (record.get("$set") or {}).get("messages")
        for message in listed if isinstance(listed, list) else [record]:
            if isinstance(message, dict) and message.get("type") == "user" and "id" in message:
                messages.setdefault(str(message["id"]), message)
    return messages


DRIVERS: dict[str, Claude | Codex | Gemini] = {d.agent: d for d in (Claude(), Codex(), Gemini())}

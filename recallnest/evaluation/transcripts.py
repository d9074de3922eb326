"""Transcript files in each agent's own on-disk format, for end-to-end evaluations.

The end-to-end continuity eval (`eval_e2e`) plays scenarios through the real pipeline: it
needs the files Claude Code 2.1, Codex CLI 0.171 and Gemini CLI 0.61 write, at the places
they write them, with the hook context they inject. The record shapes follow the files those
CLIs wrote themselves (tests/fixtures/real-cli-2026-12, docs in AGENT-FORMATS.md): only the
model's answers are ours.

A `Session` is written in one go by `write_session`, which returns the file's path.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

CLAUDE_VERSION = "2.1.197"
CODEX_VERSION = "0.171.0"
STEP = timedelta(seconds=40)  # between two records of a session

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class Step:
    """One turn: `role` is "user" or "assistant"; `commands` are shell commands the
    assistant ran in that turn (a tool call each, with a short output)."""

    role: str
    text: str
    commands: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Session:
    agent: str
    session_id: str
    cwd: str
    started: datetime
    steps: tuple[Step, ...]
    context: str = ""  # what the session-start hook injected ("" for nothing)
    headless: bool = False  # Gemini: `-p` keeps the context inside the first prompt
    extra: dict[str, Any] = field(default_factory=dict)


def write_session(session: Session, user_home: Path) -> Path:
    """Write `session` where its agent keeps transcripts under `user_home`."""
    writer = {"claude": _claude, "codex": _codex, "gemini": _gemini}[session.agent]
    path, records = writer(session, user_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def _stamps(start: datetime) -> Iterator[str]:
    now = start
    while True:
        yield now.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        now += STEP


def _uid(session: Session, n: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session.session_id}/{n}"))


# --- Claude Code -----------------------------------------------------------------------------


def _claude(session: Session, home: Path) -> tuple[Path, list[dict[str, Any]]]:
    slug = _NON_ALNUM.sub("-", session.cwd)
    path = home / ".claude" / "projects" / slug / f"{session.session_id}.jsonl"
    clock = _stamps(session.started)
    envelope: dict[str, Any] = {"cwd": session.cwd, "sessionId": session.session_id}
    envelope |= {"version": CLAUDE_VERSION}
    envelope |= {"userType": "external", "entrypoint": "cli", "isSidechain": False}
    records: list[dict[str, Any]] = []
    parent: str | None = None

    def add(record: dict[str, Any]) -> None:
        nonlocal parent
        uid = _uid(session, len(records))
        records.append({"parentUuid": parent, **record, "uuid": uid, **envelope})
        parent = uid

    if session.context:
        attachment = {"type": "hook_additional_context", "content": [session.context]}
        attachment |= {"hookName": "SessionStart", "hookEvent": "SessionStart"}
        add({"type": "attachment", "attachment": attachment, "timestamp": next(clock)})
    for n, step in enumerate(session.steps):
        when = next(clock)
        if step.role == "user":
            add({"type": "user", "message": {"role": "user", "content": step.text}})
            records[-1]["timestamp"] = when
            continue
        content: list[dict[str, Any]] = [{"type": "text", "text": step.text}]
        calls = [f"toolu_{session.session_id[:8]}_{n}_{k}" for k in range(len(step.commands))]
        content += [
            {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}
            for call, command in zip(calls, step.commands, strict=True)
        ]
        message: dict[str, Any] = {"id": f"msg_{_uid(session, 1000 + n)[:24]}"}
        message["role"] = "assistant"
        message |= {"type": "message", "model": "claude-sonnet-4-5", "content": content}
        add({"type": "assistant", "message": message, "timestamp": when})
        for call in calls:
            result = {"type": "tool_result", "tool_use_id": call, "content": "ok"}
            add({"type": "user", "message": {"role": "user", "content": [result]}})
            records[-1]["timestamp"] = when
    return path, records


# --- Codex CLI -------------------------------------------------------------------------------


def _codex(session: Session, home: Path) -> tuple[Path, list[dict[str, Any]]]:
    day = session.started.strftime("%Y/%m/%d")
    stamp = session.started.strftime("%Y-%m-%dT%H-%M-%S")
    path = home / ".codex" / "sessions" / day / f"rollout-{stamp}-{session.session_id}.jsonl"
    clock = _stamps(session.started)
    records: list[dict[str, Any]] = []
    turn_id = _uid(session, 9999)

    def add(kind: str, payload: dict[str, Any]) -> None:
        records.append(
            {"timestamp": next(clock), "ordinal": len(records), "type": kind, "payload": payload}
        )

    meta = {"session_id": session.session_id, "id": session.session_id, "cwd": session.cwd}
    meta |= {"originator": "codex_cli_rs", "cli_version": CODEX_VERSION, "source": "cli"}
    add("session_meta", meta | {"timestamp": session.started.isoformat()})
    add("turn_context", {"turn_id": turn_id, "cwd": session.cwd, "model": "gpt-5-codex"})
    environment = f"<environment_context>\n  <cwd>{session.cwd}</cwd>\n</environment_context>"
    add("response_item", _codex_message("user", environment, "environments.environment_context"))
    if session.context:
        add(
            "response_item",
            _codex_message("developer", session.context, "hooks.additional_context"),
        )
    for n, step in enumerate(session.steps):
        if step.role == "user":
            add("response_item", _codex_message("user", step.text, "user.text"))
            item: dict[str, Any] = {"type": "UserMessage", "id": _uid(session, 2000 + n)}
            item["content"] = [{"type": "text", "text": step.text, "text_elements": []}]
            add("event_msg", {"type": "item_completed", "turn_id": turn_id, "item": item})
            continue
        for k, command in enumerate(step.commands):
            call = f"call_{n}_{k}"
            arguments = json.dumps({"cmd": command})
            add(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": arguments,
                    "call_id": call,
                },
            )
            add("response_item", {"type": "function_call_output", "call_id": call, "output": "ok"})
        message = {"type": "message", "role": "assistant"}
        add("response_item", message | {"content": [{"type": "output_text", "text": step.text}]})
    add("event_msg", {"type": "task_complete", "turn_id": turn_id, "last_agent_message": None})
    return path, records


def _codex_message(role: str, text: str, kind: str) -> dict[str, Any]:
    content_type = "output_text" if role == "assistant" else "input_text"
    return {
        "type": "message",
        "role": role,
        "content": [{"type": content_type, "text": text}],
        "internal_chat_message_metadata_passthrough": {"content_item_kinds": [kind]},
    }


# --- Gemini CLI ------------------------------------------------------------------------------


def _gemini(session: Session, home: Path) -> tuple[Path, list[dict[str, Any]]]:
    slug = Path(session.cwd).name or "root"
    project_dir = home / ".gemini" / "tmp" / slug
    project_dir.mkdir(parents=True, exist_ok=True)
    (project_dir / ".project_root").write_text(session.cwd, encoding="utf-8")
    _register_gemini_project(home, session.cwd, slug)
    minute = session.started.strftime("%Y-%m-%dT%H-%M")
    path = project_dir / "chats" / f"session-{minute}-{session.session_id[:8]}.jsonl"
    clock = _stamps(session.started)
    project_hash = hashlib.sha256(session.cwd.encode()).hexdigest()
    first = next(clock)
    records: list[dict[str, Any]] = [
        {
            "sessionId": session.session_id,
            "projectHash": project_hash,
            "startTime": first,
            "lastUpdated": first,
            "kind": "main",
        },
    ]
    hook = f"<hook_context>{html.escape(session.context, quote=False)}</hook_context>"
    pending_hook = bool(session.context)
    if pending_hook and not session.headless:
        records.append(_gemini_message(session, 0, "user", [{"text": hook}], next(clock)))
        pending_hook = False
    for n, step in enumerate(session.steps, start=1):
        when = next(clock)
        if step.role == "user":
            text = f"{hook}\n\n{step.text}" if pending_hook else step.text
            pending_hook = False
            record = _gemini_message(session, n, "user", [{"text": text}], when)
            if not session.headless:
                record["displayContent"] = [{"text": step.text}]
            records.append(record)
        else:
            record = _gemini_message(session, n, "gemini", step.text, when)
            record["toolCalls"] = [_gemini_call(n, k, c, when) for k, c in enumerate(step.commands)]
            records.append(record)
        records.append({"$set": {"lastUpdated": when}})
    return path, records


def _gemini_message(session: Session, n: int, kind: str, content: object, when: str) -> Any:
    return {"id": _uid(session, 3000 + n), "timestamp": when, "type": kind, "content": content}


def _gemini_call(n: int, k: int, command: str, when: str) -> dict[str, Any]:
    call = f"run_shell_command_{n}_{k}"
    response = {
        "functionResponse": {"id": call, "name": "run_shell_command", "response": {"output": "ok"}}
    }
    return {
        "id": call,
        "name": "run_shell_command",
        "args": {"command": command},
        "result": [response],
        "status": "success",
        "timestamp": when,
    }


def _register_gemini_project(home: Path, root: str, slug: str) -> None:
    registry = home / ".gemini" / "projects.json"
    data: dict[str, Any] = {"projects": {}}
    if registry.exists():
        data = json.loads(registry.read_text(encoding="utf-8"))
    data.setdefault("projects", {})[root] = slug
    registry.write_text(json.dumps(data, indent=2), encoding="utf-8")


def steps_of(raw: Sequence[Any]) -> tuple[Step, ...]:
    """Scenario turns: `["user", "text"]`, `["assistant", "text", ["cmd", ...]]` or a dict
    with `role`, `text` and optional `commands`."""
    steps = []
    for item in raw:
        if isinstance(item, dict):
            steps.append(Step(item["role"], item["text"], tuple(item.get("commands", ()))))
        else:
            commands = tuple(item[2]) if len(item) > 2 else ()
            steps.append(Step(str(item[0]), str(item[1]), commands))
    return tuple(steps)

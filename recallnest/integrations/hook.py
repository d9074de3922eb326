"""The hook runner: connect one agent hook invocation to the daemon, and never fail the agent.

    recallnest hook session-start --agent claude|codex|gemini   print the resume context
    recallnest hook pre-compact   --agent ...                   ask the daemon to checkpoint
    recallnest hook session-end   --agent ...                   ask the daemon to checkpoint
    recallnest hook before-agent  --agent gemini                re-inject after /compress, and
                                                                recall for the prompt
    recallnest hook user-prompt   --agent claude|codex          recall for the prompt

Contract: exit 0 always; print at most once, at the end, in the agent's format; nothing on
stderr (diagnostics go to `<home>/logs/hook.log`, size-capped, and only if the home exists);
the daemon round trip is bounded by HOOK_BUDGET_SECONDS and reading stdin by
STDIN_BUDGET_SECONDS, so a hung daemon or agent can never hold the session up.

Standard library only on this import path: a fresh process runs it at every session start,
so it must not import duckdb, numpy, click, pydantic or httpx
(tests/integrations/test_hook.py checks).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from recallnest.core.errors import ConfigError
from recallnest.core.marker import CONTEXT_MARKER
from recallnest.core.paths import home_dir, log_dir, socket_path
from recallnest.integrations.harness import Adapter, HookEvent, for_agent
from recallnest.integrations.harness.gemini import compressed_since
from recallnest.server.protocol import ProtocolError, request

EVENTS = ("session-start", "pre-compact", "session-end", "before-agent", "user-prompt")

# Budgets. Agents wait for SessionStart before the first prompt, and Claude Code gives all
# SessionEnd hooks 1.5 s together: one daemon round trip gets a quarter of a second, reading
# stdin another (agents write the payload at once and close the pipe).
HOOK_BUDGET_SECONDS = 0.25
# A prompt waits for its hooks: prompt-time recall gets less, and a daemon that is down or slow
# costs the prompt nothing but this (decision 0022).
PROMPT_BUDGET_SECONDS = 0.15
STDIN_BUDGET_SECONDS = 0.25
MAX_STDIN_BYTES = 1_000_000
MAX_LOG_BYTES = 256_000
LOG_NAME = "hook.log"
STATE_DIR_NAME = "hook-state"

# Claude Code and Codex run SessionStart again (source "compact") after compaction. Gemini CLI
# does not: its PreCompress hook leaves a marker and the next BeforeAgent hook re-injects once,
# if the compression really happened. Gemini 0.61 fires PreCompress (trigger "auto") on EVERY
# turn, before its token-threshold check, so "auto" needs evidence in the chat file and its
# checkpoint requests are rate-limited.
REINJECT_VIA_BEFORE_AGENT = frozenset({"gemini"})
CHECKPOINT_INTERVAL_SECONDS = 300.0

_RENDER_EVENTS = {
    "session-start": "SessionStart",
    "before-agent": "BeforeAgent",
    "user-prompt": "UserPromptSubmit",
}
_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9_.-]")


class HookLog:
    """One-line diagnostics appended to `<home>/logs/hook.log`; never raises, never prints."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.prefix = "hook"

    def attach(self, home: Path, prefix: str) -> None:
        self.prefix = prefix
        if home.is_dir():
            self.path = log_dir(home) / LOG_NAME

    def __call__(self, message: str, *, ours: bool = False) -> None:
        """`ours`: the message is built only from our own text, paths and OS errors, so the
        redaction pass (~30 ms of regex compilation in a fresh process) can be skipped. That
        is the "daemon not running" line logged at every session start while it is down."""
        if self.path is None:
            return
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} {self.prefix}: {message}"
        if not ours:
            from recallnest.core.redact import redact  # only when something is logged (rare)

            # Messages may quote the agent's payload or arguments: secrets are masked.
            line = redact(line)[0]
        # Diagnostics are best effort: a full disk must not fail the hook.
        with contextlib.suppress(OSError):
            _append_capped(self.path, line + "\n")


def main(argv: Sequence[str], stdin: TextIO, stdout: TextIO, env: Mapping[str, str]) -> int:
    """Run one `recallnest hook ...` invocation (argv after `hook`). Always returns 0."""
    log = HookLog()
    return run_fail_open(lambda: _run(argv, stdin, stdout, env, log), log)


def run_fail_open(action: Callable[[], object], log: Callable[[str], None]) -> int:
    """Run `action`; whatever happens, return 0 and stay silent on stdout and stderr."""
    try:
        action()
    # The ONLY sanctioned broad except in recallnest (STYLE 2.6): a memory tool must never
    # break the agent it serves (Gemini CLI reads exit 2 as "block", the others surface
    # non-zero exits and stderr as hook errors). SystemExit and KeyboardInterrupt included.
    except BaseException as exc:
        log(f"unexpected {type(exc).__name__}: {exc}")
    return 0


def _run(
    argv: Sequence[str], stdin: TextIO, stdout: TextIO, env: Mapping[str, str], log: HookLog
) -> None:
    home = home_dir(env)
    parsed = parse_argv(argv)
    log.attach(home, " ".join(parsed) if parsed else "hook")
    if parsed is None:
        log(f"ignored arguments {list(argv)!r}")
        return
    try:
        adapter = for_agent(parsed[1])
    except ConfigError as exc:
        log(str(exc))
        return
    payload = read_payload(stdin)
    if payload is None:
        log("stdin held no JSON object")
        return
    _write_once(stdout, _handle(parsed[0], adapter, payload, home, log, env))


def parse_argv(argv: Sequence[str]) -> tuple[str, str] | None:
    """`[event, "--agent", name]` in any order (or `--agent=name`) -> (event, agent)."""
    agent, rest = _pop_option(list(argv), "--agent")
    if agent is None or len(rest) != 1 or rest[0] not in EVENTS:
        return None
    return rest[0], agent


def _pop_option(args: list[str], name: str) -> tuple[str | None, list[str]]:
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1], args[:index] + args[index + 2 :]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :], args[:index] + args[index + 1 :]
    return None, args


# --- stdin -----------------------------------------------------------------------------------


def read_payload(stdin: TextIO) -> dict[str, Any] | None:
    """The hook payload: a JSON object, or None for empty, oversized or non-JSON input."""
    try:
        payload = json.loads(_read_bounded(stdin))
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def _read_bounded(stdin: TextIO) -> str:
    fd = _fileno(stdin)
    if fd is None or sys.platform == "win32":
        return stdin.read(MAX_STDIN_BYTES + 1)
    if os.isatty(fd):
        return ""  # run by hand in a terminal: there is no payload to wait for
    deadline = time.monotonic() + STDIN_BUDGET_SECONDS
    return _read_fd(fd, deadline).decode("utf-8", "replace")


def _fileno(stdin: TextIO) -> int | None:
    try:
        return stdin.fileno()
    except OSError:  # io.UnsupportedOperation: an in-memory stream
        return None


def _read_fd(fd: int, deadline: float) -> bytes:
    """Read until EOF, MAX_STDIN_BYTES, the deadline, or a complete JSON document."""
    data = b""
    while len(data) <= MAX_STDIN_BYTES:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, 65536)
        data += chunk
        if not chunk or _is_json_object(data):
            break
    return data


def _is_json_object(data: bytes) -> bool:
    """True once `data` is a whole JSON object: an agent that keeps stdin open costs nothing."""
    if not data.rstrip().endswith(b"}"):
        return False
    try:
        return isinstance(json.loads(data), dict)
    except ValueError:
        return False


# --- events ----------------------------------------------------------------------------------


def _handle(
    name: str,
    adapter: Adapter,
    payload: dict[str, Any],
    home: Path,
    log: HookLog,
    env: Mapping[str, str],
) -> str:
    event = adapter.parse(payload, fallback_cwd=_cwd(), fallback_event=name)
    if name == "session-start":
        return _resume(adapter, event, home, log, env)
    if name == "before-agent":
        return _before_agent(adapter, event, home, log, env)
    if name == "user-prompt":
        text = _recall(event, home, log)
        return adapter.render(text, _RENDER_EVENTS[name]) if text else adapter.empty
    trigger = payload.get("trigger")
    if _checkpoint_due(name, event, trigger, home):
        _checkpoint(name, event, home, log)
    _track_compress(name, event, trigger, home, log)
    return adapter.empty


def _resume(
    adapter: Adapter, event: HookEvent, home: Path, log: HookLog, env: Mapping[str, str]
) -> str:
    text = _resume_context(event, home, log, env, None)
    return adapter.render(text, _RENDER_EVENTS["session-start"]) if text else adapter.empty


def _resume_context(
    event: HookEvent, home: Path, log: HookLog, env: Mapping[str, str], source: str | None
) -> str:
    """The resume text from the daemon, or its snapshot when it is down (or "")."""
    args = {
        "cwd": event.cwd,
        "agent": event.agent,
        "source": source or event.source,
        "session_id": event.session_id,
    }
    try:
        result = request(str(socket_path(home)), "resume", args, HOOK_BUDGET_SECONDS)
    except ProtocolError as exc:
        log(f"resume: {exc}", ours=not exc.from_daemon)
        starting = not exc.from_daemon and _start_daemon(home, log, env)
        return _offline_text(home, event, str(args["source"] or ""), starting)
    return with_marker(_resume_text(result))


# --- prompt-time recall ------------------------------------------------------------------------


def _recall(event: HookEvent, home: Path, log: HookLog) -> str:
    """The notes the daemon recalls for this prompt, or "" (nothing relevant, no prompt, or
    the daemon down: a prompt never waits for a start, and the snapshot is the resume's)."""
    if not event.prompt or not event.prompt.strip():
        return ""
    args = {
        "prompt": event.prompt,
        "cwd": event.cwd,
        "session_id": event.session_id,
        "agent": event.agent,
    }
    try:
        result = request(str(socket_path(home)), "recall", args, PROMPT_BUDGET_SECONDS)
    except ProtocolError as exc:
        log(f"recall: {exc}", ours=not exc.from_daemon)
        return ""
    return with_marker(_resume_text(result))


# --- daemon down: its snapshot, and a background start -----------------------------------------

# Sources whose conversation still holds the notes sent at its start: without the daemon's
# record of what was sent, nothing is sent again.
_NOTES_STILL_THERE = frozenset({"resume", "fork"})
OFFLINE_NOTE = (
    "(recallnest: the daemon did not answer; these notes are its snapshot of {when}{then})"
)
STARTING_NOTE = "; it is being started in the background"


def _offline_text(home: Path, event: HookEvent, source: str, starting: bool) -> str:
    """The project's notes from the snapshot the daemon keeps (snapshot.py), or ""."""
    if source in _NOTES_STILL_THERE:
        return ""
    from recallnest.continuity import snapshot

    found = snapshot.read(home, event.cwd)
    if found is None or not found.text.strip():
        return ""
    note = OFFLINE_NOTE.format(when=found.written_at, then=STARTING_NOTE if starting else "")
    return with_marker(f"{found.text}\n{note}")


def _start_daemon(home: Path, log: HookLog, env: Mapping[str, str]) -> bool:
    """Start the daemon in the background (autostart.py), never waiting for it; whether a
    daemon is now starting (by this hook or another)."""
    from recallnest.integrations import autostart

    try:
        starting, outcome = autostart.start_if_down(home, env)
    except OSError as exc:
        starting, outcome = False, f"not started: {exc}"
    log(f"daemon {outcome}", ours=True)
    return starting


def _resume_text(result: object) -> str:
    if isinstance(result, dict) and isinstance(result.get("text"), str):
        return str(result["text"])
    return ""


def with_marker(text: str) -> str:
    """Guarantee the CONTEXT_MARKER line that keeps our injection out of future captures."""
    if not text.strip() or CONTEXT_MARKER in text:
        return text
    return f"{CONTEXT_MARKER}\n{text}"


def _checkpoint(name: str, event: HookEvent, home: Path, log: HookLog) -> None:
    args = {
        "session_id": event.session_id,
        "cwd": event.cwd,
        "agent": event.agent,
        "reason": name,
    }
    try:
        request(str(socket_path(home)), "checkpoint", args, HOOK_BUDGET_SECONDS)
    except ProtocolError as exc:
        log(f"checkpoint: {exc}", ours=not exc.from_daemon)


# --- Gemini: context after /compress ---------------------------------------------------------


def _track_compress(name: str, event: HookEvent, trigger: object, home: Path, log: HookLog) -> None:
    """PreCompress leaves a marker for the next BeforeAgent: `manual` (a `/compress`, always
    real), or the chat file and its size, to look for evidence of a compression after it."""
    marker = compress_marker(home, event)
    if marker is None:
        return
    try:
        if name != "pre-compact":
            marker.unlink(missing_ok=True)  # the session ended: no prompt will consume it
            _stamp(home, event).unlink(missing_ok=True)
        elif trigger == "manual" or not _pending(marker):  # keep the earliest window open
            marker.parent.mkdir(mode=0o700, exist_ok=True)
            marker.write_text(json.dumps(_compress_state(event, trigger)), "utf-8")
    except OSError as exc:
        log(f"compress marker: {exc}")


def _compress_state(event: HookEvent, trigger: object) -> dict[str, object]:
    if trigger == "manual":
        return {"trigger": "manual"}
    path = event.transcript_path or ""
    try:
        size = os.stat(path).st_size if path else 0
    except OSError:
        size = 0
    return {"trigger": "auto", "path": path, "size": size}


def _pending(marker: Path) -> dict[str, Any]:
    """The state a PreCompress left, or {} (none, unreadable, or an empty pre-0.61 marker)."""
    try:
        state = json.loads(marker.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _compressed(state: Mapping[str, Any]) -> bool:
    """A manual /compress, or an automatic one the chat file shows (harness.gemini)."""
    if state.get("trigger") == "manual":
        return True
    path, size = state.get("path"), state.get("size")
    if not isinstance(path, str) or not path or not isinstance(size, int):
        return False
    return compressed_since(path, size)


def _checkpoint_due(name: str, event: HookEvent, trigger: object, home: Path) -> bool:
    """Checkpoints are rate-limited where PreCompress fires on every turn (Gemini `auto`):
    at most one per CHECKPOINT_INTERVAL_SECONDS per session; other events always ask."""
    if name != "pre-compact" or trigger == "manual":
        return True
    if event.agent not in REINJECT_VIA_BEFORE_AGENT or not event.session_id:
        return True
    stamp = _stamp(home, event)
    try:
        if time.time() - stamp.stat().st_mtime < CHECKPOINT_INTERVAL_SECONDS:
            return False
    except OSError:
        pass  # no stamp yet
    with contextlib.suppress(OSError):
        stamp.parent.mkdir(mode=0o700, exist_ok=True)
        stamp.touch()
    return True


def _stamp(home: Path, event: HookEvent) -> Path:
    return home / STATE_DIR_NAME / f"checkpointed-{_safe_id(event.session_id or '')}"


def _before_agent(
    adapter: Adapter, event: HookEvent, home: Path, log: HookLog, env: Mapping[str, str]
) -> str:
    """Gemini's one per-prompt hook: the context again after a real compression, then what
    this prompt recalls (the daemon skips what the re-sent context already holds)."""
    texts = [_resume_after_compress(event, home, log, env), _recall(event, home, log)]
    text = "\n".join(t for t in texts if t)
    return adapter.render(text, _RENDER_EVENTS["before-agent"]) if text else adapter.empty


def _resume_after_compress(
    event: HookEvent, home: Path, log: HookLog, env: Mapping[str, str]
) -> str:
    marker = compress_marker(home, event)
    if marker is None or not marker.exists():
        return ""
    state = _pending(marker)
    marker.unlink(missing_ok=True)  # one window per PreCompress: the next one opens anew
    if not _compressed(state):
        return ""
    return _resume_context(event, home, log, env, source="compact")


def compress_marker(home: Path, event: HookEvent) -> Path | None:
    """Where a compaction of this session is remembered, for agents that need it."""
    if event.agent not in REINJECT_VIA_BEFORE_AGENT or not event.session_id:
        return None
    return home / STATE_DIR_NAME / f"compressed-{_safe_id(event.session_id)}"


def _safe_id(session_id: str) -> str:
    return _UNSAFE_FILENAME.sub("_", session_id)[:128]


# --- output ----------------------------------------------------------------------------------


def _write_once(stdout: TextIO, output: str) -> None:
    if not output:
        return
    if isinstance(stdout, io.TextIOWrapper):
        stdout.reconfigure(encoding="utf-8")  # the JSON keeps CJK unescaped; never a locale
    stdout.write(output)
    stdout.flush()


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:  # the agent's directory was deleted under it
        return ""


def _append_capped(path: Path, line: str) -> None:
    """Append `line`; past MAX_LOG_BYTES the log moves to `hook.log.1` (one generation)."""
    path.parent.mkdir(mode=0o700, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_size > MAX_LOG_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(line)

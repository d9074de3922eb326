"""Gemini CLI chat-recording parser: JSONL records (0.39+) and legacy whole JSON documents in,
Turn / ToolUse / Retraction out; plus `project_root_for`, which finds a chat's project directory.

Owns the Gemini-specific rules. A JSONL file is an upsert log (chatRecordingService): a metadata
line, message records re-appended whole under the same `id` whenever they change, `{"$set": ...}`
patches (`summary`, `messages` checkpoints) and `{"$rewindTo": id}`, which drops that message and
every later one (all of them when the id is unknown, as Gemini's own loader does). Up to 0.38 the
file was one JSON document rewritten in place: `parse_document` re-reads it whole; turn identity
by message id makes that idempotent. Pure except `project_root_for`, which reads two small files.

Subagent chats (`chats/<parent-session-id>/<session-id>.jsonl`) are attributed to the parent
session: `parent_session_id` is set, record ids are prefixed `<session-id>/`, and the subagent's
"user" messages (written by the parent agent) get role "assistant".

State (bounded): the session id, the last MAX_MESSAGES message ids in file order with a
fingerprint of the turn emitted for each (re-appends that change nothing emit nothing; rewinds
know what to retract), the last MAX_TOOLS tool call ids, and the summary's fingerprint.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from recallnest.core.errors import TranscriptError
from recallnest.core.models import Event, Retraction, Role, ToolUse, Turn
from recallnest.ingest.tail import open_regular
from recallnest.ingest.transcripts._common import (
    JsonDict,
    clean_text,
    command_text,
    decode_line,
    digest,
    file_stem,
    get_dict,
    get_list,
    get_str,
    has_marker,
    input_files,
    is_blank,
    parse_time,
    path_parts,
    strip_context,
    trim_dict,
)
from recallnest.ingest.transcripts.jsonstream import StreamError, members

STATE_VERSION = 1
MAX_MESSAGES = 500  # message ids (with the digest of what was emitted) kept in file order
MAX_TOOLS = 500  # tool call ids already emitted

_ROLES: dict[str, Role] = {"user": "user", "gemini": "assistant", "model": "assistant"}
_NOTICE_TYPES = frozenset({"info", "error", "warning"})  # UI notices, skipped by Gemini too
# User content Gemini itself ignores when listing sessions: injected context, help, commands.
_INJECTED_PREFIXES = ("<hook_context>", "<session_context>")
_SLASH_COMMAND = re.compile(r"^/[A-Za-z][\w:-]*(?:\s|$)")  # `/compress`, not `/home/x is slow`
_SHELL_TOOLS = frozenset({"run_shell_command", "shell"})
_SUMMARY_ID = "$summary"
_SNAPSHOT = "<state_snapshot>"
_GEMINI_WRAPPERS = ("hook_context",)  # Gemini's wrapper of hook context: never typed


class GeminiParser:
    """Incremental parser for one Gemini CLI JSONL chat file (main session or subagent)."""

    agent = "gemini"

    def __init__(
        self, path: str, state: Mapping[str, object] | None = None, cwd_hint: str | None = None
    ) -> None:
        self.path = path
        self.skipped = 0
        self._cwd = cwd_hint
        parts = path_parts(path)
        self._stem = file_stem(path)
        self._parent = parts[-2] if len(parts) >= 3 and parts[-3] == "chats" else None
        self._session: str | None = None
        self._messages: dict[str, str] = {}  # id -> digest of the emitted turn ("" = none)
        self._tools: dict[str, None] = {}
        self._summary: str | None = None
        if state is not None and state.get("v") == STATE_VERSION:
            self._restore(state)

    # --- Parser protocol -------------------------------------------------------------------

    def feed(self, line: bytes, offset: int) -> list[Event]:
        """Events for one complete line that starts at byte `offset` of the file."""
        if is_blank(line):
            return []
        record = decode_line(line)
        if record is not None and isinstance(record.get("$rewindTo"), str):
            return self._rewind(str(record["$rewindTo"]))
        if record is not None and isinstance(record.get("id"), str):
            return self._upsert(record, offset)
        if record is not None and isinstance(patch := record.get("$set"), dict):
            return self._patch(patch, offset)
        if record is not None and (session := get_str(record, "sessionId")):
            self._session = self._session or session
            return []
        self.skipped += 1
        return []

    def state(self) -> dict[str, object]:
        """Bounded, JSON-serialisable state that lets a new parser continue this file."""
        return {
            "v": STATE_VERSION,
            "session": self._session,
            "messages": [[key, value] for key, value in self._messages.items()],
            "tools": list(self._tools),
            "summary": self._summary,
        }

    # --- Records ---------------------------------------------------------------------------

    def _upsert(self, message: JsonDict, offset: int) -> list[Event]:
        """A message record: the whole message, new or replacing the one with the same id."""
        message_id = str(message["id"])
        kind = get_str(message, "type")
        role = _ROLES.get(kind) if kind else None
        if role is None and kind not in _NOTICE_TYPES:
            self.skipped += 1
        turn = self._turn(message, message_id, role, offset) if role else None
        new = digest(turn.role, turn.kind, turn.text) if turn else ""
        old = self._messages.get(message_id, "")
        self._messages[message_id] = new  # an existing id keeps its place, as in Gemini's Map
        trim_dict(self._messages, MAX_MESSAGES)
        events: list[Event] = []
        if turn is not None and new != old:
            events.append(turn)
        elif turn is None and old:
            events.append(self._retraction([message_id]))
        return events + self._tool_uses(message, message_id)

    def _rewind(self, target: str) -> list[Event]:
        """`$rewindTo`: withdraw `target` and every later message (all when unknown)."""
        ids = list(self._messages)
        dropped = ids[ids.index(target) :] if target in self._messages else ids
        emitted = [message_id for message_id in dropped if self._messages[message_id]]
        for message_id in dropped:
            del self._messages[message_id]
        return [self._retraction(emitted)] if emitted else []

    def _patch(self, patch: JsonDict, offset: int) -> list[Event]:
        """`$set`: metadata, a session summary or a full `messages` checkpoint."""
        self._session = self._session or get_str(patch, "sessionId")
        events: list[Event] = []
        messages = get_list(patch, "messages")
        if messages:  # an empty list is ignored by Gemini's loader too
            events.extend(self._checkpoint(messages, offset))
        summary = get_str(patch, "summary")
        if summary is not None:
            events.extend(self._summary_turn(summary, patch.get("lastUpdated"), offset))
        return events

    def _checkpoint(self, messages: list[object], offset: int) -> list[Event]:
        """`$set.messages` replaces the message list (after /compress, masking or a rollback).

        Trigger: a message we know is missing from the checkpoint.
        Why: compression drops OLD messages from the model's context, but they were said; a
        rolled-back turn drops the NEWEST ones, which were withdrawn.
        Outcome: only known messages after the last one the checkpoint keeps are retracted;
        the rest are forgotten silently. New or changed messages are emitted.
        """
        valid = [m for m in messages if isinstance(m, dict) and isinstance(m.get("id"), str)]
        new_ids = {str(m["id"]) for m in valid}
        old = list(self._messages)
        kept = [index for index, message_id in enumerate(old) if message_id in new_ids]
        tail = old[kept[-1] + 1 :] if kept else []
        withdrawn = [m for m in tail if m not in new_ids and self._messages[m]]
        previous = self._messages
        self._messages = {str(m["id"]): previous.get(str(m["id"]), "") for m in valid}
        events: list[Event] = [self._retraction(withdrawn)] if withdrawn else []
        for message in valid:
            events.extend(self._upsert(message, offset))
        return events

    # --- Helpers ---------------------------------------------------------------------------

    def _turn(self, message: JsonDict, message_id: str, role: Role, offset: int) -> Turn | None:
        text = _message_text(message, role)
        if not text:
            return None
        # /compress puts its summary into the history as a user turn holding a <state_snapshot>.
        summary = role == "user" and _SNAPSHOT in text
        return Turn(
            agent=self.agent,
            session_id=self._session_id(),
            role="assistant" if self._parent or summary else role,
            text=text,
            timestamp=parse_time(message.get("timestamp")),
            path=self.path,
            record_id=self._prefix() + message_id,
            offset=offset,
            cwd=self._cwd,
            kind="summary" if summary else "message",
            model=get_str(message, "model"),
            parent_session_id=self._parent,
        )

    def _summary_turn(self, summary: str, updated: object, offset: int) -> list[Event]:
        text = clean_text(summary)
        fingerprint = digest(text)
        if not text or has_marker(text) or fingerprint == self._summary:
            return []
        self._summary = fingerprint
        turn = Turn(
            agent=self.agent,
            session_id=self._session_id(),
            role="assistant",
            text=text,
            timestamp=parse_time(updated),
            path=self.path,
            record_id=self._prefix() + _SUMMARY_ID,
            offset=offset,
            cwd=self._cwd,
            kind="summary",
            parent_session_id=self._parent,
        )
        return [turn]

    def _tool_uses(self, message: JsonDict, message_id: str) -> list[Event]:
        """One ToolUse per tool call id, the first time the call is seen."""
        events: list[Event] = []
        for index, call in enumerate(get_list(message, "toolCalls")):
            name = get_str(call, "name") if isinstance(call, dict) else None
            if not isinstance(call, dict) or name is None:
                continue
            call_id = self._prefix() + (get_str(call, "id") or f"{message_id}#tool{index}")
            if call_id in self._tools:
                continue
            self._tools[call_id] = None
            trim_dict(self._tools, MAX_TOOLS)
            events.append(self._tool_use(call, name, call_id, message))
        return events

    def _tool_use(self, call: JsonDict, name: str, call_id: str, message: JsonDict) -> ToolUse:
        args = get_dict(call, "args")
        return ToolUse(
            agent=self.agent,
            session_id=self._session_id(),
            name=name,
            timestamp=parse_time(call.get("timestamp") or message.get("timestamp")),
            record_id=call_id,
            files=input_files(args),
            command=command_text(args.get("command")) if name in _SHELL_TOOLS else None,
            cwd=self._cwd,
        )

    def _retraction(self, message_ids: list[str]) -> Retraction:
        record_ids = tuple(self._prefix() + message_id for message_id in message_ids)
        return Retraction(self.agent, self._session_id(), record_ids)

    def _session_id(self) -> str:
        return self._parent or self._session or self._stem

    def _prefix(self) -> str:
        return f"{self._stem}/" if self._parent else ""

    def _restore(self, state: Mapping[str, object]) -> None:
        self._session = get_str(state, "session")
        self._summary = get_str(state, "summary")
        for item in get_list(state, "messages"):
            if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) for v in item):
                self._messages[item[0]] = item[1]
        self._tools = {item: None for item in get_list(state, "tools") if isinstance(item, str)}


def parse_document(path: str, data: bytes, cwd_hint: str | None = None) -> list[Event]:
    """Turns and tool uses of a legacy (up to 0.38) whole-document chat file.

    Raises TranscriptError when `data` is not one complete JSON object, e.g. a file caught
    half-written: the caller retries on the next change. Withdrawn messages cannot be
    retracted here, since no earlier version of the document is known.
    """
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise TranscriptError(f"{path}: not a complete JSON document: {exc}") from exc
    if not isinstance(document, dict):
        raise TranscriptError(f"{path}: expected a JSON object, got {type(document).__name__}")
    parser = GeminiParser(path, cwd_hint=cwd_hint)
    parser._session = get_str(document, "sessionId")
    events: list[Event] = []
    for message in get_list(document, "messages"):
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            events.extend(parser._upsert(message, 0))
    if (summary := get_str(document, "summary")) is not None:
        events.extend(parser._summary_turn(summary, document.get("lastUpdated"), 0))
    return events


def iter_document(
    path: str, chunks: Iterable[bytes], cwd_hint: str | None = None, batch: int = 2048
) -> Iterator[list[Event]]:
    """The events of `parse_document`, read incrementally from the file's bytes in `chunks`:
    lists of about `batch` messages' events, so memory holds one batch, not the document.

    A message is held back only while the session id is unknown (it comes first in files
    Gemini wrote). On a half-written or bad document, the events of every complete message
    before the damage are yielded, then TranscriptError is raised.
    """
    parser = GeminiParser(path, cwd_hint=cwd_hint)
    held: list[JsonDict] | None = []  # None once the session id is known
    top: JsonDict = {}
    events: list[Event] = []
    try:
        for name, value in members(chunks, "messages"):
            if name != "messages[]":
                top[name] = value
            if name == "sessionId" and held is not None:
                parser._session = get_str(top, "sessionId")
                events.extend(e for message in held for e in parser._upsert(message, 0))
                held = None
            elif name == "messages[]" and isinstance(value, dict) and _has_id(value):
                if held is None:
                    events.extend(parser._upsert(value, 0))
                else:
                    held.append(value)
            if len(events) >= batch:
                yield events
                events = []
    except StreamError as exc:
        yield events + _rest(parser, held or [], {})
        raise TranscriptError(f"{path}: not a complete JSON document: {exc}") from exc
    yield events + _rest(parser, held or [], top)


def _rest(parser: GeminiParser, held: list[JsonDict], top: JsonDict) -> list[Event]:
    """Messages held back for want of a session id, then the summary."""
    events = [e for message in held for e in parser._upsert(message, 0)]
    if (summary := get_str(top, "summary")) is not None:
        events.extend(parser._summary_turn(summary, top.get("lastUpdated"), 0))
    return events


def _has_id(message: JsonDict) -> bool:
    return isinstance(message.get("id"), str)


def project_root_for(path: str, home: str | None = None) -> str | None:
    """The project directory a chat file belongs to, or None when it cannot be told.

    Reads `<project-dir>/.project_root` (0.29+), else inverts `<home>/.gemini/projects.json`
    (slug, or the sha256 directory name used up to 0.28). `home` is `$GEMINI_CLI_HOME` or the
    user's home, chosen by the caller.
    """
    chats = next((p for p in Path(path).parents if p.name == "chats"), None)
    if chats is None:
        return None
    project_dir = chats.parent
    try:
        with open_regular(str(project_dir / ".project_root")) as fh:  # never a FIFO
            root = fh.read(64 * 1024).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        root = ""
    if root:
        return root
    return _registered_root(project_dir.name, home) if home else None


def _registered_root(directory: str, home: str) -> str | None:
    """The root in projects.json whose slug or sha256 is the project directory's name."""
    try:
        registry = json.loads((Path(home) / ".gemini" / "projects.json").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    projects = get_dict(registry, "projects") if isinstance(registry, dict) else {}
    for root, slug in projects.items():
        if slug == directory or hashlib.sha256(root.encode()).hexdigest() == directory:
            return root
    return None


def _parts_text(content: object) -> str:
    """Text of a PartListUnion: a string, one part, or a list of strings and parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    texts = (
        part if isinstance(part, str) else _part_text(part)
        for part in content
        if isinstance(part, str | dict)
    )
    return "".join(texts)


def _message_text(message: JsonDict, role: Role) -> str:
    """The text a message's turn keeps: "" for our context, notices and injected user content.

    A user message keeps what the person typed (`displayContent` first, else `content`) with
    every `<hook_context>` span and block of ours cut out (`strip_context`); it is dropped only
    when nothing is left or what is left is CLI plumbing (`_is_injected`). A model message
    holding our marker is dropped whole, as before.
    """
    texts = [_parts_text(message.get(key)) for key in ("displayContent", "content")]
    if role != "user":
        return "" if any(has_marker(t) for t in texts) else clean_text(_first(texts))
    text = _first([strip_context(t, _GEMINI_WRAPPERS) for t in texts])
    return "" if _is_injected(text) or has_marker(text) else text


def _first(texts: list[str]) -> str:
    return next((t for t in texts if t.strip()), "")


def _part_text(part: dict[str, object]) -> str:
    text = part.get("text")
    return text if isinstance(text, str) and part.get("thought") is not True else ""


def _is_injected(text: str) -> bool:
    stripped = text.lstrip()
    return (
        stripped.startswith(_INJECTED_PREFIXES)
        or stripped == "?"
        or bool(_SLASH_COMMAND.match(stripped))
    )

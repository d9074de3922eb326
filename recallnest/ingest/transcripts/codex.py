"""Codex CLI rollout parser: one JSONL line in, Turn / ToolUse / Retraction out.

Owns the Codex-specific rules: the `{timestamp, type, payload}` envelope and the older bare
format (a header line, then Responses-API items with no envelope), dropping developer/system
messages and injected user preambles (AGENTS.md, `<environment_context>`, ...), counting a visible
message once although Codex writes it twice, tool calls, compaction summaries and
`thread_rolled_back`. Pure: no I/O, clock or environment; it never raises on bad input.

A visible message usually appears in two or three forms: as `event_msg` (`user_message` /
`agent_message`, up to 0.170), as `response_item` (`message`) and, from 0.171, as `event_msg`
`item_completed` (`UserMessage`), in any order; the legacy format and trimmed files have only
one of them. So no form is authoritative: the FIRST form seen is kept and a following message
of the same role and the same whitespace-normalised text in a form not yet seen for it is
dropped as its twin (each message pairs once per form, so "yes" typed in two turns is still
two turns). Our own context is cut out of user text (`strip_context`) before comparing. The
record id is the response item's `id` when the kept form is an item that has one, else
`line:<offset>`: stable across re-reads because the file order is.

Subagents are separate rollouts whose `session_meta` names the parent (`session_id`,
`parent_thread_id` or `source.subagent.thread_spawn.parent_thread_id`). Their turns are
attributed to that parent session: `parent_session_id` is set, record ids are prefixed
`<child-thread-id>/`, and the child's "user" messages (written by the parent agent) get role
"assistant".

State (bounded): the thread and parent ids, cwd, model and branch, fingerprints of the last
MAX_RECENT messages per role with the forms seen (twin detection), and the record ids of the
last MAX_GROUPS user turns (rollbacks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime

from recallnest.core.models import Event, Retraction, Role, ToolUse, Turn, TurnKind
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
    json_object,
    parse_time,
    patch_files,
    strip_context,
    unique,
)

STATE_VERSION = 1
MAX_RECENT = 4  # recent messages per role that may still meet their twin in the other form
MAX_GROUPS = 32  # recent user turns kept for `thread_rolled_back`
MAX_GROUP_IDS = 256  # record ids kept per user turn

_IGNORED_KINDS = frozenset({
    "world_state", "inter_agent_communication", "inter_agent_communication_metadata",
    "token_usage_record", "retained_context", "security_risk_score", "realtime_item",
})  # fmt: skip
# Responses-API item types; in the legacy format they appear bare, without an envelope.
_ITEM_TYPES = frozenset({
    "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
    "custom_tool_call_output", "local_shell_call", "local_shell_call_output", "web_search_call",
    "image_generation_call", "tool_search_call", "tool_search_output", "compaction",
    "context_compaction", "agent_message", "ghost_snapshot",
})  # fmt: skip
# `item_completed` items that hold a visible message (0.171+), by the role of their turn.
_ITEM_ROLES: dict[str, str] = {"UserMessage": "user", "AgentMessage": "assistant"}
_FORMS = ("item", "event", "completed")  # the forms a visible message is written in
_TOOL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})
# User items starting with one of these were injected by Codex, not typed by the person.
_PREAMBLES = (
    "# AGENTS.md instructions", "<INSTRUCTIONS>", "<user_instructions>", "<environment_context>",
    "<permissions instructions>", "<developer_instructions>", "<collaboration_mode>",
    "<user_shell_command>", "<turn_aborted>", "<subagent_notification>", "<skill>",
    "<hook_context>",
)  # fmt: skip
# IDE clients prepend editor context; the person's own words follow this heading.
_REQUEST_HEADING = "## My request for Codex:"
_ENV_CWD = re.compile(r"<cwd>(.*?)</cwd>", re.S)
_UUID_TAIL = re.compile(r"([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})$")


class CodexParser:
    """Incremental parser for one Codex rollout file (sessions/ or archived_sessions/)."""

    agent = "codex"

    def __init__(
        self, path: str, state: Mapping[str, object] | None = None, cwd_hint: str | None = None
    ) -> None:
        self.path = path
        self.skipped = 0
        stem = file_stem(path)
        match = _UUID_TAIL.search(stem)
        self._file_session = match.group(1) if match else stem
        self._thread: str | None = None
        self._root: str | None = None
        self._cwd = cwd_hint
        self._model: str | None = None
        self._branch: str | None = None
        self._recent: dict[str, list[list[object]]] = {"user": [], "assistant": []}
        self._groups: list[list[str]] = []
        if state is not None and state.get("v") == STATE_VERSION:
            self._restore(state)

    # --- Parser protocol -------------------------------------------------------------------

    def feed(self, line: bytes, offset: int) -> list[Event]:
        """Events for one complete line that starts at byte `offset` of the file."""
        if is_blank(line):
            return []
        record = decode_line(line)
        if record is None:
            self.skipped += 1
            return []
        if "payload" in record:
            return self._envelope(record, offset)
        return self._bare(record, offset)

    def state(self) -> dict[str, object]:
        """Bounded, JSON-serialisable state that lets a new parser continue this file."""
        return {
            "v": STATE_VERSION,
            "thread": self._thread,
            "root": self._root,
            "cwd": self._cwd,
            "model": self._model,
            "branch": self._branch,
            "recent": {
                role: [list(item) for item in items] for role, items in self._recent.items()
            },
            "groups": [list(group) for group in self._groups],
        }

    # --- Line kinds ------------------------------------------------------------------------

    def _envelope(self, record: JsonDict, offset: int) -> list[Event]:
        kind, payload = get_str(record, "type"), record.get("payload")
        handler = _HANDLERS.get(kind) if kind else None
        if not isinstance(payload, dict) or (handler is None and kind not in _IGNORED_KINDS):
            self.skipped += 1
            return []
        if handler is None:
            return []
        return handler(self, payload, parse_time(record.get("timestamp")), offset)

    def _bare(self, record: JsonDict, offset: int) -> list[Event]:
        """The legacy format: a bare header, `record_type: state` markers and bare items."""
        kind = record.get("type")
        if record.get("record_type") == "state":
            return []
        if kind is None and get_str(record, "id"):
            return self._session_meta(record, None, offset)
        if isinstance(kind, str) and kind in _ITEM_TYPES:
            return self._response_item(record, None, offset)
        self.skipped += 1
        return []

    def _session_meta(self, payload: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        # The first session_meta is this thread; forks and resumes may repeat older ones later.
        if self._thread is None:
            self._thread = get_str(payload, "id")
            self._root = _parent_session(payload, self._thread)
            self._cwd = get_str(payload, "cwd") or self._cwd
            self._branch = get_str(get_dict(payload, "git"), "branch")
        return []

    def _turn_context(self, payload: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        self._cwd = get_str(payload, "cwd") or self._cwd
        self._model = get_str(payload, "model") or self._model
        return []

    def _response_item(self, payload: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        kind = get_str(payload, "type")
        if kind in _TOOL_ITEMS:
            return [tool] if (tool := self._tool(payload, ts, offset)) else []
        role = payload.get("role")
        # developer/system messages are instructions and injected (hook) context: never turns.
        if kind != "message" or role not in ("user", "assistant"):
            return []
        texts = [
            text
            for part in get_list(payload, "content")
            if isinstance(part, dict) and get_str(part, "type") in _TEXT_PARTS
            if isinstance(text := part.get("text"), str)
        ]
        record_id = get_str(payload, "id") or f"line:{offset}"
        return self._message(str(role), texts, "item", record_id, ts, offset)

    def _event_msg(self, payload: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        kind = payload.get("type")
        if kind == "thread_rolled_back":
            return self._rollback(payload.get("num_turns"))
        if kind == "item_completed":
            return self._item_completed(get_dict(payload, "item"), ts, offset)
        if kind not in ("user_message", "agent_message"):
            return []
        role = "user" if kind == "user_message" else "assistant"
        message = payload.get("message")
        texts = [message] if isinstance(message, str) else []
        return self._message(role, texts, "event", f"line:{offset}", ts, offset)

    def _item_completed(self, item: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        """0.171+: `item_completed` carries the typed prompt (`UserMessage`), the twin of the
        `response_item` message; other item kinds are covered by their response items."""
        role = _ITEM_ROLES.get(get_str(item, "type") or "")
        if role is None:
            return []
        texts = [
            text
            for part in get_list(item, "content")
            if isinstance(part, dict) and isinstance(text := part.get("text"), str)
        ]
        record_id = f"line:{offset}"
        return self._message(role, texts, "completed", record_id, ts, offset)

    def _compacted(self, payload: JsonDict, ts: datetime | None, offset: int) -> list[Event]:
        # replacement_history repeats items already in the file: only the summary is new.
        text = clean_text(get_str(payload, "message") or "")
        if not text or has_marker(text):
            return []
        turn = self._turn("assistant", text, f"line:{offset}", ts, offset, "summary")
        self._remember(turn.record_id)
        return [turn]

    # --- Helpers ---------------------------------------------------------------------------

    def _message(
        self,
        role: str,
        texts: list[str],
        form: str,
        record_id: str,
        ts: datetime | None,
        offset: int,
    ) -> list[Event]:
        if role == "user":  # our context cut out, the person's words kept (strip_context)
            texts = [strip_context(text) for text in texts]
            texts = [text for text in texts if not self._is_preamble(text)]
        text = "\n\n".join(cleaned for text in texts if (cleaned := clean_text(text)))
        text = _after_heading(text) if role == "user" else text
        if not text or self._is_twin(role, text, form):
            return []
        if role == "user":  # every typed message opens a turn, even one we drop below
            self._groups.append([])
            del self._groups[:-MAX_GROUPS]
        if has_marker(text):
            return []
        turn = self._turn("user" if role == "user" else "assistant", text, record_id, ts, offset)
        self._remember(turn.record_id)
        return [turn]

    def _is_preamble(self, text: str) -> bool:
        stripped = text.lstrip()
        if stripped.startswith("<environment_context>") and (found := _ENV_CWD.search(stripped)):
            self._cwd = self._cwd or clean_text(found.group(1)) or None
        return stripped.startswith(_PREAMBLES)

    def _is_twin(self, role: str, text: str, form: str) -> bool:
        """True when this message is another form's twin of a recent one (see module doc)."""
        key = digest(" ".join(text.split()))
        recent = self._recent.setdefault(role, [])
        for item in recent:
            forms = str(item[1]).split("+")
            if item[0] == key and form not in forms:
                item[1] = "+".join([*forms, form])
                return True
        recent.append([key, form])
        del recent[:-MAX_RECENT]
        return False

    def _turn(
        self,
        role: Role,
        text: str,
        record_id: str,
        ts: datetime | None,
        offset: int,
        kind: TurnKind = "message",
    ) -> Turn:
        return Turn(
            agent=self.agent,
            session_id=self._session(),
            role="assistant" if self._root else role,
            text=text,
            timestamp=ts,
            path=self.path,
            record_id=self._prefix() + record_id,
            offset=offset,
            cwd=self._cwd,
            kind=kind,
            model=self._model,
            git_branch=self._branch,
            parent_session_id=self._root,
        )

    def _tool(self, payload: JsonDict, ts: datetime | None, offset: int) -> ToolUse | None:
        kind = payload.get("type")
        name = "local_shell" if kind == "local_shell_call" else get_str(payload, "name")
        if name is None:
            return None
        args = _tool_args(payload)
        command = command_text(args.get("cmd") or args.get("command"))
        patch = "\n".join(s for s in (get_str(args, "input"), get_str(args, "patch"), command) if s)
        call_id = get_str(payload, "call_id") or get_str(payload, "id") or f"line:{offset}"
        return ToolUse(
            agent=self.agent,
            session_id=self._session(),
            name=name,
            timestamp=ts,
            record_id=self._prefix() + call_id,
            files=unique([*input_files(args), *patch_files(patch)]),
            command=None if command and "*** Begin Patch" in command else command,
            cwd=get_str(args, "workdir") or get_str(args, "working_directory") or self._cwd,
        )

    def _rollback(self, num_turns: object) -> list[Event]:
        """`thread_rolled_back`: the newest N user turns were discarded but stay on disk."""
        if not isinstance(num_turns, int) or isinstance(num_turns, bool) or num_turns <= 0:
            return []
        dropped = self._groups[-num_turns:]
        del self._groups[-num_turns:]
        ids = unique(record_id for group in dropped for record_id in group)
        return [Retraction(self.agent, self._session(), ids)] if ids else []

    def _remember(self, record_id: str) -> None:
        if self._groups:
            group = self._groups[-1]
            group.append(record_id)
            del group[:-MAX_GROUP_IDS]

    def _session(self) -> str:
        return self._root or self._thread or self._file_session

    def _prefix(self) -> str:
        return f"{self._thread}/" if self._root and self._thread else ""

    def _restore(self, state: Mapping[str, object]) -> None:
        self._thread = get_str(state, "thread")
        self._root = get_str(state, "root")
        self._cwd = get_str(state, "cwd") or self._cwd
        self._model = get_str(state, "model")
        self._branch = get_str(state, "branch")
        recent = get_dict(state, "recent")
        for role in self._recent:
            loaded = (_load_recent(item) for item in get_list(recent, role))
            self._recent[role] = [item for item in loaded if item is not None]
        self._groups = [
            [i for i in group if isinstance(i, str)]
            for group in get_list(state, "groups")
            if isinstance(group, list)
        ]


_Handler = Callable[[CodexParser, JsonDict, datetime | None, int], list[Event]]
_HANDLERS: dict[str, _Handler] = {
    "session_meta": CodexParser._session_meta,
    "turn_context": CodexParser._turn_context,
    "response_item": CodexParser._response_item,
    "event_msg": CodexParser._event_msg,
    "compacted": CodexParser._compacted,
}


def _parent_session(meta: JsonDict, thread: str | None) -> str | None:
    """The session a subagent rollout belongs to, or None for a top-level thread."""
    spawn = get_dict(get_dict(get_dict(meta, "source"), "subagent"), "thread_spawn")
    candidates = (
        get_str(meta, "session_id"),
        get_str(meta, "parent_thread_id"),
        get_str(spawn, "parent_thread_id"),
    )
    return next((c for c in candidates if c and c != thread), None)


def _tool_args(payload: JsonDict) -> JsonDict:
    """The call's arguments as an object (JSON strings decoded; raw patch text kept as input)."""
    kind = payload.get("type")
    if kind == "local_shell_call":
        return get_dict(payload, "action")
    if kind == "function_call":
        return json_object(payload.get("arguments"))
    raw = payload.get("input")
    decoded = json_object(raw)
    return decoded if decoded or not isinstance(raw, str) else {"input": raw}


def _after_heading(text: str) -> str:
    """The person's words after an IDE context block, or the text unchanged."""
    _head, found, tail = text.partition(_REQUEST_HEADING)
    return clean_text(tail) if found else text


def _load_recent(item: object) -> list[object] | None:
    """One saved [digest, forms] entry (forms joined by "+"); the older [digest, form, paired]
    shape is read too. None when it has neither shape."""
    if not isinstance(item, list) or len(item) not in (2, 3):
        return None
    key, forms = item[0], item[1]
    if len(item) == 3:
        if not isinstance(item[2], bool) or forms not in _FORMS:
            return None
        forms = "item+event" if item[2] else forms
    valid = isinstance(key, str) and isinstance(forms, str)
    return [key, forms] if valid and set(forms.split("+")) <= set(_FORMS) else None

"""Claude Code transcript parser: one JSONL record per line in, Turn / ToolUse / Retraction out.

Owns the Claude-specific rules: which `user` records are typed prompts (not tool results, meta
records, slash-command wrappers or system reminders), merging an assistant message split over
several lines that share `message.id`, compaction summaries, subagent attribution and withdrawn
records (rewind branches, `retractedMessageUuids`, `supersedesUuids`). Pure: no I/O, clock or
environment; it never raises on bad input (malformed or unknown records count in `skipped`).

Subagents: inline sidechains (`isSidechain: true`) and `<session>/subagents/agent-<id>.jsonl` files
are attributed to the parent session. Their turns carry `parent_session_id` (equal to
`session_id`: it marks "came from a subagent"), a record_id prefixed `agent-<id>/` when the
subagent id is known, and role "assistant" even for the subagent's "user" prompt, because the
parent agent wrote that prompt, not the human.

State (bounded): the text blocks of the last MAX_OPEN_MESSAGES assistant messages, to keep
merging after a restart, and the last MAX_NODES records of the parentUuid tree, to detect
rewinds and to map a withdrawn uuid to its turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import NamedTuple

from recallnest.core.models import Event, Role, ToolUse, Turn, TurnKind
from recallnest.core.redact import redact
from recallnest.ingest.transcripts._common import (
    JsonDict,
    clean_text,
    decode_line,
    file_stem,
    get_dict,
    get_list,
    get_str,
    has_marker,
    input_files,
    is_blank,
    parse_time,
    path_parts,
    retractions,
    strip_context,
    trim_dict,
    unique,
)

STATE_VERSION = 1
# Assistant messages whose text is kept for merging split lines. Split lines are consecutive in
# practice; a few extra cover interleaved inline sidechains.
MAX_OPEN_MESSAGES = 8
# Recent records kept to detect rewind branches and to map a uuid to the turn it belongs to.
MAX_NODES = 200

# Record types that carry nothing we keep. Anything else unknown counts in `skipped`.
_IGNORED_TYPES = frozenset({
    "progress", "file-history-snapshot", "queue-operation", "permission-mode", "mode",
    "custom-title", "ai-title", "agent-name", "last-prompt", "worktree-state", "pr-link",
    "frame-link", "relocated", "bridge-session", "atis-latch", "started", "result", "tag",
})  # fmt: skip
# A user text block starting with one of these is CLI plumbing, not something the person said.
_WRAPPER_PREFIXES = (
    "<command-name>", "<command-message>", "<command-args>", "<command-contents>",
    "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
    "<bash-input>", "<bash-stdout>", "<bash-stderr>", "<task-notification>",
    "<user-prompt-submit-hook>", "<system-reminder>", "[Request interrupted by user",
)  # fmt: skip
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
# Older versions wrote the compaction summary as a plain user record without isCompactSummary.
_CONTINUED = "This session is being continued from a previous conversation"
_SHELL_TOOLS = frozenset({"bash", "powershell"})


class _Origin(NamedTuple):
    """Whom a record is attributed to: the session, the parent (subagents) and the id prefix."""

    session_id: str
    parent: str | None
    prefix: str


class _Open(NamedTuple):
    """An assistant message being merged: where it starts and its text blocks so far."""

    offset: int
    timestamp: str | None
    parts: tuple[str, ...]


class _Node(NamedTuple):
    """One recent record of the parentUuid tree."""

    uuid: str
    parent: str | None
    record_id: str
    session_id: str
    prompt: bool


class ClaudeParser:
    """Incremental parser for one Claude Code transcript file (main session or subagent)."""

    agent = "claude"

    def __init__(
        self, path: str, state: Mapping[str, object] | None = None, cwd_hint: str | None = None
    ) -> None:
        self.path = path
        self.skipped = 0
        self._cwd_hint = cwd_hint
        self._file_session, self._file_agent = _file_identity(path)
        self._open: dict[str, _Open] = {}
        self._nodes: list[_Node] = []
        if state is not None and state.get("v") == STATE_VERSION:
            self._restore(state)

    # --- Parser protocol -------------------------------------------------------------------

    def feed(self, line: bytes, offset: int) -> list[Event]:
        """Events for one complete line that starts at byte `offset` of the file."""
        if is_blank(line):
            return []
        record = decode_line(line)
        kind = get_str(record, "type") if record is not None else None
        handler = _HANDLERS.get(kind) if kind else None
        if record is None or (handler is None and kind not in _IGNORED_TYPES):
            self.skipped += 1
            return []
        if handler is None:
            self._note(record, "", prompt=False)
            return []
        return handler(self, record, offset)

    def state(self) -> dict[str, object]:
        """Bounded, JSON-serialisable state that lets a new parser continue this file."""
        return {
            "v": STATE_VERSION,
            "open": [
                [key, *entry[:2], [_at_rest(part) for part in entry.parts]]
                for key, entry in self._open.items()
            ],
            "nodes": [list(node) for node in self._nodes],
        }

    # --- Record handlers -------------------------------------------------------------------

    def _user(self, record: JsonDict, offset: int) -> list[Event]:
        if not isinstance(message := record.get("message"), dict):
            return self._malformed(record)
        content = message.get("content")
        summary = record.get("isCompactSummary") is True
        text = _plain_text(content) if summary else _prompt_text(content)
        summary = summary or text.startswith(_CONTINUED)
        if record.get("isMeta") is True or not text or has_marker(text):
            self._note(record, "", prompt=False)
            return []
        origin = self._origin(record)
        record_id = origin.prefix + (get_str(record, "uuid") or f"line:{offset}")
        # A subagent's prompt comes from the parent agent, unless the record says a human typed it.
        human = get_dict(record, "origin").get("kind") == "human"
        role: Role = "assistant" if summary or (origin.parent and not human) else "user"
        kind: TurnKind = "summary" if summary else "message"
        turn = self._turn(record, origin, record_id, offset, text, role, kind)
        events: list[Event] = [] if summary else self._rewound(record)
        self._note(record, record_id, prompt=not summary)
        return [*events, turn]

    def _assistant(self, record: JsonDict, offset: int) -> list[Event]:
        if not isinstance(message := record.get("message"), dict):
            return self._malformed(record)
        origin = self._origin(record)
        key = origin.prefix + (
            get_str(message, "id") or get_str(record, "uuid") or f"line:{offset}"
        )
        self._note(record, key, prompt=False)
        # Trigger: text the CLI generated itself (API errors, "No response requested.").
        # Why: it is neither the model's answer nor the person's words. Outcome: no events.
        if get_str(message, "model") == "<synthetic>" or record.get("isApiErrorMessage") is True:
            return []
        blocks = _blocks(message.get("content"))
        events = self._withdrawn(get_list(record, "supersedesUuids"), origin)
        events.extend(self._merge(record, origin, key, offset, blocks))
        for index, block in enumerate(blocks):
            if (tool := self._tool(record, origin, block, f"{key}#tool{index}")) is not None:
                events.append(tool)
        return events

    def _summary(self, record: JsonDict, offset: int) -> list[Event]:
        text = clean_text(get_str(record, "summary") or "")
        if not text or has_marker(text):
            return []
        origin = self._origin(record)
        leaf = get_str(record, "leafUuid")
        record_id = origin.prefix + (f"summary:{leaf}" if leaf else f"line:{offset}")
        return [self._turn(record, origin, record_id, offset, text, "assistant", "summary")]

    def _system(self, record: JsonDict, offset: int) -> list[Event]:
        self._note(record, "", prompt=False)
        return self._withdrawn(get_list(record, "retractedMessageUuids"), self._origin(record))

    def _attachment(self, record: JsonDict, offset: int) -> list[Event]:
        attachment = get_dict(record, "attachment")
        text = _prompt_text(attachment.get("prompt")) if _is_queued_prompt(attachment) else ""
        if not text or has_marker(text):
            self._note(record, "", prompt=False)
            return []
        # A prompt typed while the agent worked is folded into the running turn as a
        # `queued_command` attachment and has no `user` record of its own.
        origin = self._origin(record)
        record_id = origin.prefix + (get_str(record, "uuid") or f"line:{offset}")
        self._note(record, record_id, prompt=False)
        role: Role = "assistant" if origin.parent else "user"
        return [self._turn(record, origin, record_id, offset, text, role)]

    def _malformed(self, record: JsonDict) -> list[Event]:
        """A known record type whose `message` is not an object: counted, then passed over."""
        self.skipped += 1
        self._note(record, "", prompt=False)
        return []

    # --- Helpers ---------------------------------------------------------------------------

    def _origin(self, record: JsonDict) -> _Origin:
        if self._file_agent is not None:
            parent = self._file_session
            return _Origin(parent, parent, f"agent-{self._file_agent}/")
        session = get_str(record, "sessionId") or self._file_session
        if record.get("isSidechain") is not True:
            return _Origin(session, None, "")
        agent_id = get_str(record, "agentId")
        return _Origin(session, session, f"agent-{agent_id}/" if agent_id else "")

    def _turn(
        self,
        record: JsonDict,
        origin: _Origin,
        record_id: str,
        offset: int,
        text: str,
        role: Role,
        kind: TurnKind = "message",
        model: str | None = None,
    ) -> Turn:
        return Turn(
            agent=self.agent,
            session_id=origin.session_id,
            role=role,
            text=text,
            timestamp=parse_time(record.get("timestamp")),
            path=self.path,
            record_id=record_id,
            offset=offset,
            cwd=get_str(record, "cwd") or self._cwd_hint,
            kind=kind,
            model=model,
            git_branch=get_str(record, "gitBranch"),
            parent_session_id=origin.parent,
        )

    def _merge(
        self, record: JsonDict, origin: _Origin, key: str, offset: int, blocks: list[JsonDict]
    ) -> list[Event]:
        """Add this line's text blocks to the message `key`; emit the merged text if it grew."""
        texts = [clean_text(text) for text in _texts(blocks)]
        entry = self._open.pop(key, None) or _Open(offset, get_str(record, "timestamp"), ())
        new = tuple(text for text in unique(texts) if text and _is_new(text, entry.parts))
        entry = entry._replace(parts=entry.parts + new)
        self._open[key] = entry
        trim_dict(self._open, MAX_OPEN_MESSAGES)
        text = "\n\n".join(entry.parts)
        if not new:
            return []
        if has_marker(text):  # withdraw a partial version already emitted without the marker
            earlier = len(entry.parts) > len(new)
            return retractions(self.agent, [(origin.session_id, key)]) if earlier else []
        model = get_str(get_dict(record, "message"), "model")
        first_line = {**record, "timestamp": entry.timestamp}  # a merged turn dates from its start
        return [self._turn(first_line, origin, key, entry.offset, text, "assistant", model=model)]

    def _tool(
        self, record: JsonDict, origin: _Origin, block: JsonDict, fallback_id: str
    ) -> ToolUse | None:
        name = get_str(block, "name")
        if block.get("type") != "tool_use" or name is None:
            return None
        args = get_dict(block, "input")
        block_id = get_str(block, "id")
        return ToolUse(
            agent=self.agent,
            session_id=origin.session_id,
            name=name,
            timestamp=parse_time(record.get("timestamp")),
            record_id=origin.prefix + block_id if block_id else fallback_id,
            files=input_files(args),
            command=get_str(args, "command") if name.lower() in _SHELL_TOOLS else None,
            cwd=get_str(record, "cwd") or self._cwd_hint,
        )

    def _note(self, record: JsonDict, record_id: str, *, prompt: bool) -> None:
        """Remember a record of the parentUuid tree (bounded to the last MAX_NODES)."""
        uuid = get_str(record, "uuid")
        if uuid is None:
            return
        session = self._origin(record).session_id
        self._nodes.append(_Node(uuid, get_str(record, "parentUuid"), record_id, session, prompt))
        del self._nodes[:-MAX_NODES]

    def _rewound(self, record: JsonDict) -> list[Event]:
        """Retract the branch a rewind abandoned: an earlier prompt with the same parent.

        Trigger: a typed prompt whose parentUuid already has another typed prompt as a child.
        Why: Claude Code keeps the abandoned branch in the file after a rewind (Esc Esc, edit).
        Outcome: a Retraction of every turn of the earlier prompt's subtree still in the window.
        """
        parent, uuid = get_str(record, "parentUuid"), get_str(record, "uuid")
        siblings = (n for n in self._nodes if n.prompt and n.parent == parent and n.uuid != uuid)
        earlier = next(siblings, None) if parent else None
        if earlier is None:
            return []
        dropped = {earlier.uuid}
        for node in self._nodes:
            if node.parent in dropped:
                dropped.add(node.uuid)
        gone = [node for node in self._nodes if node.uuid in dropped]
        self._nodes = [node for node in self._nodes if node.uuid not in dropped]
        return retractions(self.agent, [(n.session_id, n.record_id) for n in gone])

    def _withdrawn(self, uuids: list[object], origin: _Origin) -> list[Event]:
        """Retract records the CLI itself names as withdrawn or superseded."""
        known = {node.uuid: node for node in self._nodes}
        pairs = []
        for uuid in (u for u in uuids if isinstance(u, str) and u):
            node = known.get(uuid)
            pairs.append(
                (node.session_id, node.record_id)
                if node
                else (origin.session_id, origin.prefix + uuid)
            )
        return retractions(self.agent, pairs)

    def _restore(self, state: Mapping[str, object]) -> None:
        for item in get_list(state, "open"):
            if (loaded := _load_open(item)) is not None:
                self._open[loaded[0]] = loaded[1]
        self._nodes = [node for item in get_list(state, "nodes") if (node := _load_node(item))]


_Handler = Callable[[ClaudeParser, JsonDict, int], list[Event]]
_HANDLERS: dict[str, _Handler] = {
    "user": ClaudeParser._user,
    "assistant": ClaudeParser._assistant,
    "summary": ClaudeParser._summary,
    "system": ClaudeParser._system,
    "attachment": ClaudeParser._attachment,
}


def _file_identity(path: str) -> tuple[str, str | None]:
    """(session id, subagent id) from the path: `<session>/subagents/agent-<id>.jsonl`."""
    parts, stem = path_parts(path), file_stem(path)
    if len(parts) >= 3 and parts[-2] == "subagents" and stem.startswith("agent-"):
        return parts[-3], stem.removeprefix("agent-")
    return stem, None


@lru_cache(maxsize=4 * MAX_OPEN_MESSAGES)
def _at_rest(part: str) -> str:
    """A message part as it is saved in the parser state: redacted, like everything stored
    (the state is written to the database at every flush)."""
    return redact(part)[0]


def _is_new(text: str, parts: tuple[str, ...]) -> bool:
    """Whether a text block is not yet part of the message. Parts restored from saved state
    are redacted, so a block holding a secret is compared in that form too."""
    if text in parts:
        return False
    return not any("[REDACTED:" in p for p in parts) or _at_rest(text) not in parts


def _blocks(content: object) -> list[JsonDict]:
    """Message content as a list of blocks; a bare string is one text block."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _texts(blocks: list[JsonDict]) -> list[str]:
    return [t for b in blocks if b.get("type") == "text" and isinstance(t := b.get("text"), str)]


def _plain_text(content: object) -> str:
    """All text blocks, system reminders removed."""
    kept = (clean_text(_REMINDER.sub("", text)) for text in _texts(_blocks(content)))
    return "\n\n".join(text for text in kept if text)


def _prompt_text(content: object) -> str:
    """What the person typed: text blocks minus reminders, our context (`strip_context`),
    command wrappers and notices."""
    kept = (strip_context(_REMINDER.sub("", text)) for text in _texts(_blocks(content)))
    return "\n\n".join(text for text in kept if text and not text.startswith(_WRAPPER_PREFIXES))


def _is_queued_prompt(attachment: JsonDict) -> bool:
    """A `queued_command` attachment holding a prompt the person typed (not a peer or hook)."""
    origin_kind = get_dict(attachment, "origin").get("kind", "human")
    return (
        attachment.get("type") == "queued_command"
        and attachment.get("commandMode") == "prompt"
        and attachment.get("isMeta") is not True
        and origin_kind == "human"
    )


def _load_open(item: object) -> tuple[str, _Open] | None:
    """One `open` entry of saved state, or None when it does not have the expected shape."""
    if not isinstance(item, list) or len(item) != 4:
        return None
    key, offset, timestamp, parts = item
    if not (isinstance(key, str) and isinstance(offset, int) and isinstance(parts, list)):
        return None
    if not (timestamp is None or isinstance(timestamp, str)):
        return None
    return key, _Open(offset, timestamp, tuple(p for p in parts if isinstance(p, str)))


def _load_node(item: object) -> _Node | None:
    """One `nodes` entry of saved state, or None when it does not have the expected shape."""
    if not isinstance(item, list) or len(item) != 5:
        return None
    uuid, parent, record_id, session, prompt = item
    if not all(isinstance(value, str) for value in (uuid, record_id, session)):
        return None
    if not (parent is None or isinstance(parent, str)) or not isinstance(prompt, bool):
        return None
    return _Node(uuid, parent, record_id, session, prompt)

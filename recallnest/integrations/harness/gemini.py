"""Gemini CLI's hook dialect.

Input: the common hook fields plus `source` (startup|resume|clear) on SessionStart and
`trigger` on PreCompress. Output: JSON only. Plain stdout becomes a `systemMessage` shown to
the user, not context, and empty stdout makes Gemini parse stderr instead, so even "nothing
to add" is the JSON document `{}`.

Gemini HTML-escapes `<` and `>` in additionalContext before wrapping it in `<hook_context>`,
so render replaces them with the look-alike single-character quotes ‹ and ›.

`compressed_since` tells from the chat file whether a compression really happened: Gemini
0.61 fires PreCompress (trigger `auto`) on every turn, before it checks its token threshold.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator, Mapping
from typing import Any, BinaryIO

from recallnest.integrations.harness._base import (
    Adapter,
    HookEvent,
    envelope,
    fit_lines,
    parse_payload,
)

NAME = "gemini"
EMPTY = "{}\n"

# No cap was found in Gemini CLI's hook runner. The context lands in the first user turn, so a
# runaway text would crowd the conversation: 8,000 characters matches the other agents' scale.
MAX_CONTEXT_CHARS = 8_000

_ANGLE_BRACKETS = str.maketrans({"<": "‹", ">": "›"})
_SNAPSHOT = "<state_snapshot>"
_CHUNK = 1 << 20


def parse(
    payload: Mapping[str, Any], fallback_cwd: str = "", fallback_event: str = ""
) -> HookEvent:
    return parse_payload(NAME, payload, fallback_cwd, fallback_event)


def render(text: str, event: str = "SessionStart") -> str:
    if not text.strip():
        return EMPTY
    safe = text.translate(_ANGLE_BRACKETS)
    return envelope(fit_lines(safe, MAX_CONTEXT_CHARS, len), event)


ADAPTER: Adapter = Adapter(name=NAME, parse=parse, render=render, empty=EMPTY)


def compressed_since(path: str, offset: int) -> bool:
    """True when the JSONL chat file at `path` shows a compression written at or after byte
    `offset`.

    Why: a compression (ChatCompressionService) starts a new chat whose first message is a
    fresh <state_snapshot> summary under a NEW random id, and the recorder then writes the
    whole history as one `{"$set": {"messages": [...]}}` line. Later `$set.messages` lines
    (a failed request's rollback, tool-output masking) repeat that snapshot under its old id,
    so a snapshot counts only when its id does not occur in the file before `offset`.
    Only regular files are read; anything unreadable answers False.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO never blocks
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return False
        with os.fdopen(fd, "rb") as handle:
            handle.seek(offset)
            fresh = [i for line in handle for i in _snapshot_ids(line)]
            return any(not _occurs_before(handle, i, offset) for i in fresh)
    except (OSError, ValueError):
        return False


def _snapshot_ids(line: bytes) -> Iterator[str]:
    """Ids of the <state_snapshot> messages in a `$set.messages` line of the chat file."""
    if not line.startswith(b'{"$set"') or _SNAPSHOT.encode() not in line:
        return
    try:
        record = json.loads(line)
    except ValueError:
        return
    patch = record.get("$set") if isinstance(record, dict) else None
    messages = patch.get("messages") if isinstance(patch, dict) else None
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or not isinstance(message.get("id"), str):
            continue
        if _SNAPSHOT in json.dumps(message.get("content"), ensure_ascii=False):
            yield message["id"]


def _occurs_before(handle: BinaryIO, message_id: str, end: int) -> bool:
    """Whether `"id":"<message_id>"` occurs in the first `end` bytes. Read backwards in
    chunks: an old snapshot was re-written by the latest checkpoint, just before `end`."""
    needle = json.dumps({"id": message_id}, separators=(",", ":"))[1:-1].encode()
    stop = end
    while stop > 0:
        start = max(0, stop - _CHUNK)
        handle.seek(start)
        if needle in handle.read(min(end, stop + len(needle)) - start):
            return True
        stop = start
    return False

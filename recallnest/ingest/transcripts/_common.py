"""Helpers shared by the per-agent transcript parsers: decoding one line, reading typed fields,
timestamps, the context-marker filter and the tool-input file scan.

Pure: no I/O, clock or environment. Every reader here tolerates any JSON shape and answers None
(or an empty value) instead of raising, so parsers can skip malformed records by policy.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import PurePosixPath
from typing import TypeVar

from recallnest.core.models import CONTEXT_MARKER, Event, Retraction

JsonDict = dict[str, object]
_V = TypeVar("_V")

# Keys of tool inputs that name one file the tool reads or writes (Claude, Codex, Gemini).
FILE_KEYS: tuple[str, ...] = ("file_path", "path", "notebook_path", "absolute_path")
# Keys that name a list of files.
FILE_LIST_KEYS: tuple[str, ...] = ("paths", "file_paths")

_SHELL_WRAPPERS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})


def is_blank(line: bytes) -> bool:
    """True for an empty or whitespace-only line, which parsers pass over without counting."""
    return not line.strip()


def decode_line(line: bytes) -> JsonDict | None:
    """The JSON object on one transcript line, or None (bad UTF-8 or JSON, or not an object)."""
    try:
        value = json.loads(line.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def get_str(record: Mapping[str, object], key: str) -> str | None:
    """`record[key]` when it is a non-empty string."""
    value = record.get(key)
    return value if isinstance(value, str) and value else None


def get_dict(record: Mapping[str, object], key: str) -> JsonDict:
    """`record[key]` when it is an object, else an empty dict."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def get_list(record: Mapping[str, object], key: str) -> list[object]:
    """`record[key]` when it is an array, else an empty list."""
    value = record.get(key)
    return value if isinstance(value, list) else []


def parse_time(value: object) -> datetime | None:
    """A timezone-aware UTC datetime from an ISO-8601 string; naive times are taken as UTC."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def clean_text(text: str) -> str:
    """Strip surrounding whitespace and replace lone surrogates, which cannot be stored as UTF-8."""
    return text.encode("utf-8", "replace").decode("utf-8").strip()


def has_marker(text: str) -> bool:
    """True when text carries our own injected resume context; such turns never flow back in."""
    return CONTEXT_MARKER in text


# --- our injected context, cut out of what the person typed ----------------------------------

_WRAPPER = "hook_context"  # the tag Gemini CLI wraps every hook's additionalContext in
_FENCE_LINE = re.compile(r"[ \t]*(`{3,}|~{3,})[^\n`~]*$")
_OPEN_TAIL = re.compile(r"<([A-Za-z][\w-]*)>\s*\Z")
_CLOSE_TAG = r"[ \t]*(?:</[A-Za-z][\w-]*>|$)"  # a wrapper may close on the same line
# The label or the "no new notes" reminder; the match ends at its closing parenthesis.
_NOTE_LINE = re.compile(rf"[ \t]*\(.*?\)(?={_CLOSE_TAG})")


def strip_context(text: str, wrappers: tuple[str, ...] = ()) -> str:
    """What the person typed, with our own injected context cut out; "" when nothing is left.

    The one rule for every agent: never store our context, never lose the user's words. Cut:
    every `<hook_context>` span that holds our marker, every span of the tags in `wrappers`
    (context the agent injected, for any hook), and each bare block of ours: the marker line,
    then the label and a fenced body up to its closing fence (to the end when that fence is
    missing), or the one-line reminder, or else the marker's paragraph; a tag pair the cut
    left empty goes too. The pieces left are joined by a blank line.
    """
    pieces = [text]
    for tag in (_WRAPPER, *wrappers):
        pieces = [kept for piece in pieces for kept in _cut_tag(piece, tag, tag not in wrappers)]
    pieces = _unwrapped([kept for piece in pieces for kept in _cut_blocks(piece)])
    return "\n\n".join(cleaned for piece in pieces if (cleaned := clean_text(piece)))


def _unwrapped(pieces: list[str]) -> list[str]:
    """Drop a tag pair left empty by a cut (`<context>` | `</context>`), whatever its name."""
    for index in range(len(pieces) - 1):
        opening = _OPEN_TAIL.search(pieces[index])
        following = pieces[index + 1].lstrip()
        if opening and following.startswith(closing := f"</{opening.group(1)}>"):
            pieces[index] = pieces[index][: opening.start()]
            pieces[index + 1] = following[len(closing) :]
    return pieces


def _cut_tag(text: str, tag: str, ours_only: bool) -> list[str]:
    """`text` split around each `<tag>…</tag>` span (an unclosed one runs to the end)."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    kept: list[str] = []
    position = 0
    while (start := text.find(opening, position)) >= 0:
        end = text.find(closing, start)
        end = len(text) if end < 0 else end + len(closing)
        if not ours_only or CONTEXT_MARKER in text[start:end]:
            kept.append(text[:start])
            text, end = text[end:], 0
        position = end
    return [*kept, text]


def _cut_blocks(text: str) -> list[str]:
    """`text` split around each block that starts at our marker."""
    kept: list[str] = []
    while (start := text.find(CONTEXT_MARKER)) >= 0:
        kept.append(text[:start])
        text = text[_block_end(text, start) :]
    return [*kept, text]


def _block_end(text: str, start: int) -> int:
    """Where the block of ours that starts at `start` ends (see `strip_context`)."""
    marker_end = _line_end(text, start)
    label_end = _line_end(text, marker_end + 1)
    for line_start in (marker_end + 1, label_end + 1):  # a fence, or a label then a fence
        if line_start > len(text):
            break
        if fence := _FENCE_LINE.match(text, line_start, _line_end(text, line_start)):
            closing = re.compile(rf"^[ \t]*{re.escape(fence.group(1))}(?={_CLOSE_TAG})", re.M)
            found = closing.search(text, fence.end())
            return found.end() if found else len(text)
    note = _NOTE_LINE.match(text, marker_end + 1, label_end) if marker_end < len(text) else None
    if note:
        return note.end()
    paragraph_end = text.find("\n\n", start)  # no known shape: the marker's paragraph
    return len(text) if paragraph_end < 0 else paragraph_end


def _line_end(text: str, start: int) -> int:
    found = text.find("\n", start)
    return len(text) if found < 0 else found


def digest(*parts: str) -> str:
    """A short fingerprint of what was last emitted for an identity, kept in parser state."""
    joined = "\x1f".join(parts).encode("utf-8", "replace")
    return hashlib.blake2b(joined, digest_size=8).hexdigest()


def trim_dict(items: dict[str, _V], limit: int) -> None:
    """Drop the oldest entries (insertion order) until at most `limit` remain."""
    while len(items) > limit:
        del items[next(iter(items))]


def file_stem(path: str) -> str:
    """The file name without directories and without its transcript extension."""
    name = PurePosixPath(path.replace("\\", "/")).name
    for suffix in (".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def path_parts(path: str) -> tuple[str, ...]:
    """Path segments, accepting both / and \\ separators."""
    return PurePosixPath(path.replace("\\", "/")).parts


def input_files(args: Mapping[str, object]) -> tuple[str, ...]:
    """Files named by a tool call's input: single-path keys, path lists and multi-edit entries."""
    found = [value for key in FILE_KEYS if (value := get_str(args, key))]
    for key in FILE_LIST_KEYS:
        found.extend(item for item in get_list(args, key) if isinstance(item, str) and item)
    for edit in get_list(args, "edits"):
        if isinstance(edit, dict) and (value := get_str(edit, "file_path")):
            found.append(value)
    return unique(found)


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """Items in first-seen order without repeats."""
    return tuple(dict.fromkeys(items))


def command_text(value: object) -> str | None:
    """A shell command as one string; `["bash", "-lc", script]` is unwrapped to the script."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        return None
    argv = [str(v) for v in value]
    if len(argv) == 3 and argv[0] in _SHELL_WRAPPERS and argv[1] in ("-c", "-lc"):
        return argv[2] or None
    return shlex.join(argv)


_PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.M)


def patch_files(patch: str) -> tuple[str, ...]:
    """Files named by the headers of an apply_patch body (`*** Update File: x` and friends)."""
    return unique(_PATCH_FILE.findall(patch))


def json_object(text: object) -> JsonDict:
    """A JSON-encoded object string (tool-call arguments) decoded, or an empty dict."""
    if not isinstance(text, str):
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def retractions(agent: str, pairs: Iterable[tuple[str, str]]) -> list[Event]:
    """One Retraction per session for the non-empty record ids among (session, record_id)."""
    by_session: dict[str, list[str]] = {}
    for session, record_id in pairs:
        if record_id:
            by_session.setdefault(session, []).append(record_id)
    return [Retraction(agent, session, unique(ids)) for session, ids in by_session.items()]

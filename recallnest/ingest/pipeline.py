"""The ingestion pipeline for one transcript file: tail → parse → filter → redact → capture →
store, with the byte cursor advanced in the same transaction as the turns it produced.

Used by the daemon for live files and by `recallnest ingest` for backfill, so both paths are
one code path. Crash safety: nothing is written until the whole flush commits, and the cursor
is part of that flush, so a kill at any point neither loses nor duplicates a turn (turn ids
are deterministic; a replayed line is an upsert of the same row).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from recallnest.core import redact
from recallnest.core.errors import TranscriptError
from recallnest.core.models import CONTEXT_MARKER, Event, Retraction, ToolUse, Turn
from recallnest.core.project import project_of
from recallnest.ingest import transcripts
from recallnest.ingest.tail import (
    IN_PLACE,
    FileState,
    NotRegularFile,
    fingerprint,
    open_regular,
    read_lines,
    restart_reason,
)
from recallnest.store.types import Batch, Cursor

log = logging.getLogger(__name__)

FLUSH_BYTES = 4 * 1024 * 1024  # bytes of transcript per transaction during backfill
MAX_DOCUMENT_BYTES = 1024 * 1024 * 1024  # parsed streaming: memory is one batch (issue 18.9)
DOCUMENT_CHUNK_BYTES = 256 * 1024
RELEASE_AFTER_BYTES = 8 * 1024 * 1024  # a document this big is followed by release_memory()


@dataclass
class FileReport:
    """What one pass over a file did; summed into the backfill summary."""

    files: int = 0
    turns: int = 0
    new_turns: int = 0
    tool_uses: int = 0
    skipped_lines: int = 0
    oversized_lines: int = 0
    redactions: int = 0
    memories: int = 0
    restarts: int = 0
    special_files: int = 0  # FIFOs, sockets, devices with a transcript's name: never read
    errors: list[str] = field(default_factory=list)

    def add(self, other: FileReport) -> None:
        for name in (
            "files",
            "turns",
            "new_turns",
            "tool_uses",
            "skipped_lines",
            "oversized_lines",
            "redactions",
            "memories",
            "restarts",
            "special_files",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors.extend(other.errors)

    def as_dict(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True, slots=True)
class Source:
    """A transcript file and the agent that wrote it."""

    path: str
    agent: str
    gemini_home: str | None = None


def transcript_files(
    roots: Iterable[Path], since: float | None = None, agent: str | None = None
) -> Iterator[Source]:
    """Every transcript file under `roots` (recursively, symlinks not followed). With `agent`,
    files whose path shape names no agent but that are JSONL are read as that agent's."""
    for root in roots:
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                found = transcripts.detect(path) or _fallback(name, agent)
                if found is None or (since is not None and _mtime(path) < since):
                    continue
                if agent in (None, found):
                    yield Source(path, found)


def _fallback(name: str, agent: str | None) -> str | None:
    if agent is None or not name.endswith(".jsonl") or name.endswith(".expected.json"):
        return None
    return agent


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


Apply = Callable[[Batch], int]
StoredTurns = Callable[[str], set[str]]

COLLECT_TURNS = 5_000


class Collector:
    """Merges the flushes of several files into one transaction (a DuckDB commit costs tens of
    milliseconds: one per file made a 50-file backfill spend most of its time committing).
    Still crash-safe: every file's cursor is written in the same transaction as its turns."""

    def __init__(self, apply: Apply, max_turns: int = COLLECT_TURNS) -> None:
        self.apply = apply
        self.max_turns = max_turns
        self.pending = Batch()
        self.new_turns = 0

    def __call__(self, batch: Batch) -> int:
        for name in (
            "turns",
            "tool_uses",
            "retracted_turn_ids",
            "memories",
            "deleted_memory_ids",
            "cursors",
        ):
            getattr(self.pending, name).extend(getattr(batch, name))
        if len(self.pending.turns) >= self.max_turns:
            self.flush()
        return 0

    def flush(self) -> int:
        """Write what is pending; returns the new turns of this flush."""
        if not self.pending.cursors and not self.pending.turns:
            return 0
        batch, self.pending = self.pending, Batch()
        new = self.apply(batch)
        self.new_turns += new
        return new


def ingest_file(
    source: Source,
    known: Cursor | None,
    apply: Apply,
    prepare: Callable[[Batch], Batch] | None = None,
    flush_bytes: int = FLUSH_BYTES,
    stored: StoredTurns | None = None,
) -> FileReport:
    """Read everything new in one file, flushing every `flush_bytes` of input. `prepare` lets
    the caller add derived writes (captured memories) to each batch before it is applied;
    `stored(path)` (the ids of the file's stored turns) lets a file rewritten in place drop
    the rows its new version no longer holds."""
    if os.path.islink(source.path):
        # Policy: a symlinked transcript is never followed. The agents write plain files, and a
        # link could point anywhere outside the watched folders (directories are not followed
        # either: transcript_files walks without followlinks).
        log.info("skipped a symlink: %s", source.path)
        return FileReport()
    report = FileReport(files=1)
    try:
        if transcripts.is_document(source.path):
            _ingest_document(source, known, apply, prepare, report)
        else:
            _ingest_lines(source, known, apply, prepare, report, flush_bytes, stored)
    except FileNotFoundError:
        log.info("transcript vanished before it was read: %s", source.path)
    except NotRegularFile as exc:
        # Policy: only regular files are transcripts. A FIFO blocked ingestion forever in
        # open(); a device or a socket is never opened at all (tail.open_regular).
        report.special_files += 1
        log.warning("skipped %s: %s", source.path, exc.strerror)
    except (OSError, TranscriptError) as exc:
        report.errors.append(f"{source.path}: {exc}")
        log.warning("cannot read %s: %s", source.path, exc)
    return report


def _ingest_lines(
    source: Source,
    known: Cursor | None,
    apply: Apply,
    prepare: Callable[[Batch], Batch] | None,
    report: FileReport,
    flush_bytes: int,
    stored: StoredTurns | None = None,
) -> None:
    offset, restarted, in_place = _start(source, known)
    parser_state = None if restarted or known is None else _load_state(known.parser_state)
    report.restarts += int(restarted)
    parser = transcripts.new_parser(source.agent, source.path, parser_state, _cwd_hint(source))
    skipped_before = 0 if restarted or known is None else known.skipped
    # Rewritten in place: rows of this file the re-read does not produce again are stale (a
    # record id made of a line offset that moved, e.g. Codex `line:<offset>`).
    stale = stored(source.path) if in_place and stored else None
    while True:
        chunk = read_lines(source.path, offset, flush_bytes)
        if chunk.next_offset == offset and not restarted:
            break
        events = [e for off, line in chunk.lines for e in parser.feed(line, off)]
        report.oversized_lines += chunk.oversized
        cursor = _cursor(source, chunk.next_offset, parser.state(), skipped_before + parser.skipped)
        batch = _batch(events, cursor, report)
        if stale is not None:
            stale.difference_update(t.id for t in batch.turns)
        report.new_turns += apply(_prepared(prepare, batch))
        restarted = False
        if chunk.next_offset == offset:
            break
        offset = chunk.next_offset
    report.skipped_lines += parser.skipped
    if stale:
        log.info("%s: %d stored turns no longer in the file, removed", source.path, len(stale))
        apply(Batch(retracted_turn_ids=sorted(stale)))


def _start(source: Source, known: Cursor | None) -> tuple[int, bool, bool]:
    """Where to read from, whether that is a restart, and whether the file was rewritten in
    place. A known file that was truncated or rewritten is re-read from 0, and the log says so
    (turn ids are stable, so a re-read upserts what was already stored)."""
    if known is None:
        return 0, False, False
    state = FileState(known.byte_offset, known.inode, known.fingerprint)
    reason = restart_reason(source.path, state)
    if reason is None:
        return known.byte_offset, False, False
    log.warning("re-reading %s from the start: %s", source.path, reason)
    return 0, True, reason.endswith(IN_PLACE)


def _ingest_document(
    source: Source,
    known: Cursor | None,
    apply: Apply,
    prepare: Callable[[Batch], Batch] | None,
    report: FileReport,
) -> None:
    """Gemini ≤0.38 rewrites one JSON document on every change: re-parse it when its bytes
    changed, streaming (issue 18.9: memory holds one batch of messages, not the document).
    A half-written document stores the complete messages before the damage, then raises
    TranscriptError without moving the cursor: the whole file is read again next time."""
    size = os.stat(source.path).st_size
    if size > MAX_DOCUMENT_BYTES:
        report.oversized_lines += 1
        return
    if known and known.fingerprint == _file_digest(source.path):
        return
    hasher = hashlib.blake2b(digest_size=16)
    pending: list[Event] = []
    with open_regular(source.path) as handle:
        chunks = _hashed_chunks(handle, hasher)
        batches = transcripts.iter_document(source.agent, source.path, chunks, _cwd_hint(source))
        try:
            for events in batches:
                _apply_events(pending, None, apply, prepare, report)
                pending = events
        except TranscriptError:
            _apply_events(pending, None, apply, prepare, report)
            raise
        finally:
            if size >= RELEASE_AFTER_BYTES:
                release_memory()
        read = handle.tell()
    cursor = replace(_cursor(source, read, {}, 0), fingerprint=hasher.hexdigest())
    _apply_events(pending, cursor, apply, prepare, report)


def _apply_events(
    events: list[Event],
    cursor: Cursor | None,
    apply: Apply,
    prepare: Callable[[Batch], Batch] | None,
    report: FileReport,
) -> None:
    if events or cursor is not None:
        report.new_turns += apply(_prepared(prepare, _batch(events, cursor, report)))


def _hashed_chunks(handle: BinaryIO, hasher: Any) -> Iterator[bytes]:
    while chunk := handle.read(DOCUMENT_CHUNK_BYTES):
        hasher.update(chunk)
        yield chunk


def _file_digest(path: str) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    with open_regular(path) as handle:
        for _ in _hashed_chunks(handle, hasher):
            pass
    return hasher.hexdigest()


def release_memory() -> None:
    """Hand freed memory back to the OS after a big parse: collect cycles, then ask glibc to
    trim its heap (CPython keeps freed blocks otherwise; issue 18.9 saw 1.9 GB stay)."""
    gc.collect()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


def _prepared(prepare: Callable[[Batch], Batch] | None, batch: Batch) -> Batch:
    return prepare(batch) if prepare else batch


def _cwd_hint(source: Source) -> str | None:
    if source.agent != "gemini":
        return None
    from recallnest.ingest.transcripts.gemini import project_root_for

    return project_root_for(source.path, source.gemini_home)


def _cursor(source: Source, offset: int, state: dict[str, object], skipped: int) -> Cursor:
    try:
        inode: int | None = os.stat(source.path).st_ino
    except OSError:
        inode = None
    return Cursor(
        path=source.path,
        agent=source.agent,
        byte_offset=offset,
        inode=inode,
        fingerprint=fingerprint(source.path, offset),
        parser_state=json.dumps(state, ensure_ascii=False, separators=(",", ":")),
        skipped=skipped,
    )


def _load_state(raw: str | None) -> dict[str, object] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _batch(events: Sequence[Event], cursor: Cursor | None, report: FileReport) -> Batch:
    batch = Batch(cursors=[cursor] if cursor is not None else [])
    for event in events:
        if isinstance(event, Turn):
            turn = clean_turn(event, report)
            if turn is not None:
                batch.turns.append(turn)
        elif isinstance(event, ToolUse):
            batch.tool_uses.append(_clean_tool_use(event, report))
        elif isinstance(event, Retraction):
            batch.retracted_turn_ids.extend(
                Turn(event.agent, event.session_id, "user", "", None, "", rid, 0).id
                for rid in event.record_ids
            )
    report.turns += len(batch.turns)
    report.tool_uses += len(batch.tool_uses)
    return batch


def clean_turn(turn: Turn, report: FileReport) -> Turn | None:
    """Last line of defence before storage: drop our own injected context, redact secrets,
    attach the project."""
    if CONTEXT_MARKER in turn.text:
        return None
    text, kinds = redact.redact(turn.text)
    report.redactions += len(kinds)
    if not text.strip():
        return None
    return replace(turn, text=text, project=turn.project or project_of(turn.cwd))


def _clean_tool_use(use: ToolUse, report: FileReport) -> ToolUse:
    if use.command is None:
        return use
    command, kinds = redact.redact(use.command)
    report.redactions += len(kinds)
    return replace(use, command=command)

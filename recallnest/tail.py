"""Turn "file + byte offset" into "complete new lines + next offset". Knows no JSON and no
agents.

Rules (AGENT-FORMATS.md, tailer rules): only complete lines (a half-written line at EOF waits
for its newline); a file that shrank, changed inode or changed its first bytes was truncated
or rewritten, so it is re-read from 0; a line longer than MAX_LINE_BYTES is skipped by
scanning for its newline in chunks, never loaded whole into memory.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

MAX_LINE_BYTES = 8 * 1024 * 1024
READ_CHUNK = 1024 * 1024
FINGERPRINT_BYTES = 512


@dataclass(frozen=True, slots=True)
class FileState:
    """What we know about a file when we last read it."""

    byte_offset: int
    inode: int | None
    fingerprint: str | None


@dataclass(frozen=True, slots=True)
class Chunk:
    lines: list[tuple[int, bytes]]  # (offset of line start, line without newline)
    next_offset: int
    oversized: int  # lines skipped for exceeding MAX_LINE_BYTES
    restarted: bool  # the file was re-read from 0


def fingerprint(path: str, length: int = FINGERPRINT_BYTES) -> str | None:
    """Hash of the file's first bytes: tells a rewrite-in-place from an append."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(length)
    except OSError:
        return None
    return hashlib.blake2b(head, digest_size=12).hexdigest() if head else None


def start_offset(path: str, known: FileState | None) -> tuple[int, bool]:
    """(offset to read from, whether that is a restart from 0 of a known file)."""
    if known is None:
        return 0, False
    try:
        st = os.stat(path)
    except OSError:
        return known.byte_offset, False
    rewritten = (
        st.st_size < known.byte_offset
        or (known.inode is not None and st.st_ino != known.inode)
        or _head_changed(path, known)
    )
    return (0, True) if rewritten else (known.byte_offset, False)


def _head_changed(path: str, known: FileState) -> bool:
    if known.fingerprint is None or known.byte_offset == 0:
        return False
    length = min(FINGERPRINT_BYTES, known.byte_offset)
    return fingerprint(path, length) != known.fingerprint and fingerprint(path) != known.fingerprint


def read_lines(path: str, offset: int, max_bytes: int = 16 * READ_CHUNK) -> Chunk:
    """Complete lines from `offset`, reading about `max_bytes` (call again for more). A line
    longer than `max_bytes` is still read to its end (or skipped past MAX_LINE_BYTES), so a
    call makes progress whenever the file holds a complete line after `offset`."""
    lines: list[tuple[int, bytes]] = []
    oversized = 0
    pos = offset
    with open(path, "rb") as fh:
        fh.seek(offset)
        pending = b""
        pending_start = offset
        read = 0
        while read < max_bytes or pos == offset:
            block = fh.read(READ_CHUNK)
            if not block:
                break
            read += len(block)
            pending += block
            pending, pending_start, pos, skipped = _split(pending, pending_start, lines)
            oversized += skipped
            if len(pending) > MAX_LINE_BYTES + 1:  # + 1: a CR before the newline is not counted
                end = _skip_to_newline(fh)
                if end is None:
                    break  # the long line is not finished yet: wait, re-scan next time
                oversized += 1
                pos = pending_start = end
                pending = b""
                fh.seek(end)
    return Chunk(lines, pos, oversized, restarted=False)


def _split(data: bytes, start: int, out: list[tuple[int, bytes]]) -> tuple[bytes, int, int, int]:
    """Move complete lines of `data` into `out`; return (rest, rest_start, consumed_to,
    oversized): lines longer than MAX_LINE_BYTES are counted and left out."""
    cursor = 0
    oversized = 0
    while True:
        nl = data.find(b"\n", cursor)
        if nl < 0:
            break
        line = data[cursor:nl]
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > MAX_LINE_BYTES:
            oversized += 1
        elif line.strip():
            out.append((start + cursor, line))
        cursor = nl + 1
    return data[cursor:], start + cursor, start + cursor, oversized


def _skip_to_newline(fh: object) -> int | None:
    """Advance past the next newline; return the offset after it, or None at EOF."""
    import io

    assert isinstance(fh, io.BufferedReader)
    while True:
        block = fh.read(READ_CHUNK)
        if not block:
            return None
        nl = block.find(b"\n")
        if nl >= 0:
            return fh.tell() - len(block) + nl + 1

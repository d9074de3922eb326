"""Turn "file + byte offset" into "complete new lines + next offset". Knows no JSON and no
agents.

Rules (AGENT-FORMATS.md, tailer rules): only complete lines (a half-written line at EOF waits
for its newline); a file that shrank, changed inode or changed any sampled byte before the
cursor was truncated or rewritten, so it is re-read from 0; a line longer than MAX_LINE_BYTES
is skipped by scanning for its newline in chunks, never loaded whole into memory.

Only regular files are opened (open_regular): a FIFO, socket or device with a transcript's
name would block the reader in open() or feed it forever (decision 0015).
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from typing import BinaryIO

MAX_LINE_BYTES = 8 * 1024 * 1024
READ_CHUNK = 1024 * 1024
FINGERPRINT_BYTES = 512  # legacy fingerprints (stored before "p2:"): the file's first bytes
SAMPLE_BYTES = 8 * 1024  # prefix checksum: this much at the start and just before the cursor
MIDDLE_SAMPLES = 2  # ... and this many SAMPLE_BYTES blocks spread over the bytes between
PREFIX_TAG = "p2:"
IN_PLACE = "(rewritten in place)"  # how restart_reason ends for a prefix changed in place


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or symlink: never read as a transcript."""


def open_regular(path: str) -> BinaryIO:
    """Open `path` for reading only if it is a regular file. Checked before opening (lstat:
    a socket or device is never opened) and again on the descriptor (fstat), which is opened
    non-blocking and without following a symlink, so a FIFO swapped in between cannot block."""
    kind = _kind(os.lstat(path).st_mode)
    if kind != "regular file":
        raise NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind != "regular file":
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISLNK, "symlink"),
        (stat.S_ISDIR, "directory"),
    )
    return next((name for test, name in kinds if test(mode)), "special file")


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


def fingerprint(path: str, offset: int) -> str | None:
    """Checksum of the bytes before `offset`, stored with the cursor: tells an append from a
    rewrite in place. Cheap at any size: the first and last SAMPLE_BYTES before the cursor
    and MIDDLE_SAMPLES blocks in between (a change elsewhere in a huge prefix is missed, unless
    the file did not grow: then the modification time, kept after "@", tells)."""
    if offset <= 0:
        return None
    digest = hashlib.blake2b(str(offset).encode(), digest_size=12)
    try:
        with open_regular(path) as fh:
            for start in _sample_starts(offset):
                fh.seek(start)
                digest.update(fh.read(min(SAMPLE_BYTES, offset - start)))
            mtime = os.fstat(fh.fileno()).st_mtime_ns
    except OSError:
        return None
    return f"{PREFIX_TAG}{digest.hexdigest()}@{mtime}"


def _checksum(value: str | None) -> str | None:
    return value.split("@", 1)[0] if value else None


def _mtime(value: str) -> int | None:
    _, _, mtime = value.partition("@")
    return int(mtime) if mtime.isdigit() else None


def _sample_starts(offset: int) -> list[int]:
    last = max(0, offset - SAMPLE_BYTES)
    middle = [last * k // (MIDDLE_SAMPLES + 1) for k in range(1, MIDDLE_SAMPLES + 1)]
    return sorted({0, *middle, last})


def _legacy_fingerprint(path: str, length: int = FINGERPRINT_BYTES) -> str | None:
    try:
        with open_regular(path) as fh:
            head = fh.read(length)
    except OSError:
        return None
    return hashlib.blake2b(head, digest_size=12).hexdigest() if head else None


def restart_reason(path: str, known: FileState) -> str | None:
    """Why a known file must be re-read from 0 (it was truncated or rewritten), or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if st.st_size < known.byte_offset:
        return f"it shrank from {known.byte_offset} to {st.st_size} bytes"
    if known.inode is not None and st.st_ino != known.inode:
        return "it was replaced (new inode)"
    if prefix_changed(path, known):
        return f"its first {known.byte_offset} bytes changed {IN_PLACE}"
    if st.st_size == known.byte_offset and _touched(st.st_mtime_ns, known):
        return f"it was modified without growing {IN_PLACE}"
    return None


def _touched(mtime: int, known: FileState) -> bool:
    """Whether a file that did not grow was written since the cursor (an append always grows:
    a same-size write is a rewrite, perhaps where the checksum does not sample)."""
    stored = _mtime(known.fingerprint) if known.fingerprint else None
    return stored is not None and mtime != stored


def prefix_changed(path: str, known: FileState) -> bool:
    """Whether the bytes before the stored cursor are no longer the ones that were read."""
    if known.fingerprint is None or known.byte_offset == 0:
        return False
    if known.fingerprint.startswith(PREFIX_TAG):
        return _checksum(fingerprint(path, known.byte_offset)) != _checksum(known.fingerprint)
    length = min(FINGERPRINT_BYTES, known.byte_offset)  # a cursor stored by an older version
    return (
        _legacy_fingerprint(path, length) != known.fingerprint
        and _legacy_fingerprint(path) != known.fingerprint
    )


def read_lines(path: str, offset: int, max_bytes: int = 16 * READ_CHUNK) -> Chunk:
    """Complete lines from `offset`, reading about `max_bytes` (call again for more). A line
    longer than `max_bytes` is still read to its end (or skipped past MAX_LINE_BYTES), so a
    call makes progress whenever the file holds a complete line after `offset`."""
    lines: list[tuple[int, bytes]] = []
    oversized = 0
    pos = offset
    with open_regular(path) as fh:
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

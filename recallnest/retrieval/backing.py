"""The index's large read-mostly arrays in private file-backed mappings (decision 0035,
issue 22), so a quiet daemon can hand their pages to the page cache.

The int8 vector matrix and the flat postings' arrays are most of what the index holds (111 of
139 MiB at 100k memories + 100k turns). Held as anonymous memory they count in the daemon's
RSS all day, and with no swap they cannot be reclaimed. Held in a shared mapping of a file,
`release` drops their pages from the process (msync, then madvise MADV_DONTNEED): the data
stays in the page cache, where the kernel may reclaim it once written back, and the next
search faults the pages it reads back in without reading the disk.

Each array is an unnamed file in the home (O_TMPFILE, or a 0600 file unlinked at once): it is
rebuilt by every index load and can never be read by a later start or another user. Its blocks
are reserved with posix_fallocate before it is mapped, so a full disk fails here, with a log
line and an anonymous array instead, not as a SIGBUS on a later write. A platform without
madvise, or a home where the file cannot be made or mapped, gets anonymous arrays (logged
once). Growth maps the same file longer: no copy of the rows into anonymous memory.
"""

from __future__ import annotations

import errno
import logging
import mmap
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

_DONTNEED: int | None = getattr(mmap, "MADV_DONTNEED", None)
# Arrays smaller than this stay anonymous: a file and two descriptors for a few KiB (tests,
# a new home) save nothing.
MIN_FILE_BYTES = 1 << 20
# A file is made only if its file system keeps this much free beside it: the store's own
# writes come first (at 1M turns the files take ~640 MiB).
FREE_MARGIN_BYTES = 1 << 30


class _Mapped:
    """One array's file and its current mapping."""

    __slots__ = ("fd", "map", "nbytes")

    def __init__(self, fd: int, nbytes: int) -> None:
        self.fd = fd
        self.nbytes = nbytes
        self.map = mmap.mmap(fd, nbytes, flags=mmap.MAP_SHARED)

    def view(self, shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray:
        count = int(np.prod(shape)) if shape else 1
        out: np.ndarray = np.frombuffer(self.map, dtype=dtype, count=count).reshape(shape)
        return out


class FileBacking:
    """Named file-backed arrays under `directory`. Thread-safe; the index calls it under its
    own lock except for `release`, which only reads the current mappings."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._files: dict[str, _Mapped] = {}
        self.disabled: str | None = None if _DONTNEED is not None else "no madvise here"
        if self.disabled:
            log.info("index arrays stay in anonymous memory: %s", self.disabled)

    # ---- arrays ----------------------------------------------------------------------------

    def zeros(self, name: str, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """A zeroed array of `shape`, in a new file for `name` (the old one, if any, is
        dropped when its views die); anonymous when it is small or files cannot be used."""
        kind = np.dtype(dtype)
        nbytes = int(np.prod(shape)) * kind.itemsize
        mapped = self._new(name, nbytes)
        if mapped is None:
            return np.zeros(shape, dtype=kind)
        return mapped.view(shape, kind)

    def adopt(self, name: str, array: np.ndarray) -> np.ndarray:
        """`array`'s contents in a file for `name` (one copy); `array` itself if it stays
        anonymous."""
        mapped = self._new(name, array.nbytes)
        if mapped is None:
            return array
        out = mapped.view(array.shape, array.dtype)
        out[...] = array
        return out

    def grown(self, name: str, array: np.ndarray, rows: int) -> np.ndarray:
        """`array` with `rows` rows, the new ones zero. A file-backed array grows its file and
        is mapped again (its rows are not copied); an anonymous one is copied, and moves to a
        file once it is large enough."""
        shape = (rows, *array.shape[1:])
        nbytes = int(np.prod(shape)) * array.dtype.itemsize
        with self._lock:
            mapped = self._files.get(name)
            if mapped is not None and _is_view_of(array, mapped):
                try:
                    os.posix_fallocate(mapped.fd, mapped.nbytes, nbytes - mapped.nbytes)
                    longer = _Mapped(os.dup(mapped.fd), nbytes)
                except (OSError, ValueError) as exc:
                    self._drop(name)
                    log.warning("index array %s moves to anonymous memory: %s", name, exc)
                else:
                    self._drop(name)
                    self._files[name] = longer
                    return longer.view(shape, array.dtype)
        out = self.zeros(name, shape, array.dtype)
        out[: len(array)] = array
        return out

    def holds(self, array: np.ndarray) -> bool:
        """Is `array` a view of one of this backing's files."""
        with self._lock:
            return any(_is_view_of(array, m) for m in self._files.values())

    def mapped_bytes(self) -> int:
        with self._lock:
            return sum(m.nbytes for m in self._files.values())

    # ---- giving pages back -----------------------------------------------------------------

    def release(self, flush: bool = True) -> int:
        """Drop every page of the mappings from this process (they stay in the page cache
        until the kernel needs the memory), after writing the dirty ones to their files with
        `flush` (then they can be reclaimed at once; without it the kernel writes them back
        within its dirty expiry, ~30 s). Returns the bytes mapped. A view read meanwhile
        faults its pages back in: a shared mapping of a file reads what was written, so
        nothing is lost either way."""
        with self._lock:
            maps = [m.map for m in self._files.values()]
        if _DONTNEED is None:
            return 0
        for found in maps:
            try:
                if flush:
                    found.flush()
                found.madvise(_DONTNEED)
            except (OSError, ValueError) as exc:  # closed meanwhile, or refused
                log.debug("could not release an index mapping: %s", exc)
        return sum(len(m) for m in maps)

    def close(self) -> None:
        """Forget every file (each closes when its last view dies)."""
        with self._lock:
            for name in list(self._files):
                self._drop(name)

    # ---- files -----------------------------------------------------------------------------

    def _new(self, name: str, nbytes: int) -> _Mapped | None:
        with self._lock:
            self._drop(name)
            if self.disabled or nbytes < max(MIN_FILE_BYTES, 1):
                return None
            fd = -1
            try:
                _check_room(self.directory, nbytes)
                fd = _unnamed_file(self.directory)
                os.posix_fallocate(fd, 0, nbytes)  # a full disk fails here, not as a SIGBUS
                mapped = _Mapped(fd, nbytes)
            except (OSError, ValueError) as exc:
                if fd >= 0:
                    os.close(fd)
                self.disabled = f"{type(exc).__name__}: {exc}"
                log.warning(
                    "index arrays stay in anonymous memory: no file-backed mapping in %s (%s)",
                    self.directory,
                    self.disabled,
                )
                return None
            self._files[name] = mapped
            return mapped

    def _drop(self, name: str) -> None:
        """Close the file of `name`; its mapping lives on while a view of it does."""
        old = self._files.pop(name, None)
        if old is not None:
            os.close(old.fd)


def _check_room(directory: Path, nbytes: int) -> None:
    """OSError(ENOSPC) unless `directory`'s file system has room for `nbytes` and the margin."""
    found = os.statvfs(directory)
    free = found.f_bavail * found.f_frsize
    if free < nbytes + FREE_MARGIN_BYTES:
        raise OSError(
            errno.ENOSPC,
            f"{free >> 20} MiB free, {(nbytes + FREE_MARGIN_BYTES) >> 20} MiB wanted"
            f" (the file and a margin of {FREE_MARGIN_BYTES >> 20} MiB for the store)",
        )


def _unnamed_file(directory: Path) -> int:
    """A read-write file in `directory` that has no name (owner-only if it ever had one)."""
    tmpfile = getattr(os, "O_TMPFILE", 0)
    if tmpfile:
        try:
            return os.open(directory, tmpfile | os.O_RDWR, 0o600)
        except OSError:
            pass  # a file system without O_TMPFILE: a named file, unlinked at once
    fd, path = _mkstemp(directory)
    os.unlink(path)
    return fd


def _mkstemp(directory: Path) -> tuple[int, str]:
    import tempfile

    return tempfile.mkstemp(prefix=".index-", dir=directory)


def _is_view_of(array: np.ndarray, mapped: _Mapped) -> bool:
    base: Any = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):  # numpy 2 keeps the buffer it was given as a memoryview
        base = base.obj
    return base is mapped.map

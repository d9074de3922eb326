"""Give freed heap memory back to the operating system after a large pass (issue 22).

The index load and a maintenance pass allocate and free hundreds of MiB of short-lived
objects (DuckDB result columns turned into Python strings and bytes, a 6.5M-posting sort).
glibc keeps freed chunks in its arenas for reuse, so the daemon's RSS stayed at its peak
(bench/bench_footprint.py: 1,318 MiB RSS for 448 MiB of live Python heap after an index load
at 100k memories + 100k turns). `malloc_trim(0)` returns every free page of every arena.
Standard library only; a no-op where the C library is not glibc (macOS, musl).

Memo caches that only speed up a burst of work (capture comparing a flush with every pending
memory, a consolidation pass comparing every pair) register with `droppable`; `drop_caches`
empties them when the burst is over, so an idle daemon does not keep them (decision 0027: at
100k memories they held ~60 MiB after a maintenance pass, and pinned more than that in
CPython's 1 MiB object arenas).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_caches: list[Callable[[], object]] = []
_looked = False
_lock = threading.Lock()


def _malloc_trim() -> Callable[[int], int] | None:
    global _trim, _looked
    with _lock:
        if not _looked:
            _looked = True
            if sys.platform.startswith("linux"):
                import ctypes  # here: core.models registers a cache, and the hook imports it

                try:
                    # The process's own symbols (libc is loaded): ctypes.util.find_library
                    # would start ldconfig or a compiler to look for it.
                    func = ctypes.CDLL(None).malloc_trim  # AttributeError if not glibc
                except (OSError, AttributeError):
                    func = None
                if func is not None:
                    func.argtypes = [ctypes.c_size_t]
                    func.restype = ctypes.c_int
                    _trim = func
        return _trim


def release(collect: bool = False) -> bool:
    """Return free heap pages to the OS (after a garbage collection with `collect`). True if
    glibc released any; False where malloc_trim does not exist."""
    if collect:
        gc.collect()
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False


def droppable(clear: Callable[[], object]) -> Callable[[], object]:
    """Register `clear` (a memo cache's clear, e.g. an lru_cache's `cache_clear`) for
    `drop_caches`. Only for caches of pure functions: dropping one costs time, never a
    result. Returns `clear`."""
    with _lock:
        _caches.append(clear)
    return clear


def drop_caches() -> int:
    """Empty every registered memo cache; returns how many."""
    with _lock:
        caches = list(_caches)
    for clear in caches:
        clear()
    return len(caches)


# The daemon's allocator settings (decision 0027), set by `reexec_for_daemon` before the
# interpreter starts. CPython's objects on glibc's malloc instead of its own 1 MiB arenas, which
# one long-lived object keeps from being freed (a maintenance pass at 100k memories left 156
# arenas for 28 MiB of live objects), where malloc_trim gives back any free page; and two
# glibc arenas instead of up to 8 per core (each thread that allocates may get its own, and
# its freed memory stays in it). Measured apart and together: -35, -40, -70 MiB steady.
DAEMON_ALLOCATOR = {"PYTHONMALLOC": "malloc", "MALLOC_ARENA_MAX": "2"}


def reexec_for_daemon(argv: list[str]) -> None:
    """Start this process again (same pid, same arguments) with DAEMON_ALLOCATOR in its
    environment, unless the user set those variables or this is not Linux with glibc. Called
    by the daemon's entry point before it opens anything; returns only when it does nothing
    (or the exec failed, which leaves CPython's allocator in place)."""
    if any(name in os.environ for name in DAEMON_ALLOCATOR):
        return
    if _malloc_trim() is None or not argv:
        return
    env = {**os.environ, **DAEMON_ALLOCATOR}
    try:
        os.execve(sys.executable, [sys.executable, *argv[1:]], env)
    except OSError:
        return

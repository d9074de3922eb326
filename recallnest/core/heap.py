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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_trim: Callable[[int], int] | None = None
_caches: list[Callable[[], object]] = []
_looked = False
arena_limit: int | None = None  # set by limit_arenas, for the daemon's start line
_lock = threading.Lock()


def _glibc(name: str) -> Any | None:
    """A function of the process's C library on Linux, None where it has none of that name
    (not glibc). The process's own symbols (libc is loaded): ctypes.util.find_library would
    start ldconfig or a compiler to look for it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: core.models registers a cache, and the hook imports it

    try:
        return getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):
        return None


def _malloc_trim() -> Callable[[int], int] | None:
    global _trim, _looked
    with _lock:
        if not _looked:
            _looked = True
            func = _glibc("malloc_trim")
            if func is not None:
                import ctypes

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


# glibc's mallopt parameter for the most arenas malloc may create (malloc.h).
M_ARENA_MAX = -8
# The daemon's arenas (decision 0027): glibc gives each thread that allocates an arena of its
# own, up to 8 per core, and memory freed in one stays there. Two measured -35 to -40 MiB
# steady at 100k memories + 100k turns. (CPython's objects on glibc's malloc instead of its own
# arenas, PYTHONMALLOC=malloc, saved ~50 MiB more but put the session-start hook after a
# quiet spell at p95 176-209 ms against 78 before: not taken.)
DAEMON_ARENAS = 2


def limit_arenas(count: int = DAEMON_ARENAS) -> bool:
    """Let glibc's malloc create at most `count` arenas from now on, unless the user set
    MALLOC_ARENA_MAX. Called by the daemon's entry point before it starts any thread (an
    arena already made stays). False where the C library is not glibc, or it refused."""
    if "MALLOC_ARENA_MAX" in os.environ or _malloc_trim() is None:
        return False  # a user's choice, or not glibc
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    import ctypes

    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    if not mallopt(M_ARENA_MAX, count):
        return False
    global arena_limit
    arena_limit = count
    return True

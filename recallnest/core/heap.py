"""Give freed heap memory back to the operating system after a large pass (issue 22).

The index load and a maintenance pass allocate and free hundreds of MiB of short-lived
objects (DuckDB result columns turned into Python strings and bytes, a 6.5M-posting sort).
glibc keeps freed chunks in its arenas for reuse, so the daemon's RSS stayed at its peak
(bench/bench_footprint.py: 1,318 MiB RSS for 448 MiB of live Python heap after an index load
at 100k memories + 100k turns). `malloc_trim(0)` returns every free page of every arena.
Standard library only; a no-op where the C library is not glibc (macOS, musl).
"""

from __future__ import annotations

import ctypes
import gc
import sys
import threading
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_looked = False
_lock = threading.Lock()


def _malloc_trim() -> Callable[[int], int] | None:
    global _trim, _looked
    with _lock:
        if not _looked:
            _looked = True
            if sys.platform.startswith("linux"):
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

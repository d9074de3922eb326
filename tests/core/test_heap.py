"""Returning freed heap memory to the OS after a large pass (issue 22)."""

from __future__ import annotations

import platform

import pytest

from recallnest.core import heap

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_release_returns_freed_pages_on_glibc() -> None:
    garbage = [bytes(2048) for _ in range(40_000)]  # ~80 MiB in malloc'd chunks, not pymalloc
    del garbage
    assert heap.release(collect=True) is True


@pytest.mark.skipif(GLIBC, reason="on glibc malloc_trim exists")
def test_release_is_a_no_op_without_glibc() -> None:
    assert heap.release() is False

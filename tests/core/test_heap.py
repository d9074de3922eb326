"""Returning freed heap memory to the OS after a large pass (issue 22)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

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


def test_drop_caches_empties_every_registered_memo() -> None:
    memo: dict[str, int] = {"a": 1}
    heap.droppable(memo.clear)
    assert heap.drop_caches() >= 1
    assert memo == {}


def test_the_burst_caches_are_registered() -> None:
    """What a capture burst or a maintenance pass fills (keyword sets, canonical forms, stems,
    turn ids) is empty after a drop, and still answers the same afterwards."""
    from recallnest.capture.admission import keyword_tokens, stated_attribute
    from recallnest.core import aliases, text
    from recallnest.core.models import turn_id

    sample = "The production region is eu-central-1 now"
    before = (keyword_tokens(sample), stated_attribute(sample), text.tokenize(sample))
    ident = turn_id("claude", "s1", "r1")
    assert keyword_tokens.cache_info().currsize and turn_id.cache_info().currsize
    assert aliases._CANONICAL_CACHE and text._WORDS
    heap.drop_caches()
    assert keyword_tokens.cache_info().currsize == 0
    assert stated_attribute.cache_info().currsize == 0
    assert turn_id.cache_info().currsize == 0
    assert not aliases._CANONICAL_CACHE and not text._WORDS
    assert (keyword_tokens(sample), stated_attribute(sample), text.tokenize(sample)) == before
    assert turn_id("claude", "s1", "r1") == ident


def test_the_daemon_keeps_the_arena_limit_the_user_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert not heap.limit_arenas()


@pytest.mark.slow
@pytest.mark.skipif(heap._malloc_trim() is None, reason="not glibc")
def test_the_arena_limit_is_set_in_a_fresh_process() -> None:
    code = "from recallnest.core import heap; print(heap.limit_arenas())"
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "True", out.stderr


def test_only_daemon_run_changes_allocator() -> None:
    from recallnest.__main__ import _runs_the_daemon

    assert _runs_the_daemon(["daemon", "run"])
    assert _runs_the_daemon(["--home", "/tmp/x", "daemon", "run", "--polling"])
    assert not _runs_the_daemon(["daemon", "start"])
    assert not _runs_the_daemon(["search", "daemon"])
    assert not _runs_the_daemon(["hook", "session-start"])

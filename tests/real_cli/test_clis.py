"""tests/real_cli/clis.py without npm: the skip reasons are one line and say why."""

from __future__ import annotations

from pathlib import Path

from real_cli import clis


def test_not_opted_in_says_how_to_opt_in() -> None:
    reason = clis.skip_reason({"PATH": "/usr/bin:/bin"})
    assert reason is not None and clis.OPT_IN_ENV in reason and "\n" not in reason


def test_missing_node_is_named(tmp_path: Path) -> None:
    reason = clis.skip_reason({clis.OPT_IN_ENV: "1", "PATH": str(tmp_path)})
    assert reason == "real-CLI suite skipped: node and npm not found on PATH"


def test_the_cache_lives_outside_the_clone_unless_told() -> None:
    assert clis.cache_root({"HOME": "/home/u"}) == Path("/home/u/.cache/recallnest-cli")
    assert clis.cache_root({clis.CACHE_ENV: "/c", "HOME": "/home/u"}) == Path("/c")

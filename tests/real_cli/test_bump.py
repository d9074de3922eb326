"""tests/real_cli/bump.py: set pinned versions, refuse what is not one (no npm needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_cli import bump

PINS = {"codex": {"package": "@openai/codex", "version": "0.171.0", "bin": "codex"}}


def test_sets_a_version_and_keeps_the_file_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "versions.json"
    path.write_text(json.dumps(PINS), encoding="utf-8")
    monkeypatch.setattr(bump, "VERSIONS_FILE", path)
    assert bump.main(["codex=0.172.1"]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["codex"]["version"] == "0.172.1"


@pytest.mark.parametrize("arg", ["codex=latest", "codex", "claude=1.0.0", "codex=1.2"])
def test_refuses_what_is_not_agent_equals_version(arg: str) -> None:
    with pytest.raises(SystemExit):
        bump.wanted([arg], json.loads(json.dumps(PINS)))


def test_the_pinned_file_lists_the_three_clis() -> None:
    pins = json.loads(bump.VERSIONS_FILE.read_text(encoding="utf-8"))
    assert sorted(pins) == ["claude", "codex", "gemini"]
    assert bump.render(pins) == bump.VERSIONS_FILE.read_text(encoding="utf-8")

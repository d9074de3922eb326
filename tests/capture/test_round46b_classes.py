"""Capture, round 46, second part (decision 0057): the classes blind batch b40 showed, each
tested on phrasings of our own (not the batch's rows), both ways."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- a check's outcome


@pytest.mark.parametrize(
    "said",
    [
        "All 64 tests pass and CI is green.",
        "mypy is clean and all 301 tests pass on CI.",
        "CI 流水线是绿的，测试全部通过。",
    ],
)
def test_checks_passing_this_minute_are_no_fact(said: str) -> None:
    assert capture(said, role="assistant") == []


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("CI runs on the self-hosted runner ci-07, and the tests need Postgres 15 there.", "ci-07"),
        ("测试库在 CI 上用的是 postgres:15-alpine 镜像，端口 5433。", "5433"),
    ],
)
def test_what_ci_runs_on_stays_a_fact(said: str, value: str) -> None:
    kept(capture(said, role="assistant"), "entities", value)

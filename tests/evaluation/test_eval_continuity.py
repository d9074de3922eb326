"""The continuity eval set passes, and the runner reports failures with reasons."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.paths import ROOT

from recallnest.evaluation.continuity import evaluate, load_cases, main, run_case

CASES_DIR = ROOT / "eval" / "continuity" / "cases"
CASES = load_cases(CASES_DIR)
NOW = datetime(2026, 8, 21, 10, 0, tzinfo=UTC)


def test_the_set_is_big_enough() -> None:
    assert len(CASES) >= 12
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_passes(case: dict[str, object]) -> None:
    result = run_case(case, datetime.fromisoformat(str(case["now"])))
    assert result.passed, "\n".join([*result.failures, result.text])


def test_report() -> None:
    report, results = evaluate(CASES)
    assert report.cases == len(CASES) == len(results)
    assert report.pass_rate == 1.0 and report.failures == {}


def test_failures_carry_reasons() -> None:
    case = {
        "id": "broken",
        "now": NOW.isoformat(),
        "project": "/p",
        "memories": [{"scope": "global", "category": "preferences", "text": "Likes tabs."}],
        "must_contain": ["Likes spaces."],
        "must_not_contain": ["Likes tabs."],
        "expect_empty": True,
    }
    report, _ = evaluate([case])
    assert report.passed == 0 and report.pass_rate == 0.0
    assert report.failures["broken"] == [
        "missing 'Likes spaces.'",
        "unexpected 'Likes tabs.'",
        "expected no context at all",
    ]


def test_project_shorthand_needs_a_project() -> None:
    case = {
        "id": "x",
        "now": NOW.isoformat(),
        "project": None,
        "memories": [{"scope": "project", "category": "entities", "text": "A fact."}],
    }
    with pytest.raises(ValueError, match="no project"):
        run_case(case, NOW)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(CASES_DIR), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pass_rate"] == 1.0
    failing = tmp_path / "fail.json"
    failing.write_text(
        json.dumps(
            {"id": "f", "now": NOW.isoformat(), "project": None, "must_contain": ["anything"]}
        )
    )
    assert main([str(failing)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  f" in out and "missing 'anything'" in out and "0/1 passed" in out

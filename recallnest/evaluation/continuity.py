"""Continuity eval: does the next session's resume context carry what it should, and nothing
it must not? Each case (eval/continuity/cases/*.json) is a sequence of past sessions (turns and
tool uses), the memories capture would have produced, and the next session's start; the runner
builds checkpoints with `build_checkpoint`, picks the latest one in the next session's project,
composes with `compose_context` and checks the case's assertions plus built-in invariants.

`run_case()` and `evaluate()` are pure (time comes from the case or the caller); only `main()`
reads files and prints. The case format is described in eval/continuity/README.md.

    python -m recallnest.evaluation.continuity eval/continuity/cases [--json] [--show]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from recallnest.continuity.checkpoint import Checkpoint, build_checkpoint
from recallnest.continuity.compose import (
    DEFAULT_BUDGET_TOKENS,
    ResumeContext,
    ResumeInputs,
    compose_context,
)
from recallnest.core.models import CONTEXT_MARKER, GLOBAL_SCOPE, Memory, ToolUse, Turn, memory_id

Case = Mapping[str, Any]

_FENCE_LINE = re.compile(r"\s*(?:`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One case's outcome: the composed context and every failed check, worded for humans."""

    case_id: str
    passed: bool
    failures: tuple[str, ...]
    text: str
    item_ids: tuple[str, ...]
    tokens: int


@dataclass(frozen=True, slots=True)
class ContinuityReport:
    """Result of `evaluate()`; `asdict()` gives its JSON form."""

    cases: int
    passed: int
    pass_rate: float
    failures: dict[str, list[str]] = field(default_factory=dict)


# --------------------------------------------------------------------------- building inputs


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _project_of(case: Case, session: Mapping[str, Any]) -> str | None:
    """A session's project: its `project`, else its first turn's cwd. Cases use repository
    roots as cwd, so no filesystem lookup (and no I/O) is needed."""
    if "project" in session:
        return _scope(case, session["project"])
    cwds = [t.get("cwd") for t in session.get("turns", []) if t.get("cwd")]
    return str(cwds[0]) if cwds else None


def _scope(case: Case, value: str | None) -> str | None:
    """`"project"` is shorthand for the case's project (which must then be set)."""
    if value != "project":
        return value
    if not case.get("project"):
        raise ValueError(f"case {case.get('id')!r} uses scope 'project' but has no project")
    return str(case["project"])


def _turns(session: Mapping[str, Any]) -> list[Turn]:
    agent, session_id = session["agent"], session["session_id"]
    return [
        Turn(
            agent=t.get("agent", agent),
            session_id=session_id,
            role=t["role"],
            text=t["text"],
            timestamp=_time(t["timestamp"]) if t.get("timestamp") else None,
            path=f"eval://{session_id}",
            record_id=str(i),
            offset=i,
            cwd=t.get("cwd"),
            kind=t.get("kind", "message"),
        )
        for i, t in enumerate(session.get("turns", []))
    ]


def _tool_uses(session: Mapping[str, Any]) -> list[ToolUse]:
    return [
        ToolUse(
            agent=session["agent"],
            session_id=session["session_id"],
            name=u.get("name", "Bash"),
            timestamp=_time(u["timestamp"]) if u.get("timestamp") else None,
            record_id=f"tool-{i}",
            files=tuple(u.get("files", ())),
            command=u.get("command"),
        )
        for i, u in enumerate(session.get("tool_uses", []))
    ]


def _checkpoints(case: Case, now: datetime) -> list[Checkpoint]:
    built = []
    for session in case.get("sessions", []):
        cp = build_checkpoint(
            session["session_id"],
            session["agent"],
            _project_of(case, session),
            _turns(session),
            _tool_uses(session),
            session.get("reason", "idle"),
            now,
        )
        if cp is not None:
            built.append(cp)
    return built


def _latest(checkpoints: Sequence[Checkpoint], project: str | None) -> Checkpoint | None:
    """What the store would return: the newest checkpoint in the project."""
    mine = [cp for cp in checkpoints if cp.project == project]
    return max(mine, key=lambda cp: (cp.created_at, cp.id)) if mine else None


def _memory(case: Case, data: Mapping[str, Any], now: datetime) -> Memory:
    scope = _scope(case, data.get("scope", GLOBAL_SCOPE)) or GLOBAL_SCOPE
    created = (
        _time(data["created_at"])
        if "created_at" in data
        else now - timedelta(days=float(data.get("days_old", 1)))
    )
    return Memory(
        id=data.get("id") or memory_id(scope, data["text"]),
        scope=scope,
        category=data["category"],
        text=data["text"],
        importance=float(data.get("importance", 0.5)),
        confidence=float(data.get("confidence", 1.0)),
        tier=data.get("tier", "working"),
        status=data.get("status", "active"),
        created_at=created,
        updated_at=created,
        superseded_by=data.get("superseded_by"),
        pinned=bool(data.get("pinned", False)),
        valid_until=_time(data["valid_until"]) if data.get("valid_until") else None,
    )


def case_inputs(case: Case, now: datetime) -> tuple[ResumeInputs, int]:
    """The ResumeInputs and budget for the case's next session start."""
    nxt = case.get("next", {})
    project = case.get("project")
    memories = [
        (_memory(case, m, now), bool(m.get("already_sent"))) for m in case.get("memories", [])
    ]
    checkpoint = _latest(_checkpoints(case, now), project)
    sent = {m.id for m, already in memories if already}
    if checkpoint is not None and nxt.get("checkpoint_already_sent"):
        sent.add(checkpoint.id)
    inputs = ResumeInputs(
        project=project,
        agent=nxt.get("agent", "claude"),
        source=nxt.get("source", "startup"),
        now=now,
        checkpoint=checkpoint,
        memories=[m for m, _ in memories],
        already_sent=frozenset(sent),
        session_id=nxt.get("session_id"),
    )
    return inputs, int(nxt.get("budget_tokens", DEFAULT_BUDGET_TOKENS))


# --------------------------------------------------------------------------- checks


def _invariants(ctx: ResumeContext, budget: int) -> list[str]:
    """What must hold for every non-empty context, whatever the case."""
    if not ctx.text:
        return []
    lines = ctx.text.split("\n")
    problems = []
    if lines[0] != CONTEXT_MARKER:
        problems.append("first line is not the context marker")
    if ctx.text.count(CONTEXT_MARKER) != 1:
        problems.append("the context marker appears more than once")
    if "<" in ctx.text or ">" in ctx.text:
        problems.append("angle brackets in the context")
    if ctx.tokens > budget:
        problems.append(f"{ctx.tokens} tokens over the budget of {budget}")
    if len(lines) > 2:
        fence = lines[2]
        if not re.fullmatch(r"~{4,}", fence) or lines[-1] != fence:
            problems.append("the notes are not enclosed in one tilde fence")
        inner = lines[3:-1]
        if any(_FENCE_LINE.match(line) for line in inner):
            problems.append("a line inside the fence looks like a fence")
    return problems


def _assertions(case: Case, ctx: ResumeContext) -> list[str]:
    text = ctx.text
    problems = [f"missing {s!r}" for s in case.get("must_contain", []) if s not in text]
    problems += [f"unexpected {s!r}" for s in case.get("must_not_contain", []) if s in text]
    problems += [
        f"{s!r} appears {text.count(s)} times, expected once"
        for s in case.get("must_contain_once", [])
        if text.count(s) != 1
    ]
    if case.get("expect_empty") and text:
        problems.append("expected no context at all")
    if "max_tokens" in case and ctx.tokens > int(case["max_tokens"]):
        problems.append(f"{ctx.tokens} tokens, more than {case['max_tokens']}")
    if "min_tokens" in case and ctx.tokens < int(case["min_tokens"]):
        problems.append(f"{ctx.tokens} tokens, fewer than {case['min_tokens']}")
    return problems


def run_case(case: Case, now: datetime) -> CaseResult:
    """Build the case's checkpoints, compose the next session's context and check it."""
    inputs, budget = case_inputs(case, now)
    ctx = compose_context(inputs, budget)
    problems = _invariants(ctx, budget) + _assertions(case, ctx)
    return CaseResult(
        case_id=str(case["id"]),
        passed=not problems,
        failures=tuple(problems),
        text=ctx.text,
        item_ids=ctx.item_ids,
        tokens=ctx.tokens,
    )


def evaluate(cases: Sequence[Case]) -> tuple[ContinuityReport, list[CaseResult]]:
    """Run every case at its own `now`; the report and the per-case results."""
    results = [run_case(case, _time(case["now"])) for case in cases]
    passed = sum(r.passed for r in results)
    report = ContinuityReport(
        cases=len(results),
        passed=passed,
        pass_rate=round(passed / len(results), 4) if results else 0.0,
        failures={r.case_id: list(r.failures) for r in results if not r.passed},
    )
    return report, results


# --------------------------------------------------------------------------- command line


def load_cases(path: Path) -> list[dict[str, Any]]:
    """Cases from a directory of *.json files (sorted by name) or from one file."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    return [json.loads(f.read_text(encoding="utf-8")) for f in files]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.continuity")
    parser.add_argument("cases", type=Path, help="a directory of case files, or one file")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--show", action="store_true", help="print each composed context")
    args = parser.parse_args(argv)
    report, results = evaluate(load_cases(args.cases))
    if args.json:
        print(json.dumps(asdict(report), ensure_ascii=False, indent=2))
    else:
        _print_human(report, results, show=args.show)
    return 0 if report.passed == report.cases else 1


def _print_human(report: ContinuityReport, results: Sequence[CaseResult], show: bool) -> None:
    for r in results:
        print(f"{'PASS' if r.passed else 'FAIL'}  {r.case_id}  ({r.tokens} tokens)")
        for reason in r.failures:
            print(f"      - {reason}")
        if show and r.text:
            print("      " + r.text.replace("\n", "\n      "))
    print(f"{report.passed}/{report.cases} passed ({report.pass_rate:.0%})")


if __name__ == "__main__":
    sys.exit(main())

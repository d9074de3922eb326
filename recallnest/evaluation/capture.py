"""Scorer for the labelled auto-capture set (eval/capture/cases.jsonl): runs `capture_turn` on each
case and reports precision and recall overall and per category, false positives, misses, and
captures from negatives by negative type, the same scores per language and per speaker, and
polarity reversals (captures that dropped the negator they were said with). Also sweeps the
admission merge threshold over labelled text pairs (eval/capture/pairs.jsonl).

A capture matches an expected item when the categories are equal and every `contains`
substring occurs in the capture text (case-insensitive); matching is one-to-one per case.
`evaluate()` and `merge_threshold_sweep()` are pure; only `main()` reads files and prints.

    python -m recallnest.evaluation.capture eval/capture/cases.jsonl [--json] [--split dev|test|all]
    python -m recallnest.evaluation.capture eval/capture/cases.jsonl --batch b8   # one batch only
    python -m recallnest.evaluation.capture eval/capture/cases.jsonl --pairs
    eval/capture/pairs.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from recallnest.capture.admission import decide_admission, keyword_similarity
from recallnest.capture.heuristics import capture_turn
from recallnest.capture.polarity import reversed_in
from recallnest.core.aliases import canonical
from recallnest.core.models import CATEGORIES, Capture, Memory, Turn, memory_id

SWEEP_STEPS = tuple(round(0.05 * i, 2) for i in range(2, 19))


@dataclass(frozen=True, slots=True)
class Score:
    """Counts and ratios for one slice (overall or one category)."""

    captures: int
    expected: int
    matched_captures: int
    matched_expected: int
    precision: float
    recall: float


@dataclass(frozen=True, slots=True)
class FalsePositive:
    case_id: str
    category: str
    text: str
    rule: str
    neg_type: str | None


@dataclass(frozen=True, slots=True)
class Miss:
    case_id: str
    category: str
    contains: tuple[str, ...]
    captured: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CaptureReport:
    """Result of `evaluate()`; `asdict()` gives its JSON form."""

    cases: int
    overall: Score
    any_category: Score  # same matching with categories ignored: "was the right thing kept?"
    per_category: dict[str, Score]
    negatives: dict[str, dict[str, int]]  # neg_type -> {"cases": n, "captures": m}
    false_positives: list[FalsePositive] = field(default_factory=list)
    misses: list[Miss] = field(default_factory=list)
    per_lang: dict[str, Score] = field(default_factory=dict)
    per_role: dict[str, Score] = field(default_factory=dict)
    polarity_reversals: list[FalsePositive] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _CaseResult:
    case: Mapping[str, Any]
    captures: list[Capture]
    pairs: list[tuple[int, int]]  # (capture index, expected index)


# --------------------------------------------------------------------------- scoring


def evaluate(cases: Sequence[Mapping[str, Any]]) -> CaptureReport:
    """Run capture over labelled cases and score it (see module docstring)."""
    results = [_run_case(case) for case in cases]
    per_category = {c: _score(results, c) for c in CATEGORIES}
    loose = [_run_case(case, strict=False) for case in cases]
    return CaptureReport(
        cases=len(cases),
        overall=_score(results, None),
        any_category=_score(loose, None),
        per_category={c: s for c, s in per_category.items() if s.captures or s.expected},
        negatives=_negatives(results),
        false_positives=_false_positives(results),
        misses=_misses(results),
        per_lang=_sliced(results, "lang"),
        per_role=_sliced(results, "role"),
        polarity_reversals=_reversals(results),
    )


def _sliced(results: Sequence[_CaseResult], key: str) -> dict[str, Score]:
    values = sorted({str(r.case.get(key, "")) for r in results})
    return {v: _score([r for r in results if str(r.case.get(key, "")) == v], None) for v in values}


def _reversals(results: Sequence[_CaseResult]) -> list[FalsePositive]:
    """Captures whose text sits right after a negator in the turn that it does not carry."""
    return [
        FalsePositive(str(r.case["id"]), c.category, c.text, c.rule, r.case.get("neg_type"))
        for r in results
        for c in r.captures
        if reversed_in(str(r.case["text"]), c.text)
    ]


def case_turns(case: Mapping[str, Any]) -> tuple[Turn, Turn | None]:
    """The Turn of a case and of its optional previous text (spoken by the other role)."""
    role = case["role"]
    turn = _turn(str(case["id"]), role, str(case["text"]))
    previous = case.get("previous")
    if not previous:
        return turn, None
    other = "assistant" if role == "user" else "user"
    return turn, _turn(f"{case['id']}-prev", case.get("previous_role", other), str(previous))


def matches(capture: Capture, item: Mapping[str, Any], strict: bool = True) -> bool:
    """A capture satisfies an expected item: same category (if strict), every substring present."""
    text = capture.text.casefold()
    same = capture.category == item["category"] or not strict
    return same and all(str(s).casefold() in text for s in item["contains"])


def _turn(record_id: str, role: str, text: str) -> Turn:
    return Turn(
        agent="eval", session_id="eval", role=role,  # type: ignore[arg-type]
        text=text, timestamp=None, path="eval/capture/cases.jsonl", record_id=record_id, offset=0,
    )  # fmt: skip


def _run_case(case: Mapping[str, Any], strict: bool = True) -> _CaseResult:
    turn, previous = case_turns(case)
    captures = capture_turn(turn, previous, project="eval")
    return _CaseResult(case, captures, _match(captures, case["expected"], strict))


def _match(
    captures: Sequence[Capture], expected: Sequence[Mapping[str, Any]], strict: bool = True
) -> list[tuple[int, int]]:
    """Maximum one-to-one matching (Kuhn's augmenting paths; lists are tiny)."""
    owner: dict[int, int] = {}  # expected index -> capture index

    def assign(ci: int, seen: set[int]) -> bool:
        for ei, item in enumerate(expected):
            if ei in seen or not matches(captures[ci], item, strict):
                continue
            seen.add(ei)
            if ei not in owner or assign(owner[ei], seen):
                owner[ei] = ci
                return True
        return False

    for ci in range(len(captures)):
        assign(ci, set())
    return sorted((ci, ei) for ei, ci in owner.items())


def _score(results: Sequence[_CaseResult], category: str | None) -> Score:
    caps = exp = mc = me = 0
    for r in results:
        cap_cats = [c.category for c in r.captures]
        exp_cats = [e["category"] for e in r.case["expected"]]
        caps += sum(1 for c in cap_cats if category in (None, c))
        exp += sum(1 for c in exp_cats if category in (None, c))
        hits = [ci for ci, _ in r.pairs if category in (None, cap_cats[ci])]
        mc += len(hits)
        me += len(hits)
    return Score(caps, exp, mc, me, _ratio(mc, caps), _ratio(me, exp))


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 1.0


def _negatives(results: Sequence[_CaseResult]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in results:
        kind = r.case.get("neg_type")
        if kind:
            row = out.setdefault(str(kind), {"cases": 0, "captures": 0})
            row["cases"] += 1
            row["captures"] += len(r.captures)
    return dict(sorted(out.items()))


def _false_positives(results: Sequence[_CaseResult]) -> list[FalsePositive]:
    out: list[FalsePositive] = []
    for r in results:
        matched = {ci for ci, _ in r.pairs}
        for ci, c in enumerate(r.captures):
            if ci not in matched:
                neg = r.case.get("neg_type")
                out.append(FalsePositive(str(r.case["id"]), c.category, c.text, c.rule, neg))
    return out


def _misses(results: Sequence[_CaseResult]) -> list[Miss]:
    out: list[Miss] = []
    for r in results:
        matched = {ei for _, ei in r.pairs}
        got = tuple(f"{c.category}: {c.text}" for c in r.captures)
        for ei, item in enumerate(r.case["expected"]):
            if ei not in matched:
                contains = tuple(str(s) for s in item["contains"])
                out.append(Miss(str(r.case["id"]), item["category"], contains, got))
    return out


# --------------------------------------------------------------------------- merge threshold


def merge_threshold_sweep(
    pairs: Sequence[Mapping[str, Any]], cases: Sequence[Mapping[str, Any]] = ()
) -> list[dict[str, float]]:
    """Per threshold: raw similarity and end-to-end `decide_admission` outcomes on text pairs.

    `pairs` rows are {"category", "a", "b", "same"}: "same" pairs restate one memory, the others
    are different memories (many with the same subject and a new value). Distinct positives of
    `cases` (same category and language) are extra different pairs for the raw score.
    """
    same = [p for p in pairs if p["same"]]
    different = [p for p in pairs if not p["same"]]
    distinct = [keyword_similarity(a, b) for a, b in _distinct_pairs(cases)]
    scored = [(p, keyword_similarity(p["a"], p["b"])) for p in pairs]
    stored = [(p["same"], *_pair_captures(p)) for p in pairs]
    rows = []
    for t in SWEEP_STEPS:
        actions = [
            (is_same, decide_admission(new, [old], threshold=t).action)
            for is_same, old, new in stored
        ]
        merged_same = sum(a in ("merge", "duplicate") for is_same, a in actions if is_same)
        rows.append({
            "threshold": t,
            "similarity_recall": _ratio(sum(x >= t for p, x in scored if p["same"]), len(same)),
            "similarity_false_merges": float(sum(x >= t for p, x in scored if not p["same"])),
            "distinct_false_merges": float(sum(x >= t for x in distinct)),
            "same_merged": _ratio(merged_same, len(same)),
            "same_superseded": float(sum(a == "supersede" for is_same, a in actions if is_same)),
            "different_merged": float(sum(a == "merge" for is_same, a in actions if not is_same)),
            "different_superseded": float(
                sum(a == "supersede" for is_same, a in actions if not is_same)
            ),
            "different_pairs": float(len(different)),
        })  # fmt: skip
    return rows


def _pair_captures(pair: Mapping[str, Any]) -> tuple[Memory, Capture]:
    """pair["a"] as a stored memory and pair["b"] as a new capture, both said by the user."""
    old = _pair_capture(pair["a"], pair["category"])
    new = _pair_capture(pair["b"], pair["category"])
    stored = Memory(
        id=memory_id(old.scope, canonical(old.text)), scope=old.scope, category=old.category,
        text=old.text, subject=old.subject,
    )  # fmt: skip
    return stored, replace(new, scope=old.scope)


def _pair_capture(text: str, category: str) -> Capture:
    found = [c for c in capture_turn(_turn("pair", "user", text), project="eval")]
    match = next((c for c in found if c.category == category), None)
    return match or Capture(category, text, 0.5, 0.8, "manual", scope="eval")


def _distinct_pairs(cases: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    # Same language only: the set mirrors many English cases in Chinese, and a fact and its
    # translation are one memory, not two.
    # Two cases labelled with the same key phrase (en-008 and the blind b18's en-1801 both
    # "set -euo pipefail") restate one memory: merging them is right, so they are no pair.
    by_category: dict[tuple[str, str], dict[str, frozenset[str]]] = {}
    for case in cases:
        for item in case["expected"]:
            key = (item["category"], str(case.get("lang", "")))
            phrases = frozenset(str(p).casefold() for p in item.get("contains", []))
            texts = by_category.setdefault(key, {})
            texts[str(case["text"])] = texts.get(str(case["text"]), frozenset()) | phrases
    # (a key phrase inside the other's counts too: b23's "short" and b48's "answers short" label
    # two writers' "keep answers short, I'll ask for the why" — one memory, rightly merged)
    out: list[tuple[str, str]] = []
    for texts in by_category.values():
        unique = sorted(texts)
        out.extend(
            (a, b)
            for i, a in enumerate(unique)
            for b in unique[i + 1 :]
            if not _same_key(texts[a], texts[b])
        )
    return out


def _same_key(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two cases' key phrases name one thing: one phrase's words are all the other's
    ("short" and "answers short", never "short" and "shortcuts"; Chinese by its characters)."""
    return any(_holds(x, y) or _holds(y, x) for x in a for y in b)


def _holds(phrase: str, other: str) -> bool:
    if phrase.isascii() or other.isascii():
        return set(phrase.split()) <= set(other.split())
    return phrase in other


# --------------------------------------------------------------------------- command line


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file (blank lines ignored)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def format_report(name: str, report: CaptureReport) -> str:
    """Human-readable summary of one report."""
    o = report.overall
    lines = [
        f"{name}: {report.cases} cases, {o.captures} captures, {o.expected} expected",
        f"  overall    precision {o.precision:.3f}  recall {o.recall:.3f}",
        f"  any-cat.   precision {report.any_category.precision:.3f}  recall "
        f"{report.any_category.recall:.3f}  (category ignored)",
    ]
    for cat, s in report.per_category.items():
        counts = f"{s.matched_captures}/{s.captures} captures, {s.matched_expected}/{s.expected}"
        lines.append(f"  {cat:<12}precision {s.precision:.3f}  recall {s.recall:.3f}  ({counts})")
    for label, slices in (("language", report.per_lang), ("speaker", report.per_role)):
        for value, sc in slices.items():
            n = f"{sc.matched_captures}/{sc.captures} captures, {sc.matched_expected}/{sc.expected}"
            ratios = f"precision {sc.precision:.3f}  recall {sc.recall:.3f}"
            lines.append(f"  {label} {value:<10}{ratios}  ({n})")
    lines.append(f"  polarity reversals: {len(report.polarity_reversals)}")
    for rev in report.polarity_reversals:
        lines.append(f"  REVERSED {rev.case_id} [{rev.category} {rev.rule}] {rev.text}")
    negs = ", ".join(f"{k} {v['captures']}/{v['cases']}" for k, v in report.negatives.items())
    lines.append(f"  captures from negatives (captures/cases): {negs}")
    for fp in report.false_positives:
        lines.append(f"  FP {fp.case_id} [{fp.category} {fp.rule}] {fp.text}")
    for miss in report.misses:
        wanted = f"[{miss.category} {list(miss.contains)}]"
        lines.append(f"  MISS {miss.case_id} {wanted} got {list(miss.captured)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry: score the labelled set and print text or JSON."""
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.capture")
    parser.add_argument("cases", type=Path)
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    parser.add_argument("--split", choices=("dev", "test", "all"), help="only this split")
    parser.add_argument("--batch", action="append", help="only cases of this batch (repeatable)")
    parser.add_argument("--pairs", type=Path, help="also sweep the merge threshold over pairs")
    args = parser.parse_args(argv)
    cases = load_jsonl(args.cases)
    if args.batch:
        cases = [c for c in cases if c.get("batch", "b1") in args.batch]
    names = [args.split] if args.split else ["dev", "test", "all"]
    reports = {n: evaluate([c for c in cases if n == "all" or c.get("split") == n]) for n in names}
    sweep = merge_threshold_sweep(load_jsonl(args.pairs), cases) if args.pairs else None
    if args.json:
        payload: dict[str, Any] = {n: asdict(r) for n, r in reports.items()}
        if sweep is not None:
            payload["merge_threshold_sweep"] = sweep
        print(json.dumps(payload, ensure_ascii=False, indent=2))
        return 0
    print("\n\n".join(format_report(n, r) for n, r in reports.items()))
    if sweep:
        print("\nmerge threshold sweep (see eval/capture/README.md):")
    for row in sweep or []:
        print(", ".join(f"{k} {v:g}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

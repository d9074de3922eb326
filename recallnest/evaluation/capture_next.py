"""How capture fares on the next batch nobody has read: leave-one-batch-out over recent batches.

    python -m recallnest.evaluation.capture_next eval/capture/cases.jsonl              # last 8
    python -m recallnest.evaluation.capture_next eval/capture/cases.jsonl --last 4 --json
    python -m recallnest.evaluation.capture_next eval/capture/cases.jsonl --batch b46

For each of the newest blind batches B, the learned model is trained, with the training code and
features as they are, on every row of the capture set but B's, and capture (rules and that
model) is scored on B. The figure is the pooled precision and recall over the batches (every
batch has 90 rows, so pooling weighs them alike), with the EN / ZH / user / assistant slices of
issue 17's target. Unlike `train_capture`, it needs no reading and no `HELD_OUT`: a batch is
left out of its own fold only, so the figure means the same before and after a batch is read.

What it does not take out is the rules: they were written after reading the batches that were
read, so on those batches the figure is what the model adds to rules that know their phrasing.
The batches still in `train_capture.HELD_OUT` are marked "unread"; their figures are the honest
part, and a change that moves only the read batches has reached phrasing, not a class
(decision 0072). About a minute per batch on one core; not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from recallnest.capture import learned
from recallnest.evaluation import train_capture
from recallnest.evaluation.capture import CaptureReport, Score, evaluate, load_jsonl

LAST = 8
SLICES = ("en", "zh", "user", "assistant")


@dataclass(frozen=True, slots=True)
class Fold:
    """One left-out batch: its scores with a model that never saw it."""

    batch: str
    unread: bool
    overall: Score
    slices: dict[str, Score]
    reversals: int


def recent_batches(rows: Sequence[Mapping[str, Any]], last: int = LAST) -> list[str]:
    """The `last` highest-numbered batches of the set (b46 after b45, b100 after b99)."""
    names = {str(r["batch"]) for r in rows if str(r.get("batch", "")).startswith("b")}
    return sorted(names, key=lambda name: int(name[1:]))[-last:]


@contextmanager
def model_in_use(model: learned.Model) -> Iterator[None]:
    """Capture, while inside, with `model` in place of the shipped one."""
    saved = learned.shipped_model
    learned.shipped_model = lambda: model  # type: ignore[assignment]
    try:
        yield
    finally:
        learned.shipped_model = saved


def fold(rows: Sequence[Mapping[str, Any]], batch: str) -> Fold:
    """Train without `batch`, then score capture on it."""
    training = [dict(r) for r in rows if r.get("batch") != batch]
    model = train_capture.train(train_capture.examples(training))
    with model_in_use(model):
        report = evaluate([r for r in rows if r.get("batch") == batch])
    return Fold(
        batch=batch,
        unread=batch in train_capture.HELD_OUT,
        overall=report.overall,
        slices=_slices(report),
        reversals=len(report.polarity_reversals),
    )


def _slices(report: CaptureReport) -> dict[str, Score]:
    both = {**report.per_lang, **report.per_role}
    return {name: both[name] for name in SLICES if name in both}


def pooled(scores: Sequence[Score]) -> Score:
    """One score over several batches: their counts summed."""
    caps = sum(s.captures for s in scores)
    exp = sum(s.expected for s in scores)
    right = sum(s.matched_captures for s in scores)
    found = sum(s.matched_expected for s in scores)
    return Score(caps, exp, right, found, _ratio(right, caps), _ratio(found, exp))


def _ratio(num: int, den: int) -> float:
    return round(num / den, 4) if den else 1.0


def summary(folds: Sequence[Fold]) -> dict[str, Score]:
    """Pooled overall and per-slice scores of the folds."""
    out = {"overall": pooled([f.overall for f in folds])}
    for name in SLICES:
        out[name] = pooled([f.slices[name] for f in folds if name in f.slices])
    return out


def table(folds: Sequence[Fold]) -> str:
    """Markdown: one line per batch, then the pooled line (and the unread batches' own)."""
    head = "| batch | P / R | " + " | ".join(SLICES) + " | reversals |"
    lines = [head, "|---" * (len(SLICES) + 3) + "|"]
    for f in folds:
        name = f"{f.batch} (unread)" if f.unread else f.batch
        lines.append(_line(name, f.overall, f.slices, f.reversals))
    groups = [("pooled", list(folds)), ("pooled, unread", [f for f in folds if f.unread])]
    for name, group in groups:
        if group:
            total = summary(group)
            lines.append(_line(name, total["overall"], total, sum(f.reversals for f in group)))
    return "\n".join(lines)


def _line(name: str, overall: Score, slices: Mapping[str, Score], reversals: int) -> str:
    cells = [_pr(slices[s]) if s in slices else "-" for s in SLICES]
    return f"| {name} | {_pr(overall)} | " + " | ".join(cells) + f" | {reversals} |"


def _pr(score: Score) -> str:
    return f"{score.precision:.3f} / {score.recall:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.capture_next")
    parser.add_argument("cases", type=Path)
    parser.add_argument("--last", type=int, default=LAST, help="how many newest batches")
    parser.add_argument("--batch", action="append", help="only this batch (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the folds as JSON")
    args = parser.parse_args(argv)
    rows = load_jsonl(args.cases)
    folds = []
    for batch in args.batch or recent_batches(rows, args.last):
        folds.append(fold(rows, batch))
        print(f"{batch} done", file=sys.stderr, flush=True)
    if args.json:
        doc = {"folds": [asdict(f) for f in folds], "pooled": asdict(summary(folds)["overall"])}
        print(json.dumps(doc, indent=2))
    else:
        print(table(folds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The next-unread-batch proxy (recallnest.evaluation.capture_next)."""

from __future__ import annotations

from typing import Any

import pytest

from recallnest.capture import learned
from recallnest.evaluation import capture_next, train_capture
from recallnest.evaluation.capture import Score


def test_recent_batches_orders_by_number_not_by_text() -> None:
    rows = [{"batch": b} for b in ("b9", "b100", "b10", "b99", "b9")] + [{"id": "no batch"}]
    assert capture_next.recent_batches(rows, 3) == ["b10", "b99", "b100"]


def test_pooled_sums_counts_before_dividing() -> None:
    small = Score(2, 4, 2, 1, 1.0, 0.25)
    large = Score(8, 6, 4, 5, 0.5, 0.8333)
    total = capture_next.pooled([small, large])
    assert (total.captures, total.expected) == (10, 10)
    assert (total.precision, total.recall) == (0.6, 0.6)


def _row(batch: str, text: str, category: str | None) -> dict[str, Any]:
    expected = [{"category": category, "contains": [text.split()[-1]]}] if category else []
    return {"id": f"{batch}-{text[:8]}", "batch": batch, "role": "user", "lang": "en",
            "text": text, "expected": expected}  # fmt: skip


def test_a_fold_trains_without_its_batch_and_restores_the_shipped_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [
        _row("b1", "Our office printer is a Canon LBP2900.", "entities"),
        _row("b2", "I prefer tabs over spaces in Go files.", "preferences"),
        _row("b2", "thanks, that worked", None),
    ]
    seen: list[set[str]] = []

    def examples(training: list[dict[str, Any]]) -> list[tuple[frozenset[int], int]]:
        seen.append({r["batch"] for r in training})
        return []

    monkeypatch.setattr(train_capture, "examples", examples)
    shipped = learned.shipped_model
    result = capture_next.fold(rows, "b2")
    assert seen == [{"b1"}]
    assert result.batch == "b2" and result.overall.expected == 1
    assert set(result.slices) == {"en", "user"}
    assert learned.shipped_model is shipped

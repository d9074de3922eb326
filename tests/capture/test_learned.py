"""The learned second opinion (recallnest.capture.learned): what it answers, when capture asks
it, and that the shipped weights are the ones the training data gives."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from recallnest.capture import learned
from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import Turn
from recallnest.evaluation import train_capture

ROOT = Path(__file__).resolve().parents[2]


def turn(text: str, role: str = "user") -> Turn:
    return Turn(
        agent="claude",
        session_id="s",
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=None,
        path="p",
        record_id="r",
        offset=0,
    )


def test_the_shipped_model_is_what_the_dev_split_trains() -> None:
    assert train_capture.main([str(ROOT / "eval/capture/cases.jsonl"), "--check"]) == 0


def test_features_are_deterministic_and_include_the_speaker() -> None:
    a = learned.features("We ship on Fridays", "user")
    assert a == learned.features("We ship on Fridays", "user")
    assert a != learned.features("We ship on Fridays", "assistant")
    assert learned.features("缓存", "user") <= learned.features("缓存用 Redis", "user")


def test_probabilities_sum_to_one() -> None:
    probs = learned.probabilities(learned.shipped_model(), learned.features("hello", "user"))
    assert len(probs) == len(learned.CLASSES) and abs(sum(probs) - 1.0) < 1e-9


def test_a_model_of_other_classes_is_refused() -> None:
    raw = learned.dumps(learned.Model(weights={}, bias=(0.0,) * len(learned.CLASSES)))
    assert learned.loads(gzip.decompress(raw)).bias == (0.0,) * 7
    with pytest.raises(ValueError, match="classes"):
        learned.loads(b'{"classes": ["none"], "dim": 1, "bias": [0], "weights": {}}')


@pytest.mark.parametrize(
    "text",
    [
        "<system-reminder>\n# CLAUDE.md\n- use pnpm, never npm\n</system-reminder>",
        "what port does the admin service listen on, 8080 or 9000?",
        "ok thanks",
    ],
)
def test_it_is_never_asked_about_what_the_gate_skips(text: str) -> None:
    assert not any(c.rule.startswith("learned.") for c in capture_turn(turn(text)))


def test_a_turn_a_rule_covers_keeps_the_rule() -> None:
    got = capture_turn(turn("Please always use uv for Python deps, never pip."))
    assert got and not any(c.rule.startswith("learned.") for c in got)


def test_a_statement_no_rule_covers_is_kept_at_a_lower_confidence() -> None:
    said = "mostly a backend person myself, Go and Postgres, so explain the CSS bits slowly"
    got = capture_turn(turn(said), None, "/home/dev/x")
    assert [(c.rule, c.category) for c in got] == [("learned.profile", "profile")]
    assert got[0].confidence < 0.75 and "backend person" in got[0].text


# Decision 0060: the leave-one-batch-out study's choice (stems, THRESHOLD 0.6, VETO 0.8).


def test_inflections_of_a_word_share_a_stem_feature() -> None:
    role = learned.features("", "user")
    shared = learned.features("deploys", "user") & learned.features("deploying", "user")
    assert shared - role
    assert learned.features("deployed caches", "user") & learned.features("deploy cache", "user")


def test_the_lobo_study_reproduces_the_shipped_features() -> None:
    from recallnest.evaluation.capture_lobo import featurizer

    text = "we deployed the workers to Fly.io; 缓存用 Redis, configurations stay in git"
    assert featurizer(False, True, False)(text, "user") == learned.features(text, "user")
    assert featurizer(False, False, False)(text, "user") != learned.features(text, "user")


def test_a_model_reading_at_0_65_is_kept_where_no_rule_fired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = "mostly a backend person myself, Go and Postgres, so explain the CSS bits slowly"
    monkeypatch.setattr(learned, "predict", lambda text, role, model=None: ("profile", 0.65))
    got = capture_turn(turn(said), None, "/home/dev/x")
    assert [(c.rule, c.category) for c in got] == [("learned.profile", "profile")]


def test_a_sure_none_drops_the_catch_all_fact_but_not_another_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = "The staging database runs on Postgres 15."
    assert [c.rule for c in capture_turn(turn(said), None, "/home/dev/x")] == ["entity.fact"]
    monkeypatch.setattr(learned, "predict", lambda text, role, model=None: ("none", 0.95))
    assert capture_turn(turn(said), None, "/home/dev/x") == []
    both = f"{said} Please always use uv for Python deps, never pip."
    rules = [c.rule for c in capture_turn(turn(both), None, "/home/dev/x")]
    assert rules and "entity.fact" not in rules
    monkeypatch.setattr(learned, "predict", lambda text, role, model=None: ("none", 0.85))
    assert [c.rule for c in capture_turn(turn(said), None, "/home/dev/x")] == ["entity.fact"]

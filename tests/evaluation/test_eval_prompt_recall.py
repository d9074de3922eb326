"""The prompt-recall eval runner (issue 23) plays a scenario end to end through the daemon's
own ops: every row embedded before the first prompt, chatter skipped, nothing repeated."""

from __future__ import annotations

from pathlib import Path

from recallnest.evaluation.prompt_recall import load, run_scenario, score

EVAL = Path(__file__).resolve().parents[2] / "eval" / "prompt-recall"


def test_a_dev_scenario_plays_and_scores(tmp_path: Path) -> None:
    scenario = load(EVAL, "dev")[0]
    results = run_scenario(scenario, tmp_path, "hash")
    assert len(results) == sum(len(s["prompts"]) for s in scenario["sessions"])
    report = score(results).summary()
    assert report["repeats"] == 0
    chatter = [r for r in results if r.kind == "chatter"]
    assert chatter and all(not r.injected and r.skip == "chatter" for r in chatter)
    assert report["hit_rate"] > 0  # the lexical gate alone finds some of what is needed

"""Shared set-up for the tests of the coding-agent cases harness (`recallnest eval cases`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.evaluation.cases import load_actions, load_corpus, load_queries
from support.paths import ROOT

CASES_DIR = ROOT / "eval" / "cases"
# An action on a turn that captured nothing: reported as unresolved, never dropped.
NOTHING_CAPTURED = {"id": "nothing-captured", "turn": "s04-t15", "tier": "core"}


def write_jsonl(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


def subset(
    root: Path, sessions: Sequence[str], extra_actions: Sequence[dict[str, Any]] | None = None
) -> tuple[Path, set[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """A case set of some sessions of eval/cases under `root`: the queries that only need
    them, and (when `extra_actions` is given) the actions on their turns plus those extra.
    Returns (cases dir, turn keys, queries, actions)."""
    cases = root / "cases"
    (cases / "corpus").mkdir(parents=True)
    for name in sessions:
        shutil.copy(CASES_DIR / "corpus" / f"{name}.jsonl", cases / "corpus")
    keys = {t["id"] for t in load_corpus(cases)}
    queries = [q for q in load_queries(CASES_DIR) if set(q["relevant"]) <= keys]
    write_jsonl(cases / "queries.jsonl", queries)
    actions: list[dict[str, Any]] = []
    if extra_actions is not None:
        actions = [a for a in load_actions(CASES_DIR) if a["turn"] in keys]
        actions += extra_actions
        write_jsonl(cases / "actions.jsonl", actions)
    return cases, keys, queries, actions


def homes(settings: Settings) -> Callable[[Path], Settings]:
    """What `eval_cases.run` asks for: the test settings with a given home."""
    return lambda home: settings.model_copy(update={"home": home})


def minimal_report(**extra: Any) -> dict[str, Any]:
    """One perfect query of type `promoted`; `extra` adds or replaces top-level sections."""
    m = {"n": 1, "hit@1": 100.0, "hit@5": 100.0, "hit@10": 100.0, "mrr@10": 1.0}
    return {
        "embedder": "hash",
        "corpus": {"turns": 2, "sessions": 1, "memories_captured": 1},
        "overall": m,
        "by_type": {"promoted": m},
        "by_lang": {"en": m},
        "by_kind": {"all": m},
        "latency_ms": {"p50": 1.0, "p95": 2.0, "queries": 1},
        "failures": [],
        **extra,
    }

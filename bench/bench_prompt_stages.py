"""Where a prompt-time recall spends its time (issue 23), in process, stage by stage.

The home bench_prompt_hook.py builds (`--keep DIR`: 100k memories + 100k turns, every row with
a vector under the local model's id), opened in this process with the shipped local embedder,
and the daemon's own `recall` op (server.handlers.dispatch) for fresh prompts, each in a new
session that got its session-start resume first. Each stage is timed by wrapping the function
that does it; the table gives its median and p95 per recall (0 when a recall did not call it)
and the recall's total. In process, so a busy machine moves the totals less than a fresh-process
run (bench_prompt_hook.py) and the stages can be compared across changes.

    python bench/bench_prompt_stages.py --home /tmp/ph-keep/rn-100000-100000 [-n 40]
        [--wait] [--label relevant|long|absent]

`--wait` waits for every query embedding (as the eval does); by default a recall has the hook's
deadline (VECTOR_DEADLINE_SECONDS from the op's start: no hook process here).
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_prompt_hook import prompts
from bench_resume_scale import OWN
from common import fmt, load1, machine_line, median, note, p95, print_table

# (where, attribute, label): the stages, outermost first
STAGES = (
    ("engine", "prepare_query", "start the query embedding"),
    ("index", "mask_any", "filter mask"),
    ("index", "bm25", "BM25 (keyword + exact channels)"),
    ("vectors", "get", "wait for the query embedding"),
    ("index", "cosine", "vector scan"),
    ("index", "neighbours", "context neighbours"),
    ("engine", "_evidence_positions", "provenance: evidence read"),
    ("engine", "_hits", "hits: rows read"),
    ("ranking", "across_language", "the other language's closest memory"),
    ("engine", "_with_across", "adding it to the hits"),
    ("engine", "_with_rules", "rules about what the prompt makes (make prompts)"),
    ("recall", "choose", "gate (relevance, freshness)"),
    ("embedder", "embed_query", "query embedding itself (worker thread)"),
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True, help="a home bench_prompt_hook kept")
    parser.add_argument("-n", "--runs", type=int, default=40)
    parser.add_argument("--wait", action="store_true", help="wait for every query embedding")
    parser.add_argument(
        "--label", default="relevant", choices=("relevant", "long", "absent", "make")
    )
    args = parser.parse_args()
    note(machine_line())
    with tempfile.TemporaryDirectory(prefix="rn-bench-stages-") as tmp_s:
        tmp = Path(tmp_s)
        shutil.copytree(args.home, tmp / "rn")
        times, totals = run(tmp, args.runs, args.wait, args.label)
    rows = [
        [label, fmt(median(times[label])), fmt(p95(times[label]))]
        for _, _, label in STAGES
        if label in times
    ]
    rows.append(["whole recall op", fmt(median(totals)), fmt(p95(totals))])
    mode = "waiting for the embedding" if args.wait else "with the op's deadline"
    title = f"recall op stages, {args.label} prompts, {mode}, {args.runs} runs"
    title += f" (load1 {load1():.2f})"
    print_table(title, ["stage", "median ms", "p95 ms"], rows)


def run(tmp: Path, runs: int, wait: bool, label: str) -> tuple[dict[str, list[float]], list[float]]:
    import recallnest.continuity.recall as recall_module
    import recallnest.retrieval.ranking as ranking_module
    from recallnest.core.config import Settings
    from recallnest.engine import Engine
    from recallnest.retrieval.index import SearchIndex
    from recallnest.retrieval.query_vectors import QueryVectors
    from recallnest.server.handlers import dispatch

    settings = Settings.load(
        flags={"home": str(tmp / "rn"), "embedder": "local"}, env={"HOME": str(tmp / "u")}
    )
    engine = Engine.open(settings)
    spent: dict[str, float] = defaultdict(float)
    owners: dict[str, Any] = {
        "engine": engine,
        "index": SearchIndex,
        "vectors": QueryVectors,
        "recall": recall_module,
        "ranking": ranking_module,
        "embedder": engine.embedder,
    }
    for where, name, label_ in STAGES:
        if hasattr(owners[where], name):  # a stage an older code does not have is skipped
            _wrap(owners[where], name, label_, spent)
    try:
        engine.index  # noqa: B018  (waits for the index load)
        warm = {"prompt": "warm up: which port is zeta?", "cwd": OWN, "session_id": "warm"}
        dispatch(engine, "recall", {**warm, "vector_deadline": None})  # loads the model
        times: dict[str, list[float]] = defaultdict(list)
        totals = []
        for k in range(runs):
            session = f"stages-{k}"
            start = {"cwd": OWN, "agent": "claude", "source": "startup", "session_id": session}
            dispatch(engine, "resume", start)
            text = make_prompt(k) if label == "make" else prompts(k)[label]
            ask: dict[str, Any] = {"prompt": text, "cwd": OWN, "session_id": session}
            if wait:
                ask["vector_deadline"] = None
            spent.clear()
            began = time.perf_counter()
            dispatch(engine, "recall", ask)
            totals.append((time.perf_counter() - began) * 1000)
            for _, _, label_ in STAGES:
                times[label_].append(spent.get(label_, 0.0))
        return times, totals
    finally:
        engine.close()


def make_prompt(k: int) -> str:
    """A prompt asking to make something (intent `make`): the rules about what it makes are
    looked up beside the search (Engine._with_rules). New text every round."""
    return f"write a shell script that restarts service zeta{k} and checks its port, take {k}"


def _wrap(owner: Any, name: str, label: str, spent: dict[str, float]) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] += (time.perf_counter() - began) * 1000

    setattr(owner, name, timed)


if __name__ == "__main__":
    main()

"""Where the embedding puts the note a prompt needs (issue 23, decision 0022): a diagnostic
beside the prompt recall eval, on the same scenarios and histories.

For each prompt worth a search, the prompt's embedding is compared with every memory in its
scope (the project's and global ones) twice: over all of them, and over those written in the
other language only (Chinese against a prompt without Chinese, and the reverse). Printed per
prompt: the needed note's rank, the best cosine's margin over the next, and the best one's
z-score in that pool. It answers whether a cosine rule could admit a note that shares no word
with its prompt: the search's candidates (continuity.recall.CANDIDATES) come from the fused
ranking, and the gate's margin is read among them.

    python -m recallnest.evaluation.prompt_vectors eval/prompt-recall --split dev
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from recallnest.core.config import Settings
from recallnest.core.text import written_in_chinese
from recallnest.engine import Engine
from recallnest.evaluation.prompt_recall import load, seed_history
from recallnest.retrieval.query import plan_query
from recallnest.retrieval.relevance import analyse_prompt


@dataclass(frozen=True, slots=True)
class Pool:
    """A prompt's cosines over one pool of memories."""

    size: int
    needed_rank: int | None  # 0 = the closest; None = not in this pool
    margin: float  # best cosine minus the second best
    z_top: float  # the best cosine's z-score in the pool

    def __str__(self) -> str:
        rank = "-" if self.needed_rank is None else str(self.needed_rank)
        return f"n={self.size:<4} rank={rank:<3} margin={self.margin:.4f} z={self.z_top:.2f}"


def pool(cosines: np.ndarray, needed: np.ndarray) -> Pool:
    """`cosines` of one pool's memories, `needed` marking the ones the prompt needs."""
    if len(cosines) < 2:
        return Pool(len(cosines), None, 0.0, 0.0)
    order = np.argsort(-cosines, kind="stable")
    ranks = [r for r, j in enumerate(order) if needed[j]]
    spread = float(cosines.std()) or 1.0
    return Pool(
        len(cosines),
        ranks[0] if ranks else None,
        float(cosines[order[0]] - cosines[order[1]]),
        float((cosines[order[0]] - cosines.mean()) / spread),
    )


def run_scenario(sc: Mapping[str, Any], root: Path) -> list[str]:
    home = root / sc["id"]
    settings = Settings.load(
        flags={"home": str(home / "rn"), "embedder": "local"}, env={"HOME": str(home / "u")}
    )
    engine = Engine.open(settings)
    try:
        return _report(engine, sc)
    finally:
        engine.close()


def _report(engine: Engine, sc: Mapping[str, Any]) -> list[str]:
    keys = seed_history(engine, sc)
    embedder = engine.embedder
    if embedder is None:
        return [f"{sc['id']}: no embedder"]
    index = engine.index
    rows = np.nonzero(index.kind_mask("memory"))[0]
    ids = [index.row(int(p))[1] for p in rows]
    found = {m.id: m for m in engine.store.memories(ids)}
    out = []
    for session in sc["sessions"]:
        project = sc["projects"][session["project"]]
        keep = np.array(
            [i in found and found[i].scope in (project, "global") for i in ids], dtype=bool
        )
        zh = np.array([i in found and written_in_chinese(found[i].text) for i in ids], dtype=bool)
        for prompt in session["prompts"]:
            plan = analyse_prompt(prompt["text"])
            if plan.skip is not None:
                continue
            query = embedder.embed_query(plan_query(plan.query, datetime.now(UTC)).text)
            cos, has = index.cosine(np.asarray(query, dtype=np.float32))
            needs = {keys[k] for k in prompt.get("needs", [])}
            needed = np.array([i in needs for i in ids], dtype=bool)
            in_scope = keep & has[rows]
            other = in_scope & (zh != written_in_chinese(plan.query))
            every = pool(cos[rows][in_scope], needed[in_scope])
            across = pool(cos[rows][other], needed[other])
            label = "need" if needs else str(prompt.get("kind", "absent"))[:5]
            out.append(f"{label:5} all[{every}] other-language[{across}] {prompt['text'][:60]!r}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.prompt_vectors")
    parser.add_argument("path", type=Path)
    parser.add_argument("--split", choices=("dev", "test"))
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="rn-prompt-vectors-"))
    try:
        for sc in load(args.path, args.split):
            print(f"# {sc['id']}")
            for line in run_scenario(sc, root):
                print(line)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The search relevance floor on LoCoMo dev: real questions against nonsense queries.

    python eval/nonsense_floor.py [--data /work/shared/data/locomo-dev] [--cache-dir DIR]

Each dev conversation is ingested as `recallnest eval locomo` does (same transcripts, same
embedder, passage vectors from the same cache). For every real question and for 60 seeded
nonsense queries per conversation (made-up words, letter soup, "what is the <word>", CJK
noise) it records whether any query term occurs in a candidate (keyword/exact channels) and
the best raw cosine, then asks `engine.search` and counts queries that returned anything.
Prints one JSON object; the floor is `retrieve.VECTOR_ONLY_MIN_COSINE`.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from recallnest.core.config import Settings
from recallnest.engine import Engine, SearchRequest
from recallnest.evaluation.locomo import CachedEmbedder, write_transcripts
from recallnest.ingest.pipeline import Source, ingest_file
from recallnest.retrieval.query import plan_query

NONSENSE_PER_CONVERSATION = 60
_CJK = "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能"


def nonsense(rng: random.Random, n: int) -> list[str]:
    def word(syllables: int) -> str:
        return "".join(
            rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(syllables)
        )

    forms = [
        lambda: word(4),
        lambda: f"{word(3)} {word(3)}",
        lambda: "".join(rng.choice(string.ascii_lowercase) for _ in range(10)),
        lambda: f"what is the {word(4)}",
        lambda: f"zq{word(2)}x",
        lambda: "".join(rng.choice(_CJK) for _ in range(3)) + word(2),
    ]
    return [forms[k % len(forms)]() for k in range(n)]


def probe(engine: Engine, query: str, project: str) -> dict[str, Any]:
    plan = plan_query(query, datetime.now(UTC))
    keyword = float(engine.index.bm25(plan.terms).max(initial=0.0))
    cos, has = engine.index.cosine(engine.embedder.embed_query(plan.text))  # type: ignore[union-attr]
    hits = engine.search(SearchRequest(query=query, kind="turns", project=project, limit=10))
    return {"keyword": keyword > 0, "cosine": float(cos[has].max(initial=-1.0)), "hits": len(hits)}


def conversation(
    path: Path, cache: Path | None, rng: random.Random
) -> dict[str, list[dict[str, Any]]]:
    conv = json.loads(path.read_text("utf-8"))
    with tempfile.TemporaryDirectory(prefix="rn-floor-") as tmp:
        root = Path(tmp)
        project_dir = write_transcripts(conv, path.stem, root / "claude")
        home = root / "home"
        settings = Settings.load(
            flags={"home": str(home)}, env={"HOME": tmp, "RECALLNEST_HOME": str(home)}
        )
        engine = Engine.open(settings)
        try:
            for f in sorted(project_dir.glob("*.jsonl")):
                ingest_file(Source(str(f), "claude"), None, engine.ingest_batch)
            engine.drain_capture()
            if cache is not None and engine.embedder is not None:
                engine.embedder = CachedEmbedder(engine.embedder, cache)
            while engine.embed_pending(64):
                pass
            project = f"/locomo/{path.stem}"
            real = [probe(engine, str(qa["question"]), project) for qa in conv["qa"]]
            fake = [probe(engine, q, project) for q in nonsense(rng, NONSENSE_PER_CONVERSATION)]
        finally:
            engine.close()
    return {"real": real, "nonsense": fake}


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cos = np.asarray([r["cosine"] for r in rows])
    return {
        "n": len(rows),
        "with_keyword_match": sum(r["keyword"] for r in rows),
        "returned_hits": sum(r["hits"] > 0 for r in rows),
        "best_cosine_max": round(float(cos.max()), 3),
        "best_cosine_p50": round(float(np.percentile(cos, 50)), 3),
        "best_cosine_p5": round(float(np.percentile(cos, 5)), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/locomo-dev"))
    parser.add_argument("--cache-dir", type=Path)
    args = parser.parse_args()
    rng = random.Random(17)
    pooled: dict[str, list[dict[str, Any]]] = {"real": [], "nonsense": []}
    for path in sorted(args.data.glob("*.json")):
        found = conversation(path, args.cache_dir, rng)
        for key in pooled:
            pooled[key] += found[key]
    print(json.dumps({key: summary(rows) for key, rows in pooled.items()}, indent=1))


if __name__ == "__main__":
    main()

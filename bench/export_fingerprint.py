"""Byte-identity check for refactors (issue 19): ingest the eval corpora into fresh homes
through the real pipeline (hash embedder: deterministic, no model) and print the sha256 of the
`recallnest export` text per corpus. Run on the old and the new tree; the lines must be equal.

    PYTHONPATH=<tree> python bench/export_fingerprint.py [--locomo=DIR]
    (default DIR: ../shared/data/locomo-dev)
"""

import hashlib
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path


def imp(new, old):
    import importlib

    try:
        return importlib.import_module(new)
    except ModuleNotFoundError:
        return importlib.import_module(old)


cases = imp("recallnest.evaluation.cases", "recallnest.eval_cases")
locomo = imp("recallnest.evaluation.locomo", "recallnest.eval_locomo")
pipeline = imp("recallnest.ingest.pipeline", "recallnest.ingest")
repair = imp("recallnest.server.backup", "recallnest.repair")
config = imp("recallnest.core.config", "recallnest.config")
Engine = imp("recallnest.engine", "recallnest.engine").Engine

FIXED_NOW = datetime(2026, 12, 1, tzinfo=UTC)
LOCOMO = Path(
    next(
        (a.split("=", 1)[1] for a in sys.argv if a.startswith("--locomo=")),
        str(Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo-dev"),
    )
)
REPO = Path(cases.__file__).resolve().parents[2 if "evaluation" in cases.__file__ else 1]


def fingerprint(files, home):
    s = (
        config.Settings.load(env={"RECALLNEST_HOME": str(home), "RECALLNEST_EMBEDDER": "hash"})
        if hasattr(config.Settings, "load")
        else None
    )
    engine = Engine.open(s)
    try:
        for path in files:
            pipeline.ingest_file(pipeline.Source(str(path), "claude"), None, engine.ingest_batch)
        engine.drain_capture()
        records = engine.export()
        if records and not isinstance(records[0], dict):
            # Memory rows since the engine's results are typed (issue 19); dicts before.
            from pydantic_core import to_jsonable_python

            records = to_jsonable_python(records)
        text = repair.export_text(records)
        counts = engine.store.counts()
    finally:
        engine.close()
    return hashlib.sha256(text.encode()).hexdigest()[:16], counts["turns"], counts["memories"], text


with tempfile.TemporaryDirectory(prefix="rn-fp-") as tmp:
    root = Path(tmp)
    turns = cases.load_corpus(REPO / "eval" / "cases")
    files = cases.write_transcripts(turns, root / "claude", FIXED_NOW - cases.AS_OF)
    h, t, m, text = fingerprint(files, root / "home")
    print(f"eval/cases  turns={t} memories={m} sha256={h}")
    import json

    for conv_path in sorted(LOCOMO.glob("*.json")):
        conv = json.loads(conv_path.read_text("utf-8"))
        project = locomo.write_transcripts(conv, conv_path.stem, root / f"locomo-{conv_path.stem}")
        h, t, m, _ = fingerprint(sorted(project.glob("*.jsonl")), root / f"home-{conv_path.stem}")
        print(f"locomo/{conv_path.stem}  turns={t} memories={m} sha256={h}")

"""Backfill without a daemon: read existing transcripts into the database in this process."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings


def backfill_local(
    settings: Settings,
    agent: str | None,
    roots: list[str],
    since: float | None,
    on_file: Callable[[int, int], None] | None,
    on_capture: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ingest existing transcripts in this process (the daemon must not run: it owns the
    database). `since` is a POSIX time or None; `roots` default to the watched roots."""
    from recallnest.engine import Engine  # not at import: control (the CLI's) stays light
    from recallnest.ingest.pipeline import Collector, FileReport, ingest_file, transcript_files

    started = time.perf_counter()
    engine = Engine.open(settings)
    try:
        paths = [Path(r) for r in roots] or settings.watched_roots()
        sources = list(transcript_files(paths, since, agent))
        report = FileReport()
        collect = Collector(engine.ingest_batch)
        gemini_home = str(settings.gemini_dir.parent)
        cursors = engine.store.cursors()
        memories_before = engine.store.counts()["memories"]
        for n, source in enumerate(sources, 1):
            source = source.__class__(source.path, source.agent, gemini_home)
            known = cursors.get(source.path)
            report.add(ingest_file(source, known, collect, stored=engine.store.turn_ids_of_path))
            if on_file:
                on_file(n, len(sources))
        collect.flush()
        stored = time.perf_counter()
        engine.drain_capture(on_capture)
        report.new_turns = collect.new_turns
        report.memories = engine.store.counts()["memories"] - memories_before
        return {
            **report.as_dict(),
            "store_seconds": round(stored - started, 3),
            "capture_seconds": round(time.perf_counter() - stored, 3),
        }
    finally:
        engine.close()

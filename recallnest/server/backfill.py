"""Backfill: read existing transcripts into the database, in the daemon (it owns the database
while it runs) or, without one, in this process. Both go through `run_backfill`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest.core.config import Settings

if TYPE_CHECKING:
    from recallnest.engine import Engine
    from recallnest.ingest.pipeline import Collector, FileReport, Source


@dataclass(frozen=True, slots=True)
class Backfill:
    """What a backfill read (an `ingest.pipeline.FileReport`'s counts, summed over the files)
    and stored, and the seconds spent storing turns, then capturing memories from them."""

    files: int = 0
    turns: int = 0
    new_turns: int = 0
    tool_uses: int = 0
    skipped_lines: int = 0
    oversized_lines: int = 0
    redactions: int = 0
    memories: int = 0
    restarts: int = 0
    special_files: int = 0
    errors: list[str] = field(default_factory=list)
    store_seconds: float = 0.0
    capture_seconds: float = 0.0

    @classmethod
    def from_json(cls, answer: Mapping[str, Any]) -> Backfill:
        """The daemon's `ingest` answer; a key this version does not know is left out, one it
        lacks keeps its default (the daemon may run an older or newer version)."""
        return cls(**{f.name: answer[f.name] for f in fields(cls) if f.name in answer})


def run_backfill(
    engine: Engine,
    sources: Sequence[Source],
    read: Callable[[Source, Collector], FileReport],
    drain: Callable[[], object],
    on_file: Callable[[int, int], None] | None = None,
) -> Backfill:
    """Read each source (`read` feeds its turns to the collector), store them, then run the
    memory capture that large batches queue (`drain`)."""
    from recallnest.ingest.pipeline import Collector, FileReport

    started = time.perf_counter()
    report = FileReport()
    collect = Collector(engine.ingest_batch)
    memories_before = engine.store.counts()["memories"]
    for n, source in enumerate(sources, 1):
        report.add(read(source, collect))
        if on_file:
            on_file(n, len(sources))
    collect.flush()
    stored = time.perf_counter()
    drain()
    report.new_turns = collect.new_turns
    report.memories = engine.store.counts()["memories"] - memories_before
    return Backfill(
        **asdict(report),
        store_seconds=round(stored - started, 3),
        capture_seconds=round(time.perf_counter() - stored, 3),
    )


def backfill_local(
    settings: Settings,
    agent: str | None,
    roots: list[str],
    since: float | None,
    on_file: Callable[[int, int], None] | None,
    on_capture: Callable[[int, int], None] | None = None,
) -> Backfill:
    """Ingest existing transcripts in this process (the daemon must not run: it owns the
    database). `since` is a POSIX time or None; `roots` default to the watched roots."""
    from recallnest.engine import Engine  # not at import: control (the CLI's) stays light
    from recallnest.ingest.pipeline import ingest_file, transcript_files

    engine = Engine.open(settings)
    try:
        paths = [Path(r) for r in roots] or settings.watched_roots()
        gemini_home = str(settings.gemini_dir.parent)
        cursors = engine.store.cursors()

        def read(source: Source, collect: Collector) -> FileReport:
            source = source.__class__(source.path, source.agent, gemini_home)
            known = cursors.get(source.path)
            return ingest_file(source, known, collect, stored=engine.store.turn_ids_of_path)

        sources = list(transcript_files(paths, since, agent))
        drain = lambda: engine.drain_capture(on_capture)  # noqa: E731
        return run_backfill(engine, sources, read, drain, on_file)
    finally:
        engine.close()

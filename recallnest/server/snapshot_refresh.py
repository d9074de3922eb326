"""The daemon's side of snapshot.py: keep every project's resume snapshot current, so a
session that starts while the daemon is down still gets its project's notes.

When the store changed (its generation moved) and SNAPSHOT_EVERY_SECONDS passed since the
last round began, a new round lists the projects (global first, then the newest
MAX_PROJECTS with notes or a checkpoint); each call then writes at most BATCH of them, so the
ingest thread never spends more than a fraction of a second on it (a cold resume context is
~20 ms a project on a loaded machine). The round's end removes snapshots of projects that no
longer have notes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from recallnest.continuity import snapshot
from recallnest.core.redact import redact

if TYPE_CHECKING:
    from recallnest.engine import Engine

SNAPSHOT_EVERY_SECONDS = 30.0
MAX_PROJECTS = 200
BATCH = 8
# No agent: compose then keeps within the tightest of the agents' caps, so one snapshot fits
# whichever agent reads it.
ANY_AGENT = ""


class SnapshotKeeper:
    def __init__(self, home: Path) -> None:
        self.home = home
        self._generation: int | None = None  # of the current (or last) round
        self._next_round = 0.0
        self._pending: list[str | None] = []
        self._kept: set[Path] = set()
        self._stamp = ""

    def refresh(self, engine: Engine, keep_going: Callable[[], bool] = lambda: True) -> int:
        """Write the next few snapshots of the round, starting a round when due; how many
        projects this call went through (0: nothing due). `keep_going` is asked before each
        project after the first: False leaves the rest of the batch for a later call (the
        daemon's: a request came in)."""
        if not self._pending:
            if not self._round_due(engine):
                return 0
            self._start_round(engine)
        done = 0
        while self._pending and done < BATCH and (done == 0 or keep_going()):
            project = self._pending.pop(0)
            written = write_one(engine, self.home, project, self._stamp)
            if written is not None:
                self._kept.add(written)
            done += 1
        if not self._pending:
            snapshot.prune(self.home, self._kept)
        return done

    def _round_due(self, engine: Engine) -> bool:
        changed = engine.store.generation != self._generation
        return changed and time.monotonic() >= self._next_round

    def _start_round(self, engine: Engine) -> None:
        self._generation = engine.store.generation
        self._next_round = time.monotonic() + SNAPSHOT_EVERY_SECONDS
        self._pending = [None, *engine.store.resume_projects(MAX_PROJECTS)]
        self._kept = set()
        self._stamp = datetime.now(UTC).isoformat(timespec="seconds")


def write_one(engine: Engine, home: Path, project: str | None, stamp: str) -> Path | None:
    """The startup resume text of `project` (None: global notes only), redacted again, as
    its snapshot; None when there is nothing to say."""
    resume = engine.continuity.resume(project, ANY_AGENT, source="startup", record=False)
    text = redact(resume.text)[0]
    if not text.strip():
        return None
    return snapshot.write(home, snapshot.Snapshot(project, stamp, text))

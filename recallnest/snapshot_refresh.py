"""The daemon's side of snapshot.py: rewrite every project's resume snapshot when notes or
checkpoints changed, at most every SNAPSHOT_EVERY_SECONDS, so a session that starts while
the daemon is down still gets its project's notes."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from recallnest import snapshot
from recallnest.redact import redact

if TYPE_CHECKING:
    from recallnest.engine import Engine

SNAPSHOT_EVERY_SECONDS = 30.0
MAX_PROJECTS = 500
# No agent: compose then keeps within the tightest of the agents' caps, so one snapshot fits
# whichever agent reads it.
ANY_AGENT = ""


class SnapshotKeeper:
    def __init__(self, home: Path) -> None:
        self.home = home
        self._written: int | None = None
        self._next = 0.0

    def refresh(self, engine: Engine, force: bool = False) -> int | None:
        """Rewrite the snapshots if due; how many were written, or None when not due."""
        key = engine.store.generation  # bumped by every write that can change a resume
        now = time.monotonic()
        if not force and (key == self._written or now < self._next):
            return None
        written = write_all(engine, self.home)
        self._written, self._next = key, now + SNAPSHOT_EVERY_SECONDS
        return written


def write_all(engine: Engine, home: Path) -> int:
    """One snapshot per project with notes (newest MAX_PROJECTS) and one global; stale
    snapshots are removed."""
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    keep = set()
    for project in [None, *engine.store.resume_projects(MAX_PROJECTS)]:
        result = engine.continuity.resume(project, ANY_AGENT, source="startup", record=False)
        text = redact(str(result.get("text") or ""))[0]
        if text.strip():
            keep.add(snapshot.write(home, snapshot.Snapshot(project, stamp, text)))
    snapshot.prune(home, keep)
    return len(keep)

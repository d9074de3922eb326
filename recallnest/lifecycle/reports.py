"""What the lifecycle tasks report: typed results that cross the socket as JSON (jsonable)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Applied:
    """An automatic change (expire, retier): how many memories it changed, the undo entry
    that reverts it, or why it wrote nothing this time."""

    changed: int
    undo_id: int | None
    skipped: str | None = None


NOTHING = Applied(0, None)


@dataclass(frozen=True, slots=True)
class MaintenancePass:
    """Every task once (`maintain`): the reads flushed, each task's own report."""

    access_flushed: int
    expire: Applied
    retier: Applied
    consolidate: dict[str, Any]  # the brief of consolidation's report (lifecycle.consolidation)
    retention: dict[str, int]
    prune_undo: int
    compact: dict[str, Any]

"""What the lifecycle tasks report: typed results that cross the socket as JSON (jsonable)."""

from __future__ import annotations

from dataclasses import dataclass, field
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
class SizeReport:
    """The database file's bytes, the live-data estimate and their ratio."""

    file_bytes: int
    live_bytes: int
    ratio: float | None


@dataclass(frozen=True, slots=True)
class Compaction:
    """A compaction, or why none ran (`compacted` false: the file was small enough)."""

    compacted: bool
    before: SizeReport
    after: SizeReport | None = None
    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Retention:
    """What the retention policy deleted: turns, and tool calls older than its cutoff."""

    turns: int = 0
    tool_uses: int = 0


@dataclass(frozen=True, slots=True)
class ConsolidationReport:
    """A consolidation run: what it compared with, the counts by kind of change, each change
    (`changes`; a count only in a maintenance pass's brief), its undo entry, or why it
    wrote nothing (`skipped`)."""

    dry_run: bool
    model: str | None
    similarity: str
    stats: dict[str, int]
    changes: list[dict[str, Any]] = field(default_factory=list)
    undo_id: int | None = None
    skipped: str | None = None

    def brief(self) -> ConsolidationBrief:
        return ConsolidationBrief(
            self.dry_run, self.model, self.similarity, self.stats, len(self.changes),
            self.undo_id, self.skipped,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class ConsolidationBrief:
    """A consolidation report with its changes counted, not listed."""

    dry_run: bool
    model: str | None
    similarity: str
    stats: dict[str, int]
    changes: int
    undo_id: int | None
    skipped: str | None


@dataclass(frozen=True, slots=True)
class ForgetCounts:
    """How many rows of each kind a `forget` removed (`docs`: rows of the search index)."""

    memories: int
    trimmed: int
    turns: int
    docs: int
    checkpoints: int
    tool_uses: int
    undo_entries: int
    compaction: Compaction | None = None


@dataclass(frozen=True, slots=True)
class Forgotten:
    """A `forget`: the memory ids removed, the ids asked for that were not found, counts."""

    forgotten: list[str]
    missing: list[str]
    counts: ForgetCounts


@dataclass(frozen=True, slots=True)
class ForgetPreview:
    """What a `forget` would remove (`--dry-run`): counts and the first memories' texts."""

    memories: int
    trimmed: int
    turns: int
    checkpoints: int
    preview: list[dict[str, Any]]
    missing: list[str]


@dataclass(frozen=True, slots=True)
class Undone:
    """An undo: the entry, its kind and how many prior rows it restored."""

    undo_id: int
    kind: str
    restored: int


@dataclass(frozen=True, slots=True)
class Resolved:
    """A settled conflict and which side was kept (`older`, `newer` or `both`)."""

    id: int
    kept: str


@dataclass(frozen=True, slots=True)
class Changed:
    """The user's marks (pin, tier, expiry) or approvals: the ids changed, how many were
    already so."""

    changed: list[str]
    unchanged: int


@dataclass(frozen=True, slots=True)
class Approved:
    """Captures held for review that became active, and how many were not pending."""

    approved: list[str]
    unchanged: int


@dataclass(frozen=True, slots=True)
class Edited:
    """An edit: the memory that now holds the text, whether anything changed, the one it
    replaces and the redactions its new text went through."""

    id: str
    edited: bool
    replaces: str | None = None
    redactions: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class MaintenancePass:
    """Every task once (`maintain`): the reads flushed, each task's own report."""

    access_flushed: int
    expire: Applied
    retier: Applied
    consolidate: ConsolidationBrief
    retention: Retention
    prune_undo: int
    compact: Compaction

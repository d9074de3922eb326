"""Plain frozen values that flow along the pipeline: Turn, ToolUse, Retraction, Capture,
Memory, and what a search gives back (SearchHit, Explain). No I/O, no third-party imports;
every other module may import this one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Literal

from recallnest.core import heap
from recallnest.core.identity import PROJECT_IDS
from recallnest.core.marker import CONTEXT_MARKER as CONTEXT_MARKER  # re-exported

AGENTS: tuple[str, ...] = ("claude", "codex", "gemini")
ROLES: tuple[str, ...] = ("user", "assistant")
CATEGORIES: tuple[str, ...] = ("profile", "preferences", "entities", "events", "cases", "patterns")
TIERS: tuple[str, ...] = ("core", "working", "peripheral")
# `pending`: an automatic capture held for the user's approval (the `review_captures` setting);
# search, resume and prompt recall read `active` memories only, so it is kept out of them.
STATUSES: tuple[str, ...] = ("active", "pending", "superseded", "archived")
GLOBAL_SCOPE = "global"


# Namespace for deterministic ids (UUIDv5). Never change it: ids are persisted.
ID_NAMESPACE = uuid.UUID("6f1d8a52-3c1b-5e7a-9b0e-7a5c0d2e4f11")

Role = Literal["user", "assistant"]
TurnKind = Literal["message", "summary"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One user or assistant message, normalised from any agent's transcript.

    Identity is (agent, session_id, record_id): a later Turn with the same identity replaces
    the earlier one (parsers emit the full merged text of split messages and upserts).
    `kind="summary"` marks compaction summaries: session material, not user speech.
    """

    agent: str
    session_id: str
    role: Role
    text: str
    timestamp: datetime | None
    path: str
    record_id: str
    offset: int
    cwd: str | None = None
    kind: TurnKind = "message"
    model: str | None = None
    git_branch: str | None = None
    parent_session_id: str | None = None
    project: str | None = None

    @property
    def id(self) -> str:
        return turn_id(self.agent, self.session_id, self.record_id)


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call seen in a transcript: which files it touched and which command it ran."""

    agent: str
    session_id: str
    name: str
    timestamp: datetime | None
    record_id: str
    files: tuple[str, ...] = ()
    command: str | None = None
    cwd: str | None = None


@dataclass(frozen=True, slots=True)
class Retraction:
    """Turns withdrawn by the agent (Gemini `$rewindTo`, Claude rewind branches)."""

    agent: str
    session_id: str
    record_ids: tuple[str, ...]


Event = Turn | ToolUse | Retraction


@dataclass(frozen=True, slots=True)
class Capture:
    """A candidate durable memory produced by the capture heuristics from a turn."""

    category: str
    text: str
    importance: float
    confidence: float
    rule: str
    scope: str = GLOBAL_SCOPE
    subject: str | None = None
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Memory:
    """A durable memory row."""

    id: str
    scope: str
    category: str
    text: str
    importance: float = 0.5
    confidence: float = 1.0
    tier: str = "working"
    status: str = "active"
    evidence: tuple[str, ...] = ()
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_accessed_at: datetime | None = None
    access_count: int = 0
    source: str = "manual"
    rule: str | None = None
    superseded_by: str | None = None
    subject: str | None = None
    pinned: bool = False
    valid_until: datetime | None = None


@dataclass(frozen=True, slots=True)
class Explain:
    """Why a hit ranks where it does: its rank in each channel it came from (keyword, exact,
    vector) and each scoring stage's contribution (fused, context, session, importance, date,
    latest); the final score is their sum."""

    ranks: dict[str, int]
    parts: dict[str, float]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result. Memory fields are None for turns and turn fields None for memories.
    The field order is the order of the keys a search prints (the socket's JSON)."""

    kind: str
    id: str
    text: str
    score: float
    scope: str | None = None
    category: str | None = None
    status: str | None = None
    importance: float | None = None
    project: str | None = None
    agent: str | None = None
    session_id: str | None = None
    role: str | None = None
    timestamp: datetime | None = None
    path: str | None = None
    record_id: str | None = None
    source: str | None = None
    evidence: tuple[str, ...] | None = None
    explain: Explain | None = None


@dataclass(frozen=True, slots=True)
class Remembered:
    """What `remember` stored: the memory, whether it is new (else an existing one was
    refreshed), the kinds of secret redacted from the text, the ids it superseded."""

    memory: Memory
    created: bool
    redactions: tuple[str, ...]
    superseded: tuple[str, ...]

    @property
    def id(self) -> str:
        return self.memory.id


@dataclass(frozen=True, slots=True)
class Forgotten:
    forgotten: list[str]
    missing: list[str]  # ids asked for that no memory has


@dataclass(frozen=True, slots=True)
class Imported:
    imported: int


@dataclass(frozen=True, slots=True)
class Reindexed:
    model: str
    embedded: int
    dropped_vectors: int  # vectors of other models, dropped first


@lru_cache(maxsize=65536)
def turn_id(agent: str, session_id: str, record_id: str) -> str:
    """Deterministic turn id: re-reading a transcript never makes a second row."""
    return str(uuid.uuid5(ID_NAMESPACE, f"turn\x1f{agent}\x1f{session_id}\x1f{record_id}"))


heap.droppable(turn_id.cache_clear)  # a backfill's ids: not worth keeping once it is over


def memory_id(scope: str, canonical_text: str) -> str:
    """Deterministic memory id: UUIDv5 of the scope's id basis (its project's portable id,
    `core.identity`) + canonical text: one fact has one id on every machine."""
    return memory_id_of_basis(PROJECT_IDS.basis(scope, GLOBAL_SCOPE), canonical_text)


def memory_id_of_basis(basis: str, canonical_text: str) -> str:
    """The id of a memory whose scope has id basis `basis` (before issue 21, the scope)."""
    return str(uuid.uuid5(ID_NAMESPACE, f"memory\x1f{basis}\x1f{canonical_text}"))

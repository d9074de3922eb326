"""The stable JSON shapes of recallnest's output (`--json`, the daemon protocol, exports).

Field names here are a public contract: add fields, never rename or remove them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from recallnest.core.models import Memory


class MemoryOut(BaseModel):
    id: str
    scope: str
    category: str
    text: str
    importance: float
    confidence: float
    tier: str
    status: str
    evidence: list[str]
    created_at: datetime | None
    updated_at: datetime | None
    last_accessed_at: datetime | None
    access_count: int
    source: str
    rule: str | None
    superseded_by: str | None
    subject: str | None
    pinned: bool
    valid_until: datetime | None

    @classmethod
    def of(cls, m: Memory) -> MemoryOut:
        return cls(
            id=m.id,
            scope=m.scope,
            category=m.category,
            text=m.text,
            importance=m.importance,
            confidence=m.confidence,
            tier=m.tier,
            status=m.status,
            evidence=list(m.evidence),
            created_at=m.created_at,
            updated_at=m.updated_at,
            last_accessed_at=m.last_accessed_at,
            access_count=m.access_count,
            source=m.source,
            rule=m.rule,
            superseded_by=m.superseded_by,
            subject=m.subject,
            pinned=m.pinned,
            valid_until=m.valid_until,
        )

    def to_memory(self) -> Memory:
        data = self.model_dump()
        data["evidence"] = tuple(data["evidence"])
        return Memory(**data)


class ExplainOut(BaseModel):
    """Why a hit ranks where it does: its rank in each channel it came from (keyword, exact,
    vector) and each scoring stage's contribution (fused, context, session, importance, date,
    latest); the final score is their sum."""

    ranks: dict[str, int]
    parts: dict[str, float]


class HitOut(BaseModel):
    """One search result. Memory fields are null for turns and turn fields null for memories."""

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
    evidence: list[str] | None = None
    explain: ExplainOut | None = None


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")

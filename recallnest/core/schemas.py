"""The stable JSON shapes of recallnest's output (`--json`, the daemon protocol, exports).

Field names here are a public contract: add fields, never rename or remove them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from recallnest.core.errors import RecallnestError
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


def memories_of(records: Iterable[Mapping[str, Any]]) -> list[Memory]:
    """Exported memory records (an `export` file, a backup, the socket's `import`) as
    memories; a malformed one raises RecallnestError naming it and its first bad field."""
    memories = []
    for n, record in enumerate(records, 1):
        try:
            memory = MemoryOut.model_validate(record).to_memory()
        except ValueError as exc:  # pydantic's ValidationError: many lines, one per field
            raise RecallnestError(f"record {n} is not a memory: {_first_error(exc)}") from exc
        memories.append(memory)
    return memories


def _first_error(exc: ValueError) -> str:
    """One line describing a validation error: its first field, and how many more failed."""
    if not isinstance(exc, ValidationError) or not exc.errors():
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    found = exc.errors()
    where = ".".join(str(p) for p in found[0]["loc"]) or "record"
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"{where}: {found[0]['msg']}{more}"


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")


def jsonable(value: object) -> Any:
    """A typed result (a dataclass, nested or in a list) as the socket carries it: the JSON a
    pydantic model of the same fields dumps, datetimes in the same ISO form."""
    return to_jsonable_python(value)

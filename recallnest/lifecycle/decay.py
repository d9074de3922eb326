"""Memory decay and tiers, on conversation time. Pure: no I/O, no clock (time is an argument).

Decay. A memory's strength is a Weibull survival curve over its age, floored by its tier:

    age        = conversation days since its last reinforcement (latest of last access,
                 update, creation): days on which the user talked to an agent in this scope,
                 so a month away from a project does not make its memories fade
    half_life  = BASE_HALF_LIFE_DAYS[category]
                 × 3 ** ((importance - 0.5) / 0.4)          importance 0.1 → ⅓×, 0.9 → 3×
                 × (1 + REINFORCE_GAIN · ln(1 + reads + restatements))
    survival   = exp(-(age / λ) ** WEIBULL_SHAPE),   λ = half_life / ln(2) ** (1 / shape)
    score      = floor[tier] + (1 - floor[tier]) · survival;  1.0 when pinned

Shape 0.8 < 1 gives the forgetting-curve shape: a fast early drop, then a long tail, so a
memory that survived its first weeks fades slowly. Half-lives are in conversation days
(about 200 a year for a daily user): identity and preferences hold for months, workflow
patterns and project facts change with the code, events are tied to their time.

Tiers (the rules `retier` applies; documented in docs/decisions/0006-lifecycle.md):
- core: only the user sets it (`recallnest memories tier ID core`); never changed here, floor
  0.6, so a core preference never fades out. Consolidation and decay never touch core or
  pinned memories.
- working (floor 0.1): where new memories start. Demoted to peripheral when its score drops
  below DEMOTE_BELOW.
- peripheral (floor 0.0): promoted back to working when its score reaches PROMOTE_AT again,
  which a read (search or resume) or a restatement does at once (age restarts at 0). The gap
  between the two thresholds keeps a memory from flapping.

Reads are counted in memory (`AccessTracker`) and flushed in one batch, never one write per
read.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from datetime import date, datetime
from typing import Any

from recallnest.core.models import GLOBAL_SCOPE, Memory
from recallnest.core.timeparse import as_utc

__all__ = [
    "BASE_HALF_LIFE_DAYS",
    "DEMOTE_BELOW",
    "PROMOTE_AT",
    "TIER_FLOORS",
    "WEIBULL_SHAPE",
    "AccessTracker",
    "Clocks",
    "ConversationClock",
    "decay_score",
    "expired",
    "memory_from_json",
    "memory_to_json",
    "protected",
    "retier",
]

WEIBULL_SHAPE = 0.8
BASE_HALF_LIFE_DAYS: dict[str, float] = {
    "profile": 180.0,
    "preferences": 120.0,
    "patterns": 90.0,
    "entities": 60.0,
    "cases": 45.0,
    "events": 30.0,
}
DEFAULT_HALF_LIFE_DAYS = 60.0
IMPORTANCE_BASE = 3.0  # half-life × 3 per +0.4 importance (÷ 3 per -0.4)
IMPORTANCE_STEP = 0.4
REINFORCE_GAIN = 0.5
TIER_FLOORS: dict[str, float] = {"core": 0.6, "working": 0.1, "peripheral": 0.0}
DEMOTE_BELOW = 0.25
PROMOTE_AT = 0.5

_SECONDS_PER_DAY = 86_400.0


# --------------------------------------------------------------------------- conversation time


@dataclass(frozen=True, slots=True)
class ConversationClock:
    """Days with conversation (as ordinals, sorted): elapsed time counts only those days."""

    days: tuple[int, ...] = ()

    @classmethod
    def of(cls, days: Iterable[date]) -> ConversationClock:
        return cls(tuple(sorted({d.toordinal() for d in days})))

    def elapsed(self, start: datetime, end: datetime) -> float:
        """Conversation days after `start`'s day up to and including `end`'s day."""
        lo, hi = as_utc(start).date().toordinal(), as_utc(end).date().toordinal()
        if hi <= lo:
            return 0.0
        return float(bisect_right(self.days, hi) - bisect_right(self.days, lo))


class Clocks:
    """One clock per project scope (its own conversation days) and one for global memories
    (every day with conversation). A scope without recorded days uses the global clock."""

    def __init__(self, activity: Mapping[str, Iterable[date]]) -> None:
        by_project = {p: ConversationClock.of(days) for p, days in activity.items()}
        self._clocks = {p: c for p, c in by_project.items() if p and c.days}
        every = sorted({d for c in by_project.values() for d in c.days})
        self.global_clock = ConversationClock(tuple(every))

    def for_scope(self, scope: str) -> ConversationClock:
        if scope == GLOBAL_SCOPE:
            return self.global_clock
        return self._clocks.get(scope, self.global_clock)


# --------------------------------------------------------------------------- decay


def protected(memory: Memory) -> bool:
    """Pinned or core: the user's word; decay and consolidation never change it."""
    return memory.pinned or memory.tier == "core"


def half_life_days(memory: Memory) -> float:
    base = BASE_HALF_LIFE_DAYS.get(memory.category, DEFAULT_HALF_LIFE_DAYS)
    importance = math.pow(IMPORTANCE_BASE, (memory.importance - 0.5) / IMPORTANCE_STEP)
    reinforced = memory.access_count + max(len(memory.evidence) - 1, 0)
    return base * importance * (1.0 + REINFORCE_GAIN * math.log1p(reinforced))


def decay_score(memory: Memory, now: datetime, clock: ConversationClock | None = None) -> float:
    """Strength of a memory in [0, 1] at `now` (see the module docstring). With no `clock`,
    age is counted in calendar days."""
    if memory.pinned:
        return 1.0
    floor = TIER_FLOORS.get(memory.tier, 0.0)
    anchor = _anchor(memory)
    if anchor is None:
        return 1.0
    if clock is None:
        age = max((as_utc(now) - as_utc(anchor)).total_seconds(), 0.0) / _SECONDS_PER_DAY
    else:
        age = clock.elapsed(anchor, now)
    scale = half_life_days(memory) / math.log(2) ** (1.0 / WEIBULL_SHAPE)
    survival = math.exp(-math.pow(age / scale, WEIBULL_SHAPE))
    return floor + (1.0 - floor) * survival


def retier(memories: Iterable[Memory], now: datetime, clocks: Clocks | None = None) -> list[Memory]:
    """The memories whose tier changes at `now`, with the new tier (see the module docstring).
    Pinned, core and inactive memories never change."""
    changed = []
    for m in memories:
        if protected(m) or m.status != "active":
            continue
        score = decay_score(m, now, clocks.for_scope(m.scope) if clocks else None)
        # Trigger: a working memory fell below DEMOTE_BELOW / a peripheral one is back at
        # PROMOTE_AT. Why: the resume context ranks working above peripheral, and the gap
        # between the two stops flapping. Outcome: the tier changes; nothing else does.
        if m.tier == "working" and score < DEMOTE_BELOW:
            changed.append(replace(m, tier="peripheral"))
        elif m.tier == "peripheral" and score >= PROMOTE_AT:
            changed.append(replace(m, tier="working"))
    return changed


def expired(memories: Iterable[Memory], now: datetime) -> list[Memory]:
    """Active memories past their `valid_until`, archived (resume never shows them)."""
    return [
        replace(m, status="archived", updated_at=now)
        for m in memories
        if m.status == "active"
        and m.valid_until is not None
        and as_utc(m.valid_until) <= as_utc(now)
    ]


def _anchor(memory: Memory) -> datetime | None:
    moments = [d for d in (memory.last_accessed_at, memory.updated_at, memory.created_at) if d]
    return max(moments, key=as_utc) if moments else None


# --------------------------------------------------------------------------- reads


class AccessTracker:
    """Reads of memories (search hits, resume items), counted in memory until flushed.
    Thread-safe: the daemon's request threads record, its ingest thread drains."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[int, datetime]] = {}

    def record(self, ids: Iterable[str], when: datetime) -> None:
        with self._lock:
            for memory_id in dict.fromkeys(ids):
                n, last = self._pending.get(memory_id, (0, when))
                self._pending[memory_id] = (n + 1, max(last, when, key=as_utc))

    def drain(self) -> dict[str, tuple[int, datetime]]:
        """The counts so far ((reads, last read) by id); the tracker starts again empty."""
        with self._lock:
            pending, self._pending = self._pending, {}
        return pending

    def drain_ids(self, ids: Iterable[str]) -> None:
        """Drop the pending counts of `ids` (they were forgotten)."""
        with self._lock:
            for memory_id in ids:
                self._pending.pop(memory_id, None)

    def restore(self, pending: Mapping[str, tuple[int, datetime]]) -> None:
        """Put drained counts back (their flush failed), merged with newer reads."""
        with self._lock:
            for memory_id, (n, last) in pending.items():
                m, later = self._pending.get(memory_id, (0, last))
                self._pending[memory_id] = (n + m, max(last, later, key=as_utc))

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


# --------------------------------------------------------------------------- exact row codec

_TIME_FIELDS = ("created_at", "updated_at", "last_accessed_at", "valid_until")


def memory_to_json(memory: Memory) -> dict[str, Any]:
    """Every field of a memory as JSON-able values; `memory_from_json` restores it exactly
    (floats round-trip through repr, datetimes through ISO 8601 with microseconds)."""
    out: dict[str, Any] = {f.name: getattr(memory, f.name) for f in fields(Memory)}
    out["evidence"] = list(memory.evidence)
    for name in _TIME_FIELDS:
        value = out[name]
        out[name] = None if value is None else value.isoformat()
    return out


def memory_from_json(data: Mapping[str, Any]) -> Memory:
    values = dict(data)
    values["evidence"] = tuple(values["evidence"])
    for name in _TIME_FIELDS:
        raw = values[name]
        values[name] = None if raw is None else datetime.fromisoformat(raw)
    return Memory(**values)

"""Resume candidates kept fresh without reading them all again: after a write that changed only
some memories, the cached best-N of each (scope, categories) group is patched with those rows.

The result is the list `Store.resume_memories` would return (same rows, same order), or None
when it cannot be known from the cache: a group that was full lost a row, or a row in it fell
in rank, so the row that now takes its place may be one the cache never held.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from datetime import UTC, datetime

from recallnest.core.models import Memory

_TIER_RANK = {"core": 0, "working": 1, "peripheral": 2}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Key = tuple[bool, float, int, bool, int, str]


def resume_key(memory: Memory) -> Key:
    """The store's resume order (`store.sql._RESUME_ORDER`) as a sort key: pinned first, then
    round(importance × confidence, 6) high to low, tier, newest change first (no date last),
    then id."""
    when = memory.updated_at or memory.created_at
    micros = 0 if when is None else _micros(when)
    return (
        not memory.pinned,
        -_round6(memory.importance * memory.confidence),
        _TIER_RANK.get(memory.tier, 3),
        when is None,
        -micros,
        memory.id,
    )


def patch_candidates(
    cached: Sequence[Memory],
    fresh: Sequence[Memory],
    changed: Collection[str],
    groups: Sequence[tuple[str, Sequence[str]]],
    per_group: int,
) -> list[Memory] | None:
    """`cached` (a `resume_memories` result for `groups`) after the memories `changed` became
    `fresh` (their current rows; a changed id missing from `fresh` was deleted)."""
    now_by_id = {m.id: m for m in fresh}
    out: list[Memory] = []
    for scope, categories in groups:
        cats = frozenset(categories)
        held = [m for m in cached if m.scope == scope and m.category in cats]
        full = len(held) >= per_group
        kept: list[Memory] = []
        for old in held:
            if old.id not in changed:
                kept.append(old)
                continue
            new = now_by_id.get(old.id)
            if not full:
                continue  # the cache held every row of the group: the fresh row is added below
            if new is None or not _qualifies(new, scope, cats) or resume_key(new) > resume_key(old):
                return None  # its place may belong to a row the cache never saw
        known = {m.id for m in kept}
        kept += [m for m in fresh if m.id not in known and _qualifies(m, scope, cats)]
        out += sorted(kept, key=resume_key)[:per_group]
    return out


def _qualifies(memory: Memory, scope: str, categories: frozenset[str]) -> bool:
    """What `resume_memories` selects for a group."""
    return (
        memory.status == "active"
        and memory.superseded_by is None
        and memory.scope == scope
        and memory.category in categories
    )


def _round6(value: float) -> float:
    """DuckDB's round(x, 6) on a DOUBLE: std::round(x * 1e6) / 1e6, halves away from zero
    (Python's round() goes to even, and adding 0.5 before floor() can round up twice)."""
    if not math.isfinite(value):
        return value
    scaled = abs(value) * 1e6
    whole = math.floor(scaled)
    rounded = whole + (1.0 if scaled - whole >= 0.5 else 0.0)
    return math.copysign(rounded, value) / 1e6


def _micros(when: datetime) -> int:
    aware = when if when.tzinfo else when.replace(tzinfo=UTC)
    return (aware - _EPOCH) // _MICROSECOND


_MICROSECOND = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC) - _EPOCH

"""Conflict resolutions as synced fields (issue 21). A conflict is a pair of memories, and
memory ids are portable, so the pair names one conflict on every machine. Its resolution rides
on the register of the pair's smaller id as the field `resolved:<other id>`, holding the id
kept, or `both`: merged like any field (the latest resolution wins), dropped with the memory
when it is forgotten. The memories' own changes (the dropped one superseded) travel as their
fields already; this carries the decision, so another machine closes the same conflict (or
never flags it: a pair flagged once, in any status, is not flagged again).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

PREFIX = "resolved:"
BOTH = "both"
_FIELD = re.compile(r"^resolved:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def is_resolution(name: str) -> bool:
    return name.startswith(PREFIX)


def valid(mem_id: str, name: str, value: Any) -> bool:
    """A well-formed resolution field of memory `mem_id`: the other id (greater than its own),
    and the id kept (one of the two) or `both`."""
    if not _FIELD.match(name) or not isinstance(value, str):
        return False
    other = name.removeprefix(PREFIX)
    return mem_id < other and value in (BOTH, mem_id, other)


def kept_id(a_id: str, b_id: str, keep: str) -> str:
    """The local resolution (`older` keeps a, `newer` keeps b, `both`) as the id kept."""
    return {"older": a_id, "newer": b_id}.get(keep, BOTH)


def outgoing(resolved: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
    """Resolved conflicts (a_id, b_id, keep) as fields, by the memory whose register holds
    them."""
    out: dict[str, dict[str, str]] = {}
    for a_id, b_id, keep in resolved:
        low, high = sorted((a_id, b_id))
        out.setdefault(low, {})[PREFIX + high] = kept_id(a_id, b_id, keep)
    return out


def split(fields: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(the memory's own fields, its resolution fields)."""
    own = {k: v for k, v in fields.items() if not is_resolution(k)}
    return own, {k: str(v) for k, v in fields.items() if is_resolution(k)}


def incoming(mem_id: str, fields: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(low id, high id, id kept or `both`) of each resolution field of memory `mem_id`."""
    return [(mem_id, name.removeprefix(PREFIX), kept) for name, kept in fields.items()]

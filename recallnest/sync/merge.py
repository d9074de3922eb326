"""The merge: pure functions over events, no I/O. Every memory has a register: per field the
winning (stamp, value), the stamp of its last full upsert (`base`) and of its last forget
(`tomb`). Merging an event takes maxima only, so the register is a function of the *set* of
events merged, whatever their order and however often each is merged: replicas that have seen
the same events hold the same registers (a state-based CRDT, a join semilattice).

- A field's value is that of the event with the greatest stamp setting it (ties, which only a
  forged log can produce, go to the greater value, so even they are order-free).
- A forget beats everything stamped before it: those field values are dropped, text included.
- A memory is live when an upsert (a full record) is stamped after its last forget: remembering
  the same text again after a forget brings it back; an edit still in flight when the forget
  was made does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from recallnest.sync.resolutions import is_resolution

UPSERT = "upsert"
FORGET = "forget"
# Partial changes: informational kinds (what the change was), merged field by field.
EDIT_KINDS = ("edit", "pin", "tier", "supersede", "status", "resolve")
KINDS = (UPSERT, FORGET, *EDIT_KINDS)


@dataclass(frozen=True, slots=True)
class Event:
    """One change made on one machine. `fields` is the payload (encrypted on the wire)."""

    stamp: str
    memory_id: str
    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    machine: str = ""
    user: str = ""
    host: str = ""


def _key(stamp: str, value: Any) -> tuple[str, str]:
    return stamp, json.dumps(value, sort_keys=True, default=str)


@dataclass(slots=True)
class Register:
    fields: dict[str, tuple[str, Any]] = field(default_factory=dict)
    base: str | None = None
    tomb: str | None = None

    def merge(self, event: Event) -> bool:
        """Merge one event; True when the register changed."""
        if event.kind == FORGET:
            if self.tomb is not None and event.stamp <= self.tomb:
                return False
            self.tomb = event.stamp
            self.fields = {f: sv for f, sv in self.fields.items() if sv[0] > event.stamp}
            if self.base is not None and self.base <= event.stamp:
                self.base = None
            return True
        if self.tomb is not None and event.stamp <= self.tomb:
            return False
        changed = False
        for name, value in event.fields.items():
            held = self.fields.get(name)
            if held is None or _key(event.stamp, value) > _key(*held):
                self.fields[name] = (event.stamp, value)
                changed = True
        if event.kind == UPSERT and (self.base is None or event.stamp > self.base):
            self.base = event.stamp
            changed = True
        return changed

    def live(self) -> dict[str, Any] | None:
        """The memory's fields, or None when it is forgotten or was never fully written."""
        if self.base is None:
            return None
        return {name: value for name, (_, value) in self.fields.items()}

    def needed(self, event: Event) -> Event | None:
        """What of `event` still matters once merged here: None when every part of it is
        beaten (compaction drops it), else the event trimmed to the fields it still wins."""
        if event.kind == FORGET:
            return event if event.stamp == self.tomb else None
        kept = {
            name: value
            for name, value in event.fields.items()
            if self.fields.get(name) == (event.stamp, value)
        }
        is_base = event.kind == UPSERT and event.stamp == self.base
        if not kept and not is_base:
            return None
        if len(kept) == len(event.fields):
            return event
        return Event(
            event.stamp, event.memory_id, event.kind, kept, event.machine, event.user, event.host
        )

    def to_json(self) -> dict[str, Any]:
        return {"f": {k: list(v) for k, v in self.fields.items()}, "b": self.base, "t": self.tomb}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Register:
        return cls({k: (v[0], v[1]) for k, v in data["f"].items()}, data["b"], data["t"])


def merge_all(registers: dict[str, Register], events: Iterable[Event]) -> set[str]:
    """Merge events into `registers` (creating registers as needed); the ids that changed."""
    changed: set[str] = set()
    for event in events:
        register = registers.get(event.memory_id)
        if register is None:
            register = registers[event.memory_id] = Register()
        if register.merge(event):
            changed.add(event.memory_id)
    return changed


def compact(own: Iterable[Event], registers: Mapping[str, Register]) -> list[Event]:
    """A machine's own events, minus what the merged state makes redundant (beaten by a later
    change or by a forget), in stamp order. Merging the result with every other machine's log
    gives the same registers as merging the whole history: what is dropped is beaten by an event
    its owner keeps (the greatest stamp of a chain is never beaten, so never dropped)."""
    out: list[Event] = []
    for event in own:
        register = registers.get(event.memory_id)
        kept = event if register is None else register.needed(event)
        if kept is not None:
            out.append(kept)
    out.sort(key=lambda e: e.stamp)
    return out


def changed_fields(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of `after` that differ from `before` (all of them for a new memory)."""
    if before is None:
        return dict(after)
    return {k: v for k, v in after.items() if before.get(k) != v}


def kind_of(before: Mapping[str, Any] | None, changes: Mapping[str, Any]) -> str:
    """What a change was, for people reading the log (the merge only tells upsert from the
    rest)."""
    if before is None:
        return UPSERT
    names = set(changes)
    if all(is_resolution(n) for n in names):
        return "resolve"
    if names <= {"pinned", "updated_at"}:
        return "pin"
    if names <= {"tier", "updated_at"}:
        return "tier"
    if "superseded_by" in names:
        return "supersede"
    if names <= {"status", "updated_at"}:
        return "status"
    return "edit"

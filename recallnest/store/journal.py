"""The memory journal: every memory write since the last backup, so that `recallnest repair`
brings memories back up to the last write, not only to the last (hourly) backup.

`<home>/backups/memories-journal.jsonl`, owner-only, one JSON object a line, appended and
fsync'd under the store's writer lock right after each commit that changed memories (so its
order is the commit order):
  {"op": "put", "memory": {...}}   a memory as `recallnest export` writes it, text redacted
  {"op": "delete", "id": "..."}    a memory forgotten (a tombstone)
A delete also drops the earlier puts of that memory from the file (rewritten atomically), so
a forgotten text does not linger here. After a successful backup the journal is compacted to
the tombstones of memories the backup lacks: those keep a forgotten memory forgotten when a
repair re-ingests the transcripts it was captured from.

Replay (repair): the backup's records, then each line in order. A torn last line (a crash
mid-append) is ignored.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest.core import redact

if TYPE_CHECKING:
    from recallnest.core.models import Memory

log = logging.getLogger(__name__)

JOURNAL_NAME = "memories-journal.jsonl"


def journal_path(home: Path) -> Path:
    return home / "backups" / JOURNAL_NAME


class Journal:
    """Appends memory writes to journal_path(home)."""

    def __init__(self, home: Path) -> None:
        self.path = journal_path(home)

    def record(self, memories: Sequence[Memory], deleted: Sequence[str]) -> None:
        """One committed write: its memories (puts) and deleted ids (tombstones)."""
        from recallnest.core.schemas import MemoryOut, dump

        lines = [_line({"op": "put", "memory": _redacted(dump(MemoryOut.of(m)))}) for m in memories]
        lines += [_line({"op": "delete", "id": i}) for i in deleted]
        if not lines:
            return
        if deleted:
            gone = set(deleted)
            kept = [e for e in self.entries() if _put_id(e) not in gone]
            self._rewrite([*map(_line, kept), *lines])
        else:
            self._append(lines)

    def entries(self) -> list[dict[str, Any]]:
        """The journal's entries in order (a torn or unreadable line is skipped)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        out = []
        for line in raw.splitlines():
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and entry.get("op") in ("put", "delete"):
                    out.append(entry)
        return out

    def rekey(self, mapping: Mapping[str, str]) -> None:
        """Entries under the ids memories have now (migration m007 re-keyed them), so a replay
        matches a write or a tombstone from before with the memory it was about."""
        if not mapping or not self.path.exists():
            return
        entries = self.entries()
        for entry in entries:
            memory = entry.get("memory")
            if isinstance(memory, dict):
                for key in ("id", "superseded_by"):
                    if memory.get(key) in mapping:
                        memory[key] = mapping[memory[key]]
            elif entry.get("id") in mapping:
                entry["id"] = mapping[entry["id"]]
        self._rewrite([_line(e) for e in entries])

    def compact(self, backed_up: Iterable[str]) -> None:
        """After a backup holding the memories `backed_up`: keep only the tombstones of
        memories the backup lacks."""
        have = set(backed_up)
        final: dict[str, dict[str, Any]] = {}
        for entry in self.entries():
            key = _put_id(entry) or str(entry.get("id"))
            final[key] = entry
        tombstones = [e for k, e in final.items() if e["op"] == "delete" and k not in have]
        self._rewrite([_line(e) for e in tombstones])

    def _append(self, lines: list[str]) -> None:
        self.path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, "".join(lines).encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _rewrite(self, lines: list[str]) -> None:
        self.path.parent.mkdir(mode=0o700, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, "".join(lines).encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)


def replay(
    records: list[dict[str, Any]], entries: Iterable[dict[str, Any]]
) -> tuple[list[dict[str, Any]], set[str]]:
    """The live memories after `entries` applied to the backup's `records`, and the ids that
    end up forgotten."""
    state = {str(r.get("id")): r for r in records}
    forgotten: set[str] = set()
    for entry in entries:
        if entry["op"] == "put" and isinstance(entry.get("memory"), dict):
            key = str(entry["memory"].get("id"))
            state[key] = entry["memory"]
            forgotten.discard(key)
        elif entry["op"] == "delete":
            state.pop(str(entry.get("id")), None)
            forgotten.add(str(entry.get("id")))
    return list(state.values()), forgotten


def _put_id(entry: dict[str, Any]) -> str | None:
    memory = entry.get("memory")
    return str(memory.get("id")) if entry.get("op") == "put" and isinstance(memory, dict) else None


def _redacted(record: dict[str, Any]) -> dict[str, Any]:
    text = record.get("text")
    return record | {"text": redact.redact(text)[0]} if isinstance(text, str) else record


def _line(entry: dict[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, sort_keys=True, default=str) + "\n"

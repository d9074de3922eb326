"""The daemon's memory backup: every memory in the `recallnest export` format, written
atomically and owner-only to `<home>/backups/memories-latest.jsonl`, and read back by repair."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest.core.errors import RecallnestError
from recallnest.core.schemas import jsonable

if TYPE_CHECKING:
    from recallnest.engine import Engine

BACKUP_DIR_NAME = "backups"
LATEST_BACKUP_NAME = "memories-latest.jsonl"


def backup_path(home: Path) -> Path:
    """Where the daemon keeps its latest export of every memory."""
    return home / BACKUP_DIR_NAME / LATEST_BACKUP_NAME


def export_text(records: list[dict[str, Any]]) -> str:
    """Records in the `recallnest export` format: one sorted-keys JSON object per line."""
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def write_backup(engine: Engine, home: Path) -> bool:
    """Write every memory to backup_path(home), atomically and owner-only, then compact the
    journal it covers (under the writer lock: no write falls between the two). Returns False
    when the file already holds exactly that (or there is nothing to back up yet)."""
    with engine.store.write_locked():
        memories = engine.export()
        text = export_text(jsonable(memories))
        written = _write_export(backup_path(home), text.encode("utf-8"))
        engine.journal.compact(m.id for m in memories)
    return written


def _write_export(path: Path, data: bytes) -> bool:
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        if not data:
            return False
    path.parent.mkdir(mode=0o700, exist_ok=True)
    replace_private(path, data)
    return True


def replace_private(path: Path, data: bytes) -> None:
    """Write `path` atomically and owner-only: a crash leaves the old file or the new one,
    whole, never half of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read_export(path: Path) -> list[dict[str, Any]]:
    """The records of an export file; RecallnestError naming the first bad line."""
    records = []
    try:
        with path.open(encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    raise RecallnestError(f"{path}:{n}: not JSON ({exc})") from exc
                if not isinstance(record, dict):
                    raise RecallnestError(f"{path}:{n}: not a JSON object")
                records.append(record)
    except (OSError, UnicodeDecodeError) as exc:
        raise RecallnestError(f"cannot read {path}: {exc}") from exc
    return records

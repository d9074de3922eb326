"""Per-project resume snapshots: what a session starting in a project would be told, kept
current by the daemon so the session-start hook has notes to give while the daemon is down.

    <state>/snapshots/global.json          the notes for a folder with no project notes
    <state>/snapshots/<64-bit checksum of the project path>.json

Each file is JSON {"project", "written_at", "text"}, written atomically, owner-only (0600 in
a 0700 folder), from text that went through the redactor. The hook reads one file with the
standard library only (it is on the hook's fast path) and ignores a file another user owns
or others can read. (A NamedTuple and zlib, not a dataclass and hashlib: those imports cost
the hook's cold start ~12 ms.)
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import zlib
from pathlib import Path
from typing import NamedTuple

from recallnest.core.project import project_of

DIR_NAME = "snapshots"
GLOBAL_NAME = "global"
MAX_BYTES = 256_000


class Snapshot(NamedTuple):
    project: str | None
    written_at: str
    text: str


def snapshot_dir(home: Path) -> Path:
    return home / DIR_NAME


def path_for(home: Path, project: str | None) -> Path:
    """A collision only costs a miss: each file names its project, and `read` checks it."""
    if not project:
        return snapshot_dir(home) / f"{GLOBAL_NAME}.json"
    raw = project.encode("utf-8", "surrogateescape")
    name = f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}"
    return snapshot_dir(home) / f"{name}.json"


def write(home: Path, snapshot: Snapshot) -> Path:
    """Replace the project's snapshot atomically; the caller has redacted `text`."""
    folder = snapshot_dir(home)
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    target = path_for(home, snapshot.project)
    scratch = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    data = {"project": snapshot.project, "written_at": snapshot.written_at, "text": snapshot.text}
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False)
        os.replace(scratch, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            scratch.unlink()
    return target


def read(home: Path, cwd: str | None) -> Snapshot | None:
    """The snapshot for `cwd`'s project, else the global one, else None. Never raises."""
    project = project_of(cwd)
    for candidate in (project, None) if project else (None,):
        found = _load(path_for(home, candidate), candidate)
        if found is not None:
            return found
    return None


def _load(path: Path, project: str | None) -> Snapshot | None:
    try:
        with path.open("rb") as handle:
            info = os.fstat(handle.fileno())
            if not _private(info):
                return None
            data = json.loads(handle.read(MAX_BYTES + 1))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("project") != project:
        return None  # not ours, or (vanishingly unlikely) another project's hash
    text, written_at = data.get("text"), data.get("written_at")
    if not isinstance(text, str) or not isinstance(written_at, str):
        return None
    return Snapshot(project, written_at, text)


def _private(info: os.stat_result) -> bool:
    """A regular file of ours that nobody else can read or write."""
    owner_ok = not hasattr(os, "getuid") or info.st_uid == os.getuid()
    return stat.S_ISREG(info.st_mode) and owner_ok and not info.st_mode & 0o077


def prune(home: Path, keep: set[Path]) -> int:
    """Remove snapshots not in `keep` (projects that no longer have notes)."""
    removed = 0
    folder = snapshot_dir(home)
    if not folder.is_dir():
        return 0
    for path in folder.glob("*.json"):
        if path not in keep:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed += 1
    return removed

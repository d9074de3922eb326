"""Sync settings, one JSON file in the home (`sync/config.json`): this machine's id and name,
and the remotes: the personal one and team ones, each with its key file and, for a team, the
projects bound to it. Written by `recallnest sync init`; read by the daemon at each sync."""

from __future__ import annotations

import getpass
import json
import os
import socket
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from recallnest.core.errors import RecallnestError
from recallnest.sync.background import DEBOUNCE_SECONDS, INTERVAL_SECONDS


@dataclass(frozen=True, slots=True)
class Remote:
    name: str
    url: str  # a git URL or path, or a plain folder (kind "folder")
    kind: str  # "git" | "folder"
    team: bool = False
    projects: tuple[str, ...] = ()  # team remotes: the projects bound to it (local paths)

    def carries(self, scope: str | None) -> bool:
        """Whether memories of `scope` go to (and are taken from) this remote. Global
        (personal) memories never go to a team. `scope` and `projects` are both local or
        both portable (the replica maps them)."""
        if not self.team:
            return True
        return scope is not None and scope in self.projects


@dataclass(slots=True)
class SyncConfig:
    machine: str
    host: str
    user: str
    remotes: list[Remote] = field(default_factory=list)
    turns: bool = False  # conversation turns never leave the machine (no turn sync exists)
    interval: float = INTERVAL_SECONDS  # background rounds (daemon): on this timer...
    debounce: float = DEBOUNCE_SECONDS  # ...and this long after the last change
    names: dict[str, str] = field(default_factory=dict)  # project path -> name the user gave

    @staticmethod
    def path(home: Path) -> Path:
        return home / "sync" / "config.json"

    @staticmethod
    def key_path(home: Path, remote: str) -> Path:
        return home / "sync" / f"{remote}.key"

    @classmethod
    def load(cls, home: Path) -> SyncConfig | None:
        path = cls.path(home)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            remotes = [
                Remote(**{**r, "projects": tuple(r.get("projects", ()))}) for r in data["remotes"]
            ]
            turns = bool(data.get("turns", False))
            interval = float(data.get("interval", INTERVAL_SECONDS))
            debounce = float(data.get("debounce", DEBOUNCE_SECONDS))
            names = {str(k): str(v) for k, v in dict(data.get("names", {})).items()}
            return cls(
                data["machine"],
                data["host"],
                data["user"],
                remotes,
                turns,
                interval,
                debounce,
                names,
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RecallnestError(f"cannot read {path}: {exc}") from exc

    @classmethod
    def new(cls) -> SyncConfig:
        return cls(uuid.uuid4().hex[:16], socket.gethostname()[:100], getpass.getuser()[:100])

    def save(self, home: Path) -> None:
        path = self.path(home)
        path.parent.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = asdict(self)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
        os.replace(tmp, path)

    def remote(self, name: str) -> Remote:
        for remote in self.remotes:
            if remote.name == name:
                return remote
        raise RecallnestError(f"no sync remote named {name!r}")

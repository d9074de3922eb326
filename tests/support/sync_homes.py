"""Homes that sync with each other: each a real Engine over its own database, configured as
`recallnest sync init` would configure it, sharing one key."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.server.handlers import dispatch
from recallnest.sync.codec import new_key, write_key
from recallnest.sync.config import Remote, SyncConfig

KEY = new_key()


def add_remote(engine: Engine, remote: Remote, key: bytes = KEY, user: str | None = None) -> None:
    home = engine.settings.home
    config = SyncConfig.load(home) or SyncConfig.new()
    if user is not None:
        config.user = user
    config.remotes.append(remote)
    config.save(home)
    write_key(SyncConfig.key_path(home, remote.name), key)


@contextmanager
def homes(root: Path, names: str, remote: Remote | None) -> Iterator[list[Engine]]:
    """One Engine per letter of `names`, each in root/<letter>, all bound to `remote`."""
    engines = []
    try:
        for name in names:
            settings = Settings.load().model_copy(update={"home": root / name})
            engine = Engine.open(settings)
            engines.append(engine)
            if remote is not None:
                add_remote(engine, remote, user=f"user-{name}")
        yield engines
    finally:
        for engine in engines:
            engine.close()


def texts(engine: Engine) -> list[str]:
    return sorted(m["text"] for m in jsonable(engine.export()))


def state(engine: Engine) -> list[tuple[Any, ...]]:
    """What must agree across machines: each memory's id and synced fields."""
    return sorted(
        (m["id"], m["scope"], m["text"], m["tier"], m["pinned"], m["status"])
        for m in jsonable(engine.export())
    )


def sync_all(engines: list[Engine], rounds: int = 2) -> list[dict[str, Any]]:
    return [e.sync.sync() for _ in range(rounds) for e in engines]


def forget(engine: Engine, ids: list[str]) -> Any:
    return dispatch(engine, "forget", {"ids": ids})


def b64key(key: bytes = KEY) -> str:
    return base64.urlsafe_b64encode(key).decode()


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

"""How a front end reaches the data: through the daemon's socket when one answers, else by
opening the store in this process. Both paths run the same `ops.dispatch`.
"""

from __future__ import annotations

from typing import Any, Protocol

from recallnest.core.config import Settings
from recallnest.core.errors import (
    DaemonError,
    NothingIndexedError,
    RecallnestError,
    StoreLockedError,
)
from recallnest.core.paths import db_path, socket_path
from recallnest.server import protocol

PING_TIMEOUT = 5.0  # a live but busy daemon; a dead one refuses at once (ECONNREFUSED)
CALL_TIMEOUT = 120.0


class Client(Protocol):
    mode: str

    def call(self, op: str, args: dict[str, Any]) -> Any: ...
    def close(self) -> None: ...


class DaemonClient:
    mode = "daemon"

    def __init__(self, path: str, timeout: float = CALL_TIMEOUT) -> None:
        self.path = path
        self.timeout = timeout

    def call(self, op: str, args: dict[str, Any]) -> Any:
        try:
            return protocol.request(self.path, op, args, self.timeout)
        except protocol.ProtocolError as exc:
            raise DaemonError(str(exc)) from exc

    def close(self) -> None:
        return None


class LocalClient:
    mode = "local"

    def __init__(self, settings: Settings) -> None:
        from recallnest.engine import Engine  # heavy: duckdb, numpy, the embedder

        self.engine = Engine.open(settings)

    def call(self, op: str, args: dict[str, Any]) -> Any:
        from recallnest.server.handlers import dispatch

        return dispatch(self.engine, op, args)

    def close(self) -> None:
        self.engine.close()


def daemon_answers(settings: Settings) -> bool:
    path = socket_path(settings.home)
    if not path.exists():
        return False
    try:
        protocol.request(str(path), "ping", {}, PING_TIMEOUT)
    except protocol.ProtocolError:
        return False
    return True


def connect(settings: Settings, create: bool = True) -> Client:
    """The daemon if it answers; otherwise the store opened here. Without `create` (a read)
    a home with no database raises NothingIndexedError instead of creating an empty one."""
    if daemon_answers(settings):
        return DaemonClient(str(socket_path(settings.home)))
    if not create and not db_path(settings.home).exists():
        raise NothingIndexedError(
            f"nothing is indexed yet: {settings.home} holds no database. Run `recallnest "
            "ingest` to read the agents' existing transcripts, or `recallnest daemon start` "
            "to follow them"
        )
    try:
        return LocalClient(settings)
    except StoreLockedError as exc:
        raise RecallnestError(
            f"{exc}; the daemon's socket does not answer: stop it with "
            "`recallnest daemon stop` (or kill that PID) and retry"
        ) from exc

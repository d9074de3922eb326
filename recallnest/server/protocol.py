"""The daemon's local socket protocol, and a client for it. Standard library only.

Hooks import this on their fast path, so it must never import duckdb, numpy, click or
pydantic (tests/system/test_layering.py checks it).

Wire format: one JSON object per line over a Unix domain socket (owner-only, 0600).
    request   {"v": 1, "op": "search", "args": {...}}\\n
    response  {"v": 1, "ok": true, "result": ...}\\n
              {"v": 1, "ok": false, "error": "one line"}\\n
Requests larger than MAX_REQUEST_BYTES are refused with an error response.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

from recallnest.core.paths import SOCKET_NAME as SOCKET_NAME

PROTOCOL_VERSION = 1
MAX_REQUEST_BYTES = 1_000_000
MAX_RESPONSE_BYTES = 64_000_000


class ProtocolError(Exception):
    """The daemon could not be reached, timed out or answered with an error.

    `from_daemon` is True when the message is the daemon's own error text (which may quote a
    request); otherwise the message is built here from the socket path and the OS error.
    """

    def __init__(self, message: str, *, from_daemon: bool = False) -> None:
        super().__init__(message)
        self.from_daemon = from_daemon


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def request(socket_path: str, op: str, args: dict[str, Any], timeout: float) -> Any:
    """Send one request and return its `result`; raise ProtocolError on any failure.

    `timeout` bounds the whole exchange (connect + send + receive), so a hung daemon can
    never hold up the caller for longer.
    """
    deadline = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(socket_path)
            sock.sendall(encode({"v": PROTOCOL_VERSION, "op": op, "args": args}))
            raw = _read_line(sock, deadline)
    except OSError as exc:
        raise ProtocolError(f"daemon not reachable at {socket_path}: {exc}") from exc
    return _decode_response(raw)


def _read_line(sock: socket.socket, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProtocolError("daemon timed out")
        sock.settimeout(remaining)
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n") or size > MAX_RESPONSE_BYTES:
            break
    return b"".join(chunks)


def _decode_response(raw: bytes) -> Any:
    try:
        message = json.loads(raw)
    except ValueError as exc:
        raise ProtocolError("daemon sent a malformed response") from exc
    if not isinstance(message, dict):
        raise ProtocolError("daemon sent a malformed response")
    if not message.get("ok"):
        raise ProtocolError(
            str(message.get("error") or "daemon reported an error"), from_daemon=True
        )
    return message.get("result")

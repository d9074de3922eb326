"""Events on the wire: one JSON line each, the payload (the memory id, the changed fields, who
wrote them) sealed with AES-GCM under the remote's key. The clear header (stamp, blinded memory
id, kind, writer) is bound to the payload as associated data, so a line whose header was
altered, or a payload moved to another line, fails to open. A line that cannot be read is
rejected with its reason; the lines around it are not affected.

The header's memory id is blinded (a keyed hash of the real id): a memory id is a hash of scope
and text, so in clear it would let anyone who can read the remote, without the key, confirm a
guessed text, even from the forget tombstone that stays after the text is gone."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from recallnest.core.errors import RecallnestError
from recallnest.sync.clock import parse_stamp
from recallnest.sync.merge import FORGET, KINDS, Event
from recallnest.sync.resolutions import is_resolution, valid

VERSION = 1
MAX_LINE = 256 * 1024
_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# Synced fields and the JSON types each may hold (None allowed for every one but text).
FIELDS: dict[str, tuple[type, ...]] = {
    "scope": (str,),
    "category": (str,),
    "text": (str,),
    "importance": (float, int),
    "confidence": (float, int),
    "tier": (str,),
    "status": (str,),
    "created_at": (str,),
    "updated_at": (str,),
    "source": (str,),
    "rule": (str,),
    "superseded_by": (str,),
    "subject": (str,),
    "pinned": (bool,),
    "valid_until": (str,),
}


class BadEvent(RecallnestError):
    """A log line that is not a valid event (corrupted, forged, or for another key)."""


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=256)


def write_key(path: Path, key: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(base64.urlsafe_b64encode(key).decode("ascii") + "\n")


def read_key(path: Path) -> bytes:
    try:
        key = base64.urlsafe_b64decode(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError) as exc:
        raise RecallnestError(f"cannot read the sync key {path}: {exc}") from exc
    if len(key) != 32:
        raise RecallnestError(f"{path} is not a sync key (32 bytes, base64)")
    return key


def _aad(header: Mapping[str, Any]) -> bytes:
    return f"{header['v']}|{header['s']}|{header['m']}|{header['k']}|{header['w']}".encode()


def blind(key: bytes, memory_id: str) -> str:
    """The memory id as the clear header shows it: HMAC-SHA256 under the key, shaped like a
    UUID. The same on every machine that holds the key, opaque to anyone who does not."""
    digest = hmac.new(key, b"recallnest-memory-id\x1f" + memory_id.encode(), hashlib.sha256)
    h = digest.hexdigest()[:32]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def encode(event: Event, key: bytes) -> str:
    header = {"v": VERSION, "s": event.stamp, "m": blind(key, event.memory_id), "k": event.kind}
    header["w"] = event.machine
    body = json.dumps(
        {"i": event.memory_id, "f": dict(event.fields), "u": event.user, "h": event.host}
    )
    nonce = os.urandom(12)
    sealed = AESGCM(key).encrypt(nonce, body.encode(), _aad(header))
    header["p"] = base64.b64encode(nonce + sealed).decode("ascii")
    return json.dumps(header, separators=(",", ":"))


def decode(line: str, key: bytes, writer: str) -> Event:
    """The event of one line written by machine `writer`; BadEvent says why not."""
    if len(line) > MAX_LINE:
        raise BadEvent(f"line of {len(line)} characters (limit {MAX_LINE})")
    try:
        header = json.loads(line)
    except ValueError as exc:
        raise BadEvent(f"not JSON: {exc}") from exc
    if not isinstance(header, dict) or header.get("v") != VERSION:
        raise BadEvent("not a version-1 event")
    stamp, blinded, kind, machine = (header.get(k) for k in "smkw")
    if not (isinstance(stamp, str) and isinstance(blinded, str) and isinstance(machine, str)):
        raise BadEvent("header fields missing")
    try:
        if parse_stamp(stamp).machine != machine:
            raise BadEvent("stamp of another machine")
    except ValueError as exc:
        raise BadEvent(str(exc)) from exc
    if machine != writer:
        raise BadEvent(f"event of machine {machine} in the log of {writer}")
    if kind not in KINDS or not _ID.match(blinded):
        raise BadEvent(f"unknown kind {kind!r} or malformed memory id")
    try:
        raw = base64.b64decode(str(header.get("p", "")), validate=True)
        body = json.loads(AESGCM(key).decrypt(raw[:12], raw[12:], _aad(header)))
    except (ValueError, InvalidTag) as exc:
        raise BadEvent("payload does not open with this key (altered, or another key)") from exc
    if not isinstance(body, dict):
        raise BadEvent("payload malformed")
    mem_id = body.get("i")
    if not isinstance(mem_id, str) or not _ID.match(mem_id):
        raise BadEvent("payload without a memory id")
    if not hmac.compare_digest(blind(key, mem_id), blinded):
        raise BadEvent("payload of another memory than its header says")
    fields = _fields(body.get("f"), kind, mem_id)
    user, host = str(body.get("u", ""))[:100], str(body.get("h", ""))[:100]
    return Event(stamp, mem_id, kind, fields, machine, user, host)


def _fields(fields: Any, kind: str, mem_id: str) -> dict[str, Any]:
    if not isinstance(fields, dict) or (kind == FORGET and fields):
        raise BadEvent("payload fields malformed")
    for name, value in fields.items():
        if is_resolution(name):
            if not valid(mem_id, name, value):
                raise BadEvent(f"conflict resolution {name!r} malformed")
            continue
        types = FIELDS.get(name)
        if types is None:
            raise BadEvent(f"unknown field {name!r}")
        if value is None and name != "text":
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise BadEvent(f"field {name!r} has the wrong type")
    if kind == "upsert" and not {"scope", "text", "category"} <= set(fields):
        raise BadEvent("an upsert without scope, text or category")
    return fields

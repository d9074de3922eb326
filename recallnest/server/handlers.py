"""The operations of the daemon protocol, dispatched onto an Engine.

The daemon's socket server and the CLI's local fallback call the same `dispatch`, so a command
behaves the same whether or not a daemon runs. Arguments and results are JSON-able.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any

from recallnest.core.errors import RecallnestError
from recallnest.core.timeparse import parse_time
from recallnest.engine import Engine, SearchRequest

Op = Callable[[Engine, Mapping[str, Any]], Any]


def dispatch(engine: Engine, op: str, args: Mapping[str, Any]) -> Any:
    """Run one operation; unknown ops and bad arguments raise RecallnestError. The result is
    plain JSON (what the socket carries), so a command prints the same with or without the
    daemon: a datetime left in a result made `forgotten` fail through the daemon only."""
    handler = OPS.get(op)
    if handler is None:
        raise RecallnestError(f"unknown operation {op!r}; known: {', '.join(sorted(OPS))}")
    try:
        result = handler(engine, args)
    except (TypeError, ValueError, KeyError) as exc:
        raise RecallnestError(f"bad arguments for {op}: {exc}") from exc
    return as_json(result)


def as_json(value: Any) -> Any:
    """`value` as the JSON round trip gives it back: datetimes and dates in ISO form, tuples
    as lists. A type JSON cannot carry is a bug of the op, raised here on both paths."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=_json_default))


def _json_default(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"a {type(value).__name__} in an op's result is not JSON")


def _search(engine: Engine, a: Mapping[str, Any]) -> Any:
    req = SearchRequest(
        query=str(a["query"]),
        kind=a.get("kind", "all"),
        limit=int(a.get("limit", 10)),
        scope=a.get("scope"),
        project=a.get("project"),
        category=a.get("category"),
        agent=a.get("agent"),
        session_id=a.get("session_id"),
        since=parse_time(a.get("since")),
        until=parse_time(a.get("until")),
        explain=bool(a.get("explain", False)),
    )
    if req.kind not in ("turns", "memories", "all"):
        raise RecallnestError(f"unknown kind {req.kind!r}; use turns, memories or all")
    return engine.search(req)


def _remember(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.remember(
        str(a["text"]),
        category=a.get("category"),
        scope=a.get("scope") or "global",
        importance=a.get("importance"),
        source=a.get("source", "manual"),
    )


def _resume(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.continuity.resume(
        a.get("cwd"),
        str(a.get("agent") or "claude"),
        a.get("source"),
        a.get("session_id"),
        record=bool(a.get("record", True)),
    )


def _checkpoint(engine: Engine, a: Mapping[str, Any]) -> Any:
    session_id = a.get("session_id") or engine.store.latest_session(a.get("project"))
    if not session_id:
        raise RecallnestError("no session to checkpoint (no turns ingested for this project)")
    return engine.continuity.checkpoint(str(session_id), str(a.get("reason") or "manual"))


OPS: dict[str, Op] = {
    "ping": lambda e, a: {"pong": True},
    "search": _search,
    "remember": _remember,
    # Through maintenance: audit log entry, no forgotten text kept in undo entries.
    "forget": lambda e, a: e.maintenance.op("forget.run", {"ids": [str(i) for i in a["ids"]]}),
    "memories.list": lambda e, a: e.list_memories(
        a.get("scope"), a.get("category"), a.get("status", "active"), a.get("limit")
    ),
    "memories.show": lambda e, a: e.memory(str(a["id"])),
    "stats": lambda e, a: e.stats(),
    "export": lambda e, a: e.export(),
    "import": lambda e, a: e.import_memories(a["records"]),
    "resume": _resume,
    "checkpoint": _checkpoint,
    "checkpoints.list": lambda e, a: e.continuity.recent(a.get("project"), int(a.get("limit", 20))),
    "checkpoints.show": lambda e, a: e.continuity.show(str(a["id"])),
    # ---- lifecycle (issue 7): arguments are read in recallnest.lifecycle.scheduler ----
    "consolidate": lambda e, a: e.maintenance.op("consolidate", a),
    "conflicts.list": lambda e, a: e.maintenance.op("conflicts.list", a),
    "conflicts.resolve": lambda e, a: e.maintenance.op("conflicts.resolve", a),
    "undo": lambda e, a: e.maintenance.op("undo", a),
    "undo.list": lambda e, a: e.maintenance.op("undo.list", a),
    "forget.plan": lambda e, a: e.maintenance.op("forget.plan", a),
    "forget.run": lambda e, a: e.maintenance.op("forget.run", a),
    "forget.log": lambda e, a: e.maintenance.op("forget.log", a),
    "memories.find": lambda e, a: e.maintenance.op("memories.find", a),
    "memories.history": lambda e, a: e.maintenance.op("memories.history", a),
    "memories.flags": lambda e, a: e.maintenance.op("memories.flags", a),
    "compact": lambda e, a: e.maintenance.op("compact", a),
    "lifecycle.size": lambda e, a: e.maintenance.op("lifecycle.size", a),
    "maintain": lambda e, a: e.maintenance.op("maintain", a),
    # ---- end lifecycle (issue 7) ----
}

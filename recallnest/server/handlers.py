"""The operations of the daemon protocol, dispatched onto an Engine.

The daemon's socket server and the CLI's local fallback call the same `dispatch`, so a command
behaves the same whether or not a daemon runs. Arguments and results are JSON-able.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, is_dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from recallnest.continuity.checkpoint import Checkpoint
from recallnest.continuity.recall import (
    EMBED_MAX_TOKENS,
    HOOK_VECTOR_DEADLINE_SECONDS,
    VECTOR_DEADLINE_SECONDS,
)
from recallnest.continuity.service import PromptRecall
from recallnest.core.errors import NotFoundError, RecallnestError
from recallnest.core.models import SearchHit, Turn
from recallnest.core.schemas import jsonable, memories_of
from recallnest.core.timeparse import parse_future, parse_time
from recallnest.core.tokens import estimate_tokens
from recallnest.engine import Engine, SearchRequest
from recallnest.lifecycle import growth, retention
from recallnest.lifecycle.forgetting import Selector

Op = Callable[[Engine, Mapping[str, Any]], Any]
NEIGHBOURS = 5  # on a memory's page (memories.context)


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
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(value)  # the engine's typed results (SearchHit, Stats)
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
    made = engine.remember(
        str(a["text"]),
        category=a.get("category"),
        scope=a.get("scope") or "global",
        importance=a.get("importance"),
        source=a.get("source", "manual"),
    )
    # On the socket, one flat object: the memory's fields, then what remember did.
    return jsonable(made.memory) | {
        "redactions": list(made.redactions),
        "created": made.created,
        "superseded": list(made.superseded),
    }


def _resume(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.continuity.resume(
        a.get("cwd"),
        str(a.get("agent") or "claude"),
        a.get("source"),
        a.get("session_id"),
        record=bool(a.get("record", True)),
    )


def _recall(engine: Engine, a: Mapping[str, Any]) -> Any:
    """Prompt-time recall (issue 23): the few notes this prompt needs, or an empty text."""
    # The query embedding's deadline; `vector_deadline: null` waits for it (the eval, so its
    # figures do not depend on the machine's load). A hook says how long it ran before asking
    # (`elapsed`): its deadline counts from the hook's own start, so a slow process start
    # shortens the wait instead of adding to the prompt's.
    seconds = a.get("vector_deadline", VECTOR_DEADLINE_SECONDS)
    elapsed = a.get("elapsed")
    if seconds is None:
        deadline = None
    elif "vector_deadline" not in a and isinstance(elapsed, int | float):
        deadline = time.monotonic() - max(0.0, float(elapsed)) + HOOK_VECTOR_DEADLINE_SECONDS
    else:
        deadline = time.monotonic() + float(seconds)
    prompt = str(a.get("prompt") or "")
    # A long prompt's embedding would end past the deadline: keywords only, from the start.
    embed = deadline is None or estimate_tokens(prompt) <= EMBED_MAX_TOKENS

    def search(
        query: str, profile: str, project: str | None, limit: int, makes: frozenset[str]
    ) -> tuple[list[SearchHit], dict[str, float]]:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        req = SearchRequest(
            query,
            limit=limit,
            project=project,
            profile=profile,
            record=False,
            vector_wait=wait,
            disabled=frozenset() if embed else frozenset({"vector"}),
            turns_by_keyword=True,
            bilingual=True,
            rules_about=makes,
        )
        return engine.search_with_affinities(req)

    return _recall_json(
        engine.continuity.recall(
            prompt,
            a.get("cwd"),
            search,
            engine.index.idf,
            a.get("session_id"),
            explain=bool(a.get("explain")),
            agent=str(a.get("agent") or "claude"),
            prepare=engine.prepare_query if embed else None,
        )
    )


def _recall_json(r: PromptRecall) -> dict[str, Any]:
    """Prompt recall on the wire (issue 23): a prompt skipped before it was read carries no
    intent or project, and `candidates` come only with `explain`."""
    out: dict[str, Any] = {"text": r.text, "items": r.items, "scores": r.scores, "tokens": r.tokens}
    if r.intent is None:
        return out | {"skip": r.skip}
    out |= {"intent": r.intent, "skip": r.skip, "project": r.project}
    return out if r.candidates is None else out | {"candidates": r.candidates}


def _checkpoint(engine: Engine, a: Mapping[str, Any]) -> Any:
    session_id = a.get("session_id") or engine.store.latest_session(a.get("project"))
    if not session_id:
        raise RecallnestError("no session to checkpoint (no turns ingested for this project)")
    return _checkpoint_json(
        engine.continuity.checkpoint(str(session_id), str(a.get("reason") or "manual"))
    )


def _checkpoint_json(cp: Checkpoint | None) -> Any:
    """A checkpoint as the socket carries it: its stored document (sorted keys)."""
    return None if cp is None else json.loads(cp.to_json())


def _undo(engine: Engine, a: Mapping[str, Any]) -> Any:
    undo_id = int(a["id"]) if a.get("id") is not None else None
    return engine.maintenance.undo(undo_id, a.get("kind"), bool(a.get("force")))


def _forget_selector(engine: Engine, a: Mapping[str, Any]) -> Selector:
    sel = _selector(a)
    if sel.session_id == "current":
        latest = engine.store.latest_session(a.get("cwd_project"))
        if latest is None:
            raise NotFoundError("no session recorded for this project")
        sel = replace(sel, session_id=latest)
    return sel


def _forget_run(engine: Engine, a: Mapping[str, Any]) -> Any:
    # Through maintenance: audit log entry, no forgotten text kept in undo entries.
    return engine.maintenance.forget(_forget_selector(engine, a), bool(a.get("purge")))


def _memories_find(engine: Engine, a: Mapping[str, Any]) -> Any:
    filters = {k: a.get(k) for k in ("scope", "category", "tier", "pinned", "source")}
    filters["status"] = a.get("status", "active")
    return engine.maintenance.find(
        filters,
        parse_time(a.get("newer_than")),
        parse_time(a.get("older_than")),
        bool(a.get("expired")),
        str(a.get("sort") or "updated"),
        int(a.get("limit", 50)),
    )


def _memories_flags(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.maintenance.set_flags(
        [str(i) for i in a["ids"]],
        a.get("pinned"),
        a.get("tier"),
        parse_future(a.get("valid_until")),
        bool(a.get("clear_valid_until")),
    )


def _maintain(engine: Engine, a: Mapping[str, Any]) -> Any:
    days, turns = a.get("retention_days"), a.get("max_turns")
    explicit = None
    if days is not None or turns is not None:
        policy = engine.maintenance.retention
        explicit = retention.RetentionPolicy(
            int(days) if days is not None else policy.max_age_days,
            int(turns) if turns is not None else policy.max_turns,
        )
    return engine.maintenance.run_all(retention=explicit)


def _selector(a: Mapping[str, Any]) -> Selector:
    return Selector(
        ids=tuple(str(i) for i in a.get("ids") or ()),
        query=a.get("query"),
        project=a.get("project"),
        session_id=a.get("session_id"),
        since=parse_time(a.get("since")),
        until=parse_time(a.get("until")),
        with_turns=bool(a.get("with_turns")),
    )


def _session_show(engine: Engine, a: Mapping[str, Any]) -> Any:
    """A session's turns (redacted, as stored), its newest checkpoint and its memories."""
    session_id = str(a["session_id"])
    store = engine.store
    turns = store.session_turns(session_id, int(a.get("limit", 500)))
    if not turns:
        raise NotFoundError(f"no session with id {session_id}")
    checkpoints = store.checkpoints(session_id=session_id, limit=1)
    return {
        "session_id": session_id,
        "turns": [asdict(t) for t in turns],
        "checkpoint": json.loads(checkpoints[0]) if checkpoints else None,
        "memories": [jsonable(m) for m in store.memories(store.session_memories(session_id))],
    }


def _memory_context(engine: Engine, a: Mapping[str, Any]) -> Any:
    """A memory's history (as `memories.history`) with the turns it was captured from and its
    neighbours: the active memories the fused search ranks first for its text, with its own
    stored vector as the query vector (no embedding), not counted as reads."""
    history = engine.maintenance.history(str(a["id"]))
    memory = history["memory"]
    evidence = [str(t) for t in memory["evidence"]]
    pos = engine.index.position("memory", memory["id"])
    vector = engine.index.vector(pos) if pos is not None else None
    req = SearchRequest(memory["text"], "memories", NEIGHBOURS + 1, record=False, vector=vector)
    near = [h for h in engine.search(req) if h.id != memory["id"]][:NEIGHBOURS]
    turns = [_stored_turn(t) for t in engine.store.turns(evidence)]
    return history | {"evidence_turns": turns, "neighbours": near}


def _stored_turn(t: Turn) -> dict[str, Any]:
    """A turn as a memory's page has always carried it: the columns of its stored row."""
    return {
        "id": t.id,
        "agent": t.agent,
        "session_id": t.session_id,
        "parent_session_id": t.parent_session_id,
        "project": t.project,
        "role": t.role,
        "kind": t.kind,
        "text": t.text,
        "timestamp": t.timestamp,
        "path": t.path,
        "record_id": t.record_id,
        "byte_offset": t.offset,
        "cwd": t.cwd,
        "model": t.model,
        "git_branch": t.git_branch,
    }


def _dashboard(engine: Engine, a: Mapping[str, Any]) -> Any:
    days = max(1, min(int(a.get("days", 30)), 3660))
    # From midnight: the plots are per day, and a fixed start lets the store reuse the answer.
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    since = today - timedelta(days=days - 1)
    sizes = growth.history(engine.settings.home, since.date())
    return engine.store.dashboard(since) | {"days": days, "size_per_day": sizes}


# The daemon answers these itself (they need its threads and queues), before `dispatch`.
DAEMON_ONLY = ("daemon.status", "ingest")

OPS: dict[str, Op] = {
    "ping": lambda e, a: {"pong": True},
    "search": _search,
    "remember": _remember,
    # Through maintenance: audit log entry, no forgotten text kept in undo entries.
    "forget": lambda e, a: _forget_run(e, {"ids": [str(i) for i in a["ids"]]}),
    "memories.list": lambda e, a: e.list_memories(
        a.get("scope"), a.get("category"), a.get("status", "active"), a.get("limit")
    ),
    "memories.show": lambda e, a: e.memory(str(a["id"])),
    "stats": lambda e, a: e.stats(bool(a.get("sizes", True))),
    "export": lambda e, a: e.export(),
    "import": lambda e, a: e.import_memories(memories_of(a["records"])),
    "resume": _resume,
    "recall": _recall,
    "checkpoint": _checkpoint,
    "checkpoints.list": lambda e, a: [
        _checkpoint_json(cp)
        for cp in e.continuity.recent(a.get("project"), int(a.get("limit", 20)))
    ],
    "checkpoints.show": lambda e, a: _checkpoint_json(e.continuity.show(str(a["id"]))),
    # ---- lifecycle (issue 7): run by the engine's maintenance scheduler ----
    "consolidate": lambda e, a: e.maintenance.consolidate(a.get("scope"), bool(a.get("dry_run"))),
    "conflicts.list": lambda e, a: e.maintenance.conflicts(bool(a.get("all"))),
    "conflicts.resolve": lambda e, a: e.maintenance.resolve_conflict(int(a["id"]), str(a["keep"])),
    "undo": _undo,
    "undo.list": lambda e, a: e.maintenance.undo_list(),
    "forget.plan": lambda e, a: e.maintenance.forget_plan(_forget_selector(e, a)),
    "forget.run": _forget_run,
    "forget.log": lambda e, a: e.store.forget_log(int(a.get("limit", 50))),
    "memories.find": _memories_find,
    "memories.history": lambda e, a: e.maintenance.history(str(a["id"])),
    "memories.flags": _memories_flags,
    "memories.approve": lambda e, a: e.maintenance.approve([str(i) for i in a["ids"]]),
    "memories.context": _memory_context,
    "memories.edit": lambda e, a: e.maintenance.edit(
        str(a["id"]), a.get("text"), a.get("scope"), a.get("category")
    ),
    # ---- the web UI's overview pages (issue 20) ----
    "stats.dashboard": _dashboard,
    "sessions.list": lambda e, a: e.store.sessions(a.get("project"), int(a.get("limit", 100))),
    "sessions.show": _session_show,
    "projects.list": lambda e, a: e.store.projects(),
    "compact": lambda e, a: e.maintenance.compact(bool(a.get("if_needed"))),
    "lifecycle.size": lambda e, a: retention.size_report(e.store),
    "maintain": _maintain,
    # ---- sync (issue 21) ----
    "sync.now": lambda e, a: e.sync.sync(a.get("remotes")),
    "sync.status": lambda e, a: e.sync.status(),
    "sync.remove": lambda e, a: e.sync.remove(str(a["name"])),
    "sync.name": lambda e, a: e.rekey_project(str(a["scope"]), f"name:{a['name']}"),
}


# Every operation name the socket accepts, listed once: the ops above and the daemon's own.
KNOWN = frozenset(OPS) | frozenset(DAEMON_ONLY)

"""Forgetting: by id, by query, by project, by time range, and everything from one session.

What goes, for each selector:
- the selected memories, with every row superseded by them (their merged duplicates and older
  versions carry nearly the same text), their keyword postings and vectors (one engine batch,
  so the in-memory index follows), and every undo entry, conflict and history event naming
  them (undo entries hold prior rows' text);
- checkpoints derived from what is forgotten: of the session or project, and any checkpoint
  whose text holds a forgotten memory's text (or, for a query, all its terms);
- with `with_turns`: the turns themselves (of the session, project or range; for a query or
  ids, the turns cited as evidence and, for a query, every turn holding all its terms) and
  their tool calls.
Selectors:
- ids: those memories (unknown ids are reported as missing).
- query: memories (any status) holding every keyword of the query.
- session: memories whose evidence all comes from the session's turns; a memory also seen in
  another session keeps that evidence and loses only this session's.
- project: memories scoped to the project (global ones it produced are about the user).
- since/until: memories created in [since, until) (turns: timestamps in the range); with a
  project, only that project's.

The audit log (forget_log) records the selector kind, the memory ids and the counts, never
the forgotten text nor the query. Deleted rows may linger in the database file's free blocks
until it is compacted: `purge` compacts at once (the daemon also compacts on its own when the
file exceeds twice its live data). The agents' own transcript files are not touched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from recallnest.core.errors import RecallnestError
from recallnest.core.models import Memory
from recallnest.core.redact import redact
from recallnest.core.text import tokenize
from recallnest.lifecycle.reports import Compaction, ForgetCounts, ForgetPreview, Forgotten
from recallnest.retrieval.index import Filter
from recallnest.store import Batch, Cursor

if TYPE_CHECKING:
    from recallnest.lifecycle.host import LifecycleHost

__all__ = ["ForgetPlan", "Selector", "forget", "plan_forget"]

PREVIEW_ITEMS = 20


@dataclass(frozen=True, slots=True)
class Selector:
    """What to forget. Exactly one of ids, query, session_id, or project and/or a time range."""

    ids: tuple[str, ...] = ()
    query: str | None = None
    project: str | None = None
    session_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    with_turns: bool = False

    @property
    def kind(self) -> str:
        """The audit log's description: selector kinds only, never the query itself."""
        parts = [
            name
            for name, given in (
                ("ids", bool(self.ids)),
                ("query", self.query is not None),
                ("session", self.session_id is not None),
                ("project", self.project is not None),
                ("range", self.since is not None or self.until is not None),
            )
            if given
        ]
        return "+".join(parts) + ("+turns" if self.with_turns else "")

    def check(self) -> None:
        exclusive = [bool(self.ids), self.query is not None, self.session_id is not None]
        ranged = self.project is not None or self.since is not None or self.until is not None
        if sum(exclusive) + ranged != 1:
            raise RecallnestError(
                "forget needs exactly one of: ids, --query, --session, or --project and/or "
                "--since/--until"
            )
        if self.query is not None and not tokenize(self.query):
            raise RecallnestError("the query has no keywords to match")


@dataclass
class ForgetPlan:
    memory_ids: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    trimmed: list[Memory] = field(default_factory=list)  # memories that only lose evidence
    turn_ids: list[str] = field(default_factory=list)
    checkpoint_ids: list[str] = field(default_factory=list)
    tool_use_sessions: list[str] = field(default_factory=list)
    tool_uses_range: tuple[datetime | None, datetime | None] | None = None
    preview: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> ForgetPreview:
        return ForgetPreview(
            len(self.memory_ids), len(self.trimmed), len(self.turn_ids),
            len(self.checkpoint_ids), self.preview, self.missing,
        )  # fmt: skip


def plan_forget(engine: LifecycleHost, sel: Selector) -> ForgetPlan:
    """What `forget` would remove; nothing is changed."""
    sel.check()
    store = engine.store
    plan = ForgetPlan()
    memories: list[Memory] = []
    terms: list[str] = []
    if sel.ids:
        current = store.mapped_ids(sel.ids)  # an id from before a re-key (memory_id_map)
        memories = store.memories(list(dict.fromkeys(current.get(i, i) for i in sel.ids)))
        # Reported back to the terminal (and the daemon's reply): an "id" that was really a
        # pasted credential must not be echoed.
        found = {m.id for m in memories}
        plan.missing = [redact(i)[0] for i in sel.ids if current.get(i, i) not in found]
    elif sel.query is not None:
        terms = tokenize(sel.query)
        memories = store.memories(_matching(engine, "memory", terms))
        if sel.with_turns:
            plan.turn_ids = _matching(engine, "turn", terms)
    elif sel.session_id is not None:
        session_turns = store.turn_ids_where(session_id=sel.session_id)
        memories, plan.trimmed = _split_by_evidence(store.memories_with_evidence(session_turns),
                                                    set(session_turns))  # fmt: skip
        plan.checkpoint_ids = [cp for cp, _ in store.checkpoint_rows([sel.session_id])]
        if sel.with_turns:
            plan.turn_ids = session_turns
            plan.tool_use_sessions = [sel.session_id]
    else:
        memories = store.find_memories({"scope": sel.project}, since=sel.since, until=sel.until)
        if sel.project is not None and sel.since is None and sel.until is None:
            plan.checkpoint_ids = [cp for cp, _ in store.checkpoint_rows(project=sel.project)]
        if sel.with_turns:
            plan.turn_ids = store.turn_ids_where(
                project=sel.project, since=sel.since, until=sel.until
            )
            if sel.project is not None:
                plan.tool_use_sessions = store.session_ids(plan.turn_ids)
            else:
                plan.tool_uses_range = (sel.since, sel.until)
    memories = _with_predecessors(engine, memories)
    plan.memory_ids = [m.id for m in memories]
    if sel.with_turns and (sel.ids or sel.query is not None):
        cited = [e for m in memories for e in m.evidence]
        plan.turn_ids = list(dict.fromkeys([*plan.turn_ids, *cited]))
    plan.checkpoint_ids = list(
        dict.fromkeys([*plan.checkpoint_ids, *_mentioning(engine, memories, terms)])
    )
    plan.preview = [_preview(m) for m in memories[:PREVIEW_ITEMS]]
    return plan


def forget(
    engine: LifecycleHost,
    sel: Selector,
    drain_access: Callable[[list[str]], object],
    compact: Callable[[bool], Compaction],
    purge: bool = False,
    now: datetime | None = None,
) -> Forgotten:
    """Forget what `sel` selects (see the module docstring); returns ids and counts.
    `drain_access` drops pending access counts of the forgotten memories; `compact(if_needed)`
    compacts the file (the scheduler's, so a purge runs the same compaction as maintenance)."""
    now = now or datetime.now(UTC)
    plan = plan_forget(engine, sel)
    store = engine.store
    result = engine.apply(
        Batch(
            memories=plan.trimmed,
            deleted_memory_ids=plan.memory_ids,
            retracted_turn_ids=plan.turn_ids,
            cursors=_scrubbed_cursors(engine, plan.turn_ids),
        )
    )
    derived = store.delete_derived(
        plan.memory_ids, plan.checkpoint_ids, plan.tool_use_sessions, plan.tool_uses_range
    )
    drain_access(plan.memory_ids)
    counts = ForgetCounts(
        memories=len(plan.memory_ids),
        trimmed=len(plan.trimmed),
        turns=len(plan.turn_ids),
        docs=len(result.removed),
        checkpoints=derived["checkpoints"],
        tool_uses=derived["tool_uses"],
        undo_entries=derived["undo_entries"],
    )
    if purge:
        counts = replace(counts, compaction=compact(False))
    else:
        store.flush_wal()
    if plan.memory_ids or plan.turn_ids or derived["checkpoints"] or derived["tool_uses"]:
        logged = {k: v for k, v in asdict(counts).items() if isinstance(v, int)}
        store.add_forget_log(sel.kind, plan.memory_ids, logged, purge, now)
    return Forgotten(plan.memory_ids, plan.missing, counts)


# --------------------------------------------------------------------------- helpers


def _matching(engine: LifecycleHost, kind: str, terms: list[str]) -> list[str]:
    """Ids of rows (`memory` or `turn`, any status) that hold every term."""
    index = engine.index
    mask = index.mask(Filter(kinds=(kind,)))
    for term in dict.fromkeys(terms):
        mask &= index.bm25([term]) > 0
    return [index.row(int(p))[1] for p in np.flatnonzero(mask)]


def _split_by_evidence(
    memories: list[Memory], turns: set[str]
) -> tuple[list[Memory], list[Memory]]:
    """(memories whose evidence is all in `turns`, others with those turns removed)."""
    gone, trimmed = [], []
    for m in memories:
        rest = tuple(e for e in m.evidence if e not in turns)
        if rest:
            trimmed.append(replace(m, evidence=rest))
        else:
            gone.append(m)
    return gone, trimmed


def _with_predecessors(engine: LifecycleHost, memories: list[Memory]) -> list[Memory]:
    """The memories plus every row superseded by one of them, transitively."""
    found = {m.id: m for m in memories}
    frontier = list(found)
    while frontier:
        older = [m for m in engine.store.superseded_by_any(frontier) if m.id not in found]
        found.update((m.id, m) for m in older)
        frontier = [m.id for m in older]
    return list(found.values())


_SPACE = re.compile(r"\s+")


def _mentioning(engine: LifecycleHost, memories: list[Memory], terms: list[str]) -> list[str]:
    """Checkpoints whose text holds a forgotten memory's text, or every query term."""
    if not memories and not terms:
        return []
    needles = [n for n in (_flat(m.text) for m in memories) if len(n) >= 8]
    wanted = set(terms)
    out = []
    for cp_id, body in engine.store.checkpoint_rows():
        text = _strings(json.loads(body))
        flat = _flat(text)
        if any(n in flat for n in needles) or (wanted and wanted <= set(tokenize(text))):
            out.append(cp_id)
    return out


def _scrubbed_cursors(engine: LifecycleHost, turn_ids: list[str]) -> list[Cursor]:
    """The cursors of the forgotten turns' files with their text removed from the saved
    parser state (a message still being written is kept there in parts). A scrubbed part of a
    message that continues later is simply not re-read."""
    texts: dict[str, list[str]] = {}
    for turn in engine.store.turns(turn_ids):
        texts.setdefault(turn.path, []).append(turn.text)
    out = []
    for path, forgotten in texts.items():
        cursor = engine.store.cursor(path)
        if cursor is None or not cursor.parser_state:
            continue
        state = json.loads(cursor.parser_state)
        clean = _scrub(state, forgotten)
        if clean != state:
            raw = json.dumps(clean, ensure_ascii=False, separators=(",", ":"))
            out.append(replace(cursor, parser_state=raw))
    return out


def _scrub(value: Any, texts: list[str]) -> Any:
    """`value` with every string that is part of (or holds) a forgotten text emptied. Only
    strings that look like message text (with a space, or long) count: ids, roles and
    timestamps in the state must survive."""
    if isinstance(value, str):
        looks_like_text = " " in value.strip() or len(value) >= 16
        if looks_like_text and any(value in t or t in value for t in texts):
            return ""
        return value
    if isinstance(value, list):
        return [_scrub(v, texts) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, texts) for k, v in value.items()}
    return value


def _strings(value: object) -> str:
    """Every string inside a checkpoint's JSON, joined (JSON may escape non-ASCII text)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return " ".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(_strings(v) for v in value)
    return ""


def _flat(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip().rstrip(".。!！")


def _preview(m: Memory) -> dict[str, Any]:
    return {"id": m.id, "scope": m.scope, "category": m.category, "status": m.status,
            "text": m.text}  # fmt: skip

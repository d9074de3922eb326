"""Continuity on top of the engine: build and store session checkpoints, and compose the resume
context a session-start hook prints. Remembers, per agent session, which items were already
sent, so resume/clear/compact starts do not repeat them.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from recallnest.continuity import recall
from recallnest.continuity.candidates import patch_candidates
from recallnest.continuity.checkpoint import Checkpoint, build_checkpoint
from recallnest.continuity.compose import ResumeInputs, candidate_groups, compose_context
from recallnest.core.project import project_of
from recallnest.core.tokens import estimate_tokens
from recallnest.retrieval.relevance import IdfLookup, analyse_prompt

if TYPE_CHECKING:
    from recallnest.core.config import Settings
    from recallnest.core.models import Memory
    from recallnest.store import Store

MAX_TRACKED_SESSIONS = 1000
REPEAT_SOURCES = ("resume", "clear", "compact")
# Starts that continue a session's own transcript: its own captures are in front of it.
TRANSCRIPT_SOURCES = ("resume", "fork")
# A resume context holds a few dozen items, about 8-13 per section. The best 60 of each
# section and scope leave room for duplicates and already-sent items, and each section, the
# project's own facts included, draws from its own scope: one top 300 over every scope let
# 100k global memories crowd the project out (issue 17). At most 5 groups × 60 = 300
# candidates, as before (bench/bench_resume_scale.py).
RESUME_CANDIDATES_PER_GROUP = 60
# After a write, the daemon recomputes the inputs of this many most recently resumed projects
# while idle, so the next session start finds them cached: a cold read costs a scan of every
# memory (bench/bench_resume_scale.py, "first after a write").
REWARM_PROJECTS = 4
# The most changed ids a cached resume input is patched from; more are read whole (the by-id
# read stays a literal list of primary keys, ~9 ms for 100 at 100k memories: store/sql.py).
PATCH_MAX_IDS = 100
# Starts after which the conversation no longer holds what earlier prompts were given.
PROMPT_RESET_SOURCES = ("clear", "compact")
MIN_PROMPT_TOKENS = 40  # less budget left than this cannot carry one item with its frame


@dataclass(frozen=True, slots=True)
class Resume:
    """A session start's resume context: its text ("" when there is nothing to say), the ids
    of the memories and checkpoint it holds (layout order), its estimated tokens and the
    project it was composed for."""

    text: str
    items: tuple[str, ...]
    tokens: int
    project: str | None


@dataclass(frozen=True, slots=True)
class PromptRecall:
    """The notes prompt-time recall sends for one prompt, often none. `skip` says why nothing
    was sent; a prompt skipped before it was read (recall off, no question in it, no budget
    left) has no `intent` or `project`. `candidates`, with `explain`: every fresh candidate as
    (id, kind, relevance, embedding cosine or None)."""

    text: str
    items: tuple[str, ...]
    scores: tuple[float, ...]
    tokens: int
    skip: str | None
    intent: str | None = None
    project: str | None = None
    candidates: tuple[tuple[str, str, float, float | None], ...] | None = None


class ContinuityHost(Protocol):
    """What continuity needs from its host (the Engine): the store it reads sessions, memories
    and checkpoints from, the resume budget, and the access counter of recalled memories."""

    store: Store
    settings: Settings

    def record_access(self, ids: Iterable[str], now: datetime | None = None) -> None: ...


class Continuity:
    def __init__(self, engine: ContinuityHost) -> None:
        self.engine = engine
        self._sent: OrderedDict[str, frozenset[str]] = OrderedDict()
        # session id -> (ids injected at its prompts, tokens spent on them)
        self._prompted: OrderedDict[str, tuple[frozenset[str], int]] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_lock = threading.Lock()
        # project -> (store generation, candidates, latest checkpoint). The store bumps its
        # generation on every write that can change a resume (memories, checkpoints,
        # lifecycle), so no writer has to remember to invalidate this cache.
        self._cache: OrderedDict[str | None, tuple[int, list[Memory], Checkpoint | None]] = (
            OrderedDict()
        )

    # ---- checkpoints ------------------------------------------------------------------------

    def checkpoint(
        self, session_id: str, reason: str = "manual", now: datetime | None = None
    ) -> Checkpoint | None:
        """Build and store the checkpoint of one session; None when nothing is worth keeping."""
        store = self.engine.store
        turns = store.session_turns(session_id)
        if not turns:
            return None
        agent, project = turns[-1].agent, turns[-1].project
        uses = store.session_tool_uses(session_id)
        earlier = self._earlier(project, session_id, turns[-1].timestamp)
        cp = build_checkpoint(
            session_id, agent, project, turns, uses, reason, now or datetime.now(UTC), earlier
        )
        if cp is None:
            return None
        store.write_checkpoint(
            cp.id, session_id, agent, project, cp.created_at, reason, cp.to_json()
        )
        return cp

    def _earlier(
        self, project: str | None, session_id: str, before: datetime | None
    ) -> Checkpoint | None:
        """The project's newest checkpoint of another, earlier session (what it left open
        is carried into this one)."""
        if project is None:
            return None
        for body in self.engine.store.checkpoints(project=project, limit=5):
            cp = Checkpoint.from_json(body)
            if cp.session_id != session_id and (before is None or cp.created_at <= before):
                return cp
        return None

    def latest(self, project: str | None) -> Checkpoint | None:
        bodies = self.engine.store.checkpoints(project=project, limit=1)
        if project is None or not bodies:
            return None
        return Checkpoint.from_json(bodies[0])

    def recent(self, project: str | None, limit: int = 20) -> list[Checkpoint]:
        """The newest checkpoints (of `project`, or of every project), newest first."""
        bodies = self.engine.store.checkpoints(project=project, limit=limit)
        return [Checkpoint.from_json(b) for b in bodies]

    def show(self, cp_id: str) -> Checkpoint | None:
        body = self.engine.store.checkpoint_body(cp_id)
        return None if body is None else Checkpoint.from_json(body)

    # ---- resume -------------------------------------------------------------------------------

    def resume(
        self,
        cwd: str | None,
        agent: str,
        source: str | None = None,
        session_id: str | None = None,
        now: datetime | None = None,
        record: bool = True,
    ) -> Resume:
        """The resume context for a session starting in `cwd`. With `record`, the items sent
        are remembered for this session so a later resume/clear/compact start skips them."""
        project = project_of(cwd)
        sent = self._already_sent(session_id) if source in REPEAT_SOURCES else frozenset()
        memories, checkpoint = self._inputs(project)
        inputs = ResumeInputs(
            project=project,
            agent=agent,
            source=source,
            now=now or datetime.now(UTC),
            checkpoint=checkpoint,
            memories=memories,
            already_sent=sent,
            session_id=session_id,
            held=self._held(session_id, memories) if source in TRANSCRIPT_SOURCES else frozenset(),
            resumed=self._own_before(session_id, checkpoint)
            if source in TRANSCRIPT_SOURCES
            else None,
        )
        ctx = compose_context(inputs, self.engine.settings.resume_budget_tokens)
        if record and session_id:
            self._remember_sent(session_id, sent | set(ctx.item_ids))
            if source in PROMPT_RESET_SOURCES:
                with self._lock:
                    self._prompted.pop(session_id, None)
        if record:
            self.engine.record_access(ctx.item_ids)
        return Resume(ctx.text, ctx.item_ids, ctx.tokens, project)

    def _inputs(self, project: str | None) -> tuple[list[Memory], Checkpoint | None]:
        """Candidate memories and the latest checkpoint, cached until the store changes."""
        store = self.engine.store
        generation = store.generation
        with self._cache_lock:  # hook requests and the daemon's rewarm share the cache
            cached = self._cache.get(project)
            if cached is not None and cached[0] == generation:
                self._cache.move_to_end(project)
                return cached[1], cached[2]
        patched = None if cached is None else self._patched(project, cached[0], cached[1])
        if patched is not None and cached is not None:
            memories, checkpoint = patched, cached[2]
        else:
            memories = store.resume_memories(candidate_groups(project), RESUME_CANDIDATES_PER_GROUP)
            checkpoint = self.latest(project)
        with self._cache_lock:
            self._cache[project] = (generation, memories, checkpoint)
            self._cache.move_to_end(project)
            while len(self._cache) > MAX_TRACKED_SESSIONS:
                self._cache.popitem(last=False)
        return memories, checkpoint

    def _patched(self, project: str | None, since: int, held: list[Memory]) -> list[Memory] | None:
        """The cached candidates brought up to date from the memories written since (a capture
        writes a few rows; reading the best of every group again cost 75-120 ms at 100k), or
        None when only a fresh read can tell (a checkpoint, a forget, a row that fell)."""
        changed = self.engine.store.changes_since(since)
        # Trigger: more ids than a by-id read answers quickly. Why: ~300 ids piled up by the
        # retier slices of a quiet spell took 690 ms to read by id right after the release
        # (a scan beyond the literal list, its blocks evicted; decision 0038). Outcome: the
        # group reads, 25-85 ms whatever changed.
        if changed is None or len(changed) > PATCH_MAX_IDS:
            return None
        fresh = self.engine.store.memories(sorted(changed)) if changed else []
        groups = candidate_groups(project)
        return patch_candidates(held, fresh, changed, groups, RESUME_CANDIDATES_PER_GROUP)

    def rewarm(self) -> int:
        """Recompute the stale inputs of the most recently resumed projects (the daemon calls
        this when idle). Returns how many were recomputed."""
        generation = self.engine.store.generation
        with self._cache_lock:
            recent = list(self._cache.items())[-REWARM_PROJECTS:]
        stale = [project for project, cached in recent if cached[0] != generation]
        for project in stale:
            self._inputs(project)
        return len(stale)

    def _held(self, session_id: str | None, candidates: list[Memory]) -> frozenset[str]:
        """Ids of the candidates captured from `session_id` (their evidence cites its turns):
        its transcript holds them, whether or not a start of it was recorded as sent. Only
        the candidates can reach the context, so no scan of every memory is needed."""
        if not session_id:
            return frozenset()
        turn_ids = set(self.engine.store.turn_ids_where(session_id=session_id))
        return frozenset(m.id for m in candidates if turn_ids.intersection(m.evidence))

    def _own_before(
        self, session_id: str | None, checkpoint: Checkpoint | None
    ) -> Checkpoint | None:
        """The resumed session's own checkpoint when `checkpoint` is of another session, newer
        than it (one indexed read, only when a session is resumed); else None."""
        if not session_id or checkpoint is None or checkpoint.session_id == session_id:
            return None
        own = self.engine.store.checkpoints(session_id=session_id, limit=1)
        if not own:
            return None
        found = Checkpoint.from_json(own[0])
        return found if found.created_at < checkpoint.created_at else None

    def _already_sent(self, session_id: str | None) -> frozenset[str]:
        with self._lock:
            return self._sent.get(session_id or "", frozenset())

    def _resumed(self, session_id: str) -> bool:
        with self._lock:
            return session_id in self._sent

    def _assume_resumed(
        self, cwd: str | None, agent: str, session_id: str, now: datetime | None
    ) -> None:
        """A session this daemon never resumed started while it was down (the hook printed the
        snapshot) or before it restarted: count what its resume shows as already in front of
        the agent, so a prompt does not bring the same notes a second time."""
        shown = self.resume(cwd, agent, "startup", session_id, now=now, record=False)
        self._remember_sent(session_id, set(shown.items))

    def _remember_sent(self, session_id: str, ids: frozenset[str] | set[str]) -> None:
        with self._lock:
            self._sent[session_id] = frozenset(ids)
            self._sent.move_to_end(session_id)
            while len(self._sent) > MAX_TRACKED_SESSIONS:
                self._sent.popitem(last=False)

    # ---- prompt-time recall (issue 23) -----------------------------------------------------

    def recall(
        self,
        prompt: str,
        cwd: str | None,
        search: recall.Search,
        idf: IdfLookup,
        session_id: str | None = None,
        now: datetime | None = None,
        explain: bool = False,
        agent: str = "claude",
        prepare: recall.Prepare | None = None,
    ) -> PromptRecall:
        """The notes one prompt needs (often none): see continuity.recall. Items the session
        already received are never sent again, and the session's prompts share a budget.
        `explain` adds every fresh candidate with its relevance (and embedding cosine).
        `prepare` starts the query's embedding before the rest of the work."""
        settings = self.engine.settings
        if not settings.prompt_recall:
            return _nothing("off")
        plan = analyse_prompt(prompt)
        if plan.skip is not None:
            return _nothing(plan.skip)
        prompted, spent = self._prompt_state(session_id)
        budget = min(settings.prompt_recall_tokens, settings.prompt_recall_session_tokens - spent)
        if budget < MIN_PROMPT_TOKENS:
            return _nothing("budget")
        if prepare is not None:
            prepare(plan.query)
        project = project_of(cwd)
        if session_id and not self._resumed(session_id):
            self._assume_resumed(cwd, agent, session_id, now)
        hits, near = search(plan.query, plan.profile, project, recall.CANDIDATES, plan.rules_about)
        trace: list[tuple[str, str, float, float | None]] = []
        chosen = recall.choose(
            plan,
            hits,
            idf,
            affinity=near,
            excluded=self._already_sent(session_id) | prompted,
            session_id=session_id,
            session_turns=lambda: self._session_turns(session_id),
            now=now or datetime.now(UTC),
            max_tokens=budget,
            trace=trace,
        )
        text = recall.render(chosen)
        tokens = math.ceil(estimate_tokens(text)) if text else 0
        if session_id and chosen:
            with self._lock:
                self._prompted[session_id] = (prompted | {c.id for c in chosen}, spent + tokens)
                self._prompted.move_to_end(session_id)
                while len(self._prompted) > MAX_TRACKED_SESSIONS:
                    self._prompted.popitem(last=False)
        self.engine.record_access(recall.memory_ids(chosen))
        return PromptRecall(
            text,
            tuple(c.id for c in chosen),
            tuple(c.score for c in chosen),
            tokens,
            skip=None if chosen else "irrelevant",
            intent=plan.intent,
            project=project,
            candidates=tuple(trace) if explain else None,
        )

    def _prompt_state(self, session_id: str | None) -> tuple[frozenset[str], int]:
        with self._lock:
            return self._prompted.get(session_id or "", (frozenset(), 0))

    def _session_turns(self, session_id: str | None) -> frozenset[str]:
        if not session_id:
            return frozenset()
        return frozenset(self.engine.store.turn_ids_where(session_id=session_id))


def _nothing(reason: str) -> PromptRecall:
    return PromptRecall("", (), (), 0, skip=reason)

"""The engine: one open store, its in-memory search index and the embedder, behind the
operations every front end needs (remember, search, forget, list, export/import, stats,
background embedding). The daemon holds one Engine for its life; the CLI opens one when no
daemon runs. Every operation returns plain JSON-able data shaped by `schemas`.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from recallnest.capture.admission import (
    SESSION_CAPTURE_CAP,
    Admitter,
    apply_session_cap,
    previous_turns,
    superseded_target,
)
from recallnest.capture.heuristics import capture_turn
from recallnest.capture.worker import CaptureJob, Pair, capture_pairs
from recallnest.core import aliases, heap, redact
from recallnest.core.config import Settings
from recallnest.core.errors import EmbedError, NotFoundError, RecallnestError, StoreError
from recallnest.core.identity import PROJECT_IDS, is_portable
from recallnest.core.models import (
    CATEGORIES,
    GLOBAL_SCOPE,
    Capture,
    Explain,
    Forgotten,
    Imported,
    Memory,
    Reindexed,
    Remembered,
    SearchHit,
    Turn,
    memory_id,
    memory_id_of_basis,
)
from recallnest.core.paths import db_path, ensure_home
from recallnest.core.text import tokenize
from recallnest.core.timeparse import as_utc
from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.embed import Embedder, make_embedder
from recallnest.retrieval.index import Filter, SearchIndex
from recallnest.retrieval.query import SYNONYM_GROUPS, plan_query
from recallnest.retrieval.query_vectors import QueryVectors
from recallnest.retrieval.ranking import (
    PROFILES,
    VECTOR_ONLY_MIN_COSINE,
    AcrossLanguage,
    Scored,
    retrieve,
)
from recallnest.retrieval.relevance import (
    ACROSS_FEW_PART,
    ACROSS_POOL_MIN,
    COSINE_FLOORS,
    PROCEDURE_PART,
    PROMPT_GROUPS,
    RULE_PART,
    RULE_TERMS,
    across_few_passes,
    across_language_passes,
    across_order_passes,
    asks_order,
    asks_procedure,
    content_terms,
    is_rule,
    orders_steps,
    outside_answers,
)
from recallnest.retrieval.topk import top_k
from recallnest.store import Batch, BatchResult, IndexSnapshot, Store
from recallnest.store.journal import Journal
from recallnest.store.types import FileCompaction

if TYPE_CHECKING:
    from recallnest.continuity.service import Continuity
    from recallnest.sync.replica import Replica

log = logging.getLogger(__name__)

EMBED_BATCH = 16  # vectors per embedder call (the daemon's background embedding too)
# Vectors loaded between two hand-overs of the index files' pages during the load (decision
# 0035): 64k rows of 384-d int8 is 24 MiB.
LOAD_RELEASE_ROWS = 65_536
SIMILAR_CANDIDATES = 5
# Turns older than this (conversation time) are history being read in, by a backfill or a
# catch-up after downtime, not a live session. Only the newest such session of each project
# waits for an idle checkpoint: the daemon catching up on 100k backfilled turns otherwise
# queued 2,500 checkpoints and spent minutes of a full core on them (bench_ingest --footprint).
HISTORY_AGE = timedelta(hours=6)
_EPOCH0 = datetime(1970, 1, 1, tzinfo=UTC)
MAX_LIMIT = 1000
# Prompt recall's rules about what the prompt makes (`Engine._with_rules`): memories checked
# for a rule word, read, at most, and added to the gated candidates.
RULE_POOL = 64  # memories holding the made thing's words most, checked for a rule word
RULE_LOOKUP = 4
RULES_ADDED = 2
# A flush with this many new or changed turns (a backfill, a catch-up) writes them at once and
# queues their capture: `capture_queued` follows, as vectors do (decision 0009). Smaller
# flushes, the live case, write their memories in the same transaction as their turns.
CAPTURE_LATER_MIN = 1_500
# Queued groups this large are captured by a worker process started as soon as they are
# queued (its start-up, ~0.3 s, overlaps other work; see `_start_capture`), two at most.
CAPTURE_JOB_MIN = 500
MAX_CAPTURE_JOBS = 2


@dataclass(frozen=True, slots=True)
class Rekeyed:
    """A project whose memory ids are now made of `basis`: how many were re-keyed."""

    scope: str
    basis: str
    rekeyed: int


@dataclass(frozen=True, slots=True)
class SearchRequest:
    query: str
    kind: str = "all"  # turns | memories | all
    limit: int = 10
    scope: str | None = None
    project: str | None = None
    category: str | None = None
    agent: str | None = None
    session_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    status: str | None = "active"
    explain: bool = False
    profile: str = "default"
    disabled: frozenset[str] = frozenset()  # retrieval stages switched off (ablation)
    # Count the memories found as accessed. Prompt-time recall gates its candidates and
    # counts only the ones it injects (continuity.service.recall).
    record: bool = True
    # Search with this stored vector instead of embedding the query (a memory's neighbours:
    # its own vector, where embedding its text again costs 20-50 ms with the local model).
    vector: np.ndarray | None = field(default=None, compare=False)
    # Seconds the vector channel waits for the query's embedding once keywords are scored;
    # None waits for it. A prompt-time recall has a deadline: late, it searches keyword-only.
    vector_wait: float | None = None
    # The vector channel scans the memories and only the turns the keywords found (prompt-time
    # recall: at 100k turns most of the scan was turns, which its gate rarely takes).
    turns_by_keyword: bool = False
    # The keyword query is also expanded through the EN/ZH developer vocabulary
    # (core.bilingual): prompt-time recall, where the note answering a prompt is often in
    # the other language and the embedding ranks the prompt's own language first.
    bilingual: bool = False
    # Index terms of what a prompt asks to make (relevance.PromptPlan.produces): the standing
    # rules about it among the memories in scope are added to the hits (`_with_rules`).
    rules_about: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class EmbedderStats:
    model: str | None
    error: str | None
    rows_with_vectors: int
    rows: int
    pending: int | None  # rows still without a vector of `model`; None without an embedder


@dataclass(frozen=True, slots=True)
class Stats:
    """What `recallnest stats` shows: where the data lives, row counts, file size, embedding
    progress."""

    home: str
    database: str
    counts: dict[str, int]
    file: dict[str, int]
    embedder: EmbedderStats


class Engine:
    """Owns the store connection; safe to call from several threads."""

    def __init__(self, settings: Settings, store: Store, embedder: Embedder | None) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.journal = Journal(settings.home)  # memory writes since the last backup (repair)
        self.embedder_error: str | None = None
        self._index = SearchIndex(backing=FileBacking(settings.home))
        # The index is built by a thread started at open (`_start_index_load`); `index` waits
        # for it. Until then a backfill parses, redacts and stores without it.
        self._index_ready = threading.Event()
        self._index_ready.set()
        self._index_error: BaseException | None = None
        self._release_owed = False  # a release skipped because the store stayed busy
        self._index_loader: threading.Thread | None = None
        self._embed_lock = threading.Lock()
        self._query_vectors: QueryVectors | None = None
        self._query_vectors_lock = threading.Lock()
        # session id -> (monotonic time of its last new turn, a compaction summary arrived)
        self.touched: dict[str, tuple[float, bool]] = {}
        # Sessions read in as history: the newest per project, and those touched only as history.
        self._history_newest: dict[str, tuple[datetime, str]] = {}
        self._history_only: set[str] = set()
        # Once anything is queued, later flushes queue too: capture keeps conversation order.
        self._capture_queued = store.queued_capture_count() > 0
        # Queued group -> (hash of its ordered pairs, the worker capturing them already).
        self._capture_jobs: dict[int, tuple[int, CaptureJob]] = {}
        # One queued group is captured at a time (the daemon's loop and an `ingest` request
        # may both drain): two threads must not admit the same group twice.
        self._capture_lock = threading.RLock()
        # Bumped on every memory write: lets readers cache what they derive from memories.
        self.memory_generation = 0
        # Each git project's memory id basis, as the store keeps it (core.identity).
        self._bases = store.project_bases()
        PROJECT_IDS.seed(self._bases)

    @classmethod
    def open(cls, settings: Settings, embedder: Embedder | None = None) -> Engine:
        """Open (creating if needed) the store under settings.home. Raises StoreLockedError
        when another process holds it."""
        ensure_home(settings.home)
        store = Store(db_path(settings.home), memory_mb=settings.db_memory_mb)
        engine = cls(settings, store, None)
        if "m007_portable_memory_ids" in store.migrated:
            engine._after_portable_ids()
        engine._attach_embedder(embedder)
        engine._start_index_load()
        return engine

    @property
    def index(self) -> SearchIndex:
        """The in-memory search index, once loaded (see `_start_index_load`)."""
        if not self._index_ready.is_set():
            self._index_ready.wait()
        if self._index_error is not None:
            raise StoreError(f"cannot load the search index: {self._index_error}") from (
                self._index_error
            )
        return self._index

    def _index_loaded(self) -> None:
        """Wait for the index load: its queries run on the connection that closing or
        compacting the store replaces."""
        if self._index_loader is not None:
            self._index_loader.join()

    def close(self) -> None:
        self._index_loaded()
        with self._capture_lock:
            for _, job in self._capture_jobs.values():
                job.cancel()  # the queue keeps their turns: captured after the next open
            self._capture_jobs.clear()
        if self._query_vectors is not None:
            self._query_vectors.close()
        self.store.close()

    @cached_property
    def continuity(self) -> Continuity:
        """Checkpoints and resume contexts over this engine."""
        from recallnest.continuity.service import Continuity

        return Continuity(self)

    # ---- setup ---------------------------------------------------------------------------

    def _attach_embedder(self, embedder: Embedder | None) -> None:
        try:
            self.embedder = embedder or build_embedder(self.settings)
        except EmbedError as exc:
            self.embedder, self.embedder_error = None, str(exc)
            log.warning("embedder unavailable, search is keyword-only: %s", exc)
        if self.embedder is not None:
            self.store.register_model(self.embedder.model_id, self.embedder.dimensions)

    def _start_index_load(self) -> None:
        """Build the index from the store in a thread. Opening returns at once, so a backfill
        parses, redacts and stores its first flush while the index loads (1 s by itself at
        100k turns, much of it in DuckDB and numpy outside the GIL); whatever touches `index`
        waits for it (decision 0010).

        Writes committed meanwhile are safe either way: the load reads one snapshot, and an
        apply after it adds rows the snapshot may already hold, which the index takes as a
        no-op (same doc) or a replacement (new doc)."""
        self._index_ready.clear()
        self._index_loader = threading.Thread(
            target=self._load_index, name="recallnest-index-load", daemon=True
        )
        self._index_loader.start()

    def _load_index(self) -> None:
        try:
            model = self.embedder.model_id if self.embedder else None
            with self.store.index_snapshot(model) as snapshot:
                self._fill_index(snapshot)
            del snapshot  # its columns die here
        except BaseException as exc:  # re-raised by `index` in the threads that need it
            log.error("cannot load the search index: %s", exc)
            self._index_error = exc
        finally:
            self._index_ready.set()
        # After readiness: a writer may hold the store's write lock while it waits for the
        # index, and the release takes that lock.
        self.release_memory()

    def _fill_index(self, snapshot: IndexSnapshot) -> None:
        # Each kind's columns leave the snapshot once loaded: at 1M turns their Python strings
        # (ids, sessions, projects) held ~450 MiB through the postings and vectors (issue 22).
        for kind in list(snapshot.rows):
            cols = snapshot.rows.pop(kind)
            facets = [c for c in cols if c not in ("doc", "id", "length", "ts", "weight")]
            weights = np.asarray(cols["weight"], np.float32) if "weight" in cols else None
            self._index.load_rows(
                kind,
                cols["doc"],
                list(map(str, cols["id"])),
                cols["length"],
                np.asarray(cols["ts"], dtype=np.float64),
                {f: _strings(cols[f]) for f in facets},
                weights,
            )
            del cols, weights
        self._index.load_posting_stream(snapshot.postings())  # read a chunk at a time
        # The load's peak is set while the vectors stream in, DuckDB's buffer filling beside
        # the postings and the int8 matrix (1M turns: ~1.2 GiB of index, +0.5 GiB of buffer,
        # +0.4 GiB of vectors). The built postings and each stretch of vectors written go to
        # the page cache as the load goes (decision 0035); the kernel writes them back.
        self._index.release_pages(flush=False)
        if self.embedder is not None and snapshot.vectors is not None:
            self._index.set_model(self.embedder.model_id, self.embedder.dimensions)
            written = 0
            for docs, matrix in snapshot.vectors:  # a chunk at a time, quantised as they come
                self._index.set_vectors(docs, matrix)
                written += len(docs)
                if written >= LOAD_RELEASE_ROWS:
                    self._index.release_pages(flush=False)
                    written = 0

    def release_memory(self, owed_only: bool = False) -> None:
        """Give back what a large pass left behind (issue 22): DuckDB's cached blocks and the
        allocator's free pages. The index load peaks at ~3x what the index keeps (result
        columns, Python strings and bytes, the postings sort); without this the daemon's RSS
        stayed near that peak (bench/RESULTS.md "Memory footprint").

        A store kept busy past the release's wait (a catch-up's flushes right after the load,
        on a loaded machine) skips it; the release is then owed, and `owed_only` (the idle
        scheduler's call) does it then and nothing otherwise. Without that the daemon kept
        ~400 MiB more until its first maintenance pass.

        The memo caches registered with `heap.droppable` are emptied too, and the index's
        postings compacted when enough of them are dead (decision 0027)."""
        if owed_only and not self._release_owed:
            return
        try:
            self._release_owed = not self.store.release_memory()
        except RecallnestError as exc:  # saving memory is never worth failing for
            log.debug("could not release DuckDB's memory: %s", exc)
            self._release_owed = False
        if self._index_ready.is_set() and self._index_error is None:
            self._index.compact_postings()  # when its dead postings are due for it
            self._index.release_pages()  # to the page cache, until a search reads them
        heap.drop_caches()  # memo caches a burst of capture or maintenance filled
        heap.release()

    # ---- writes --------------------------------------------------------------------------

    def apply(self, batch: Batch) -> BatchResult:
        """Write one batch and make it searchable at once (vectors follow in the background)."""
        # After the commit (at once, or when an enclosing store.atomic() commits), under the
        # writer lock: the journal in commit order, nothing indexed that a rollback undid.
        with self.store.write_locked():
            result = self.store.write(batch)
            self._keep_bases(batch.memories)
            self.store.after_commit(lambda: self._committed(batch, result))
        return result

    def _keep_bases(self, memories: Sequence[Memory]) -> None:
        """Keep the git id basis of projects written for the first time, so this machine's
        ids for them never change (and git never runs for them again)."""
        new = {}
        for scope in {m.scope for m in memories}.difference(self._bases):
            basis = PROJECT_IDS.basis(scope, GLOBAL_SCOPE)
            if basis != scope:
                new[scope] = basis
        if new:
            self.store.save_project_bases(new)
            self._bases.update(new)

    def _committed(self, batch: Batch, result: BatchResult) -> None:
        self.index.remove(result.removed)
        self.index.add(result.added, result.postings)
        if batch.memories or batch.deleted_memory_ids:
            self.memory_generation += 1
            self._journal(batch)

    def _journal(self, batch: Batch) -> None:
        # Policy: the write is committed; a journal that cannot be written (disk full) is
        # logged and the write stands. The next backup covers it again.
        try:
            self.journal.record(batch.memories, batch.deleted_memory_ids)
        except OSError as exc:
            log.warning("memory journal not written: %s", exc)

    def ingest_batch(self, batch: Batch) -> int:
        """Apply one ingestion flush, with the memories captured from its new or changed turns
        written in the same transaction, or, for a large flush, their capture queued in it
        (`capture_queued` writes them). Returns the number of new turns."""
        fresh = self.store.changed_turns(batch.turns)
        later: list[Turn] = []
        if fresh and (self._capture_queued or len(fresh) >= CAPTURE_LATER_MIN):
            later = list({t.id: t for t in fresh}.values())  # as the queue keeps them
            batch.capture_later.extend(t.id for t in later)
        elif fresh:
            batch.memories.extend(
                self._capture(_ordered_pairs(fresh), counts=batch.session_captures)
            )
        result = self.apply(batch)
        new_turns = result.new_turns
        if result.queued_flush is not None:
            self._capture_queued = True
            self._start_capture(result.queued_flush, later)
        now, wall = time.monotonic(), datetime.now(UTC)
        for turn in fresh:
            stamp = turn.timestamp
            if stamp is not None and wall - as_utc(stamp) > HISTORY_AGE:
                self._touch_history(turn.project or turn.cwd or "", as_utc(stamp), turn.session_id)
                continue
            self._history_only.discard(turn.session_id)
            compacted = turn.kind == "summary" or self.touched.get(turn.session_id, (0, False))[1]
            self.touched[turn.session_id] = (now, compacted)
        return new_turns

    def capture_queued(self) -> int:
        """Capture the oldest queued flush group and write its memories in the transaction
        that takes it off the queue. Returns its number of turns, 0 once the queue is empty."""
        with self._capture_lock:
            return self._capture_head()

    def _capture_head(self) -> int:
        head = self.store.queued_capture()
        if head is None:
            self._capture_queued = False
            return 0
        flush, turns = head
        if not any(f > flush for f in self._capture_jobs):
            following = self.store.queued_capture(after=flush)
            if following is not None:  # the worker captures it while this group is admitted
                self._start_capture(*following)
        pairs = _ordered_pairs(turns)
        found = None
        started = self._capture_jobs.pop(flush, None)
        if started is not None and started[0] == hash(tuple(pairs)):
            found = started[1].result()
        elif started is not None:
            started[1].cancel()  # its turns changed since: captured again below
        counts: dict[str, int] = {}
        memories = self._capture(pairs, found, counts) if pairs else []
        self.apply(Batch(memories=memories, captured_flush=flush, session_captures=counts))
        return max(len(turns), 1)

    def _start_capture(self, flush: int, turns: Sequence[Turn]) -> None:
        """Start capturing a queued group in a worker process right away, so the second core
        works while this one stores the next flush. At most two jobs run; a group without one
        is captured when its turn in the queue comes."""
        with self._capture_lock:
            running = sum(not job.ready() for _, job in self._capture_jobs.values())
            if len(turns) < CAPTURE_JOB_MIN or running >= MAX_CAPTURE_JOBS:
                return
            pairs = _ordered_pairs(turns)
            self._capture_jobs[flush] = (hash(tuple(pairs)), CaptureJob(pairs))

    @property
    def capture_pending(self) -> bool:
        """Whether turns wait in the capture queue."""
        return self._capture_queued

    def drain_capture(
        self,
        on_progress: Callable[[int, int], None] | None = None,
        stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Capture queued groups until the queue is empty or `stop()` says so; returns the
        turns captured. `on_progress(done, total)` follows them."""
        total = self.store.queued_capture_count() if self._capture_queued else 0
        done = 0
        while self._capture_queued and not stop():
            done += self.capture_queued()
            if on_progress and total:
                on_progress(min(done, total), total)
        return done

    def _touch_history(self, project: str, stamp: datetime, session_id: str) -> None:
        """Of the sessions read in as history, only the newest of each project waits for a
        checkpoint: the one a resume shows (see HISTORY_AGE)."""
        newest = self._history_newest.get(project)
        if newest is not None and newest[0] >= stamp:
            return
        if newest is not None and newest[1] != session_id and newest[1] in self._history_only:
            self.touched.pop(newest[1], None)
            self._history_only.discard(newest[1])
        self._history_newest[project] = (stamp, session_id)
        if session_id not in self.touched:
            self._history_only.add(session_id)
            self.touched[session_id] = (time.monotonic(), False)

    def _capture(
        self,
        pairs: Sequence[Pair],
        found: list[list[Capture]] | None = None,
        counts: dict[str, int] | None = None,
    ) -> list[Memory]:
        """Zero-LLM capture over new turns (`_ordered_pairs`), with dedup/merge/supersession
        against the store. Only rows whose content changed are returned (re-ingesting changes
        nothing). `found`: what `capture_turn` already gave for `pairs`. `counts` receives
        each session's new capture total, to be written in the same batch."""
        kept = self._captures(pairs, found, {} if counts is None else counts)
        lookup = self._admission_lookup([cap for cap, _, _ in kept])
        admitter = Admitter(lookup, hold=self.settings.review_captures)
        for cap, when, source in kept:
            admitter.admit(cap, when, source)
        stored = {m.id: m for m in self.store.memories(list(admitter.pending))}
        return [m for m in admitter.rows() if stored.get(m.id) != m]

    def _captures(
        self, pairs: Sequence[Pair], found: list[list[Capture]] | None, counts: dict[str, int]
    ) -> list[tuple[Capture, datetime | None, str]]:
        """What capture keeps of each turn, in conversation order, within each session's cap.

        One policy: a session admits at most SESSION_CAPTURE_CAP captures over its life (the
        count is stored, so a restart does not reset it); when a flush offers more than the
        room left, its most important captures are kept (`apply_session_cap`)."""
        if found is None:
            found = capture_pairs(pairs)
        flat = [
            (turn.session_id, replace(c, scope=c.scope or GLOBAL_SCOPE), turn)
            for (turn, _), captures in zip(pairs, found, strict=True)
            for c in captures
        ]
        by_session: dict[str, list[Capture]] = {}
        for session_id, cap, _ in flat:
            by_session.setdefault(session_id, []).append(cap)
        before = self.store.session_captures(by_session.keys())
        kept: set[int] = set()
        for session_id, offered in by_session.items():
            done = before.get(session_id, 0)
            keep = apply_session_cap(offered, done, SESSION_CAPTURE_CAP)
            kept.update(id(c) for c in keep)
            if keep:
                counts[session_id] = done + len(keep)
        return [
            (cap, turn.timestamp, f"capture:{turn.agent}")
            for _, cap, turn in flat
            if id(cap) in kept
        ]

    def _admission_lookup(self, captures: Sequence[Capture]) -> Callable[[Capture], list[Memory]]:
        """Existing memories a capture may duplicate, merge into or supersede: the same
        subject in its scope, plus the most keyword-similar memories of its scope.

        The store does not change while one flush is decided, so every capture's candidates
        are read up front, in two queries for the whole flush instead of two per capture."""
        by_subject = self.store.memories_by_subjects(
            {(c.scope, c.subject) for c in captures if c.subject}
        )
        # Per scope: its memory rows, and query-term postings restricted to them.
        scopes: dict[str, tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray, int]]]] = {}
        similar: dict[tuple[str, str], list[str]] = {}

        def near_ids(scope: str, text: str) -> list[str]:
            if (scope, text) not in similar:
                if scope not in scopes:
                    mask = self.index.mask(Filter(kinds=("memory",), equals={"scope": scope}))
                    scopes[scope] = (np.flatnonzero(mask), {})
                rows, memo = scopes[scope]
                scores = self.index.bm25_rows(tokenize(text), rows, memo)
                top = rows[top_k(scores, scores > 0, SIMILAR_CANDIDATES)]
                similar[(scope, text)] = [self.index.row(int(p))[1] for p in top]
            return similar[(scope, text)]

        for cap in captures:
            near_ids(cap.scope, cap.text)
        wanted = dict.fromkeys(i for ids in similar.values() for i in ids)
        memories = {m.id: m for m in self.store.memories(list(wanted))}

        def lookup(cap: Capture) -> list[Memory]:
            """Read up front for the flush's own captures; a later question (the memories a
            retraction's target is quoted in) is answered on demand."""
            same = by_subject.get((cap.scope, cap.subject), []) if cap.subject else []
            seen = {m.id for m in same}
            ids = near_ids(cap.scope, cap.text)
            missing = [i for i in ids if i not in memories]
            if missing:
                memories.update((m.id, m) for m in self.store.memories(missing))
            near = [memories[i] for i in ids if i in memories]
            return same + [m for m in near if m.id not in seen]

        return lookup

    def remember(
        self,
        text: str,
        category: str | None = None,
        scope: str = GLOBAL_SCOPE,
        importance: float | None = None,
        source: str = "manual",
        now: datetime | None = None,
    ) -> Remembered:
        """Store one memory (redacted, deduplicated by canonical text) and return it. A new
        statement that contradicts an active memory of its scope supersedes it at once, as a
        captured correction does (`admission.superseded_target`)."""
        clean, kinds = redact.redact(text.strip())
        if not clean:
            raise RecallnestError("nothing to remember: the text is empty")
        heard = _manual_capture(clean, scope, category)
        if heard.category not in CATEGORIES:
            raise RecallnestError(
                f"unknown category {heard.category!r}; use one of {', '.join(CATEGORIES)}"
            )
        now = now or datetime.now(UTC)
        mem_id = memory_id(scope, aliases.canonical(clean))
        old = self.store.memories([mem_id])
        memory = (
            _merged(old[0], clean, importance, now)
            if old
            else Memory(
                id=mem_id,
                scope=scope,
                category=heard.category,
                text=clean,
                importance=0.7 if importance is None else importance,
                confidence=1.0,
                tier="working",
                created_at=now,
                updated_at=now,
                source=source,
                rule="manual" if source == "manual" else source,
                subject=heard.subject,
            )
        )
        replaced = None if old else superseded_target(heard, self._admission_lookup([heard])(heard))
        rows = [memory]
        if replaced is not None:
            rows.append(
                replace(replaced, status="superseded", superseded_by=memory.id, updated_at=now)
            )
        self.apply(Batch(memories=rows))
        self._embed_now([memory.id])
        return Remembered(
            memory=memory,
            created=not old,
            redactions=tuple(kinds),
            superseded=(replaced.id,) if replaced is not None else (),
        )

    def forget(self, ids: Sequence[str]) -> Forgotten:
        mapped = self.store.mapped_ids(ids)  # ids from before a re-key
        found = [m.id for m in self.store.memories([mapped.get(i, i) for i in ids])]
        missing = [i for i in ids if mapped.get(i, i) not in found]
        if found:
            self.apply(Batch(deleted_memory_ids=found))
        return Forgotten(forgotten=found, missing=missing)

    def import_memories(self, memories: Sequence[Memory]) -> Imported:
        """Write exported memories back (`core.schemas.memories_of` reads the records): same
        ids, text redacted like any other; all or nothing."""
        clean = [replace(m, text=redact.redact(m.text)[0]) for m in memories]
        self.apply(Batch(memories=self._current_keys(clean)))
        return Imported(imported=len(clean))

    # ---- reads ---------------------------------------------------------------------------

    def search(self, req: SearchRequest) -> list[SearchHit]:
        """Hybrid search (see retrieve.py for the channels and scoring stages)."""
        return self._search(req)[0]

    def search_with_affinities(
        self, req: SearchRequest
    ) -> tuple[list[SearchHit], dict[str, float]]:
        """`search`, and the cosine of the query's embedding with each hit's, by hit id: empty
        without an embedder the prompt gate was calibrated on, hits without a vector or under
        its floor (relevance.COSINE_FLOORS) left out.
        The query is planned and embedded once, for both."""
        floor = COSINE_FLOORS.get(self.embedder.model_id) if self.embedder else None
        across: list[AcrossLanguage] | None = (
            [] if floor is not None and req.turns_by_keyword else None
        )
        within: list[AcrossLanguage] | None = (
            [] if across is not None and asks_procedure(req.query) else None
        )
        hits, qvec = self._search(req, across, within)
        if req.rules_about:
            hits = self._with_rules(hits, req)
        if qvec is None or floor is None:
            return hits, {}
        if across and across[0].cosine >= floor:
            hits = self._with_across(hits, across[0], req.query)
        if within and within[0].cosine >= floor:
            hits = self._with_procedure(hits, within[0])
        out: dict[str, float] = {}
        query = qvec.astype(np.float32)
        for hit in hits:
            pos = self.index.position(hit.kind, hit.id)
            vec = None if pos is None else self.index.vector_at(pos)
            if vec is not None and len(vec) == len(query) and (cos := float(vec @ query)) >= floor:
                out[hit.id] = cos
        if req.turns_by_keyword and out:
            return self._closest_outside(hits, out, frozenset(content_terms(req.query)))
        return hits, out

    @staticmethod
    def _closest_outside(
        hits: list[SearchHit], cosines: dict[str, float], asked: frozenset[str]
    ) -> tuple[list[SearchHit], dict[str, float]]:
        """A prompt's candidates when the one closest in meaning is a note on a thing outside
        a system the prompt does not touch (relevance.outside_answers: the distractor about
        the outside thing is as close as its answer would be): without that note, and with no
        closeness in meaning to go by, since the next closest standing out says nothing of the
        prompt either. Such a note further down stays, as the margin's second (relevance
        gates it): left out, the next after it made a false margin (round 46 b15, blind12's
        "N gauge branch line" against the club newsletter note)."""
        top = max(cosines, key=lambda i: cosines[i])
        closest = next((h for h in hits if h.id == top), None)
        if closest is None or closest.kind != "memory" or outside_answers(asked, closest.text):
            return hits, cosines
        return [h for h in hits if h.id != top], {}

    def _with_across(
        self, hits: list[SearchHit], found: AcrossLanguage, query: str = ""
    ) -> list[SearchHit]:
        """`hits` with the memory closest in meaning in the other language marked (its
        `explain` carries ACROSS_PARTS), added when it was not among them, if it stands out
        enough to pass the prompt gate (relevance.across_language_passes), or, for a prompt
        asking which step comes first, if it is a procedure (relevance.across_order_passes:
        its text is read only then)."""
        row_id = self.index.row(found.position)[1]
        memory: list[Memory] | None = None
        if across_language_passes(found.margin, found.z, found.pool):
            why = Explain(ranks={}, parts={"across_margin": found.margin, "across_z": found.z})
        elif across_few_passes(found.margin, found.pool):
            why = Explain(ranks={}, parts={"across_margin": found.margin, ACROSS_FEW_PART: 1.0})
        elif (
            found.pool >= ACROSS_POOL_MIN
            and asks_order(query)
            and (memory := self.store.memories([row_id]))
            and across_order_passes(found.z, query, memory[0].text)
        ):
            why = Explain(ranks={}, parts={"across_margin": found.margin, "across_z": found.z})
        else:
            return hits
        if memory is None and all(h.id != row_id for h in hits):
            memory = self.store.memories([row_id])
        return _marked(hits, row_id, why, memory or [])

    def _with_procedure(self, hits: list[SearchHit], found: AcrossLanguage) -> list[SearchHit]:
        """`hits` with the memory closest in meaning of the prompt's own language marked
        (PROCEDURE_PART), added when it was not among them, if it stands out as the other
        language's closest must (relevance.across_language_passes) and orders steps: the
        prompt asks for a procedure (relevance.asks_procedure). Its text is read only then."""
        if not across_language_passes(found.margin, found.z, found.pool):
            return hits
        row_id = self.index.row(found.position)[1]
        memory = self.store.memories([row_id])
        if not memory or not orders_steps(memory[0].text):
            return hits
        why = Explain(ranks={}, parts={"across_margin": found.margin, PROCEDURE_PART: found.z})
        return _marked(hits, row_id, why, memory)

    def _with_rules(self, hits: list[SearchHit], req: SearchRequest) -> list[SearchHit]:
        """`hits` and the standing rules (relevance.is_rule) about what the prompt asks to make:
        of the memories of the search's scope holding one of `req.rules_about`, the RULE_POOL
        holding them most (BM25) are checked for a rule word (relevance.RULE_TERMS), the best
        RULE_LOOKUP of those read, and up to RULES_ADDED rules not among `hits` added, marked
        in their `explain` (RULE_PART). A task's convention competes in the fused ranking with
        every fact naming the same thing ("add logging" against a dozen "X logs to Y" facts)
        and fell below the gated candidates (decision 0033)."""
        with self.index.reading():  # the arrays below must see the same rows
            mask = self.index.mask_any(_filters(replace(req, kind="memories")))
            scores = self.index.bm25(sorted(req.rules_about))
            # a rule word is looked up in the best RULE_POOL holders only (searchsorted over
            # each word's postings: ~2 ms over 8k holders at 100k memories)
            holding = np.sort(top_k(scores, mask & (scores > 0.0), RULE_POOL))
            worded = holding[self.index.bm25_rows(sorted(RULE_TERMS), holding, {}) > 0.0]
            rows = worded[np.argsort(-scores[worded], kind="stable")[:RULE_LOOKUP]]
            ids = [self.index.row(int(p))[1] for p in rows]
        have = {h.id for h in hits}
        ids = [i for i in ids if i not in have]
        if not ids:
            return hits
        found = {m.id: m for m in self.store.memories(ids)}
        why = Explain(ranks={}, parts={RULE_PART: 1.0})
        rules = [found[i] for i in ids if i in found and is_rule(found[i].text)]
        return [*hits, *(_hit(m, 0.0, why) for m in rules[:RULES_ADDED])]

    def _search(
        self,
        req: SearchRequest,
        across: list[AcrossLanguage] | None = None,
        within: list[AcrossLanguage] | None = None,
    ) -> tuple[list[SearchHit], np.ndarray | None]:
        limit = max(1, min(req.limit, MAX_LIMIT))
        profile = PROFILES.get(req.profile)
        if profile is None:
            raise RecallnestError(f"unknown profile {req.profile!r}; use {', '.join(PROFILES)}")
        profile = replace(profile, alpha=self.settings.fusion_alpha)
        now = datetime.now(UTC)
        plan = plan_query(
            req.query,
            now,
            PROMPT_GROUPS if req.bilingual else SYNONYM_GROUPS,
            clean="boilerplate" not in req.disabled,
        )
        if "vector" in req.disabled:
            qvec = _Later(lambda: None)  # nothing to embed: the channel is off
        elif req.vector is not None:
            qvec = _Later(lambda: req.vector)
        else:
            qvec = _Later(self._query_vector(plan.text, req.vector_wait))
        scored = retrieve(
            self.index,
            plan,
            _filters(req),
            qvec,
            profile,
            limit,
            now.timestamp(),
            req.disabled,
            self._evidence_positions,
            VECTOR_ONLY_MIN_COSINE.get(self.embedder.model_id if self.embedder else "", math.inf),
            req.turns_by_keyword,
            across,
            within,
        )
        hits = self._hits(scored, req.explain, limit)
        if req.record:
            self.record_access([h.id for h in hits if h.kind == "memory"])  # counted in memory
        return hits, qvec()

    def _evidence_positions(self, positions: Sequence[int]) -> dict[int, list[int]]:
        """Index positions of the turns each memory (by position) was captured from."""
        ids = {self.index.row(p)[1]: p for p in positions}
        out: dict[int, list[int]] = {}
        for mem_id, evidence in self.store.evidence(list(ids)).items():
            found = (self.index.position("turn", t) for t in evidence)
            out[ids[mem_id]] = [p for p in found if p is not None]
        return out

    def prepare_query(self, query: str) -> None:
        """Start embedding `query` as a search of it would, so the search that follows finds it
        done or under way (prompt-time recall starts it before composing what the session
        already received)."""
        self._query_vector(plan_query(query, datetime.now(UTC)).text, 0.0)

    def _query_vector(self, query: str, wait: float | None) -> Callable[[], np.ndarray | None]:
        """The query's embedding, started now (on the query thread) and taken when called."""
        vectors = self._vectors()
        if vectors is None or self.index.vector_coverage()[0] == 0 or not query.strip():
            return lambda: None
        vectors.start(query)
        return lambda: vectors.get(query, wait)

    def _vectors(self) -> QueryVectors | None:
        embedder = self.embedder
        if embedder is None:
            return None
        with self._query_vectors_lock:
            if self._query_vectors is None or self._query_vectors.embedder is not embedder:
                if self._query_vectors is not None:
                    self._query_vectors.close()
                self._query_vectors = QueryVectors(embedder)
            return self._query_vectors

    def _hits(self, scored: Sequence[Scored], explain: bool, limit: int) -> list[SearchHit]:
        """Search results with provenance; near-duplicate texts are dropped (diversity)."""
        rows = [(s, *self.index.row(s.position)) for s in scored]
        memories = {
            m.id: m for m in self.store.memories([i for _, k, i, _ in rows if k == "memory"])
        }
        turns = {t.id: t for t in self.store.turns([i for _, k, i, _ in rows if k == "turn"])}
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for s, kind, row_id, _ in rows:
            found = memories.get(row_id) if kind == "memory" else turns.get(row_id)
            key = " ".join(found.text.casefold().split()) if found else ""
            if found is None or key in seen:
                continue
            seen.add(key)
            why = (
                Explain(ranks=dict(s.ranks), parts={k: round(v, 6) for k, v in s.parts.items()})
                if explain
                else None
            )
            hits.append(_hit(found, float(s.score), why))
            if len(hits) == limit:
                break
        return hits

    def memory(self, mem_id: str) -> Memory:
        """The memory with this id, or with this unique id prefix (6+ characters)."""
        found = (
            self.store.memories([mem_id])
            or self.store.memories(list(self.store.mapped_ids([mem_id]).values()))
            or self._by_prefix(mem_id)
        )
        if not found:
            raise NotFoundError(f"no memory with id {mem_id}")
        return found[0]

    def rekey_project(self, scope: str, basis: str) -> Rekeyed:
        """Make `basis` what `scope`'s memory ids are made of (`sync name`): its memories are
        re-keyed, old ids kept resolving; to sync, each is a forget of the old id and a new
        memory (so a machine that names the project alike ends with the same ids)."""
        if scope == GLOBAL_SCOPE or not is_portable(basis):
            raise RecallnestError(f"not a project id basis: {basis!r}")
        with self.store.write_locked():
            mapping = self.store.rekey_project(scope, basis)
            PROJECT_IDS.seed({scope: basis})
            self._bases[scope] = basis
            self.index.rename("memory", mapping)
            self.memory_generation += 1
            self.journal.rekey(mapping)
        return Rekeyed(scope, basis, len(mapping))

    def _after_portable_ids(self) -> None:
        """Right after migration m007: projects named for sync before ids were portable get
        ids made of their name (as `sync name` gives them now), then the memory journal
        follows every re-key."""
        from recallnest.sync.config import SyncConfig

        try:
            config = SyncConfig.load(self.settings.home)
        except RecallnestError as exc:
            log.warning("portable ids: sync config not read, names not applied: %s", exc)
            config = None
        for scope, name in sorted((config.names if config else {}).items()):
            self.store.rekey_project(scope, f"name:{name}")
            PROJECT_IDS.seed({scope: f"name:{name}"})
            self._bases[scope] = f"name:{name}"
        self.journal.rekey(self.store.id_map())

    def _current_keys(self, memories: Sequence[Memory]) -> list[Memory]:
        """Exported memories under today's ids: an id re-keyed since (`memory_id_map`), or one
        made of a local path by a store from before portable ids, becomes its current id."""
        keys = self.store.mapped_ids(
            [*(m.id for m in memories), *(m.superseded_by for m in memories if m.superseded_by)]
        )
        for m in memories:
            canon = aliases.canonical(m.text)
            if m.id not in keys and m.id == memory_id_of_basis(m.scope, canon):
                keys[m.id] = memory_id(m.scope, canon)
        return [
            replace(
                m,
                id=keys.get(m.id, m.id),
                superseded_by=keys.get(m.superseded_by, m.superseded_by)
                if m.superseded_by
                else None,
            )
            for m in memories
        ]

    def _by_prefix(self, prefix: str) -> list[Memory]:
        if len(prefix) < 6:
            return []
        ids = self.index.ids_with_prefix("memory", prefix)
        return self.store.memories(ids[:1]) if len(ids) == 1 else []

    def list_memories(
        self,
        scope: str | None = None,
        category: str | None = None,
        status: str | None = "active",
        limit: int | None = None,
    ) -> list[Memory]:
        return self.store.list_memories(scope, category, status, limit)

    def export(self) -> list[Memory]:
        return self.list_memories(status=None)

    def stats(self, sizes: bool = True) -> Stats:
        """`sizes=False` leaves out the live-data estimate (a scan of every table's storage
        info, ~30 ms at 100k rows), which the web UI's dashboard does not show."""
        with_vec, live = self.index.vector_coverage()
        model = self.embedder.model_id if self.embedder else None
        return Stats(
            home=str(self.settings.home),
            database=str(self.store.path),
            # capture_queued: turns stored whose memory capture follows (decision 0009). Not
            # in Store.counts, which must also read a database of an older schema (doctor).
            counts=self.store.counts() | {"capture_queued": self.store.queued_capture_count()},
            file=self.store.file_size()
            | {"path_bytes": self.store.file_bytes()}
            | ({"live_bytes": self.store.live_bytes()} if sizes else {}),
            embedder=EmbedderStats(
                model=model,
                error=self.embedder_error,
                rows_with_vectors=with_vec,
                rows=live,
                pending=self.store.count_missing_vectors(model) if model else None,
            ),
        )

    # ---- embeddings ------------------------------------------------------------------------

    def embed_pending(self, max_rows: int = EMBED_BATCH) -> int:
        """Embed up to `max_rows` rows that lack a vector of the current model; returns how many
        were stored. The daemon calls this from its background embedding thread."""
        if self.embedder is None:
            return 0
        model = self.embedder.model_id
        if self._all_embedded(model):
            return 0
        with self._embed_lock:
            if self._all_embedded(model):
                return 0  # another caller (a `remember`) embedded them while we waited
            todo = self.store.missing_vectors(self.embedder.model_id, max_rows)
            if not todo:
                return 0
            matrix = self.embedder.embed_passages([text for _, text in todo])
            stored = self.store.add_vectors(self.embedder.model_id, [d for d, _ in todo], matrix)
            keep = {d: k for k, (d, _) in enumerate(todo)}
            self.index.set_vectors(stored, matrix[[keep[d] for d in stored]])
            return len(stored)

    def _all_embedded(self, model: str) -> bool:
        """Every live row has a vector of `model`. The index holds every row of the
        store and the vectors of its model (loaded at open, set with every write), so then
        nothing needs the store's look-up: an anti-join of every turn and memory with the
        vectors, 60-350 ms at 100k + 100k rows, which once a second (the embedding thread)
        kept a core ~8 % busy and refilled DuckDB's buffer after each release (decision 0027)."""
        covered, live = self.index.vector_coverage()
        return self.index.model == model and covered >= live

    def _embed_now(self, ids: Sequence[str]) -> None:
        """Manual memories are embedded inline (one short text): a user who runs `remember`
        then `search` expects the vector channel to know it."""
        if self.embedder is None:
            return
        try:
            self.embed_pending(EMBED_BATCH)
        except EmbedError as exc:
            log.warning("embedding deferred: %s", exc)

    def reindex(self, progress: Callable[[int, int], None] | None = None) -> Reindexed:
        """Drop vectors of other models and embed every row with the current one."""
        if self.embedder is None:
            raise EmbedError(self.embedder_error or "no embedder configured")
        dropped = self.store.drop_vectors(keep_model=self.embedder.model_id)
        total = self.store.count_missing_vectors(self.embedder.model_id)
        done = 0
        while True:
            n = self.embed_pending(32)
            if n == 0:
                break
            done += n
            if progress:
                progress(done, total)
        return Reindexed(model=self.embedder.model_id, embedded=done, dropped_vectors=dropped)

    # ---- lifecycle (issue 7) ----------------------------------------------------------------

    if TYPE_CHECKING:
        from recallnest.lifecycle.scheduler import Maintenance

    @cached_property
    def sync(self) -> Replica:
        """This machine's sync over this engine (issue 21): `sync.sync()` runs a round."""
        from recallnest.sync.replica import Replica

        return Replica(self)

    @cached_property
    def maintenance(self) -> Maintenance:
        """Decay, consolidation, forgetting, retention and compaction over this engine."""
        from recallnest.lifecycle.scheduler import Maintenance

        return Maintenance(self)

    def record_access(self, ids: Iterable[str], now: datetime | None = None) -> None:
        """Count reads of memories (search hits, resume items) in memory; maintenance flushes
        them in one batch, never one write per read."""
        self.maintenance.access.record(ids, now or datetime.now(UTC))

    def apply_memories(self, memories: Sequence[Memory]) -> None:
        """Write changed memory rows (lifecycle changes) and update the index."""
        if memories:
            self.apply(Batch(memories=list(memories)))

    def compact_store(self) -> FileCompaction:
        """Compact the database file; the embedding lock keeps a batch of vectors from
        straddling the connection swap."""
        self._index_loaded()
        with self._embed_lock:
            return self.store.compact()

    # ---- end lifecycle (issue 7) ------------------------------------------------------------


# ---- helpers ------------------------------------------------------------------------------


def build_embedder(settings: Settings) -> Embedder | None:
    """The embedder the settings ask for; None for `embedder = "none"`."""
    name = settings.embedder
    if name == "none":
        return None
    if name == "local":
        return make_embedder("local")
    if name == "hash":
        return make_embedder("hash")
    options: dict[str, Any] = {
        "base_url": settings.embed_url,
        "model": settings.embed_model,
        "api_key": settings.embed_api_key,
    }
    if not settings.embed_model:
        raise EmbedError(f"embedder {name!r} needs embed_model (RECALLNEST_EMBED_MODEL)")
    return make_embedder(name, **{k: v for k, v in options.items() if v is not None})


def _manual_capture(text: str, scope: str, category: str | None) -> Capture:
    """A remembered text as the capture rules read it: their category (unless given), subject
    and rule, so admission treats it as it would the same words said in a session."""
    turn = Turn(
        agent="manual",
        session_id="manual",
        role="user",
        text=text,
        timestamp=None,
        path="",
        record_id="manual",
        offset=0,
    )
    found = capture_turn(turn)
    heard = found[0] if found else None
    category = category or (heard.category if heard else "entities")
    subject = heard.subject if heard and heard.category == category else None
    if subject is None and category in ("profile", "preferences"):
        subject = aliases.find_subject(aliases.canonical(text))
    rule = heard.rule if heard else "manual"
    return Capture(category, text, 0.7, 1.0, rule, scope=scope, subject=subject)


class _Later:
    """A value computed on first call and kept: the query vector, taken by the vector channel
    after the keywords are scored, and again for the caller's cosines."""

    def __init__(self, compute: Callable[[], np.ndarray | None]) -> None:
        self._compute: Callable[[], np.ndarray | None] | None = compute
        self._value: np.ndarray | None = None

    def __call__(self) -> np.ndarray | None:
        if self._compute is not None:
            self._value, self._compute = self._compute(), None
        return self._value


def _filters(req: SearchRequest) -> list[Filter]:
    """One filter per row kind asked for; a row matches if any filter does. With a project,
    turns must come from it and memories must be scoped to it or global."""
    common = {"agent": req.agent, "session_id": req.session_id}
    since, until = _epoch(req.since), _epoch(req.until)
    out = []
    if req.kind in ("turns", "all") and req.category is None and req.scope is None:
        turn_eq = {**common, "project": req.project}
        out.append(Filter(kinds=("turn",), equals=_given(turn_eq), since=since, until=until))
    if req.kind in ("memories", "all") and req.agent is None and req.session_id is None:
        scope: str | tuple[str, ...] | None = req.scope
        if scope is None and req.project is not None:
            scope = (req.project, GLOBAL_SCOPE)
        mem_eq = {"scope": scope, "category": req.category, "status": req.status}
        out.append(Filter(kinds=("memory",), equals=_given(mem_eq), since=since, until=until))
    return out


def _given(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def _epoch(value: datetime | None) -> float | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


def _none(value: Any) -> str | None:
    # fetchnumpy() returns NULLs of a string column as numpy's masked constant (str "--").
    if value is None or value is np.ma.masked or (isinstance(value, float) and np.isnan(value)):
        return None
    return str(value)


def _strings(column: np.ndarray) -> list[str | None]:
    """`[_none(v) for v in column]` for a fetchnumpy() string column, calling `_none` once per
    distinct value: a facet column holds few (0.5 s of a 100k-turn index load went here)."""
    values = np.ma.getdata(column).tolist()
    for k in np.flatnonzero(np.ma.getmaskarray(column)).tolist():
        values[k] = None
    clean = {v: _none(v) for v in set(values)}
    return list(map(clean.__getitem__, values))


def _ordered_pairs(turns: Sequence[Turn]) -> list[Pair]:
    """Turns in conversation order, each with the one before it (what capture reads)."""
    ordered = sorted(turns, key=lambda t: (t.session_id, t.timestamp or _EPOCH0, t.offset))
    return list(zip(ordered, previous_turns(ordered), strict=True))


def _merged(old: Memory, text: str, importance: float | None, now: datetime) -> Memory:
    imp = old.importance if importance is None else max(old.importance, importance)
    return replace(old, importance=imp, updated_at=now, status="active")


def _marked(
    hits: list[SearchHit], row_id: str, why: Explain, memory: Sequence[Memory]
) -> list[SearchHit]:
    """`hits` with the memory `row_id` given `why` as its explain, added (from `memory`, its
    row) when it was not among them."""
    marked = [replace(h, explain=why) if h.id == row_id else h for h in hits]
    if any(h.id == row_id for h in hits):
        return marked
    return [*marked, _hit(memory[0], 0.0, why)] if memory else hits


def _hit(found: Memory | Turn, score: float, why: Explain | None) -> SearchHit:
    """A memory or turn as a search result, with its provenance."""
    if isinstance(found, Memory):
        return SearchHit(
            "memory",
            found.id,
            found.text,
            score,
            scope=found.scope,
            category=found.category,
            status=found.status,
            importance=found.importance,
            project=None if found.scope == GLOBAL_SCOPE else found.scope,
            timestamp=found.updated_at,
            source=found.source,
            evidence=found.evidence,
            explain=why,
        )
    return SearchHit(
        "turn",
        found.id,
        found.text,
        score,
        project=found.project,
        agent=found.agent,
        session_id=found.session_id,
        role=found.role,
        timestamp=found.timestamp,
        path=found.path,
        record_id=found.record_id,
        explain=why,
    )

"""The store's plain data types: what crosses between the store and the packages beside it
(a Batch of turns from ingest, postings and snapshots for the retrieval index). No duckdb here:
`ingest` and `retrieval` import this module and nothing else of the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from recallnest.core.models import Memory, ToolUse, Turn


@dataclass(frozen=True, slots=True)
class Cursor:
    """How far one transcript file has been read."""

    path: str
    agent: str
    byte_offset: int
    inode: int | None = None
    fingerprint: str | None = None
    parser_state: str | None = None
    skipped: int = 0


@dataclass
class Batch:
    """Everything one flush writes, in one transaction."""

    turns: list[Turn] = field(default_factory=list)
    tool_uses: list[ToolUse] = field(default_factory=list)
    retracted_turn_ids: list[str] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    deleted_memory_ids: list[str] = field(default_factory=list)
    cursors: list[Cursor] = field(default_factory=list)
    # Turn ids whose capture is queued (one new flush group), and the group this batch's
    # memories were captured from (deleted from the queue with them).
    capture_later: list[str] = field(default_factory=list)
    captured_flush: int | None = None
    # Session id -> its captures admitted so far (new totals against the per-session cap).
    session_captures: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class IndexedDoc:
    """A searchable row as the in-memory index sees it."""

    doc: int
    kind: str  # "turn" | "memory"
    id: str
    terms: Mapping[str, int]
    length: int
    facets: Mapping[str, str | None]
    ts: float
    weight: float = 0.0  # memories: importance x confidence (a retrieval stage uses it)


@dataclass(frozen=True, slots=True)
class PostingBlock:
    """Rows' postings as arrays, made once per write by the writer and read again by the index:
    row r (doc `docs[r]`) owns the next `sizes[r]` postings; a posting names its term by
    `keys` (an index into `terms`, the block's distinct terms) and counts it `tfs` times."""

    docs: np.ndarray
    sizes: np.ndarray
    terms: list[str]
    keys: np.ndarray
    tfs: np.ndarray

    @classmethod
    def of(cls, docs: Sequence[int], counts: Sequence[Mapping[str, int]]) -> PostingBlock:
        flat = list(chain.from_iterable(counts))  # one entry per posting, row by row
        vocab = {t: k for k, t in enumerate(dict.fromkeys(flat))}
        n = len(flat)
        return cls(
            docs=np.asarray(docs, dtype=np.int64),
            sizes=np.fromiter(map(len, counts), np.int64, len(counts)),
            terms=list(vocab),
            keys=np.fromiter(map(vocab.__getitem__, flat), np.int32, n),
            tfs=np.fromiter(chain.from_iterable(c.values() for c in counts), np.int32, n),
        )


@dataclass
class BatchResult:
    added: list[IndexedDoc] = field(default_factory=list)
    postings: list[PostingBlock] = field(default_factory=list)  # of the added rows
    removed: list[int] = field(default_factory=list)
    new_turns: int = 0
    queued_flush: int | None = None  # the capture-queue group this batch created


@dataclass(frozen=True, slots=True)
class PostingStream:
    """Every keyword posting, for the index load: `terms[tid]` names a term id (None for an
    id no term holds), `counts[tid]` is how many postings it has, and `chunks` yields
    (tids, docs, tfs) arrays in no particular order whose counts add up to `counts`. Read a
    chunk at a time, so the load never holds every posting's columns at once (issue 22)."""

    terms: list[str | None]
    counts: np.ndarray
    chunks: Iterable[tuple[np.ndarray, np.ndarray, np.ndarray]]


@dataclass(frozen=True, slots=True)
class IndexSnapshot:
    """What the in-memory index is built from (Store.index_snapshot). `postings()` streams
    them and `vectors` yields (docs, float32 matrix) chunks, only inside the snapshot's
    with-block."""

    rows: dict[str, dict[str, np.ndarray]]
    postings: Callable[[], PostingStream]
    vectors: Iterator[tuple[np.ndarray, np.ndarray]] | None


DB_MEMORY_MB = 512  # DuckDB memory_limit in MiB; the default of Settings.db_memory_mb


@dataclass(frozen=True, slots=True)
class FileCompaction:
    """What rewriting the database file gave: its size before and after, and how long."""

    before_bytes: int
    after_bytes: int
    seconds: float


def conflict_key(a: str, b: str) -> tuple[str, str]:
    """A conflict's key: its two memory ids in order, so a and b are flagged once whichever
    way round they were compared."""
    return (a, b) if a <= b else (b, a)

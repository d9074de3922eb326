"""What the in-memory index loads at start: per-document rows, postings and vectors."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb
import numpy as np

from recallnest.store.base import (
    StoreBase,
)
from recallnest.store.postings import (
    _grouping_order,
    _legacy_postings,
)
from recallnest.store.types import (
    IndexSnapshot,
    PostingStream,
)

# Vectors per chunk of the index load: 8192 x 384 float32 is 12 MiB, and one chunk's bytes
# objects and tuples live at a time (the whole result's were ~900 MiB at 200k rows).
VECTOR_CHUNK = 8192
# Postings per chunk of the index load (by doc range): 2M postings are 32 MiB of columns and
# ~100 MiB with the chunk's sort. Read whole, the 57M postings of 1M turns and their sort
# peaked the load at 3.4 GiB (issue 22).
POSTING_CHUNK = 2_000_000


class IndexLoading(StoreBase):
    """What the in-memory index loads at start: per-document rows, postings and vectors."""

    def index_rows(self) -> dict[str, dict[str, np.ndarray]]:
        """Column arrays of every searchable row, for building the in-memory index."""
        cur = self._cur()
        turns = cur.execute(
            "SELECT doc, id, length, agent, session_id, project, role, kind, "
            "coalesce(epoch(ts), 0)::DOUBLE AS ts FROM turns ORDER BY doc"
        ).fetchnumpy()
        memories = cur.execute(
            "SELECT doc, id, length, scope, category, status, tier, "
            "(importance * confidence)::FLOAT AS weight, "
            "coalesce(epoch(updated_at), 0)::DOUBLE AS ts FROM memories ORDER BY doc"
        ).fetchnumpy()
        return {"turn": dict(turns), "memory": dict(memories)}

    def postings(self) -> tuple[list[str | None], np.ndarray, np.ndarray, np.ndarray]:
        """(terms, term_ids, docs, tfs): `terms[tid]` names a term id (None for an id no term
        holds); the postings are grouped by term id, in the order they were written.

        Read as integer columns and grouped by a stable radix sort in numpy: 0.7 s for the
        6.5M postings of 100k turns, where joining and sorting their term strings in SQL took
        1.8 s (decision 0010)."""
        cur = self._cur()
        if "terms" not in self.tables():  # schema v3 or older, opened read-only (repair)
            return _legacy_postings(cur)
        named = cur.execute("SELECT tid, term FROM terms").fetchnumpy()
        terms: list[str | None] = [None] * (int(named["tid"].max()) + 1 if len(named["tid"]) else 0)
        for tid, term in zip(named["tid"].tolist(), named["term"].tolist(), strict=True):
            terms[tid] = term
        arrays = cur.execute("SELECT tid, doc, tf FROM postings").fetchnumpy()
        tids = arrays["tid"]
        order = _grouping_order(tids)
        grouped = np.repeat(
            np.arange(len(terms), dtype=tids.dtype), np.bincount(tids, minlength=len(terms))
        )
        return terms, grouped, arrays["doc"][order], arrays["tf"][order]

    def posting_stream(self) -> PostingStream:
        """Every posting, read by doc range a chunk of ~POSTING_CHUNK at a time (postings are
        written in doc order, so a range reads few of DuckDB's row groups). The counts and
        the chunks agree only inside one transaction (index_snapshot's)."""
        cur = self._cur()
        if "terms" not in self.tables():  # schema v3 or older, opened read-only (repair)
            old, tids, docs, tfs = _legacy_postings(cur)
            return PostingStream(old, _counts(tids, len(old)), [(tids, docs, tfs)])
        named = cur.execute("SELECT tid, term FROM terms").fetchnumpy()
        counted = cur.execute("SELECT tid, count(*) AS n FROM postings GROUP BY tid").fetchnumpy()
        size = max(
            int(named["tid"].max()) + 1 if len(named["tid"]) else 0,
            int(counted["tid"].max()) + 1 if len(counted["tid"]) else 0,
        )
        terms: list[str | None] = [None] * size
        for tid, term in zip(named["tid"].tolist(), named["term"].tolist(), strict=True):
            terms[tid] = term
        counts = np.zeros(size, dtype=np.int64)
        counts[counted["tid"]] = counted["n"]
        return PostingStream(terms, counts, _posting_chunks(cur, int(counts.sum())))

    @contextmanager
    def index_snapshot(self, model: str | None) -> Iterator[IndexSnapshot]:
        """index_rows(), posting_stream() and, given a model, that model's vectors, read in one
        transaction that lasts the with-block: they agree with each other whatever commits
        while they are read. The postings are read when asked for and the vectors are an
        iterator of (docs, float32 matrix) chunks in no particular order, both inside the
        block, so the load holds neither the postings' columns while it reads the vectors nor
        every vector as float32 (issue 22)."""
        cur = self._cur()
        cur.execute("BEGIN TRANSACTION")
        try:
            chunks = _vector_chunks(cur, model, VECTOR_CHUNK) if model else None
            yield IndexSnapshot(self.index_rows(), self.posting_stream, chunks)
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")

    def vectors(self, model: str) -> tuple[np.ndarray, np.ndarray]:
        """(docs, matrix) of every stored vector of `model`, by doc."""
        chunks = list(_vector_chunks(self._cur(), model, VECTOR_CHUNK))
        if not chunks:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        docs = np.concatenate([d for d, _ in chunks])
        order = np.argsort(docs, kind="stable")
        return docs[order], np.concatenate([m for _, m in chunks])[order]


def _counts(tids: np.ndarray, size: int) -> np.ndarray:
    counts: np.ndarray = np.bincount(np.asarray(tids, dtype=np.int64), minlength=size)
    return counts.astype(np.int64)


def _posting_chunks(
    cur: duckdb.DuckDBPyConnection, total: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(tids, docs, tfs) of every posting, by doc ranges of ~POSTING_CHUNK postings."""
    if not total:
        return
    low, high = cur.execute("SELECT min(doc), max(doc) FROM postings").fetchone() or (0, 0)
    step = max(1, -(-(int(high) - int(low) + 1) * POSTING_CHUNK // total))
    for start in range(int(low), int(high) + 1, step):
        arrays = cur.execute(
            "SELECT tid, doc, tf FROM postings WHERE doc >= ? AND doc < ?", [start, start + step]
        ).fetchnumpy()
        yield arrays["tid"], arrays["doc"], arrays["tf"]


def _vector_chunks(
    cur: duckdb.DuckDBPyConnection, model: str, size: int
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The stored vectors of `model` as (docs, float32 matrix) chunks of up to `size` rows,
    streamed from DuckDB (no ORDER BY: a sort would materialise the whole result)."""
    result = cur.execute("SELECT doc, vec FROM vectors WHERE model = ?", [model])
    while rows := result.fetchmany(size):
        docs = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        raw = b"".join([r[1] for r in rows])
        yield docs, np.frombuffer(raw, dtype=np.float32).reshape(len(rows), -1)

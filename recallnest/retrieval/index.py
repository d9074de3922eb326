"""The in-memory search index held by whichever process owns the store: BM25 postings and an
L2-normalised vector matrix, with per-row facets for filtering.

Why in memory (DUCKDB-NOTES.md §2.3, §3.3): BM25 over DuckDB postings tables costs 42 ms at
100k docs and SQL brute-force cosine 134 ms; numpy over arrays held in RAM is an order of
magnitude faster, and both are exact. The DuckDB tables stay the source of truth: this index
is rebuilt from them on open and updated after each committed flush, so a row is searchable as
soon as its transaction commits. No I/O here.

Vectors are held as int8 with one float32 scale per row (decision 0026): 388 bytes a 384-d row
instead of 1,536. A scan converts L2-sized blocks of rows to float32 and multiplies them with
BLAS, which costs about what the float32 product did; the cosines differ from float32's by
2e-4 on average and 1.3e-3 at most (e5 vectors).
"""

from __future__ import annotations

import math
import re
import sys
import threading
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.flat import FlatPostings
from recallnest.retrieval.rowmaps import DocPositions, RowIds
from recallnest.store.types import IndexedDoc, PostingBlock, PostingStream

FACETS = ("agent", "session_id", "project", "role", "kind", "scope", "category", "status", "tier")
KINDS = ("turn", "memory")
CHINESE_TERMS = 3  # distinct Chinese terms (characters or pairs) of a row written in Chinese
_CJK_TERM = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
BM25_K1 = 1.2
BM25_B = 0.75
_GROW = 1.25  # capacity growth: the vector matrix is the largest array; keep its slack small
# Rows per block of the int8 scan: 512 x 384 float32 is 768 KiB, inside L2, where the cast and
# the product stay about as fast as one float32 product (larger blocks spill and run 4-10x
# slower; bench/RESULTS.md "Memory footprint, round two", decision 0026).
SCAN_BLOCK = 512
# A mask keeping at least this share of the rows is scanned whole and the rest zeroed after:
# gathering rows by position costs more than reading them in order (100k memories + 100k
# turns, a mask of every row: 13.8 ms gathered, 11.3 ms whole; half the rows: 6.9 ms gathered).
GATHER_SHARE = 0.6
# compact_postings is due past either: dead postings in the flat arrays, as a share of them;
# terms holding arrays of their own (~300 bytes each more than in the flat arrays).
COMPACT_DEAD_SHARE = 0.25
COMPACT_OWN_TERMS = 4096
_QUANTISE_BLOCK = 8192


@dataclass(frozen=True, slots=True)
class Filter:
    """Row filter; None means any. `kinds` restricts to turns and/or memories."""

    kinds: tuple[str, ...] = KINDS
    equals: Mapping[str, str | tuple[str, ...]] | None = None
    since: float | None = None
    until: float | None = None


class SearchIndex:
    """Thread-safe; every public method takes the lock."""

    def __init__(self, capacity: int = 1024, backing: FileBacking | None = None) -> None:
        self._lock = threading.RLock()
        # Where the vector matrix and the flat postings live: private file-backed mappings
        # whose pages `release_pages` hands to the page cache when the daemon is quiet
        # (decision 0035); None keeps them anonymous (tests, tools).
        self._backing = backing
        self.size = 0
        self._pos = DocPositions()
        self._ids = RowIds(capacity)
        self._docs = np.zeros(capacity, dtype=np.int64)
        self._kind = np.zeros(capacity, dtype=np.int8)
        self._length = np.zeros(capacity, dtype=np.float32)
        self.ts = np.zeros(capacity, dtype=np.float64)
        self._weight = np.zeros(capacity, dtype=np.float32)
        self._alive = np.zeros(capacity, dtype=bool)
        self._facets = {f: np.zeros(capacity, dtype=np.int32) for f in FACETS}
        self._codes: dict[str, dict[str | None, int]] = {f: {None: 0} for f in FACETS}
        # Postings as the bulk load left them, in flat arrays (retrieval/flat.py, decision
        # 0027). One pair of numpy arrays per term cost ~300 bytes a term more (two array
        # objects, a tuple): ~100 MiB for the half a million distinct terms a real 100k-turn
        # history has.
        self._flat = FlatPostings()
        # A term's own arrays, once a query merged its pending postings or dropped dead rows;
        # its flat slice is dead from then on (`compact_postings` reclaims it).
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # Postings added since a term was last queried, per term: (pos, tf) pairs interleaved
        # in one array('i') (8 bytes a posting; a list of tuples cost ~100). Merged into
        # `_postings` by the term's next query.
        self._pending: dict[str, array[int]] = {}
        self._length_sum = 0.0
        self._alive_count = 0
        self.model: str | None = None
        self._vectors = np.zeros((0, 0), dtype=np.int8)
        self._scale = np.zeros(capacity, dtype=np.float32)  # row = _vectors[pos] * _scale[pos]
        self._has_vec = np.zeros(capacity, dtype=bool)
        # rows written in Chinese (CHINESE_TERMS distinct Chinese terms or more): prompt-time
        # recall compares a prompt's cosine with the notes of the other language apart
        self._chinese = np.zeros(capacity, dtype=bool)

    # ---- building --------------------------------------------------------------------------

    def add(self, docs: Iterable[IndexedDoc], blocks: Sequence[PostingBlock] = ()) -> None:
        """Add or replace rows. A row's doc number changes whenever its text changes. `blocks`
        may carry the rows' postings as the writer flattened them (Store.write), which saves
        flattening them again; rows they do not cover use their `terms`."""
        with self._lock:
            appended: dict[int, int] = {}  # doc -> its new row
            rest: list[IndexedDoc] = []
            for d in docs:
                old = self._id_pos(d)
                if old is not None and int(self._docs[old]) == d.doc:
                    self._set_meta(old, d)  # same text, new facets (e.g. a memory's status)
                    continue
                if old is not None:
                    self._kill(old)
                appended[d.doc] = self._append_row(d)
                rest.append(d)
            covered: set[int] = set()
            for block in blocks:
                doc_list = block.docs.tolist()
                covered.update(doc_list)
                self._add_postings(block, [appended.get(doc, -1) for doc in doc_list])
            rest = [d for d in rest if d.doc not in covered]
            if rest:
                block = PostingBlock.of([d.doc for d in rest], [d.terms for d in rest])
                self._add_postings(block, [appended[d.doc] for d in rest])

    def _add_postings(self, block: PostingBlock, rows: Sequence[int]) -> None:
        """Append a block's postings to each term's pending pairs, rows in order (-1: a row not
        added, skipped): one array extend per distinct term of the block, where appending pair
        by pair cost two calls per posting (a 5k-turn flush has 300k postings, ~20k terms)."""
        if not len(block.keys):
            return
        pos = np.repeat(np.asarray(rows, dtype=np.int32), block.sizes)
        keys, tfs = block.keys, block.tfs
        if (pos < 0).any():
            keep = pos >= 0
            pos, keys, tfs = pos[keep], keys[keep], tfs[keep]
        order = np.argsort(keys, kind="stable")  # by term; rows stay in order within a term
        pairs = np.empty(2 * len(order), dtype=np.int32)
        pairs[0::2] = pos[order]
        pairs[1::2] = tfs[order]
        raw = pairs.view(np.uint8).data
        bounds = (np.searchsorted(keys[order], np.arange(len(block.terms) + 1)) * 8).tolist()
        pending = self._pending
        for k, term in enumerate(block.terms):
            lo, hi = bounds[k], bounds[k + 1]
            if lo == hi:
                continue
            got = pending.get(term)
            if got is None:
                got = pending[term] = array("i")
            got.frombytes(raw[lo:hi])

    def _id_pos(self, d: IndexedDoc) -> int | None:
        return self._live_position(d.kind, d.id)

    def _live_position(self, kind: str, row_id: str) -> int | None:
        code = KINDS.index(kind)
        for pos in self._ids.candidates(code, row_id, self.size):
            if self._alive[pos] and self._kind[pos] == code:
                return pos
        return None

    def _append_row(self, d: IndexedDoc) -> int:
        self._ensure_capacity(self.size + 1)
        pos = self.size
        self.size += 1
        self._pos.set(d.doc, pos, self.size)
        self._ids.set(pos, KINDS.index(d.kind), d.id)
        self._docs[pos] = d.doc
        self._kind[pos] = KINDS.index(d.kind)
        self._length[pos] = d.length
        self._alive[pos] = True
        self._alive_count += 1
        self._length_sum += d.length
        self._chinese[pos] = sum(1 for t in d.terms if _CJK_TERM.match(t)) >= CHINESE_TERMS
        self._set_meta(pos, d)
        return pos

    def _set_meta(self, pos: int, d: IndexedDoc) -> None:
        self.ts[pos] = d.ts
        self._weight[pos] = d.weight
        for name, value in d.facets.items():
            codes = self._codes[name]
            self._facets[name][pos] = codes.setdefault(value, len(codes))

    def remove(self, docs: Iterable[int]) -> None:
        with self._lock:
            for doc in docs:
                pos = self._pos.get(doc)
                if pos is not None:
                    self._kill(pos)

    def _kill(self, pos: int) -> None:
        if self._alive[pos]:
            self._alive[pos] = False
            self._alive_count -= 1
            self._length_sum -= float(self._length[pos])
        if self._pos.get(int(self._docs[pos])) == pos:
            self._pos.pop(int(self._docs[pos]))

    def _ensure_capacity(self, n: int) -> None:
        cap = len(self._docs)
        if n <= cap:
            return
        new = max(n, int(cap * _GROW) + 16)
        for name in (
            "_docs", "_kind", "_length", "ts", "_weight", "_alive", "_has_vec", "_scale",
            "_chinese",
        ):  # fmt: skip
            setattr(self, name, _grown(getattr(self, name), new))
        self._facets = {k: _grown(v, new) for k, v in self._facets.items()}
        self._ids.grow(new)
        if self._vectors.shape[1]:
            if self._backing is not None:  # the file grows; its rows are not copied
                self._vectors = self._backing.grown("vectors", self._vectors, new)
            else:
                self._vectors = _grown(self._vectors, new)

    # ---- vectors -------------------------------------------------------------------------

    def set_model(self, model: str, dimensions: int) -> None:
        with self._lock:
            if self.model == model and self._vectors.shape[1] == dimensions:
                return
            self.model = model
            shape = (len(self._docs), dimensions)
            if self._backing is not None:
                self._vectors = self._backing.zeros("vectors", shape, np.int8)
            else:
                self._vectors = np.zeros(shape, dtype=np.int8)
            self._scale[:] = 0.0
            self._has_vec[:] = False

    def set_vectors(self, docs: Sequence[int] | np.ndarray, matrix: np.ndarray) -> None:
        with self._lock:
            if len(docs) != len(matrix):
                raise ValueError(f"{len(docs)} docs but {len(matrix)} vectors")
            if len(docs) == 0 or self._vectors.shape[1] != np.shape(matrix)[1]:
                return
            positions = self._positions(np.asarray(docs, dtype=np.int64))
            # Assignment in row order: a doc listed twice keeps its last vector, as before.
            # Quantised a block at a time, so a bulk load holds no float32 copy of it all.
            for lo in range(0, len(positions), _QUANTISE_BLOCK):
                at = positions[lo : lo + _QUANTISE_BLOCK]
                found = at >= 0
                codes, scales = quantise(np.asarray(matrix[lo : lo + _QUANTISE_BLOCK])[found])
                self._vectors[at[found]] = codes
                self._scale[at[found]] = scales
                self._has_vec[at[found]] = True

    def _positions(self, docs: np.ndarray) -> np.ndarray:
        """Row position (int32) of each doc, -1 for a doc that is not live. Doc numbers come
        from one sequence, so the table indexed by doc number is about as long as the index
        (decision 0010: a gather over it is 12x faster than a binary search per doc)."""
        return self._pos.lookup(docs)

    def vector_coverage(self) -> tuple[int, int]:
        """(rows with a vector, live rows)."""
        with self._lock:
            n = self.size
            return int((self._has_vec[:n] & self._alive[:n]).sum()), self._alive_count

    def footprint(self) -> dict[str, int]:
        """Bytes the index holds, by part (issue 22): numpy arrays by `nbytes`, Python
        containers by `sys.getsizeof` of the container, its keys and values (ints below 257
        are shared and not counted). In-process accounting, not RSS: the allocator's slack
        and DuckDB are not in it."""
        with self._lock:
            rows = sum(
                a.nbytes
                for a in (self._docs, self._kind, self._length, self.ts, self._weight, self._alive)
            )
            rows += self._has_vec.nbytes + self._chinese.nbytes
            rows += sum(a.nbytes for a in self._facets.values())
            ids = self._ids.ids.nbytes
            maps = self._pos.nbytes() + self._ids.nbytes() - ids
            postings = sys.getsizeof(self._postings) + sum(
                sys.getsizeof(t) + 2 * _ARRAY_HEADER + p.nbytes + f.nbytes
                for t, (p, f) in self._postings.items()
            )
            postings += self._flat.nbytes()
            pending = sys.getsizeof(self._pending) + sum(
                sys.getsizeof(t) + sys.getsizeof(a) for t, a in self._pending.items()
            )
            return {
                "rows": rows,
                "ids": ids,
                "id_maps": maps,
                "postings": postings,
                "pending": pending,
                "vectors": self._vectors.nbytes + self._scale.nbytes,
            }

    def file_backed(self) -> int:
        """Of the bytes `footprint` counts, those held in file-backed mappings (decision
        0035): resident until the quiet release, in the page cache after it."""
        with self._lock:
            if self._backing is None:
                return 0
            held = (self._vectors, *self._flat.per_posting())
            return sum(a.nbytes for a in held if self._backing.holds(a))

    # ---- querying --------------------------------------------------------------------------

    def mask(self, f: Filter) -> np.ndarray:
        with self._lock:
            n = self.size
            m = self._alive[:n].copy()
            if len(f.kinds) < len(KINDS):
                m &= np.isin(self._kind[:n], [KINDS.index(k) for k in f.kinds])
            for name, value in (f.equals or {}).items():
                wanted = value if isinstance(value, tuple) else (value,)
                codes = [self._codes[name][v] for v in wanted if v in self._codes[name]]
                m &= np.isin(self._facets[name][:n], codes)
            if f.since is not None:
                m &= self.ts[:n] >= f.since
            if f.until is not None:
                m &= self.ts[:n] < f.until
            return m

    def newest(self, f: Filter, k: int) -> list[str]:
        """Ids of the `k` rows matching `f` with the largest ts, and of every row tied with
        the k-th (the caller orders ties its own way), in no particular order."""
        with self._lock:
            rows = np.flatnonzero(self.mask(f))
            if len(rows) > k > 0:
                ts = self.ts[rows]
                kth = np.partition(ts, len(ts) - k)[len(ts) - k]
                rows = rows[ts >= kth]
            elif k <= 0:
                rows = rows[:0]
            return [self._ids.get(p) for p in rows.tolist()]

    def reading(self) -> threading.RLock:
        """Hold while computing several arrays for one query, so a concurrent write cannot
        change the row count between them (the lock is re-entrant)."""
        return self._lock

    def mask_any(self, filters: Sequence[Filter]) -> np.ndarray:
        """Rows matching at least one filter."""
        with self._lock:
            m = np.zeros(self.size, dtype=bool)
            for f in filters:
                m |= self.mask(f)
            return m

    def bm25(self, terms: Sequence[str] | Mapping[str, float]) -> np.ndarray:
        """BM25 score of every row for the query terms (0 where no term matches). A mapping
        gives each term a weight (query expansion terms count less)."""
        with self._lock:
            n = self.size
            scores = np.zeros(n, dtype=np.float32)
            if not self._alive_count:
                return scores
            avgdl = max(self._length_sum / self._alive_count, 1.0)
            norm = BM25_K1 * (1 - BM25_B + BM25_B * self._length[:n] / avgdl)
            weights = terms if isinstance(terms, Mapping) else dict.fromkeys(terms, 1.0)
            for term, weight in weights.items():
                pos, tf = self._term(term)
                if len(pos) == 0:
                    continue
                idf = math.log(1 + (self._alive_count - len(pos) + 0.5) / (len(pos) + 0.5))
                scores[pos] += weight * idf * tf * (BM25_K1 + 1) / (tf + norm[pos])
            return scores

    def idf(self, terms: Iterable[str]) -> dict[str, float]:
        """The BM25 inverse document frequency of each term over the live rows, on the scale
        `bm25` uses: how much a match on it says; 0.0 for a term no live row holds."""
        with self._lock:
            n = self._alive_count
            return {
                term: math.log(1 + (n - df + 0.5) / (df + 0.5)) if df else 0.0
                for term in dict.fromkeys(terms)
                for df in (len(self._term(term)[0]),)
            }

    def bm25_rows(
        self,
        terms: Sequence[str],
        rows: np.ndarray,
        memo: dict[str, tuple[np.ndarray, np.ndarray, int]],
    ) -> np.ndarray:
        """`bm25(terms)[rows]`, the same float32 values, for sorted positions `rows`, without
        scoring the rest of the index. `memo` keeps each term's postings restricted to `rows`:
        pass the same dict for many queries over the same rows (admission asks one per
        capture over its scope's few memories while the index holds every turn)."""
        with self._lock:
            scores = np.zeros(len(rows), dtype=np.float32)
            if not self._alive_count or not len(rows):
                return scores
            avgdl = max(self._length_sum / self._alive_count, 1.0)
            norm = BM25_K1 * (1 - BM25_B + BM25_B * self._length[rows] / avgdl)
            for term, weight in dict.fromkeys(terms, 1.0).items():
                if term not in memo:
                    pos, tf = self._term(term)
                    at = np.minimum(np.searchsorted(rows, pos), len(rows) - 1)
                    hit = rows[at] == pos
                    memo[term] = (at[hit], tf[hit], len(pos))
                at, tf, df = memo[term]
                if df == 0:
                    continue
                idf = math.log(1 + (self._alive_count - df + 0.5) / (df + 0.5))
                scores[at] += weight * idf * tf * (BM25_K1 + 1) / (tf + norm[at])
            return scores

    def _term(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """A term's live (positions, term frequencies as float32)."""
        pending = self._pending.pop(term, None)
        got = self._postings.get(term)
        flat = None if got is not None else self._flat.get(term)
        pos, tf = got or flat or (_EMPTY_I, _EMPTY_TF)
        if pending:
            pairs = np.frombuffer(pending, dtype=np.int32)
            pos = np.concatenate([pos, pairs[0::2]])
            tf = np.concatenate([tf, _stored_tf(pairs[1::2])])
        if pending or (len(pos) and not self._alive[pos].all()):
            keep = self._alive[pos]
            pos, tf = pos[keep], tf[keep]
            if flat is not None:
                self._flat.drop(term)  # its flat slice is dead from now on
            if len(pos):
                self._postings[term] = (pos, tf)
            else:
                self._postings.pop(term, None)
        return pos, tf.astype(np.float32)

    def compact_postings(self, force: bool = False) -> bool:
        """Fold every term's own arrays back into the flat ones and drop the dead slices,
        when dead slices hold more than COMPACT_DEAD_SHARE of the flat arrays or more than
        COMPACT_OWN_TERMS terms hold arrays of their own (or always, with `force`). The
        engine calls this when the daemon is quiet: it copies every posting (~50 ms at 9M
        postings) under the lock. Pending postings stay pending. True if it compacted."""
        with self._lock:
            flat = self._flat
            due = (
                flat.dead > COMPACT_DEAD_SHARE * len(flat)
                or len(self._postings) > COMPACT_OWN_TERMS
            )
            if not (due or force) or not (len(flat) or self._postings):
                return False
            terms: dict[str, int] = {}
            pos_parts: list[np.ndarray] = [_EMPTY_I]
            tf_parts: list[np.ndarray] = [_EMPTY_TF]
            sizes: list[int] = []
            for term, p, f in flat.items():
                terms[term] = len(sizes)
                pos_parts.append(p)
                tf_parts.append(f)
                sizes.append(len(p))
            for term, (p, f) in self._postings.items():
                terms[term] = len(sizes)
                pos_parts.append(p)
                tf_parts.append(f)
                sizes.append(len(p))
            positions, tfs = np.concatenate(pos_parts), np.concatenate(tf_parts)
            del pos_parts, tf_parts
            self._flat = FlatPostings.build(terms, positions, tfs, sizes, backing=self._backing)
            self._postings = {}
            return True

    def release_pages(self, flush: bool = True) -> int:
        """Hand the file-backed arrays' pages to the page cache (FileBacking.release): the
        daemon's quiet release, and the index load as it goes. The next search faults back
        what it reads. Bytes mapped."""
        if self._backing is None:
            return 0
        return self._backing.release(flush)

    def neighbours(self, rows: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each row, the previous and next live turn of the same session in conversation
        time (-1 where none or outside `mask`). Only the candidates' sessions are sorted."""
        with self._lock:
            n = self.size
            sessions = self._facets["session_id"][:n]
            turn = self._kind[:n] == KINDS.index("turn")
            wanted = np.unique(sessions[rows][turn[rows]])
            wanted = wanted[wanted != 0]
            prev = np.full(len(rows), -1, dtype=np.int64)
            nxt = np.full(len(rows), -1, dtype=np.int64)
            if len(wanted) == 0:
                return prev, nxt
            pool = np.flatnonzero(turn & self._alive[:n] & mask & np.isin(sessions, wanted))
            order = pool[np.lexsort((pool, self.ts[pool], sessions[pool]))]
            rank = {int(p): k for k, p in enumerate(order)}
            same = sessions[order]
            for j, row in enumerate(rows.tolist()):
                k = rank.get(row)
                if k is None:
                    continue
                if k > 0 and same[k - 1] == same[k]:
                    prev[j] = order[k - 1]
                if k + 1 < len(order) and same[k + 1] == same[k]:
                    nxt[j] = order[k + 1]
            return prev, nxt

    def chinese_mask(self) -> np.ndarray:
        """Rows written in Chinese (CHINESE_TERMS distinct Chinese terms or more)."""
        with self._lock:
            out: np.ndarray = self._chinese[: self.size].copy()
            return out

    def kind_mask(self, kind: str) -> np.ndarray:
        """Rows of this kind (turn or memory), alive or not."""
        with self._lock:
            out: np.ndarray = self._kind[: self.size] == KINDS.index(kind)
            return out

    def kinds_and_times(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            return self._kind[rows].copy(), self.ts[rows].copy()

    def weights(self, rows: np.ndarray) -> np.ndarray:
        """Memories' importance x confidence (0 for turns)."""
        with self._lock:
            out: np.ndarray = self._weight[rows].copy()
            return out

    def codes(self, name: str, rows: np.ndarray) -> np.ndarray:
        """Dictionary codes of a facet (0 = None); compare with code_of()."""
        with self._lock:
            out: np.ndarray = self._facets[name][rows].copy()
            return out

    def code_of(self, name: str, value: str) -> int:
        return self._codes[name].get(value, -1)

    def vector(self, pos: int) -> np.ndarray | None:
        """The stored vector of a row position (a copy), or None when it has none."""
        with self._lock:
            if pos >= self.size or not self._has_vec[pos]:
                return None
            return _dequantised(self._vectors[pos], self._scale[pos])

    def cosine(
        self, query: np.ndarray, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(cosine of every row, rows that have a vector). With `mask` (a boolean array over
        the rows), only the rows it keeps are scanned: the others get cosine 0 and count as
        having no vector. A search filtered to one project scans about half the rows at 100k
        memories + 100k turns (bench/RESULTS.md, issue 23)."""
        with self._lock:
            n = self.size
            if self._vectors.shape[1] != len(query) or n == 0:
                return np.zeros(n, dtype=np.float32), np.zeros(n, dtype=bool)
            q = np.ascontiguousarray(query, dtype=np.float32)
            keep = None if mask is None else mask[:n] & self._has_vec[:n]
            if keep is not None and np.count_nonzero(keep) < GATHER_SHARE * n:
                return self._cosine_rows(q, np.flatnonzero(keep))
            out = np.empty(n, dtype=np.float32)
            block = np.empty((min(SCAN_BLOCK, n), len(q)), dtype=np.float32)
            for lo in range(0, n, SCAN_BLOCK):
                hi = min(lo + SCAN_BLOCK, n)
                rows = block[: hi - lo]
                rows[...] = self._vectors[lo:hi]  # int8 -> float32 inside L2
                np.dot(rows, q, out=out[lo:hi])
            out *= self._scale[:n]
            if keep is None:
                return out, self._has_vec[:n].copy()
            out[~keep] = 0.0
            return out, keep

    def _cosine_rows(self, q: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """`cosine` over the rows at `positions` only (gathered a block at a time)."""
        n = self.size
        out = np.zeros(n, dtype=np.float32)
        has = np.zeros(n, dtype=bool)
        if not len(positions):
            return out, has
        got = np.empty(len(positions), dtype=np.float32)
        block = np.empty((min(SCAN_BLOCK, len(positions)), len(q)), dtype=np.float32)
        for lo in range(0, len(positions), SCAN_BLOCK):
            at = positions[lo : lo + SCAN_BLOCK]
            rows = block[: len(at)]
            rows[...] = self._vectors[at]
            np.dot(rows, q, out=got[lo : lo + len(at)])
        out[positions] = got * self._scale[positions]
        has[positions] = True
        return out, has

    def vector_at(self, pos: int) -> np.ndarray | None:
        """The row's embedding (a copy), or None when it has none yet."""
        with self._lock:
            if not self._vectors.shape[1] or pos >= self.size or not self._has_vec[pos]:
                return None
            return _dequantised(self._vectors[pos], self._scale[pos])

    def rename(self, kind: str, ids: Mapping[str, str]) -> None:
        """Rows re-keyed in the store (same doc, new id): old -> new."""
        with self._lock:
            for old, new in ids.items():
                pos = self._live_position(kind, old)
                if pos is not None:
                    self._ids.set(pos, KINDS.index(kind), new)

    def ids_with_prefix(self, kind: str, prefix: str) -> list[str]:
        """Ids of the live rows of `kind` that start with `prefix`."""
        with self._lock:
            code = KINDS.index(kind)
            found = self._ids.with_prefix(prefix, self.size)
            return sorted(
                {self._ids.get(p) for p in found if self._alive[p] and self._kind[p] == code}
            )

    def position(self, kind: str, row_id: str) -> int | None:
        """The live row position of a memory or turn id, if indexed."""
        with self._lock:
            return self._live_position(kind, row_id)

    def row(self, pos: int) -> tuple[str, str, float]:
        """(kind, id, ts) of a row position."""
        with self._lock:
            return KINDS[int(self._kind[pos])], self._ids.get(pos), float(self.ts[pos])

    def load_posting_stream(self, stream: PostingStream) -> None:
        """Bulk-load every posting (Store.posting_stream), a chunk at a time: each chunk's
        postings go straight to their term's slice of two preallocated arrays (positions,
        term frequencies), sized from `stream.counts`. The whole load holds those arrays and
        one chunk, where reading all columns and sorting them peaked at ~4x the postings'
        final size (3.4 GiB at 1M turns, issue 22)."""
        with self._lock:
            chinese = _chinese_tids(stream.terms)
            held = np.zeros(self.size, dtype=np.int32)  # Chinese terms per row
            if len(self._flat) or self._postings or self._pending:
                # Not a first load: the postings join the others as pending ones.
                for tids, docs, tfs in stream.chunks:
                    self._pend_chunk(stream.terms, tids, docs, tfs, chinese, held)
                self._chinese[: self.size] |= held >= CHINESE_TERMS
                return
            counts = np.asarray(stream.counts, dtype=np.int64)
            bounds = np.zeros(len(counts) + 1, dtype=np.int64)
            np.cumsum(counts, out=bounds[1:])
            positions = np.empty(int(bounds[-1]), dtype=np.int32)
            weights = (  # the flat postings' term frequencies as they will stay (decision 0035)
                self._backing.zeros("postings.tf", (int(bounds[-1]),), np.uint16)
                if self._backing is not None
                else np.empty(int(bounds[-1]), dtype=np.uint16)
            )
            cursor = bounds[:-1].copy()
            for tids, docs, tfs in stream.chunks:
                if not len(tids):
                    continue
                order = np.argsort(tids, kind="stable")
                grouped = np.asarray(tids)[order]
                first = np.flatnonzero(np.diff(grouped, prepend=grouped[0] - 1))
                owners = grouped[first].astype(np.int64)
                sizes = np.diff(np.append(first, len(grouped)))
                if (cursor[owners] + sizes > bounds[owners + 1]).any():
                    raise ValueError("more postings in the chunks than in the counts")
                at = np.arange(len(grouped), dtype=np.int64)
                at += np.repeat(cursor[owners] - first, sizes)
                rows = self._positions(np.asarray(docs, dtype=np.int64)[order])
                positions[at] = rows
                weights[at] = _stored_tf(np.asarray(tfs)[order])
                cursor[owners] += sizes
                _count_chinese(rows, grouped, chinese, held)
                del order, grouped, at, rows
            if (cursor != bounds[1:]).any():
                raise ValueError("fewer postings in the chunks than in the counts")
            dead = np.flatnonzero(positions < 0)  # postings of rows that are not live
            if len(dead):
                slices = np.searchsorted(bounds, dead, side="right") - 1
                counts = counts - np.bincount(slices, minlength=len(counts))
                keep = positions >= 0
                positions, weights = positions[keep], weights[keep]
            self._chinese[: self.size] |= held >= CHINESE_TERMS
            # A term id that names no term (None) leaves a dead slice until a compaction.
            named = {t: k for k, t in enumerate(stream.terms) if t is not None}
            self._flat = FlatPostings.build(
                named, positions, weights, counts, owned=True, backing=self._backing
            )

    def _pend_chunk(
        self,
        terms: Sequence[str | None],
        tids: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
        chinese: np.ndarray,
        held: np.ndarray,
    ) -> None:
        """Postings loaded after others: pending per term, merged when a query reads it."""
        order = np.argsort(tids, kind="stable")
        tids = np.asarray(tids)[order]
        positions = self._positions(np.asarray(docs, dtype=np.int64)[order])
        weights = _stored_tf(np.asarray(tfs)[order])
        _count_chinese(positions, tids, chinese, held)
        keep = positions >= 0
        positions, weights, tids = positions[keep], weights[keep], tids[keep]
        bounds = np.searchsorted(tids, np.arange(len(terms) + 1, dtype=tids.dtype)).tolist()
        for term, lo, hi in zip(terms, bounds, bounds[1:], strict=False):
            if term is not None and lo != hi:
                pairs = np.empty(2 * (hi - lo), dtype=np.int32)
                pairs[0::2], pairs[1::2] = positions[lo:hi], weights[lo:hi]
                self._pending.setdefault(term, array("i")).frombytes(pairs.tobytes())

    def load_rows(
        self,
        kind: str,
        docs: np.ndarray,
        ids: Sequence[str],
        lengths: np.ndarray,
        ts: np.ndarray,
        facets: Mapping[str, Sequence[str | None]],
        weights: np.ndarray | None = None,
    ) -> None:
        """Bulk add_rows from columns (Engine open): the same state as add_rows with one
        IndexedDoc per row (same positions, facet codes in order of first appearance), without
        a Python call per row."""
        with self._lock:
            n = len(docs)
            lo, hi = self.size, self.size + n
            self._ensure_capacity(hi)
            doc_array = np.asarray(docs, dtype=np.int64)
            self._docs[lo:hi] = doc_array
            self._kind[lo:hi] = KINDS.index(kind)
            self._length[lo:hi] = lengths
            self.ts[lo:hi] = ts
            self._weight[lo:hi] = 0.0 if weights is None else weights
            self._alive[lo:hi] = True
            self._ids.set_many(lo, ids)
            self._pos.set_many(doc_array, np.arange(lo, hi, dtype=np.int32), hi)
            self._alive_count += n
            self._length_sum += float(sum(np.asarray(lengths, dtype=np.int64).tolist()))
            for name, values in facets.items():
                codes = self._codes[name]
                for value in dict.fromkeys(values):
                    codes.setdefault(value, len(codes))
                self._facets[name][lo:hi] = np.fromiter(map(codes.__getitem__, values), np.int32, n)
            self.size = hi

    def add_rows(self, rows: Iterable[IndexedDoc]) -> None:
        """Add rows without postings (bulk load: postings come from load_posting_stream). The
        engine loads with `add_columns`; this row-at-a-time form, which `add_columns` must
        match, is how the index's tests build a loaded index from a few documents."""
        with self._lock:
            rows = list(rows)
            self._ensure_capacity(self.size + len(rows))
            for d in rows:
                self._append_row(d)


_EMPTY_I = np.zeros(0, dtype=np.int32)
_ARRAY_HEADER = sys.getsizeof(np.zeros(0, dtype=np.int32))  # a numpy array object, no data


# Term frequencies are held as uint16 (2 bytes a posting, where float32 took 4) and scored as
# float32, the same arithmetic as before. A count past 65,535 (a document repeating one word
# that often) is held as 65,535.
_EMPTY_TF = np.zeros(0, dtype=np.uint16)


def _chinese_tids(terms: Sequence[str | None]) -> np.ndarray:
    """Per term id: does the term hold a Chinese character (rows written in Chinese)."""
    return np.fromiter(
        (t is not None and _CJK_TERM.match(t) is not None for t in terms), bool, len(terms)
    )


def _count_chinese(
    rows: np.ndarray, tids: np.ndarray, chinese: np.ndarray, held: np.ndarray
) -> None:
    """Add to `held` (per row) the postings of Chinese terms among (rows, tids); -1 rows are
    not live. A row's terms are distinct, so this counts its distinct Chinese terms."""
    mine = chinese[tids] & (rows >= 0)
    if mine.any():
        held += np.bincount(rows[mine], minlength=len(held))[: len(held)].astype(np.int32)


def _stored_tf(counts: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.minimum(np.asarray(counts), 65_535).astype(np.uint16)
    return out


def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows as int8 codes and a float32 scale each (row ~= codes * scale): symmetric, the
    largest component of each row maps to +-127. A zero row gets scale 0."""
    values = np.asarray(matrix, dtype=np.float32)
    if values.ndim != 2:
        values = values.reshape(len(values), -1)
    peak = np.abs(values).max(axis=1) if values.shape[1] else np.zeros(len(values), np.float32)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    codes = np.rint(values / safe[:, None]).astype(np.int8)
    return codes, scales


def _dequantised(codes: np.ndarray, scale: np.float32) -> np.ndarray:
    out: np.ndarray = codes.astype(np.float32) * scale
    return out


def _grown(array: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n, *array.shape[1:]), dtype=array.dtype)
    out[: len(array)] = array
    return out

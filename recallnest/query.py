"""Query understanding: what a search is really asking for. Pure; no I/O, no clock (`now` is
an argument).

- Boilerplate: when a whole agent prompt is used as a query, injected blocks (system reminders,
  environment context, AGENTS.md preambles, our own recalled notes) are cut out first, and a
  very long prompt keeps only its last sentences, where the question usually is.
- Expansion for the keyword channel: entity aliases (TS → typescript, shared with capture) and
  a small EN/ZH developer-vocabulary synonym table (挂了 → crash/崩溃/error), user-extensible.
  Expansion terms get a lower weight than the words the user typed.
- Exact tokens: identifiers, file names, error codes, hashes and flags are looked up verbatim.
- Date hints: "yesterday", "last week", "上周", "in March", "3 days ago" become a time window
  used as a soft boost.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from recallnest.aliases import expand_query_aliases
from recallnest.salience import strip_injected
from recallnest.text import exact_tokens, tokenize

EXPANSION_WEIGHT = 0.4
MAX_QUERY_CHARS = 600  # a longer "query" is a pasted prompt: keep its tail

# Built-in synonym groups: any member found in a query adds the others (weighted). Keep them to
# vocabulary a coding agent's user really alternates between; no dataset-specific words.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("crash", "crashed", "crashes", "崩溃", "挂了", "挂掉", "宕机", "panic", "segfault"),
    ("error", "exception", "failure", "failing", "报错", "错误", "异常", "失败"),
    ("bug", "issue", "defect", "问题", "缺陷"),
    ("fix", "fixed", "resolve", "resolved", "修复", "解决", "修好"),
    ("package manager", "npm", "pnpm", "yarn", "pip", "uv", "poetry", "cargo", "包管理器"),
    ("database", "db", "数据库", "postgres", "mysql", "sqlite", "duckdb"),
    ("deploy", "deployment", "release", "ship", "部署", "发布", "上线"),
    ("test", "tests", "testing", "unit test", "测试", "单测", "pytest", "jest"),
    ("config", "configuration", "settings", "配置", "设置"),
    ("slow", "latency", "performance", "perf", "慢", "性能", "卡顿"),
    ("login", "auth", "authentication", "sign in", "登录", "认证"),
    ("port", "端口"),
    ("dependency", "dependencies", "library", "package", "依赖", "库"),
    ("prefer", "preference", "like", "喜欢", "偏好", "习惯"),
    ("decide", "decided", "decision", "chose", "choose", "决定", "选择", "选了"),
    ("build", "compile", "构建", "编译", "打包"),
    ("lint", "linter", "format", "formatter", "格式化", "代码风格"),
    ("ci", "pipeline", "github actions", "持续集成", "流水线"),
    ("container", "docker", "image", "容器", "镜像"),
    ("log", "logs", "logging", "日志"),
    ("cache", "caching", "缓存"),
    ("timeout", "timed out", "超时"),
    ("memory leak", "oom", "out of memory", "内存泄漏", "内存溢出"),
    ("permission", "permissions", "denied", "权限"),
    ("branch", "分支"),
    ("commit", "提交"),
    ("certificate", "cert", "tls", "ssl", "证书"),
    ("alert", "alerting", "alarm", "告警", "报警"),
    ("rollback", "roll back", "revert", "回滚", "回退"),
    ("health check", "healthcheck", "健康检查"),
    ("version", "版本"),
    ("connection pool", "pool size", "连接池"),
    ("migration", "migrate", "迁移"),
    ("schedule", "cron", "定时", "调度"),
    ("endpoint", "api", "接口"),
    ("service", "服务"),
    ("platform", "平台"),
    ("upgrade", "升级"),
    ("monitoring", "metrics", "监控", "指标"),
    ("secret", "credential", "密钥", "凭证"),
    ("state management", "store", "状态管理"),
    ("frontend", "前端"),
    ("backend", "后端"),
    ("report", "报表", "日报"),
    ("threshold", "阈值"),
)

# "what is X now / currently / latest": the newest of several matching statements wins.
_LATEST = re.compile(
    r"\b(?:now|currently|current|latest|these days|nowadays|at the moment|still)\b"
    r"|现在|目前|最新|当前|如今|还是",
    re.IGNORECASE,
)
# Agent preambles pasted with a prompt that strip_injected does not know: Codex's AGENTS.md
# block, and a markdown preamble closed by a `---` rule before the actual question.
_AGENTS_BLOCK = re.compile(
    r"#\s*AGENTS\.md instructions[^\n]*\n(?:\s*<INSTRUCTIONS>.*?</INSTRUCTIONS>)?",
    re.IGNORECASE | re.DOTALL,
)
_RULE_SPLIT = re.compile(r"\n\s*-{3,}\s*\n")

_RELATIVE_EN = re.compile(
    r"\b(?:(yesterday|today)|last (week|month|year)|this (week|month)|"
    r"(\d{1,3}) (day|week|month)s? ago|in (january|february|march|april|may|june|july|august|"
    r"september|october|november|december))\b",
    re.IGNORECASE,
)
_RELATIVE_ZH = re.compile(r"(昨天|今天|上周|上个?星期|上个?月|本周|这周|这个月|去年|(\d{1,3})天前)")
_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """What to search for: text to embed, weighted keyword terms, exact tokens, time window."""

    text: str
    terms: dict[str, float]
    exact: tuple[str, ...] = ()
    window: tuple[datetime, datetime] | None = None
    expansions: tuple[str, ...] = field(default=())
    latest: bool = False  # the query asks for the current state: prefer newer statements


def plan_query(
    query: str,
    now: datetime,
    synonyms: Sequence[Sequence[str]] = SYNONYM_GROUPS,
    clean: bool = True,
) -> QueryPlan:
    """Understand one query. `synonyms` may add the user's own groups to the built-in ones;
    `clean=False` skips boilerplate stripping (ablation)."""
    text = clean_query(query) if clean else " ".join(query.split())
    terms = dict.fromkeys(tokenize(text), 1.0)
    expansions = [*expand_query_aliases(text), *_synonyms(text, synonyms)]
    for term in tokenize(" ".join(expansions)):
        terms.setdefault(term, EXPANSION_WEIGHT)
    return QueryPlan(
        text=text,
        terms=terms,
        exact=tuple(exact_tokens(text)),
        window=date_window(text, now),
        expansions=tuple(expansions),
        latest=_LATEST.search(text) is not None,
    )


def clean_query(query: str) -> str:
    """The question inside a query: injected blocks removed, a pasted prompt cut to its tail."""
    query = _AGENTS_BLOCK.sub(" ", query)
    parts = _RULE_SPLIT.split(query)
    if len(parts) > 1 and parts[-1].strip() and len(parts[-1]) < len(query) / 2:
        query = parts[-1]  # a preamble, a rule, then the question
    rest, injected_only = strip_injected(query)
    text = " ".join((query if injected_only and not rest else rest).split())
    if len(text) <= MAX_QUERY_CHARS:
        return text
    tail: list[str] = []
    for sentence in reversed(_SENTENCE_END.split(text)):
        if sum(len(s) for s in tail) + len(sentence) > MAX_QUERY_CHARS:
            break
        tail.insert(0, sentence)
    return " ".join(tail) or text[-MAX_QUERY_CHARS:]


def _synonyms(text: str, groups: Sequence[Sequence[str]]) -> list[str]:
    lowered = text.lower()
    found: list[str] = []
    for group in groups:
        if any(_mentions(lowered, word) for word in group):
            found.extend(w for w in group if not _mentions(lowered, w))
    return found


def _mentions(lowered: str, word: str) -> bool:
    if not word.isascii():
        return word in lowered
    return re.search(rf"(?<![a-z0-9_]){re.escape(word)}(?![a-z0-9_])", lowered) is not None


def date_window(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """A (since, until) window for a relative date in the query, or None."""
    now = now if now.tzinfo else now.replace(tzinfo=UTC)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if (m := _RELATIVE_EN.search(text)) is not None:
        return _english_window(m, now, day)
    if (z := _RELATIVE_ZH.search(text)) is not None:
        return _chinese_window(z.group(1), z.group(2), now, day)
    return None


def _english_window(
    m: re.Match[str], now: datetime, day: datetime
) -> tuple[datetime, datetime] | None:
    one, last, this, n, unit, month = m.groups()
    if one:
        start = day - timedelta(days=1) if one.lower() == "yesterday" else day
        return start, start + timedelta(days=1)
    if last:
        span = {"week": 7, "month": 31, "year": 366}[last.lower()]
        return now - timedelta(days=2 * span), now - timedelta(days=span // 2)
    if this:
        return now - timedelta(days=7 if this.lower() == "week" else 31), now
    if n:
        days = int(n) * {"day": 1, "week": 7, "month": 30}[unit.lower()]
        return now - timedelta(days=days * 1.5 + 1), now - timedelta(days=days * 0.5)
    return _month_window(_MONTHS.index(month.lower()) + 1, now)


def _chinese_window(
    word: str, n: str | None, now: datetime, day: datetime
) -> tuple[datetime, datetime]:
    if word == "昨天":
        return day - timedelta(days=1), day
    if word == "今天":
        return day, day + timedelta(days=1)
    if n:
        days = int(n)
        return now - timedelta(days=days * 1.5 + 1), now - timedelta(days=days * 0.5)
    spans: Mapping[str, tuple[int, int]] = {
        "上周": (14, 3),
        "上星期": (14, 3),
        "上个星期": (14, 3),
        "上月": (62, 15),
        "上个月": (62, 15),
        "本周": (7, 0),
        "这周": (7, 0),
        "这个月": (31, 0),
        "去年": (731, 300),
    }
    far, near = spans.get(word, (14, 0))
    return now - timedelta(days=far), now - timedelta(days=near)


def _month_window(month: int, now: datetime) -> tuple[datetime, datetime]:
    year = now.year if month <= now.month else now.year - 1
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end

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

from recallnest.core.aliases import expand_query_aliases
from recallnest.core.injected import strip_injected
from recallnest.core.text import exact_tokens, tokenize

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
    ("timeout", "timed out", "timing out", "times out", "超时"),
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
    ("script", "scripts", "脚本"),
    ("timezone", "time zone", "utc", "local time", "时区", "本地时间"),
    ("comment", "comments", "注释"),
    ("documentation", "docs", "文档"),
    ("backup", "backups", "备份"),
    ("retry", "retries", "重试"),
    ("rate limit", "rate limited", "throttle", "throttling", "限流"),
    ("duplicate", "duplicates", "deduplicate", "重复", "去重"),
    ("column", "columns", "字段"),
    ("callback", "回调"),
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
# Gemini CLI's set-up text (date, OS, working directory, folder tree) before the first prompt.
_GEMINI_SETUP = re.compile(
    r"This is the Gemini CLI\. We are setting up the context for our chat\.[^\n]*"
    r"(?:\n[ \t]*(?:Today's date is|My operating system is|I'm currently working in"
    r"|Here is the folder structure|Showing up to|Folder structure|[/├└│]|\.\.\.|(?=\n))[^\n]*)*",
    re.IGNORECASE,
)

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

# Absolute dates: "on 3 June, 2023", "October 13, 2023", "Oct 13", "2025-03-05", "in August
# 2023", "2025年3月5日", "3月5号", "2023年8月"; optionally anchored: "the week before August 3",
# "two weeks before 11 Aug 2023", "3 days after 2025-03-05".
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_YEAR = r"(?:,?\s*((?:19|20)\d\d)\b)?"
_ABSOLUTE_EN = (
    ("ymd", re.compile(r"\b((?:19|20)\d\d)-(\d\d?)-(\d\d?)\b")),
    ("dmy", re.compile(rf"\b(\d\d?)(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}{_YEAR}", re.I)),
    ("mdy", re.compile(rf"\b{_MONTH}\s+(\d\d?)(?:st|nd|rd|th)?\b(?!:){_YEAR}", re.I)),
    ("my", re.compile(rf"\b{_MONTH},?\s+((?:19|20)\d\d)\b", re.I)),
)
_ABSOLUTE_ZH = re.compile(r"(?:((?:19|20)\d\d)\s*年\s*)?(\d\d?)\s*月(?:\s*(\d\d?)\s*[日号])?")
_PREPOSITION = re.compile(r"\b(?:on|in|since|before|after|by|until|from|of)\s+$", re.I)
_NUMBERS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "a couple of": 2, "few": 3}
_ANCHOR = re.compile(
    r"\b(?:the\s+)?(a|one|two|three|four|a couple of|few|\d{1,2})?\s*(day|week|month)s?\s+"
    r"(before|after|prior to|since)\s+(?:the\s+)?$",
    re.I,
)


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
    query = _GEMINI_SETUP.sub(" ", _AGENTS_BLOCK.sub(" ", query))
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


def synonym_links(
    text: str, groups: Sequence[Sequence[str]] = SYNONYM_GROUPS
) -> list[tuple[str, tuple[str, ...]]]:
    """Each synonym-group member `text` mentions, with the members it does not: the prompt
    gate (retrieval.relevance) counts a note saying 回滚 as answering a prompt saying rollback,
    as the keyword channel's expansion already found it."""
    lowered = text.lower()
    links: list[tuple[str, tuple[str, ...]]] = []
    for group in groups:
        said = [w for w in group if _mentions(lowered, w)]
        if not said:  # most groups (hundreds, on the prompt hook's path)
            continue
        others = tuple(w for w in group if w not in said)
        links.extend((word, others) for word in said if others)
    return links


def _mentions(lowered: str, word: str) -> bool:
    # The substring test first: most words of most groups are absent, and the boundary regex
    # costs ten times as much (~250 words per prompt, on the prompt hook's path).
    if word not in lowered or not word.isascii():
        return word in lowered
    return re.search(rf"(?<![a-z0-9_]){re.escape(word)}(?![a-z0-9_])", lowered) is not None


def date_window(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """A (since, until) window for a relative date in the query, or None."""
    now = now if now.tzinfo else now.replace(tzinfo=UTC)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if (found := absolute_window(text, now)) is not None:
        return found
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


def absolute_window(text: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The window of a calendar date named in the query: its day (or month), widened to the
    span before or after it when the query anchors on it ("the week before August 3")."""
    for shape, pattern in _ABSOLUTE_EN:
        for m in pattern.finditer(text):
            if _modal_may(shape, m, text):
                continue
            if (span := _calendar(shape, m.groups(), now)) is not None:
                return _anchored(text[: m.start()], span)
    for z in _ABSOLUTE_ZH.finditer(text):
        year, month, dom = z.groups()
        shape = "ymd" if dom else "ym"
        if (span := _calendar(shape, (year, month, dom), now)) is not None:
            return span
    return None


def _modal_may(shape: str, m: re.Match[str], text: str) -> bool:
    """Whether "may" is the verb: without a year it is a month only after a preposition
    ("on 12 May", "since May 3"), not in "12 may be null" or "it may 3x"."""
    if shape not in ("dmy", "mdy") or m.group(3) or "may" not in m.group(0).lower():
        return False
    return _PREPOSITION.search(text[: m.start()]) is None


def _calendar(
    shape: str, parts: Sequence[str | None], now: datetime
) -> tuple[datetime, datetime] | None:
    """A day (or month) window; without a year, the latest such date not after `now`."""
    if shape in ("ymd", "ym"):
        year, month, dom = parts
    elif shape == "dmy":
        dom, month, year = parts
    elif shape == "mdy":
        month, dom, year = parts
    else:
        (month, year), dom = parts, None
    name = str(month)
    number = int(name) if name.isdigit() else _month_number(name)
    if number is None or not 1 <= number <= 12:
        return None
    if dom is None:
        return _month_window(number, now) if year is None else _month_span(int(year), number)
    try:
        start = datetime(int(year) if year else now.year, number, int(dom), tzinfo=UTC)
        if year is None and start > now:
            start = start.replace(year=now.year - 1)
    except ValueError:  # 31 February, 29 February of a common year
        return None
    return start, start + timedelta(days=1)


def _month_number(name: str) -> int | None:
    prefix = name.lower()[:3]
    return next((k + 1 for k, m in enumerate(_MONTHS) if m.startswith(prefix)), None)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    return start, datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)


def _anchored(before: str, span: tuple[datetime, datetime]) -> tuple[datetime, datetime]:
    """A span anchored on a date: "the week before X" is the week up to X (X included: that
    is when it was told), "two days after X" the days from X on."""
    m = _ANCHOR.search(before)
    if m is None:
        return span
    count, unit, direction = m.group(1), m.group(2).lower(), m.group(3).lower()
    n = int(count) if count and count.isdigit() else _NUMBERS.get((count or "one").lower(), 1)
    width = timedelta(days=n * {"day": 1, "week": 7, "month": 31}[unit])
    if direction in ("before", "prior to"):
        return span[0] - width, span[1]
    return span[0], span[1] + width

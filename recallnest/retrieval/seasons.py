"""When a prompt and a note speak of the same time in other words: a month the prompt names and
a season or a range of months the note states ("sit her grade 4 in november" against "exams in
the spring session only, no longer the autumn one"; 7 月份下午 against 夏天 6 到 9 月下午), or a
weekday the prompt proposes against a note saying on which weekdays something is ("can I offer
her tuesday afternoons" against "the grand is only available on Thursdays").

Such a time is a word the note says (retrieval.relevance counts it as matched, as it does a
numbered thing inside a range the note states: "peg 27" against "pegs 25 to 30"). Seasons are
the northern hemisphere's. A month and a weekday said alike ("november" in both) are matched
words already and need nothing here.

Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# (term the prompt says, "month" | "weekday", 1-12 | 0-6)
Time = tuple[str, str, int]

_EN_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CN_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_WEEKDAY = {**_CN_DIGITS, "日": 7, "天": 7}

# "may" is a month only after "in" or before a day's number ("in may", "may 3"); "march" and
# the other months are months wherever they stand.
_EN_MONTH = (
    r"(?:january|february|march|april|june|july|august|september|october|november|december|"
    r"(?<=\bin )may|may(?= \d))"
)
_ZH_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
_MONTH = re.compile(rf"\b{_EN_MONTH}\b|(?P<zh>{_ZH_MONTH}) ?月", re.IGNORECASE)
_RANGE = re.compile(
    rf"\b(?:between )?(?P<a>{_EN_MONTH})\s?(?:-|–|to|through|until|till|and)\s?(?P<b>{_EN_MONTH})\b"
    rf"|(?P<za>{_ZH_MONTH}) ?月? ?(?:到|至|-|–|~|～) ?(?P<zb>{_ZH_MONTH}) ?月",
    re.IGNORECASE,
)
# Seasons, northern hemisphere: "fall" only as a season's name ("in the fall", "fall term").
_SEASONS: tuple[tuple[re.Pattern[str], frozenset[int]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), frozenset(months))
    for pattern, months in (
        (r"\bspring\b|春天|春季", (3, 4, 5)),
        (r"\bsummer\b|夏天|夏季", (6, 7, 8)),
        (r"暑假|暑期", (7, 8)),
        (r"\bautumn\b|\b(?:in the|this|last|next) fall\b|\bfall (?:term|session|semester)\b"
         r"|秋天|秋季", (9, 10, 11)),
        (r"\bwinter\b|冬天|冬季", (12, 1, 2)),
        (r"寒假", (1, 2)),
    )
)  # fmt: skip
_WEEKDAY = re.compile(
    r"\b(?P<en>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b"
    r"|(?:周|星期|礼拜)(?P<zh>[一二三四五六日天])",
    re.IGNORECASE,
)
_EN_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_ZH_DAY = r"(?:周|星期|礼拜)[一二三四五六日天]"
# A note saying on which weekdays something is, or is not: "only available on Thursdays",
# "Thursdays only", "every Friday", "except Sundays"; 只在周四, 每周五, 周四才, 除了周日.
_WEEKDAY_RULE = re.compile(
    rf"\bonly\b[^.;:!?]{{0,40}}?\b{_EN_DAY}\b|\b{_EN_DAY} only\b|\bevery {_EN_DAY}\b"
    rf"|\b(?:except|not on|never on|apart from|other than|but not) (?:on )?{_EN_DAY}\b"
    rf"|(?:只|仅|每)[^，。；！？]{{0,6}}?{_ZH_DAY}|{_ZH_DAY}(?:才|以外|除外)|除了?{_ZH_DAY}",
    re.IGNORECASE,
)


def _month_number(word: str) -> int | None:
    word = word.lower()
    if word in _EN_MONTHS:
        return _EN_MONTHS.index(word) + 1
    if word.isdigit():
        n = int(word)
        return n if 1 <= n <= 12 else None
    if word.startswith("十"):
        return 10 + _CN_DIGITS.get(word[1:], 0)
    return _CN_DIGITS.get(word)


def times(query: str, terms: Sequence[str], term_of: dict[str, str]) -> tuple[Time, ...]:
    """The months and weekdays `query` names, each with the prompt's index term that says it
    (one of `terms`; `term_of` maps an English word to its term)."""
    out: list[Time] = []
    for m in _MONTH.finditer(query):
        word = m.group("zh") or m.group(0)
        n = _month_number(word)
        term = word if m.group("zh") else term_of.get(word.lower(), "")
        if m.group("zh") and not word.isdigit():  # 七月, 十一月: the pair that ends in 月
            term = (word + "月")[-2:]
        if n and term in terms:
            out.append((term, "month", n))
    for m in _WEEKDAY.finditer(query):
        if m.group("en"):
            term, day = (
                term_of.get(m.group("en").lower(), ""),
                _EN_WEEKDAYS.index(m.group("en").lower()) + 1,
            )
        else:
            term, day = m.group(0)[-2:], _CN_WEEKDAY[m.group("zh")]
        if term in terms:
            out.append((term, "weekday", day))
    return tuple(dict.fromkeys(out))


def said_in_other_words(prompt_times: Sequence[Time], text: str, rule: bool = True) -> set[str]:
    """The terms of `prompt_times` the note `text` speaks of in other words: a month inside a
    season or a range of months it states, a weekday when it is a rule (`rule`) saying on which
    weekdays something is. A note that only tells when something recurs ("the community
    manager posts patch notes there every Thursday") says nothing of another weekday: the
    prompt's Saturday is another day, not a day that note rules out (round 48, test-blind17:
    "a discord announcement for saturday's cup, sign-ups close friday" took both weekdays as
    two words that note says, 0.31 against 0.15 without them). A month inside a season is
    still that season, rule or not (blind11's 7 月份 against 夏天 6 到 9 月)."""
    months = [(t, n) for t, kind, n in prompt_times if kind == "month"]
    weekdays = [t for t, kind, _ in prompt_times if kind == "weekday"] if rule else []
    out: set[str] = set()
    if months:
        held = _months_held(text)
        out.update(t for t, n in months if n in held)
    if weekdays and _WEEKDAY_RULE.search(text):
        out.update(weekdays)
    return out


def _months_held(text: str) -> set[int]:
    """The months the seasons and ranges of months in `text` cover."""
    held: set[int] = set()
    for pattern, months in _SEASONS:
        if pattern.search(text):
            held |= months
    for m in _RANGE.finditer(text):
        a = _month_number(m.group("a") or m.group("za") or "")
        b = _month_number(m.group("b") or m.group("zb") or "")
        if a and b:
            span = range(a, b + 1) if a <= b else [*range(a, 13), *range(1, b + 1)]
            held.update(span)
    return held

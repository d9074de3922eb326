"""When a value the prompt states meets a limit a note states in the same unit: "a 2.6m high
camper" against "only lanes 17 and 18 have the headroom for vans over 2.3 m", "48 knot gusts"
against "stops selling tickets when the gust forecast goes above 45 knots", 家里才 19 度 against
室温低于 18 度才算有效投诉，18 到 20 度先电话指导 (round 45 b13).

A value at or near the note's threshold is the moment the note decides something, and the two
often share no other word than the unit: retrieval.relevance counts the value as a word the note
says (as it does "peg 27" inside "pegs 25 to 30") and weighs the note as a rule ruling on what
the prompt proposes. The note's value is a limit only when it is worded as one: after over,
above, under, at least, up to, 低于, 超过, 不超过 ..., before or more, 以上, 以下, or as the ends
of a range (18 到 20 度, 2-3 m). Measures only (length, mass, temperature, speed, volume), a
person's age and a percentage (round 47): counts, times and money are said of too many
unrelated things.

A percentage counts only as a limit the note words as one, as every value here: "batches
under 8.5% ABV pay the cider rate" against 这批 8.7% 的苹果酒 (blind6's first-run miss), 湿度
超过 70% against 湿度到了 72% (blind7). A percentage the note merely states ("a voucher worth
40%") is no limit.

An age is a measure too, and the commonest threshold a note about people states: "his 5yo"
against "children under 6 ride free ... ages 6 to 15 pay the youth price" (test-blind16), "a
12 year old" against "junior anglers under 16" (blind10), 82 岁的老人 against 80 岁以上补 8 元
(blind8). A prompt says it with its word (5yo, 12-year-old, aged 12, 82 岁); a note often
says the bare number after a word for people of an age ("children under 6", "ages 6 to 15",
"under-16s"): only such a number is an age there, never "kept for 7 years".

Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from recallnest.core.text import tokenize

# (the prompt's index term for the value, dimension, value in the dimension's base unit)
Quantity = tuple[str, str, float]

# A value this close to a limit (a share of the larger of the two) is at it: 2.6 against 2.3 m
# is 12 %, 48 against 45 knots 6 %.
NEAR_SHARE = 0.25

# unit as written (lower-cased) -> (dimension, factor to the base unit)
# fmt: off
_UNITS: dict[str, tuple[str, float]] = {
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1.0), "km": ("length", 1000.0),
    "metre": ("length", 1.0), "metres": ("length", 1.0), "meter": ("length", 1.0),
    "meters": ("length", 1.0), "ft": ("length", 0.3048), "feet": ("length", 0.3048),
    "foot": ("length", 0.3048), "毫米": ("length", 0.001), "厘米": ("length", 0.01),
    "米": ("length", 1.0), "公里": ("length", 1000.0), "千米": ("length", 1000.0),
    "g": ("mass", 0.001), "kg": ("mass", 1.0), "kilos": ("mass", 1.0), "kilograms": ("mass", 1.0),
    "kilogram": ("mass", 1.0), "tonnes": ("mass", 1000.0), "tonne": ("mass", 1000.0),
    "tons": ("mass", 1000.0), "lb": ("mass", 0.4536), "lbs": ("mass", 0.4536),
    "pounds": ("mass", 0.4536), "克": ("mass", 0.001), "公斤": ("mass", 1.0),
    "千克": ("mass", 1.0), "斤": ("mass", 0.5), "吨": ("mass", 1000.0),
    "°c": ("celsius", 1.0), "℃": ("celsius", 1.0), "degrees": ("celsius", 1.0),
    "degree": ("celsius", 1.0), "度": ("celsius", 1.0), "摄氏度": ("celsius", 1.0),
    "°f": ("fahrenheit", 1.0), "℉": ("fahrenheit", 1.0),
    "knots": ("speed", 1.852), "knot": ("speed", 1.852), "kn": ("speed", 1.852),
    "kt": ("speed", 1.852), "kts": ("speed", 1.852), "节": ("speed", 1.852),
    "km/h": ("speed", 1.0), "kph": ("speed", 1.0), "mph": ("speed", 1.609), "m/s": ("speed", 3.6),
    "l": ("volume", 1.0), "litres": ("volume", 1.0), "liters": ("volume", 1.0),
    "litre": ("volume", 1.0), "liter": ("volume", 1.0), "ml": ("volume", 0.001),
    "升": ("volume", 1.0), "毫升": ("volume", 0.001),
    "岁": ("age", 1.0), "周岁": ("age", 1.0), "%": ("percent", 1.0), "％": ("percent", 1.0),
}
# fmt: on
_UNIT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_NUMBER = r"\d+(?:\.\d+)?"
_QUANTITY = re.compile(
    rf"(?<![\w.])(?P<num>-?{_NUMBER}) ?(?P<unit>{_UNIT})(?![A-Za-z/])", re.IGNORECASE
)
_RANGE = re.compile(
    rf"(?<![\w.])(?P<low>-?{_NUMBER}) ?(?:-|–|~|～|to|到|至) ?(?P<high>-?{_NUMBER}) ?"
    rf"(?P<unit>{_UNIT})(?![A-Za-z/])",
    re.IGNORECASE,
)
# Words that make the value beside them a limit: before it, or after it.
_BEFORE = re.compile(
    r"(?:\b(?:over|above|below|under|beyond|exceeds?|exceeding|more than|less than|fewer than|"
    r"greater than|higher than|lower than|taller than|at least|at most|up to|no more than|"
    r"max(?:imum)?|min(?:imum)?|limit(?:ed)?(?: (?:of|to|is))?)|[<>≤≥]=?"
    r"|低于|高于|超过|超出|不超过|不低于|不高于|小于|大于|少于|多于|不到|达到|最高|最低|限高|限重|上限|下限)"
    r"\s*$",
    re.IGNORECASE,
)
_AFTER = re.compile(
    r"\s*(?:\b(?:or (?:more|less|above|below|over|under|higher|lower)|and (?:over|above|up|"
    r"below|under)|max(?:imum)?|min(?:imum)?)\b|(?:及)?以上|(?:及)?以下|以内|之内)",
    re.IGNORECASE,
)
_WINDOW = 14  # characters before a value read for a limit word
_AGE = r"\d{1,3}"
_NOT_A_MEASURE = rf"(?! ?(?:%|[.,]\d|(?:{_UNIT})(?![A-Za-z])))"  # "anyone over 50 kg" is a mass
# A prompt's age: 5yo, 5 y/o, 12 year old, 12-year-old(s), 7 yr old, aged 12 (岁 is a unit).
_AGE_SAID = re.compile(
    rf"(?<![\w.])(?P<num>{_AGE})(?: ?(?:yo|y/o|yrs? olds?)\b|[- ]years?[- ]olds?\b)"
    rf"|\baged (?P<aged>{_AGE})\b",
    re.IGNORECASE,
)
# A note's age limit: a number after a word for people of an age and a limit word ("children
# under 6", "juniors aged 16 or under" via _AFTER), the ends of "ages 6 to 15", "under-16s".
_AGE_PEOPLE = (
    r"(?:children|child|kids?|infants?|toddlers?|babies|juniors?|minors?|teens|teenagers|"
    r"seniors|pensioners|anyone|those|ages?|aged)"
)
_AGE_LIMIT = re.compile(
    rf"\b{_AGE_PEOPLE} (?:[a-z]+ )?(?:(?:who are|aged) )?"
    rf"(?:under|over|below|above|up to|younger than|older than) (?P<one>{_AGE})\b{_NOT_A_MEASURE}"
    rf"|\b(?:ages?|aged) (?P<low>{_AGE}) ?(?:-|–|to|and) ?(?P<high>{_AGE})\b{_NOT_A_MEASURE}"
    rf"|\b(?:under|over)-(?P<band>{_AGE})s\b",
    re.IGNORECASE,
)

# Trigger: two readings of one measure set against each other, and a note stating the offset
# between two references (round 50, test-blind19: "website says 1.2 m at low water but the
# harbourmaster swears his board read about 4.1. which of us is wrong?" against "Chart Datum
# is 2.91 m below ODN"). Why: the gap between the readings is the value the note explains,
# and the two share no other word than the unit. Outcome: the gap is a value in the dimension
# "<dim> apart", met by a note's value worded as an offset (2.91 m below / above / higher /
# lower / apart, an offset of, 相差, 差了, 高出, 低了) within NEAR_SHARE, as a limit
# is; only in a prompt saying the readings disagree (`_DISAGREE`).
_APART = " apart"
_DISAGREE = re.compile(
    r"\b(?:but|though|whereas|versus|vs|wrong|differs?|difference|mismatch|doesn't match"
    r"|don't match|disagree)\b|但|可是|却|不一致|对不上|差了",
    re.IGNORECASE,
)
# A second reading: a value with a unit, or a bare decimal that takes the first one's unit.
_READING = re.compile(
    rf"(?<![\w.:/-])(?P<num>\d+\.\d+|\d+(?= ?(?:{_UNIT})(?![A-Za-z/])))"
    rf"(?: ?(?P<unit>{_UNIT})(?![A-Za-z/]))?(?![\w:/-])",
    re.IGNORECASE,
)
# dimensions whose readings are compared by their difference (not ages, not shares)
_GAP_DIMENSIONS = frozenset(("length", "mass", "volume", "speed", "celsius", "fahrenheit"))
_OFFSET_AFTER = re.compile(r" (?:below|above|higher|lower|apart)\b", re.IGNORECASE)
_OFFSET_BEFORE = re.compile(
    r"(?:\boffset (?:of|by)|\bdiffer(?:s|ence)? (?:of|by)|相差|差了|高出|低了)\s*$", re.IGNORECASE
)


def quantities(query: str, terms: Sequence[str]) -> tuple[Quantity, ...]:
    """The measured values `query` states, each with its first index term among `terms`, and
    the gap between two readings it sets against each other (`_gap`)."""
    out = []
    for m in _QUANTITY.finditer(query):
        term = next((t for t in tokenize(m.group("num")) if t in terms), None)
        dim, factor = _UNITS[m.group("unit").lower()]
        if term is not None:
            out.append((term, dim, float(m.group("num")) * factor))
    if out and _DISAGREE.search(query):
        out.extend(_gap(query, out[0]))
    if any(c.isdigit() for c in query):
        for m in _AGE_SAID.finditer(query):
            # "5yo" is one index term, "12 year old" has the number as its own
            num = m.group("num") or m.group("aged")
            term = next((t for t in tokenize(m.group(0)) if t in terms and num in t), None)
            if term is not None:
                out.append((term, "age", float(num)))
    return tuple(out)


def _gap(query: str, first: Quantity) -> list[Quantity]:
    """The gap between the prompt's first measured value and the next value after it in the
    same dimension, or a bare decimal after it that takes its unit ("1.2 m at low water but
    his board read about 4.1"), in the dimension `<dim> apart`."""
    term, dim, value = first
    said = _QUANTITY.search(query)
    if said is None or dim not in _GAP_DIMENSIONS:
        return []
    factor = _UNITS[said.group("unit").lower()][1]
    for m in _READING.finditer(query, said.end()):
        unit = m.group("unit")
        if unit is not None and _UNITS[unit.lower()][0] != dim:
            continue
        other = float(m.group("num")) * (factor if unit is None else _UNITS[unit.lower()][1])
        if other != value:
            return [(term, dim + _APART, abs(other - value))]
    return []


def at_limit(prompt: Sequence[Quantity], text: str) -> set[str]:
    """The terms of the prompt's values that fall in, or near, a limit `text` states in the
    same dimension (see the module docstring)."""
    found = _limits(text)
    return {
        term
        for term, dim, value in prompt
        for kind, low, high in found
        if kind == dim
        and low - NEAR_SHARE * max(abs(low), abs(high)) <= value
        and value <= high + NEAR_SHARE * max(abs(low), abs(high))
    }


def _limits(text: str) -> list[tuple[str, float, float]]:
    """The limits `text` states: (dimension, low, high) in base units; one value is both."""
    out = []
    for m in _RANGE.finditer(text):
        dim, factor = _UNITS[m.group("unit").lower()]
        ends = sorted((float(m.group("low")) * factor, float(m.group("high")) * factor))
        out.append((dim, ends[0], ends[1]))
    for m in _QUANTITY.finditer(text):
        before = text[max(0, m.start() - _WINDOW) : m.start()]
        if _BEFORE.search(before) or _AFTER.match(text, m.end()):
            dim, factor = _UNITS[m.group("unit").lower()]
            value = float(m.group("num")) * factor
            out.append((dim, value, value))
    for m in _QUANTITY.finditer(text):
        before = text[max(0, m.start() - _WINDOW) : m.start()]
        if _OFFSET_AFTER.match(text, m.end()) or _OFFSET_BEFORE.search(before):
            dim, factor = _UNITS[m.group("unit").lower()]
            value = abs(float(m.group("num")) * factor)
            out.append((dim + _APART, value, value))
    for m in _AGE_LIMIT.finditer(text):
        if m.group("low") is not None:
            ends = sorted((float(m.group("low")), float(m.group("high"))))
            out.append(("age", ends[0], ends[1]))
        else:
            value = float(m.group("one") or m.group("band"))
            out.append(("age", value, value))
    return out

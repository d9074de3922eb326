"""Cheap pre-checks for case-insensitive regexes: literals every match must contain.

Capture runs dozens of IGNORECASE regexes over every sentence, and IGNORECASE stops `re` from
scanning for a literal prefix: each alternative is tried at every offset. Most rules cannot
match without one of a few words ("used for", "prefer", 负责), and looking for those with
`str.__contains__` costs a fraction of the search (bench_ingest --backfill --profile; decision
0008). `gate(pattern)` derives such a word list from the pattern itself, so it follows every
edit of a rule; `Gate.admits(text)` is False only when the pattern cannot match `text`.

Exactness: a gate keeps a literal run only if its characters are ASCII or caseless (CJK), and
`fold` maps text the way `re` matches ASCII letters under IGNORECASE: ASCII case plus the four
non-ASCII characters that match an ASCII letter (İ ı → i, ſ → s, K (Kelvin) → k; see
tests/capture/test_literal_gate.py, which checks this against every code point). Any construct the
analysis does not know contributes no literal, which can only make a gate less selective.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

# Non-ASCII characters that IGNORECASE matches with an ASCII letter, folded to that letter.
_TO_ASCII = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
MIN_LITERAL = 3  # "to", "so", "my" occur in nearly every English sentence


def fold(text: str) -> str:
    """What gates look in: the text as IGNORECASE sees ASCII letters."""
    return text.lower() if text.isascii() else text.translate(_TO_ASCII).lower()


@dataclass(frozen=True, slots=True)
class Gate:
    """At least one of `literals` occurs in the folded text of every match."""

    literals: tuple[str, ...]

    def admits(self, folded: str) -> bool:
        return any(literal in folded for literal in self.literals)


class Gated:
    """A compiled pattern and its gate: `search` answers exactly as `pattern.search`."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern

    def search(self, text: str) -> re.Match[str] | None:
        found = gate(self.pattern)
        if found is not None and not found.admits(fold(text)):
            return None
        return self.pattern.search(text)


# Parsing ~45 capture patterns costs ~50 ms: done on first use, so that commands which never
# capture (search, the CLI's start-up) do not pay it at import.
@cache
def gate(pattern: re.Pattern[str]) -> Gate | None:
    """The pattern's gate, or None when none would pay: no literal is required, a required
    literal is too common to rule much out ("to", "so"), or the pattern is anchored at the
    start (then `re` tries one offset only and is already cheap)."""
    if pattern.flags & (re.VERBOSE | re.LOCALE) or not pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = list(_parser.parse(pattern.pattern, pattern.flags))
        if _anchored(parsed):
            return None
        found = _factors(parsed)
    except Exception:  # a newer `re` parser we do not know: no gate, never a wrong one
        return None
    if not found or any(not _usable(s) for s in found):
        return None
    return Gate(tuple(sorted(found, key=lambda s: (-len(s), s))))


def _usable(literal: str) -> bool:
    return len(literal) >= MIN_LITERAL or not literal.isascii()


def _anchored(items: list[tuple[Any, Any]]) -> bool:
    if not items:
        return False
    op, av = items[0]
    if op is sre.AT:
        return av is sre.AT_BEGINNING
    if op is sre.BRANCH:
        return all(_anchored(list(b)) for b in av[1])
    if op is sre.SUBPATTERN and not (av[1] or av[2]):
        return _anchored(list(av[3]))
    return False


def _factors(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """A set of strings of which every match of the sequence `items` contains one."""
    options: list[frozenset[str]] = []
    run: list[str] = []
    for op, av in items:
        if op is sre.LITERAL and _exact(chr(av)):
            run.append(chr(av).lower())
            continue
        if run:
            options.append(frozenset(["".join(run)]))
            run = []
        inner = _item(op, av)
        if inner is not None:
            options.append(inner)
    if run:
        options.append(frozenset(["".join(run)]))
    return max(options, key=_quality, default=None)


def _item(op: Any, av: Any) -> frozenset[str] | None:
    if op is sre.BRANCH:
        branches = [_factors(list(b)) for b in av[1]]
        if any(b is None for b in branches):
            return None
        return frozenset().union(*branches)  # type: ignore[arg-type]
    if op is sre.SUBPATTERN:
        _group, add_flags, del_flags, body = av
        return None if add_flags or del_flags else _factors(list(body))
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
        low, _high, body = av
        return _factors(list(body)) if low >= 1 else None
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return _factors(list(av))
    return None  # classes, anchors, lookarounds, backreferences: nothing required


def _exact(ch: str) -> bool:
    """Characters `fold` maps exactly as IGNORECASE matches them: ASCII, or without case."""
    return ch.isascii() or (ch.lower() == ch == ch.upper() and ch.casefold() == ch)


def _quality(option: frozenset[str]) -> tuple[bool, int, int]:
    # Usable first, then the longest shortest literal (more selective), then fewer literals.
    shortest = min(len(s) for s in option)
    return (all(_usable(s) for s in option), shortest, -len(option))

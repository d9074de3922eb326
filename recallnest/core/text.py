"""Keyword tokenisation shared by indexing and querying: lower-cased ASCII words with English
(Snowball) stemming and stop words removed, and CJK runs as overlapping character bigrams.

Why bigrams and not a segmenter: DUCKDB-NOTES.md §2.4 measured 20/20 hit@1 for bigrams vs 19/20
for jieba on short Chinese queries, and jieba costs ~1 s of dictionary load per process.
Pure; no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from operator import add

import Stemmer

from recallnest.core import heap

_TOKEN = re.compile(r"[a-z0-9_]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_MAX_TOKEN_CHARS = 40
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
CHINESE_CHARS = 4  # Chinese characters that make a text (a query, a note) Chinese


def written_in_chinese(text: str) -> bool:
    """Whether `text` is Chinese as the embedding sees it (CHINESE_CHARS Chinese characters):
    e5 ranks a query's own language first whatever it says."""
    return len(_HAN.findall(text)) >= CHINESE_CHARS


STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "d",
        "ll",
        "m",
        "o",
        "re",
        "ve",
        "y",
    ]
)

# No cache of its own (10,000 words by default): `_WORDS` below is the one memo of stems.
_stemmer = Stemmer.Stemmer("english", 0)
_WORD_CACHE_SIZE = 65536

# Every ASCII byte that cannot be part of a word becomes a space: on an ASCII string,
# `.encode().translate(_SEPARATORS).decode().split()` finds exactly the runs `_TOKEN` finds.
_SEPARATORS = bytes(
    c if chr(c) in "abcdefghijklmnopqrstuvwxyz0123456789_" else ord(" ") for c in range(256)
)


class _WordTerms(dict[str, str]):
    """ASCII word -> its term ("" for a stop word or an over-long token), filled on first use.
    A plain dict lookup from C (`map(_WORDS.__getitem__, ...)`) is what makes tokenising cheap."""

    def __missing__(self, word: str) -> str:
        stop = word in STOP_WORDS or len(word) > _MAX_TOKEN_CHARS
        term = "" if stop else str(_stemmer.stemWord(word))
        if len(self) >= _WORD_CACHE_SIZE:
            self.clear()
        self[word] = term
        return term


_WORDS = _WordTerms()
# Dropped when the daemon goes quiet (core.heap): a pass over 100k texts leaves ~13k words,
# each allocated among the pass's garbage, where they held ~80 CPython object arenas (1 MiB
# each) alive; refilling costs one stem per distinct word (decision 0027).
heap.droppable(_WORDS.clear)


def _terms(text: str) -> Iterable[str]:
    lower = text.lower()
    if lower.isascii():
        # Fast path (most texts): no per-word Python code at all.
        runs = lower.encode().translate(_SEPARATORS).decode().split()
        return filter(None, map(_WORDS.__getitem__, runs))
    out: list[str] = []
    for run in _TOKEN.findall(lower):
        if run[0] >= "\u3400":
            out.extend(map(add, run, run[1:]) if len(run) > 1 else (run,))
        else:
            term = _WORDS[run]
            if term:
                out.append(term)
    return out


def tokenize(text: str) -> list[str]:
    """Index/query terms of `text`, in order, with repeats."""
    return list(_terms(text))


def term_counts(text: str) -> Counter[str]:
    """Term frequencies of `text`, the unit a postings list stores: its words (stemmed) and
    its exact tokens (prefixed with EXACT_PREFIX, matched verbatim by the exact channel)."""
    counts = Counter(_terms(text))
    counts.update(EXACT_PREFIX + t for t in exact_tokens(text))
    return counts


EXACT_PREFIX = "="
# Identifier-like tokens worth matching verbatim: dotted/slashed names and flags
# (vite.config.ts, src/app.py, --frozen-lockfile), ALL-CAPS codes (ECONNREFUSED), mixed
# letters and digits (E0308, v1.2.3, a1b2c3d), snake_case and camelCase identifiers.
_EXACT = re.compile(
    r"(?<![\w.-])(?:--?[a-z][\w-]{1,40}"
    r"|[\w-]+(?:[./][\w-]+)+"
    r"|[A-Z][A-Z0-9_]{3,40}"
    r"|(?=[a-z]*\d)(?=\d*[a-z])[a-z0-9]{4,40}"
    r"|[a-z0-9]+(?:_[a-z0-9]+)+"
    r"|[a-z]+(?:[A-Z][a-z0-9]+)+)(?![\w-])",
)


def exact_tokens(text: str) -> list[str]:
    """Identifier-like tokens of `text`, lower-cased, in order, without repeats."""
    # The regex runs only over the words that can hold a match (3.4x less CPU on memory-like
    # text, bench/RESULTS.md "Batched writes"). A match never spans whitespace (no class in
    # _EXACT admits it), and a word of letters only, with no capital after its first
    # character, matches no alternative: they all need a digit, `_`, `.`, `/`, `-`, four
    # capitals in a row, or a capital after a lower-case letter.
    words = [w for w in text.split() if not (w.isalpha() and (w.islower() or w.istitle()))]
    if not words:
        return []
    found = (m.group(0).lower().rstrip(".") for m in _EXACT.finditer(" ".join(words)))
    return list(dict.fromkeys(t for t in found if 3 <= len(t) <= 80))

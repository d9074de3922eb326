"""Consolidation's keyword sets per memory text, kept across passes (tokenizing costs ~0.8 ms
a memory, 80 s a pass at 100k memories) in a compact form (issue 22, decision 0026): each set
as the int32 ids of its words in one shared vocabulary, packed in a bytes object, under a
16-byte digest of the text. A frozenset per memory held 216 MiB at 100k memories; this holds
about a tenth of it. A hit rebuilds the frozenset (~10 us) for the caller."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable

CACHE_MAX = 200_000  # texts; past it the cache (and its vocabulary) starts over


class TokenCache:
    """tokens(text) -> frozenset, remembered by text. Not thread-safe: the scheduler calls it
    under its lifecycle lock."""

    def __init__(self, tokenize: Callable[[str], frozenset[str]], limit: int = CACHE_MAX) -> None:
        self._tokenize = tokenize
        self._limit = limit
        self._sets: dict[bytes, bytes] = {}
        self._words: list[str] = []
        self._ids: dict[str, int] = {}

    def __call__(self, text: str) -> frozenset[str]:
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        packed = self._sets.get(key)
        if packed is not None:
            words = self._words
            return frozenset([words[i] for i in array("i", packed)])
        found = self._tokenize(text)
        if len(self._sets) >= self._limit:
            self.clear()
        self._sets[key] = array("i", map(self._id, found)).tobytes()
        return found

    def __len__(self) -> int:
        return len(self._sets)

    def clear(self) -> None:
        self._sets.clear()
        self._words.clear()
        self._ids.clear()

    def _id(self, word: str) -> int:
        found = self._ids.get(word)
        if found is None:
            found = self._ids[word] = len(self._words)
            self._words.append(word)
        return found

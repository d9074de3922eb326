"""Consolidation's compact keyword-set cache (decision 0026): the same sets as the tokenizer,
each text tokenized once while it stays cached, a fresh start past its limit."""

from __future__ import annotations

from recallnest.capture.admission import keyword_tokens
from recallnest.lifecycle.token_cache import TokenCache

TEXTS = [
    "We deploy with the blue-green script on Fridays",
    "The staging database listens on port 5433",
    "部署脚本在周五运行",
    "",
    "We deploy with the blue-green script on Fridays",
]


def test_cached_sets_equal_the_tokenizers() -> None:
    calls: list[str] = []

    def counting(text: str) -> frozenset[str]:
        calls.append(text)
        return keyword_tokens(text)

    cache = TokenCache(counting)
    for _ in range(3):
        assert [cache(t) for t in TEXTS] == [keyword_tokens(t) for t in TEXTS]
    assert sorted(calls) == sorted(set(TEXTS))  # once per distinct text
    assert len(cache) == len(set(TEXTS))


def test_past_its_limit_the_cache_starts_over() -> None:
    cache = TokenCache(keyword_tokens, limit=2)
    for t in TEXTS[:3]:
        cache(t)
    assert len(cache) == 1  # cleared when the third text came, then it was kept
    assert cache(TEXTS[0]) == keyword_tokens(TEXTS[0])

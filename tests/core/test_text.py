"""The keyword tokeniser: stemmed words, CJK bigrams, and identifier-like exact tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from recallnest.core import text


def test_words_are_lowered_stemmed_and_stop_words_dropped() -> None:
    assert text.tokenize("The Workers were Crashing") == ["worker", "crash"]


def test_cjk_runs_become_overlapping_bigrams() -> None:
    assert text.tokenize("进程挂了") == ["进程", "程挂", "挂了"]
    assert text.tokenize("用 pnpm 安装") == ["用", "pnpm", "安装"]


def test_ascii_fast_path_matches_the_general_path() -> None:
    mixed = "Running src/app.py 进程"
    assert text.tokenize("Running src/app.py") == text.tokenize(mixed)[:4]


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        ("run pnpm install --frozen-lockfile", ["--frozen-lockfile"]),
        ("edit src/app.py and vite.config.ts.", ["src/app.py", "vite.config.ts"]),
        ("got ECONNREFUSED then E0308", ["econnrefused", "e0308"]),
        ("bump to v1.2.3 (commit a1b2c3d)", ["v1.2.3", "a1b2c3d"]),
        ("call load_config from getUserName", ["load_config", "getusername"]),
        ("Plain Words only, Nothing Else", []),
        ("ABC is too short, ABCD is not", ["abcd"]),
    ],
)
def test_exact_tokens(sample: str, expected: list[str]) -> None:
    assert text.exact_tokens(sample) == expected


def _reference_exact_tokens(sample: str) -> list[str]:
    """The definition: the regex over the whole text, without the word pre-filter."""
    found = (m.group(0).lower().rstrip(".") for m in text._EXACT.finditer(sample))
    return list(dict.fromkeys(t for t in found if 3 <= len(t) <= 80))


_ALPHABET = "aAbBzZ09_./-é É进程 \t\n.,;:()[]'\"`"


@settings(max_examples=examples(400), deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=80) | st.text(max_size=80))
def test_the_word_prefilter_never_changes_exact_tokens(sample: str) -> None:
    assert text.exact_tokens(sample) == _reference_exact_tokens(sample)


def test_term_counts_include_exact_tokens_with_their_prefix() -> None:
    counts = text.term_counts("Edit src/app.py, then edit it again")
    assert counts["edit"] == 2
    assert counts[text.EXACT_PREFIX + "src/app.py"] == 1

"""Literal gates never rule out a text their pattern matches: checked for every gated capture
pattern over the labelled corpora and over generated texts built around the gate's own
literals in odd case forms (İ ı ſ K), plus the folding assumption against every code point."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.paths import ROOT

from recallnest.capture import rules as R
from recallnest.capture.literal_gate import Gate, Gated, fold, gate

SPECIAL = "\u0130\u0131\u017f\u212a"  # İ ı ſ K: the non-ASCII characters IGNORECASE maps to ASCII

GATED: dict[str, Gated | R.Rule] = {
    **{name: v for name, v in vars(R).items() if isinstance(v, Gated)},
    **{r.name: r for rules in R.RULE_ORDER for r in rules},
}


def _pattern_and_gate(item: Gated | R.Rule) -> tuple[re.Pattern[str], Gate | None]:
    return item.pattern, gate(item.pattern)


def corpus() -> list[str]:
    texts = [
        json.loads(line)["text"]
        for line in (ROOT / "eval" / "capture" / "cases.jsonl").read_text().splitlines()
    ]
    for path in sorted((ROOT / "eval" / "cases" / "corpus").glob("*.jsonl")):
        texts += [json.loads(line)["text"] for line in path.read_text().splitlines()]
    return texts


def test_only_ascii_letters_and_four_others_fold_to_ascii_under_ignorecase() -> None:
    # `fold` relies on this: which characters IGNORECASE matches with an ASCII letter.
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = {chr(c) for c in range(128, 0x110000) if letter.fullmatch(chr(c))}
    assert found == set(SPECIAL)
    assert all(fold(ch).isascii() for ch in SPECIAL)


def test_most_searched_capture_patterns_have_a_gate() -> None:
    # A pattern anchored at the start needs none: `re` tries it at one offset only.
    anchored = [n for n, i in GATED.items() if i.pattern.pattern.startswith("^(?:")]
    gated = [name for name, item in GATED.items() if gate(item.pattern) is not None]
    assert len(gated) >= 0.8 * (len(GATED) - len(anchored)), gated  # most searches are skipped


@pytest.mark.parametrize("name", sorted(GATED))
def test_gate_never_rejects_a_match_in_the_corpora(name: str) -> None:
    pattern, g = _pattern_and_gate(GATED[name])
    if g is None:
        pytest.skip("no gate")
    missed = [t for t in corpus() if pattern.search(t) and not g.admits(fold(t))]
    assert missed == []


@st.composite
def near_matches(draw: st.DrawFn) -> tuple[str, str]:
    """A gated pattern's name and a text around one of its literals, in odd case forms."""
    name = draw(st.sampled_from(sorted(n for n, item in GATED.items() if gate(item.pattern))))
    gate_ = gate(GATED[name].pattern)
    assert gate_ is not None
    literal = draw(st.sampled_from(gate_.literals))
    spelled = "".join(
        draw(st.sampled_from(sorted({ch, ch.upper(), *(s for s in SPECIAL if fold(s) == ch)})))
        for ch in literal
    )
    words = st.text(alphabet=" abcdefghijklmnopqrstuvwxyz,.'`I" + SPECIAL, max_size=30)
    return name, draw(words) + spelled + draw(words)


@settings(max_examples=examples(400), deadline=None)
@given(near_matches())
def test_gate_never_rejects_a_match_in_generated_text(case: tuple[str, str]) -> None:
    name, text = case
    pattern, g = _pattern_and_gate(GATED[name])
    assert g is not None
    if pattern.search(text):
        assert g.admits(fold(text))


def test_gated_search_answers_exactly_as_the_pattern() -> None:
    for item in (v for v in GATED.values() if isinstance(v, Gated)):
        for text in corpus():
            assert (item.search(text) is None) == (item.pattern.search(text) is None)


@pytest.mark.parametrize(
    ("regex", "flags", "expected"),
    [
        (r"\bused for\b|responsible for", re.I, ("responsible for", "used for")),
        (r"(?:only )?used (?:for|to)", re.I, ("used ",)),
        (r"x+(?:alpha|beta)", re.I, ("alpha", "beta")),
        (r"x+(?:abc|abd)", re.I, None),  # `re` factors out "ab" (too short) and a class
        (r"负责|用于", re.I, ("用于", "负责")),
        (r"^please\b", re.I, None),  # anchored: re already tries one offset only
        (r"to|so", re.I, None),  # too common to rule anything out
        (r"(?:abc)?def|\w+", re.I, None),  # one branch needs no literal
        (r"used for", 0, None),  # case-sensitive patterns already scan for literals
        (r"(?-i:Used) for", re.I, (" for",)),  # scoped flags: that part gives no literal
        (r"caf\u00e9 time", re.I, (" time",)),  # a cased non-ASCII letter breaks the run
    ],
)
def test_gate_literals(regex: str, flags: int, expected: tuple[str, ...] | None) -> None:
    g = gate(re.compile(regex, flags))
    assert (g.literals if g else None) == expected

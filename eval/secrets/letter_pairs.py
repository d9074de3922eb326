"""Write the letter-pair table that `recallnest.core.redact_shapes.random_letters` reads.

Run from the repository root:  python -m eval.secrets.letter_pairs [--words PATH]

The table is a first-order Markov model of the letters of English words and code names, each
entry the log-likelihood ratio (in nats, rounded to halves, clamped to [-6, 3]) of a letter
after another under that model against letters drawn uniformly at random: positive where
English and identifiers put that pair more often than chance (`th`, `er`), negative where they
rarely do (`qz`, `bx`). A string of letters whose summed ratio is below zero is more likely
drawn at random than read: a generated password, not a word or a name.

Trained on the word list of Debian's `wamerican` package (2020.12.07, /usr/share/dict/words;
every entry of letters only, counted once) and the case parts of the names in this
interpreter's standard library (`getHTTPResponse` -> get, http, response; 2+ letters, each
distinct part counted once), so that code names (`cmd`, `fmt`, `dtype`) read as words too.
Measured when it was made (`--check`, on the half of the word list left out of a model
trained on the other half): random letters 10 / 12 / 16 / 20 long are taken for words about
3 / 1.6 / 0.6 / 0.3 % of the time; held-out words of 10+ letters are taken for random 0.3 %
of the time, code names of 10+ letters ~2.8 %.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import re
import string
import sysconfig
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

LETTERS = string.ascii_lowercase
STEP, LOW, HIGH = 0.5, -12, 6  # halves of a nat, from -6 to +3
_NAME_RE = re.compile(r"[A-Za-z]{2,}")
_PART_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+")


def dictionary(path: Path) -> set[str]:
    words = (w.lower() for w in path.read_text(encoding="utf-8").split())
    return {w for w in words if w.isascii() and w.isalpha()}


def name_parts() -> set[str]:
    """The case parts (2+ letters) of every name in the standard library's sources."""
    parts: set[str] = set()
    root = Path(sysconfig.get_paths()["stdlib"])
    for source in root.rglob("*.py"):
        if "site-packages" in source.parts:
            continue
        try:
            text = source.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for name in _NAME_RE.findall(text):
            parts.update(p.lower() for p in _PART_RE.findall(name) if len(p) >= 2)
    return parts


def model(words: Iterable[str]) -> tuple[list[int], list[list[int]]]:
    """(first-letter levels, pair levels): each a ratio against uniform letters, in steps."""
    pairs: Counter[str] = Counter()
    singles: Counter[str] = Counter()
    for word in words:
        singles.update(word)
        pairs.update(a + b for a, b in itertools.pairwise(word))
    total = sum(singles.values())

    def level(ratio: float) -> int:
        return max(LOW, min(HIGH, round(math.log(ratio) / STEP)))

    first = [level((singles[a] + 1) / (total + 26) * 26) for a in LETTERS]
    rows = []
    for a in LETTERS:
        after = sum(pairs[a + b] for b in LETTERS)
        rows.append([level((pairs[a + b] + 0.5) / (after + 13) * 26) for b in LETTERS])
    return first, rows


def encode(levels: list[int]) -> str:
    return "".join(chr(ord("a") + v - LOW) for v in levels)


def score(value: str, first: list[int], rows: list[list[int]]) -> float:
    low = [ord(c) - ord("a") for c in value.lower()]
    return STEP * (first[low[0]] + sum(rows[a][b] for a, b in itertools.pairwise(low)))


def check(words: set[str], parts: set[str]) -> None:
    """Rates on the half of the word list a model trained on the other half never saw."""
    odd = {w for w in words if zlib.crc32(w.encode()) % 2}
    first, rows = model(sorted(odd | parts))
    held = [w for w in words if w not in odd and len(w) >= 10]
    flagged = sum(score(w, first, rows) < 0 for w in held)
    print(f"held-out words of 10+ letters read as random: {flagged}/{len(held)}")
    gen = random.Random(11)
    for alphabet in (string.ascii_lowercase, string.ascii_uppercase, string.ascii_letters):
        misses = []
        for n in (10, 12, 16, 20):
            values = ["".join(gen.choice(alphabet) for _ in range(n)) for _ in range(5000)]
            misses.append(f"{n}: {sum(score(v, first, rows) >= 0 for v in values) / 5000:.4f}")
        print(f"random letters ({alphabet[:3]}…) read as words: " + ", ".join(misses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=Path, default=Path("/usr/share/dict/words"))
    parser.add_argument("--check", action="store_true", help="measure on a held-out half")
    args = parser.parse_args()
    words, parts = dictionary(args.words), name_parts()
    if args.check:
        check(words, parts)
        return
    first, rows = model(sorted(words | parts))
    print(f'_LETTER_FIRST = "{encode(first)}"')
    print("_LETTER_PAIRS = (")
    for a, row in zip(LETTERS, rows, strict=True):
        print(f'    "{encode(row)}",  # {a}')
    print(")")


if __name__ == "__main__":
    main()

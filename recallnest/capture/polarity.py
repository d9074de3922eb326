"""Polarity of captured text: did cutting a sentence down drop the negation it was said with?

A capture often stores the remainder of a sentence after a lead-in ("no, …", "不对，…") is cut.
When the cut takes a negator with it ("不是 X，是 Y" → "X，是 Y", "no longer use yarn" →
"longer use yarn"), the stored text says the opposite of what was said. `negated_cut(prefix)`
answers whether a cut-off prefix ends in a negator that governs what follows it; `capture`
then keeps the negator, and `eval_capture` counts any capture where it did not. Pure, standard
library only.
"""

from __future__ import annotations

import re

# English negators as whole words, and Chinese ones as characters (Chinese has no spaces, so
# "不" at the very end of a cut prefix always governs the next character).
_NEGATOR_END = re.compile(
    r"(?:\b(?:not|never|no|nor|no longer|don't|do not|doesn't|does not|didn't|did not|isn't"
    r"|is not|aren't|are not|wasn't|weren't|won't|will not|can't|cannot|shouldn't|mustn't"
    r"|without|neither)"
    r"|不是|不要|不用|不再|不必|不能|不会|没有|没|别|不|勿|非|无须|无需|禁止)\s*$",
    re.IGNORECASE,
)


def negated_cut(prefix: str) -> bool:
    """True when `prefix` (text cut off before a stored remainder) ends in a negator."""
    return _NEGATOR_END.search(prefix) is not None


def reversed_in(source: str, stored: str) -> bool:
    """True when `stored` occurs in `source` right after a negator that it does not carry."""
    probe = stored.strip()[:24].casefold()
    if not probe:
        return False
    at = source.casefold().find(probe)
    return at > 0 and negated_cut(source[:at])

"""Shape tests for secret values that carry no fixed vendor format: how random a token body
is, whether a short prefix names a vendor or an identifier, and whether the line after a
masked secret is the rest of it (a token wrapped by a terminal or an editor).

Pure and standard library only, like `recallnest.core.redact`, which is the only caller.
"""

from __future__ import annotations

import binascii
import math
import re
import string
from collections import Counter

__all__ = [
    "base32_body",
    "continuation_end",
    "encoded_text",
    "random_body",
    "random_letters",
    "random_printable",
    "vendor_prefix_ok",
    "wordy",
]

# Prefixes of identifiers that look like vendor tokens but are not secrets: API object ids
# (Anthropic, OpenAI, Stripe; Vercel's deployments, projects, teams and integration configs,
# secrets s42), publishable keys, hash names (lockfiles, integrity), cloud resource ids, and
# words that start snake_case names.
_ID_PREFIX_WORDS = (
    "msg toolu req cus pi ch evt sub acct price prod in txn file run asst thread call chatcmpl"
    " dpl prj team icfg"
    " org proj user batch ftjob pk phc sha sha1 sha224 sha256 sha384 sha512 md5 blake2b h1 css"
    " jsx data i vol ami sg subnet vpc snap eni test tests spec fixture fix feat chore api app"
    " v1 v2 id uuid ref refs tmp build dist main src lib node com io www http https img icon"
)
_ID_PREFIXES = frozenset(_ID_PREFIX_WORDS.split())
_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_HEX = frozenset("0123456789abcdefABCDEF")
# A whole line that can be the second half of a wrapped token: no spaces, token characters.
# (`=` only as base64 padding: `JWT_EXPIRES_IN=3600` on the next line is the next setting.)
_CONSTANT_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # LOG_LEVEL_2: a name
_CONTINUATION_RE = re.compile(r"[ \t]*([A-Za-z0-9_\-+/]{8,400}={0,2})[ \t]*(?:\r?\n|$)")


def entropy(value: str) -> float:
    """Shannon entropy of the characters of `value`, in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def random_body(body: str) -> bool:
    """A generated token body, not a word, identifier, version or hash name.

    Base62 of both cases: entropy near its maximum for the length. One case plus digits
    (hex, base32, upper-case ids): judged on its longest part between separators, which must
    hold 32+ hex or 24+ other characters (`after_100k_before_fix` is words; shorter hex is
    a commit or a build id). Always 2+ digits and 4+ letters: identifiers rarely have both.
    """
    compact = body.replace("_", "").replace("-", "").replace(".", "")
    if wordy(compact) or _named_parts(body):
        return False
    upper, lower = any(c.isupper() for c in compact), any(c.islower() for c in compact)
    if upper and lower:
        return _generated(compact, 16) and entropy(compact) >= _floor(len(compact))
    part = max(_SEPARATORS.split(body), key=len)
    if all(c in _HEX for c in part):
        return _generated(part, 32) and entropy(part) >= 0.8 * 4
    return _generated(part, 24) and entropy(part) >= min(_floor(len(part)), 0.8 * math.log2(36))


_SEPARATORS = re.compile(r"[_\-.]")
# A part that is camel-case words of 2+ letters each, or a number: `vkCmdDraw`, `None`, `02699`.
_NAMED_PART_RE = re.compile(r"(?:[A-Z]?[a-z]{2,}|[A-Z]{2,}(?![a-z]))+|\d+")


def _named_parts(body: str) -> bool:
    """Every part between separators is words or a number (`vkCmdDraw-None-02699`, a Vulkan
    validation id): an identifier, not a generated body, which mixes digits into its letters."""
    parts = [p for p in _SEPARATORS.split(body) if p]
    return len(parts) > 1 and all(_NAMED_PART_RE.fullmatch(p) for p in parts)


# A word inside a body: `Clause`, `license`, `before` (random base62 rarely has 4 letters of
# one case in a row: about one in twelve positions starts one).
_WORD_RE = re.compile(r"[A-Z]?[a-z]{3,}")


_BASE32_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz234567")


def base32_body(value: str) -> bool:
    """40+ characters of lower-case base32 (letters and the digits 2-7 only), 4+ digits.

    Trigger: an Azure DevOps PAT (52 characters) after its name (secrets s38). Why: base32
    has 26 letters of 32 symbols, so its letter runs pass for words and random_body rejects
    it; a run this long of only those symbols, digits spread through it, is generated. Only
    used next to a secret word: IPFS CIDs and Nix hashes share the alphabet."""
    if len(value) < 40 or not set(value) <= _BASE32_LOWER:
        return False
    return sum(c.isdigit() for c in value) >= 4


def wordy(value: str) -> bool:
    """Half or more of `value` is words: a name (`BSD-3-Clause-No-Nuclear-License-2014`)."""
    return sum(len(w) for w in _WORD_RE.findall(value)) * 2 >= len(value)


_PRINTABLE = frozenset(string.printable.encode())


def encoded_text(value: str) -> bool:
    """Base64 of mostly readable bytes (a page token holding ids, a JSON header): encoded
    data, not a generated secret, whose bytes are random (about 40 % printable)."""
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4))
    except binascii.Error:
        return False
    return bool(raw) and sum(b in _PRINTABLE for b in raw) >= 0.7 * len(raw)


def _floor(n: int) -> float:
    """80% of the most entropy n characters can show (capped at base64's 6 bits)."""
    return 0.8 * math.log2(min(n, 64))


def _generated(value: str, min_len: int) -> bool:
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    return len(value) >= min_len and digits >= 2 and letters >= 4 and not _UUID_RE.search(value)


_LOWER_UPPER_RE = re.compile(r"[a-z][A-Z]")


def vendor_prefix_ok(prefix: str) -> bool:
    """A short vendor prefix (`ghp`, `glsa`, `dp.st.prd`), not the start of an identifier.

    Trigger: a prefix with a lower-case letter before a capital (`NxF_…`, the start of a
    public JWK's base64url modulus, secrets s38). Why: vendors write prefixes in one case
    (`ghp`, `SG`) or capitalised (`Bearer`); a case switch inside is base64 noise, and the
    body after it is judged by the rules for bare tokens instead."""
    if _LOWER_UPPER_RE.search(prefix):
        return False
    return prefix.lower() not in _ID_PREFIXES


def continuation_end(text: str, end: int) -> int | None:
    """When the masked secret ending at `end` ends its line and the next line is one chunk of
    token characters mixing letters and digits, the end of that chunk; otherwise None."""
    if not text.startswith(("\n", "\r\n"), end):
        return None
    m = _CONTINUATION_RE.match(text, end + (2 if text[end] == "\r" else 1))
    if m is None:
        return None
    chunk = m.group(1)
    if wordy(chunk) or _CONSTANT_RE.match(chunk):
        return None
    has_digit = any(c.isdigit() for c in chunk)
    has_alpha = any(c.isalpha() for c in chunk)
    mixed_case = any(c.isupper() for c in chunk) and any(c.islower() for c in chunk)
    return m.end(1) if has_digit and has_alpha and (mixed_case or len(chunk) >= 16) else None


# --- Letters that read as no word -------------------------------------------------------------

# A first-order Markov model of the letters of English words and code names, as the log ratio
# (in halves of a nat, clamped to [-6, +3]) of each letter after another against letters drawn
# uniformly at random: `a` = -6.0, `m` = 0, `s` = +3.0. `_LETTER_FIRST` holds the ratio of each
# first letter. Written by `python -m eval.secrets.letter_pairs` (the word list of Debian's
# wamerican and the names of Python's standard library; its docstring has the measurements).
_LETTER_FIRST = "nlmmokllnhjnlnnlhnonmjjiki"
_LETTER_PAIRS = (
    "lmnmijmimfkomogmgonplkjiki",  # a
    "pnljoighokgpjioignmjnggglg",  # b
    "phljoigoneomihphgnknmgfeke",  # c
    "nkkmqkkipigmjjnigmnkmijgkf",  # d
    "mjmollkikfhnlojlippnikjljg",  # e
    "ojjkoojgpgfohioienlmngggke",  # f
    "oiiipimnoegnkmnieonjnhhfkg",  # g
    "pjiiqigipehkkjphemlmmfjele",  # h
    "mknmnlmfgfinmqnlgmonhleicl",  # i
    "pjjjpijjnhmihgpkgikhphihih",  # j
    "nkjjqjjlphjnjmmjgloklgkeld",  # k
    "oijlpjigpejojiojdhmlmigeoe",  # l
    "pmiipifgpdgjmjooehmimffdkd",  # m
    "ninnokpingkjilmihiookjhfig",  # n
    "llmmjklhlfknnpmmfonmnlmjih",  # o
    "oiiipignoehnhiongommmfhcld",  # p
    "ljjijhjikfhkjjiilllisiighh",  # q
    "pkllpjkipfkkllokfmonmjidle",  # r
    "minioiinoekllkmmihoqngkdkd",  # s
    "oikipjgnpdfljinidonmmgjflh",  # t
    "mmmmmklgmfionpjmdoooghfhfi",  # u
    "pjihrhhhpefihhnheijikihfig",  # v
    "pkjlpjinpejlinojfmnjihjjig",  # w
    "nlnlomhloghkkilohjkpljipmh",  # x
    "nlmlnkkjnginnnmofmonkjljnk",  # y
    "oiijqhgjpeglihmihhiijhijkq",  # z
)
_LEVEL_ZERO = ord("m")
_FIRST_LEVEL = {chr(ord("a") + i): ord(c) - _LEVEL_ZERO for i, c in enumerate(_LETTER_FIRST)}
_PAIR_LEVEL = {
    chr(ord("a") + i) + chr(ord("a") + j): ord(c) - _LEVEL_ZERO
    for i, row in enumerate(_LETTER_PAIRS)
    for j, c in enumerate(row)
}
_MIN_RANDOM_LETTERS = 10
_MAX_RANDOM_LETTERS = 256  # no password is longer (and the score is a loop in Python)


def random_letters(value: str) -> bool:
    """10+ ASCII letters, of any case, more likely drawn at random than read: their pairs are
    scored by the model above and the sum is below zero.

    Trigger: "password = BqxDpHVCFWAKOnHr", "the smtp password is imfweijtdscnotjs", `token:
    ctemklfz…` (round 43: letters only were taken for words or code names, and kept; the rule
    it replaces, 4+ rare consonant pairs in 12+ letters of one case, missed one in ten of 16
    random letters and every mixed-case value). Why: random letters hold pairs English and
    code names rarely do (`qz`, `xf`, `kw`) about every other position. Outcome: 16 random
    letters of one case are masked 199 times in 200 (of both cases 998 in 1000), 12 about 98.5
    in 100, 10 about 98 in 100; words and camel-case names read as words (`straightforward`,
    `mySecretName`, `refreshToken`) stay; one word in ~370 and one code name in ~30 of 10+
    letters reads as random (`defaultfmt`, `JSONRPCMessage`): masked if it fills a secret's
    slot."""
    if not _MIN_RANDOM_LETTERS <= len(value) <= _MAX_RANDOM_LETTERS:
        return False
    if not value.isalpha() or not value.isascii():
        return False
    if _letters_score(value.lower()) < 0:
        return True
    if value.islower() or value.isupper():
        return False
    # Mixed case: read again as a camel-case name, part by part; a part of one or two letters
    # that is no short word (`Xn`, `q`) costs two nats. Random case makes many such parts,
    # names few (`getValueOrDefault`: Or). It takes the misses of 16 random letters of both
    # cases from ~5 to ~1.5 in 1000, and the names read as random from ~2.9 to ~3.2 %.
    score = 0
    for part in _CASE_PART_RE.findall(value):
        low = part.lower()
        score += _letters_score(low)
        if len(low) <= 2 and low not in _SHORT_WORDS:
            score -= _SHORT_PART_COST
    return score < -_SHORT_PART_COST


_CASE_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
_SHORT_WORDS = frozenset((
    "a", "an", "as", "at", "be", "by", "db", "do", "go", "id", "if", "in", "io", "is", "it",
    "me", "my", "no", "of", "ok", "on", "or", "so", "to", "ui", "up", "us", "ux", "we",
))  # fmt: skip
_SHORT_PART_COST = 4  # halves of a nat


def _letters_score(low: str) -> int:
    """The summed ratio of lower-case letters, in halves of a nat."""
    return _FIRST_LEVEL[low[0]] + sum(_PAIR_LEVEL[low[i : i + 2]] for i in range(len(low) - 1))


_LETTER_RUN_RE = re.compile(r"[A-Za-z]+")
# `${env:HONEYCOMB_API_KEY}`, `{{ lookup('env', 'SALT') }}`, `<your-salt>`, `%SALT%`, `$(cat
# salt)`: a template or a reference wrapped whole around names, dots, quotes and spaces (a salt
# may open with `<` and close with `>` by chance, with `!@#^&*` and the like inside).
_WRAPPED_RE = re.compile(
    r"^(?:\$?\{\{?[\w .:/|,'\"()\-]*\}?\}|<[\w .:/|\-]*>|%[\w.:\-]*%|\$\([^()]*\))$"
)
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{1,20}://")
_MIN_PRINTABLE = 20
_MAX_PRINTABLE = 512


def random_printable(value: str) -> bool:
    """20+ characters drawn from all of printable ASCII: letters, digits and 3+ different
    symbols (a sixteenth of the value or more), a few spaces at most, letters that read as no
    word (runs 3 long or less on average under 10 letters), no URL, not wrapped as a template
    (`${…}`, `<…>`), and a generated body's entropy.

    Trigger: WordPress's keys and salts (`define( 'NONCE_SALT', '…' )`: 64 characters with
    `|&^%$#@!<>{}[]` and spaces), which looks_random refused for a space and the placeholder
    test took for a template when `{}`, `%s` or a leading `$` came up by chance (round 43).
    Why: a value that switches between letters, digits and symbols this often was generated;
    templates, paths, expressions and prose hold words or long names. Outcome: 64 such
    characters pass always, 32 about 999 times in 1000, 20 about 97 in 100."""
    n = len(value)
    if not _MIN_PRINTABLE <= n <= _MAX_PRINTABLE or value.isalnum() or not value.isascii():
        return False
    if _WRAPPED_RE.match(value):
        return False
    if _SCHEME_RE.search(value):  # a URL (`a:://b` in a salt is none)
        return False
    symbols = [c for c in value if not c.isalnum() and not c.isspace()]
    letters = sum(c.isalpha() for c in value)
    spaces = sum(c.isspace() for c in value)
    if len(set(symbols)) < 3 or len(symbols) * 16 < n or letters * 4 < n or spaces * 8 > n:
        return False
    # Names and words read as words (`${env:HONEYCOMB_API_KEY`: envhoneycombapikey); fewer
    # than 10 letters must come in short runs.
    runs = _LETTER_RUN_RE.findall(value)
    letters_only = "".join(runs)
    if wordy(value) or not (
        random_letters(letters_only)
        if len(letters_only) >= _MIN_RANDOM_LETTERS
        else len(letters_only) <= 3 * len(runs)
    ):
        return False
    return entropy(value) >= _floor(n)

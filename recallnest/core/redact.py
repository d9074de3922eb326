"""Secret redaction: find credentials in a turn's text and mask them before anything is stored.

Owns the catalogue of secret shapes (provider tokens, vendor-prefixed tokens by shape, private
key blocks, JWTs, passwords in URLs and tokens as a URL's user name, auth headers and cookies,
credential headers in OpenTelemetry header lists and in headers maps, Pushover keys by their
slot, CLI flags, secret-named assignments and defined constants in code, JSON, YAML, INI,
netrc and .env text, secrets stated in prose, .pgpass lines, an OpenVPN auth file's password
line, tokens wrapped onto a second line, passwords given to known commands as positional
words, and to login and connect calls as positional arguments, Redis's `AUTH`) and the
policy for values that only look like secrets (placeholders, ids, public client keys). The
value and name policy lives in `recallnest.core.redact_values`, the shape tests of generated
tokens (and of letters and printable characters drawn at random) in
`recallnest.core.redact_shapes`, the grammar of the commands that take a password positionally
in `recallnest.core.redact_commands`, that of login calls and Redis's login in
`recallnest.core.redact_calls`.

Must not: do I/O, log, read the environment, or use anything but the standard library (the
regex engine is `re`). It runs on every captured turn, so patterns are compiled at import time,
every quantifier is bounded or possessive (no catastrophic backtracking on hostile input), and
patterns start with a literal where possible so `re` can skip ahead instead of trying every
offset; secret-named assignments are located with `str.find` on the secret words instead.

Policy decisions:
- Placeholders are left alone: our own ``[REDACTED:kind]`` markers (so `redact` is idempotent),
  ``$VAR`` / ``${VAR}`` / ``$(cmd)`` / ``%VAR%``, ``<token>``, ``{{ var }}``, runs of one
  character (``xxx``, ``****``), ``your-key-here`` style hints, a template's instruction
  (``REPLACE_ME``, ``FILL_ME_IN``), also after a provider's prefix (``sk_live_REPLACE_ME``),
  vendor sample values containing ``EXAMPLE`` (``AKIAIOSFODNN7EXAMPLE``), and the literal
  words ``changeme``, ``password``, ``secret``. Those are published defaults: masking them
  protects nothing and would hide that a default is still in use. ``example`` /
  ``placeholder`` inside a value whose rest is a generated body of 20+ characters is no hint
  but a pasted value, and is masked.
- Names ending in key/token/auth/salt (``api_key``, ``x-api-key``, ``NONCE_SALT``) only mask
  high-entropy values; password/secret/credential/private names mask any non-placeholder value
  of 4+ characters; names ending in ``pass`` (``db_pass``, but also ``last_pass``) need a value
  that is not a plain lower-case word; SCREAMING_CASE ``NAME=value`` lines (.env, ``export``,
  ``docker -e``) mask any non-placeholder value of 8+ characters. A bare ``key`` is ambiguous
  (dict, cache, sort key) and is not a secret name.
- High entropy includes 10+ letters only that read as no word (``BqxDpHVCFWAKOnHr``, judged by
  a letter-pair model of English words and code names: `redact_shapes.random_letters`) and
  20+ characters drawn from all of printable ASCII, spaces and ``{}``/``%s`` included
  (WordPress's salts: `redact_shapes.random_printable`). Words and camel-case names stay
  where the name asks for a generated value (``token: authentication``, ``secret =
  generateSecret``); under a password or secret name any non-placeholder value is still
  masked, words included (``password: sunshine``), except a descriptive one (``secret:
  mySecretName``, ``password: changeme``).
- Code is not a secret: identifiers that name a secret (``password=db_password``, ``token:
  apiKey``), dotted or called expressions (``os.environ[...]``), ``name = other_name`` with
  spaces, and ``name: TypeName,`` annotations are left alone, unless the name is random
  letters (an INI file's ``password = BqxDp…``). The price: ``password = hunter`` (a word,
  spaced like code) is not masked; ``PASSWORD=hunter`` and ``password: hunter`` are.
- Overlaps: candidates are ordered by start, then specificity (provider formats before headers
  before generic assignments), then length. The earliest names the kind and the union of
  overlapping spans is masked, so a partial overlap never leaks the tail of a secret.
- The masked text is scanned again until nothing new turns up, so secrets glued to each other
  are all masked and `redact(redact(x)[0])` finds nothing.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from recallnest.core.redact_calls import login_call_starts, redis_auth_starts
from recallnest.core.redact_commands import password_arg_starts
from recallnest.core.redact_shapes import (
    base32_body,
    continuation_end,
    encoded_text,
    random_body,
    vendor_prefix_ok,
    wordy,
)
from recallnest.core.redact_values import (
    PLAIN_NAME_RE,
    PORT_RE,
    TYPE_NAME_RE,
    char_classes,
    is_dummy_token,
    is_placeholder,
    is_stopword,
    key_profile,
    looks_random,
    plausible_value,
    qualified_away,
    random_letters,
    value_ok,
)

__all__ = ["Redaction", "find_secrets", "masked_share", "redact"]


@dataclass(frozen=True, slots=True)
class Redaction:
    """One secret found in a text: what it is and its span in the original text."""

    kind: str
    start: int
    end: int


# A check sees the match (possibly on the lower-cased text), the original text and the value.
Check = Callable[[re.Match[str], str, str], bool]
KindOf = Callable[[re.Match[str], str], str]
Starts = Callable[[str, str], Iterable[int]]  # (subject, original text) -> offsets
Candidate = tuple[int, int, int, int, str]  # (start, tier, -end, rule order, kind)

# Groups that may hold the secret, in the order they are looked for; a rule without any of them
# masks its whole match.
_VALUE_GROUPS = ("s", "edq", "dq", "sq", "bare")

# Tiers: lower is more specific and names the kind when candidates start at the same offset.
_SPECIFIC, _STRUCTURAL, _GENERIC, _SHAPE = 0, 1, 2, 3  # _SHAPE: known by its shape alone

_ALNUM = string.ascii_letters + string.digits
_ASCII_LETTERS = frozenset(string.ascii_letters)
_WORDISH = _ALNUM + "_-"
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: str
    tier: int
    pattern: re.Pattern[str]
    check: Check
    hints: tuple[str, ...]  # lower-case substrings; the rule runs only if one occurs
    left: str  # characters that may not come right before the match
    lower: bool  # match the lower-cased text (names that are case-insensitive)
    kind_of: KindOf | None
    starts: Starts | None  # offsets to try `match` at, instead of scanning with `search`
    groups: tuple[str, ...]


# --- Character classes and shared fragments --------------------------------------------------

_NON_ASCII = r"\x7f-\U0010ffff"
# Unquoted value: printable ASCII up to whitespace, a quote, comma, semicolon or backslash.
_BARE = rf"[^\x00-\x20\"'`,;\\{_NON_ASCII}]"
# A value: escaped-quoted (JSON inside JSON), double-, single-quoted or bare.
_QUOTED = r'(?:"(?P<dq>(?:[^"\\\r\n]|\\.){1,1024})"' r"|'(?P<sq>[^'\r\n]{1,1024})')"
_VALUE = (
    r'(?:\\"(?P<edq>[^"\\\r\n]{1,1024})\\"'
    r'|"(?P<dq>(?:[^"\\\r\n]|\\.){1,1024})"'
    r"|'(?P<sq>[^'\r\n]{1,1024})'"
    rf"|(?P<bare>{_BARE}{{1,512}}))"
)
_RIGHT = r"(?![A-Za-z0-9_\-])"  # the token ends here, not inside a longer word
# CJK punctuation, ideographs and full-width forms: where a value in Chinese prose ends.
_CJK = "\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"


# A literal turned into bytes or a string object, the value of its assignment: Go's
# `[]byte("…")` (`var jwtKey = []byte("<64 hex>")`, secrets s57), Python's `b"…"` and
# `bytes("…", …)`, Node's `Buffer.from("…", …)`, Rust's `String::from("…")`, .NET's
# `Encoding.UTF8.GetBytes("…")`. Only conversions of the literal itself: a call that looks a
# value up (`os.getenv("NAME")`) passes a name.
_BYTES_OF = (
    r"(?:(?:\[\]byte|bytes|bytearray|buffer\.from|string::from|encoding\.utf8\.getbytes)"
    r"\([ \t]{0,3}(?=[\"'])|b(?=[\"']))?"
)


# --- Assignments: NAME = value, "name": "value", name: value, name 是 value ------------------

_ASSIGNMENT_WORDS = (
    "pass", "pw", "secret", "token", "key", "auth", "cred", "access_id", "accessid", "access-id",
    "psk", "_ak", "_sk", "security", "jscode", "certificate", "salt",
    "ak(", "sk(",  # a builder's step: `.WithAk("…")`, `.withSk("…")` (secrets s49)
)  # fmt: skip
_MAX_KEY = 64
_IDENT_CHARS = frozenset(string.ascii_lowercase + string.digits + "_.-")
_IDENT_TAIL_RE = re.compile(r"[a-z0-9_.\-]{0,64}")
# "api key: …", "access token = …": a qualifying word before the name, separated by a space.
_PREFIX_WORD_RE = re.compile(
    r"(?<![a-z0-9_.\-])"
    r"(?:api|access|secret|private|auth|client|bot|admin|master|signing)[ \t]\Z"
)


def _ident_start(lowered: str, i: int) -> int | None:
    """Start of the name around offset `i` (with its qualifying word), None if implausibly long."""
    j, limit = i, max(0, i - _MAX_KEY)
    while j > limit and lowered[j - 1] in _IDENT_CHARS:
        j -= 1
    if j == limit and j > 0 and lowered[j - 1] in _IDENT_CHARS:
        return None
    if j > 1 and lowered[j - 1] in " \t":
        prefix = _PREFIX_WORD_RE.search(lowered, max(0, j - 8), j)
        return prefix.start() if prefix else j
    return j


def _assignment_starts(lowered: str, text: str) -> list[int]:
    """Starts of secret-looking names."""
    return [start for start, _end in _names(lowered, text)]


def _spaced_starts(lowered: str, text: str) -> list[int]:
    """Starts of secret-looking names followed by a space (`password hunter2`)."""
    return [start for start, end in _names(lowered, text) if _spaced_value(lowered, end)]


def _spaced_value(lowered: str, end: int) -> bool:
    """A space, then a word that is not letters only (`password field` is prose), unless
    they are random letters."""
    if lowered[end : end + 1] not in (" ", "\t"):
        return False
    word = lowered[end : end + 80].split(None, 1)
    core = word[0].rstrip(".,;:!?)'\"") if word else ""
    return len(core) >= 4 and (not core.isalpha() or random_letters(core))


@lru_cache(maxsize=2)  # the names, the prose rule and the commands look for the same words
def _word_offsets(lowered: str) -> dict[str, list[int]]:
    """The offsets of each secret word (`pass`, `secret`, `token`, `key`, …) that occurs."""
    offsets: dict[str, list[int]] = {}
    for word in _ASSIGNMENT_WORDS:
        i = lowered.find(word)
        if i == -1:
            continue
        found = offsets[word] = []
        while i != -1:
            found.append(i)
            i = lowered.find(word, i + len(word))
    return offsets


@lru_cache(maxsize=2)
def _word_hits(lowered: str) -> list[int]:
    """Sorted offsets of the secret words."""
    hits: list[int] = []
    for found in _word_offsets(lowered).values():
        hits += found
    hits.sort()
    return hits


@lru_cache(maxsize=2)  # two rules ask for the names of the same text
def _names(lowered: str, text: str) -> tuple[tuple[int, int], ...]:
    """Starts of secret-looking names: words found with str.find (fast), each name tried once
    and only if key_profile accepts it."""
    names: list[tuple[int, int]] = []
    name_end = -1
    for i in _word_hits(lowered):
        if i < name_end:
            continue
        start = _ident_start(lowered, i)
        tail = _IDENT_TAIL_RE.match(lowered, i)
        name_end = tail.end() if tail else i + 1
        if start is not None and key_profile(text[start:name_end]):
            names.append((start, name_end))
    return tuple(names)


def _key_of(m: re.Match[str], text: str) -> str:
    return text[m.start("key") : m.end("key")]


def _check_assignment(m: re.Match[str], text: str, value: str) -> bool:
    key = _key_of(m, text)
    profile = key_profile(key)
    if profile is None:
        return False
    strength, bare = profile[1], m.start("bare") != -1
    if m["sep"] == "(" and not _setter_literal(m, key, text):
        return False
    if m["sep"] == "(" and strength == "pair" and _ACCESS_KEY_ID.fullmatch(value):
        return not is_placeholder(value)  # `.WithAk("D2M1…")`: see `_setter_literal`
    # Trigger: a bare value ending in a separator (`credential: password: X`, `a == b:`).
    # Why: it is the next name, not a value; its own assignment is found on its own.
    if bare and _NEXT_NAME_RE.match(value):
        return False
    # Trigger: `…:secret:db-AbC123`, a name inside a colon-separated ARN or URN. Why: it is a
    # segment of an identifier (`arn:aws:secretsmanager:…:secret:<name>`), not an assignment.
    if m["sep"] == ":" and m.start() > 0 and text[m.start() - 1] == ":":
        return False
    # Trigger: `https://gitlab+deploy-token-4417203:<token>@gitlab.com/…` (secrets s45). Why:
    # the name is a URL's user, its colon the userinfo's; the URL rules mask the password
    # there and keep the host and path, which a value read to the next space would take.
    if m["sep"] == ":" and _URL_AUTHORITY_RE.search(text, max(0, m.start() - 300), m.start()):
        return False
    # Trigger: `ShadowPass::record`, `std::string`. Why: a C++/Rust path, not `pass: value`.
    if m["sep"] == ":" and text.startswith(":", m.end("sep")):
        return False
    # Trigger: SCREAMING_CASE name, `=`, unquoted value. Why: .env / export / docker -e lines
    # hold real configuration, so an 8+ character value under a key/token name is masked even
    # when it does not look random.
    if strength in ("weak", "pass") and key.isupper() and m["sep"] == "=" and bare:
        strength = "env"
    if bare and _is_code_context(m, key, value, text):
        return False
    # Trigger: a Chinese copula ("token 是 …"). Why: the sentence states the value outright.
    if m["sep"] in ("是", "为", "為", "就是", "："):
        strength = "strong"
    return value_ok(value, strength, bare=bare, key=key)


_URL_AUTHORITY_RE = re.compile(r"://[^\s/@'\"<>]*\Z")
_NEXT_NAME_RE = re.compile(r"^[A-Za-z_][\w.\-]{0,63}:$")
# `setPassword`, `SetApiKey`, `set_password`: the last dotted part of a setter's name.
_SETTER_RE = re.compile(r"(?:^|\.)(?:set[A-Z]|set_|Set[A-Z])[A-Za-z0-9_]{0,60}$")
# The literal is the call's only argument.
_CALL_CLOSE_RE = re.compile(r"[ \t]{0,3}\)")


def _setter_literal(m: re.Match[str], key: str, text: str) -> bool:
    """`name(` is a setter given a quoted literal and nothing else: `getPassword("name")`,
    `hash_password(pw)` and `setPassword(a, "b")` pass names or values of other things. A
    builder's step named for the secret is one too: `.clientSecret("…")`, `.password("…")`
    (Youzan's TokenParameter, secrets s45); `.secretKeyRef(x)` passes no literal."""
    if m.start("dq") == -1 and m.start("sq") == -1:
        return False
    if _CALL_CLOSE_RE.match(text, m.end()) is None:
        return False
    if _SETTER_RE.search(key) is not None:
        return True
    # (Go chains with the dot at the end of the line before: `Builder().\n\tWithAk("…")`;
    # PHP's and C++'s arrow: `$redis->auth('…')`, secrets s57)
    before = text[max(0, m.start("key") - 64) : m.start("key")].rstrip()
    step = "." in key or before.endswith((".", "->"))
    profile = key_profile(key.rsplit(".", 1)[-1])
    if not step or profile is None:
        return False
    # A weak name (`.accessToken("…")`, Square's Java builder, secrets s47) with a generated
    # literal: `.token("refresh")` passes a word.
    literal = m["dq"] if m.start("dq") != -1 else m["sq"]
    # ... and an access key id given to its own step (`.WithAk("D2M1U3PJH92RQN1YW416")`,
    # Huawei Cloud's Go builder, secrets s49): ids of that shape pair with a secret
    if profile[1] == "pair" and _ACCESS_KEY_ID.fullmatch(literal):
        return True
    return profile[1] == "strong" or looks_random(literal)


# An access key id: 16-40 capitals and digits, both (AWS, Huawei, Baidu ids).
_ACCESS_KEY_ID = re.compile(r"(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{16,40}")


def _is_code_context(m: re.Match[str], key: str, value: str, text: str) -> bool:
    """The bare value is a name in code or prose, not a literal secret."""
    sep, sep_start = m["sep"], m.start("sep")
    # Trigger: `name = Name` with spaces, a value of letters and underscores only. Why: Python,
    # JS or Go assigning a variable, constant or class; .env lines have no space before `=`.
    # Random letters are no name: INI files space their `=` too (`password = BqxDp…` in
    # my.cnf, round 43).
    if sep == "=" and text[sep_start - 1] in " \t" and PLAIN_NAME_RE.match(value):
        return not random_letters(value)
    if sep != ":":
        return False
    # Trigger: `name: PascalCase` followed by , ) ] | or =. Why: a parameter or field type.
    # (At the end of the text or line nothing follows: `token: P3xK9qLm2Vb7…` is a value.)
    after = text[m.end() : m.end() + 2].lstrip(" \t")[:1]
    if TYPE_NAME_RE.match(value) and after and after in ",)]|=":
        return not random_letters(value)
    # Trigger: the bare English word "pass" before a colon. Why: "single pass: remove …".
    # A value that is no word is a password (`pass: Tq8!vLm2Zx`, `pass: hKqzWm…`; round 43).
    word = value.isalpha() and not random_letters(value)
    return key.lower() == "pass" and word


def _assignment_kind(m: re.Match[str], text: str) -> str:
    profile = key_profile(_key_of(m, text))
    return profile[0] if profile else "generic-secret"


def _copula_kind(m: re.Match[str], _text: str) -> str:
    return "password" if m["key"].startswith(_PASSWORD_NOUNS) else "generic-secret"


def _check_zh(m: re.Match[str], text: str, value: str) -> bool:
    return value_ok(value, "strong", bare=m.start("bare") != -1, key=m["zhkey"])


def _check_zh_spaced(m: re.Match[str], text: str, value: str) -> bool:
    symbol = any(not c.isalnum() for c in value)
    generated = symbol or char_classes(value)[0] or random_letters(value)
    return value_ok(value, "pass", bare=True, key=m["zhkey"]) and generated


def _zh_kind(m: re.Match[str], _text: str) -> str:
    return "password" if m["zhkey"] in ("密码", "密碼", "口令") else "generic-secret"


# --- Where the prose and shape rules are tried ---------------------------------------------------

# Where a vendor token can start: a run of 15+ token characters (`[A-Za-z0-9_-]`), found with
# str.find on a copy of the text mapped to one letter per class (a regex scan of every offset
# cost 3-4x more), then walked back over a dotted prefix (`dp.st.prd.`, `hvs.`).
_RUN = b"a" * 15
_TOKEN_BYTES = (string.ascii_letters + string.digits + "_-").encode()
_CLASSES = bytes(ord("a") if b in _TOKEN_BYTES else ord(" ") for b in range(256))
_PREFIX_CHARS = frozenset(string.ascii_letters + string.digits + ".")
_SEPARATOR_RE = re.compile(r"[_\-.]")
_DIGIT_RE = re.compile(r"[0-9]")
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_UUID_AT_RE = re.compile(_UUID, re.I)


@lru_cache(maxsize=2)  # the near-word and Pushover rules map the same lower-cased text
def _ascii(lowered: str) -> bytes:
    """One byte per code point (non-ASCII becomes `?`), so offsets stay those of the text."""
    return lowered.encode("ascii", "replace")


def _long_run_starts(subject: str, _text: str) -> list[int]:
    # One byte per code point (non-ASCII becomes `?`), so offsets stay those of the text.
    mapped = subject.encode("ascii", "replace").translate(_CLASSES)
    starts = []
    i = mapped.find(_RUN)
    while i != -1:
        start, limit = i, max(0, i - 30)
        while start > limit and subject[start - 1] in _PREFIX_CHARS:
            start -= 1
        end = mapped.find(b" ", i)  # the end of this run: every other byte is a space
        stop = len(subject) if end == -1 else end
        # A token has a separator after its prefix and digits in its body (random_body).
        if (
            subject[start].isalpha()
            and _SEPARATOR_RE.search(subject, start, start + 14)
            and _DIGIT_RE.search(subject, i, stop)
            and not _UUID_AT_RE.match(subject, i)
        ):
            starts.append(start)
        if end == -1:
            break
        i = mapped.find(_RUN, end)
    return starts


# A secret word a few words before a value, in the same sentence: "key 先用我这个 3f9c…",
# "the token I generated: 9f8e…". Words naming a hash or an id between them make it one.
# "App Certificate 是 <32 hex>" too: Agora's signing secret beside its public App ID (secrets
# s44); a certificate alone (TLS) is public.
_NEAR_WORD_RE = re.compile(
    r"(?<![a-z0-9_])(?P<w>key|keys|apikey|token|tokens|secret|secrets|password|passwd|pwd"
    r"|passphrase|credentials?|pats?|app[ \t]?certificates?)(?![a-z0-9_])"
    r"|密钥|秘钥|密匙|秘匙|令牌|密码|口令|凭证|凭据|授权码|加签"
)
_NEAR_HASH_RE = re.compile(
    r"(?<![a-z0-9])(?:sha\d*|md5|hash|digest|checksum|fingerprint|commit|rev|ids?|uuid|etag"
    r"|version|build)(?![a-z0-9])|指纹|哈希|校验|提交|版本"
)
_SENTENCE_END_RE = re.compile(r"[\n。！？；]|[.!?;](?:\s|$)")
_NEAR_REACH = 40
_NEAR_RUN = b"a" * 16
_NEAR_HINTS: tuple[str, ...] = ("key", "token", "secret", "pass", "pwd", "cred", "pat", "certif")
# 密匙 / 秘匙: a common writing of 密钥; 加签: DingTalk's word for a robot's signing secret
# ("加签: <secret>", secrets s57).
_NEAR_HINTS += ("密钥", "秘钥", "密匙", "秘匙", "令牌", "密码", "口令", "凭证", "凭据", "授权码")
_NEAR_HINTS += ("加签",)


def _near_word_starts(lowered: str, text: str) -> list[int]:
    """Runs of 16+ token characters with a secret word before them in the same sentence,
    within _NEAR_REACH characters, no hash or id word between, not `cache key`/`public key`.
    `PAT` (a personal access token) counts only in capitals: "pat" is a word too."""
    mapped = _ascii(lowered).translate(_CLASSES)
    starts = []
    i = mapped.find(_NEAR_RUN)
    while i != -1:
        window = lowered[max(0, i - _NEAR_REACH) : i]
        ends = [m.end() for m in _SENTENCE_END_RE.finditer(window)]
        window = window[ends[-1] :] if ends else window
        offset = i - len(window)
        words = [
            w
            for w in _NEAR_WORD_RE.finditer(window)
            if not w.group().startswith("pat") or text.startswith("PAT", offset + w.start())
        ]
        if words and not _NEAR_HASH_RE.search(window, words[-1].end()):
            before = window[: words[-1].start()].split()
            if not (before and qualified_away(before[-1], words[-1].group("w") or "")):
                starts.append(i)
        end = mapped.find(b" ", i)
        if end == -1:
            break
        i = mapped.find(_NEAR_RUN, end)
    return starts


def _check_near_word(m: re.Match[str], text: str, value: str) -> bool:
    """A generated value (random_body: 32+ hex, 24+ of one case and digits, 16+ base62; or
    40+ of lower-case base32), or dotted parts that each look generated; not given as an id.

    Trigger: "…，AUTH TOKEN <32 hex>，应用 AppID <32 hex>" (Ronglian's SMS keys, secrets s44).
    Why: the token's noun is still within reach of the app id after it, but an id named as
    one (`AppID`, `app_id`, `Template ID`) grants nothing (see _named_id)."""
    if "." in value:
        generated = _dotted_generated(value)
    else:
        generated = random_body(value) or base32_body(value)
        generated = generated and not is_dummy_token(value) and not encoded_text(value)
    return generated and not _named_id(text, m.start())


def _dotted_generated(value: str) -> bool:
    """`<32 hex>.<16 base62>` (an id.secret key pair), not `<hash>.example` or a file name:
    every part between dots is a generated body, or 8+ characters that look random."""
    parts = value.split(".")
    if is_dummy_token(value):
        return False
    return all(random_body(p) or (len(p) >= 8 and looks_random(p)) for p in parts)


# A copula within reach of a secret word (a noun, its `for <what>` of up to 40, the copula).
_COPULA_NEAR_RE = re.compile(r" (?:is|was|are|were|be) | (?:for|on|of|to|in) [^\n]{0,44}[:=]")
_COPULA_REACH = 64


def _noun_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of secret words followed by a copula within reach, and of the word before
    `key` (`api key`, `signing key`). `pw` is found through `pwd`… and on its own."""
    found: set[int] = set()
    hits = _word_hits(lowered)
    if "pw" in lowered:
        hits = sorted({*hits, *_finds(lowered, "pw")})
    for i in hits:
        if not _COPULA_NEAR_RE.search(lowered, i, i + _COPULA_REACH):
            continue
        found.add(i)
        if lowered.startswith("key", i) and i > 1 and lowered[i - 1] in " \t":
            found.add(max(lowered.rfind(" ", 0, i - 1), lowered.rfind("\t", 0, i - 1)) + 1)
    return sorted(found)


def _finds(lowered: str, word: str) -> list[int]:
    out, i = [], lowered.find(word)
    while i != -1:
        out.append(i)
        i = lowered.find(word, i + len(word))
    return out


# A licence key's shape: 3 to 8 groups of 4-8 capitals and digits joined by dashes (N2YO's
# `9XN8NT-OXDVC7-A60FT6-XNM4`, a product key `W269N-WFGWX-YVC9B-4J6C9-DHZJK`), seen lower-cased.
_GROUPED = r"[a-z0-9]{4,8}(?:-[a-z0-9]{4,8}){2,7}"
_GROUPED_NOUNS = ("key", "token", "licen", "activation", "registration")
_GROUPED_ZH_NOUNS = ("密钥", "秘钥", "激活码", "注册码", "授权码", "许可证")
# A word between the noun and the value that makes the value an identifier or a date (beside
# _NEAR_HASH_RE's hashes, ids and versions): "the key order number is …", "激活码的批次编号是 …".
_GROUPED_ID_RE = re.compile(
    r"(?<![a-z0-9])(?:number|no\.|sku|serial|guid|date)(?![a-z0-9])|编号|单号|序号|日期"
)
# "…, it's public", "the public demo key": said to be public, unless the word is negated
# ("don't make it public", "不要公开").
_SAID_PUBLIC_RE = re.compile(
    r"(?:(?<![a-z])(?:not|never|no)|n't)[ \t](?:\w+[ \t]){0,2}public|(?<![a-z])public"
    r"|(?:不要|别|不能|不可|勿|未)公开|公开"
)
_NEGATED = ("not", "never", "no", "n't", "不", "别", "勿", "未")


# Capitals and digits -> "A", a dash -> "-", anything else a blank: a text whose map holds no
# "AAAA-AAAA" holds no licence key, found with str.find (a regex scan cost ~30 us a turn).
_GROUP_CLASSES = bytes(
    ord("A") if chr(b) in string.ascii_uppercase + string.digits else ord("-") if b == 45 else 32
    for b in range(256)
)


def _grouped_key_starts(lowered: str, text: str) -> list[int]:
    """Offsets of the nouns a licence key is given after (key, token, licence, activation or
    registration code, 密钥, 激活码 …), in a text that holds two groups of a key's shape."""
    mapped = text.encode("ascii", "replace").translate(_GROUP_CLASSES) if "-" in text else b""
    if b"AAAA-AAAA" not in mapped:
        return []
    offsets = _word_offsets(lowered)
    hits = [*offsets.get("key", ()), *offsets.get("token", ())]
    for word in (*_GROUPED_NOUNS[2:], *_GROUPED_ZH_NOUNS):
        if word in lowered:
            hits += _finds(lowered, word)
    return sorted(hits)


def _check_grouped_key(m: re.Match[str], text: str, value: str) -> bool:
    """A licence key in capitals, its groups generated: two or more of them mix letters and
    digits. Not after a word that makes it an id or a date, nor a noun qualified away (`cache
    key`, `primary key`), nor in a sentence that says it is public."""
    if not value.isupper() or is_dummy_token(value):
        return False
    groups = value.split("-")
    mixed = sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups)
    if mixed < 2 or _NEAR_HASH_RE.search(m["mid"]) or _GROUPED_ID_RE.search(m["mid"]):
        return False
    noun = m["key"]
    before = m.string[max(0, m.start() - 24) : m.start()].split()
    if noun.endswith(("key", "token")) and before and qualified_away(before[-1], noun):
        return False
    lo = max(0, m.start() - 120)
    ends = [e.end() for e in _SENTENCE_END_RE.finditer(m.string, lo, m.start())]
    stop = _SENTENCE_END_RE.search(m.string, m.end(), m.end() + 120)
    sentence = m.string[ends[-1] if ends else lo : stop.start() if stop else m.end() + 120]
    return all(said[0].startswith(_NEGATED) for said in _SAID_PUBLIC_RE.finditer(sentence))


# Commands whose short flag, spelled case-sensitively, takes a password or passphrase as its
# next word, with words one of which must be on the line before it: `… login -p` (docker,
# podman, helm registry), ssh-keygen -P/-N, cqlsh and rdesktop -p, ipmitool, sqlcmd and bcp
# -P, nodetool -pw, the net-snmp tools' -A (auth) and -X (privacy) passphrases, iwctl's -P
# (a Wi-Fi passphrase, secrets s42's class) and -p (an 802.1X password). (`docker run
# -p 8080:80` publishes a port, snmpwalk's -a and -x name protocols and ipmitool's -p is a
# port: the tool and the case matter, so the flags are found in the original text.)
_PASSWORD_FLAGS: dict[str, tuple[str, ...]] = {
    "-p": ("login", "ssh-keygen", "cqlsh", "rdesktop", "iwctl"),
    "-P": ("login", "ssh-keygen", "ipmitool", "sqlcmd", "bcp ", "iwctl"),
    "-n": ("ssh-keygen",),
    "-N": ("ssh-keygen",),
    "-pw": ("nodetool",),
    "-A": ("snmp",),
    "-X": ("snmp",),
    # net-snmp's clients: -c is the v1/v2c community (secrets s43); snmpd's -c is a file.
    "-c": (
        "snmpwalk",
        "snmpget",
        "snmpbulk",
        "snmpset",
        "snmptable",
        "snmptrap ",
        "snmpinform",
        "snmpdf",
        "snmpstatus",
        "snmpnetstat",
        "snmpdelta",
        "snmptest",
    ),
}
_FLAG_REACH = 300
# One scan for all of them (four str.find cost ~4.5 us a turn holding Chinese, this ~1).
_PASSWORD_FLAG_RE = re.compile(
    " (" + "|".join(sorted(map(re.escape, _PASSWORD_FLAGS), key=len, reverse=True)) + ")[ \t]"
)


# The communities every SNMP agent ships with: published defaults, like `changeme`.
_DEFAULT_COMMUNITIES = frozenset(("public", "private"))


def _check_community(m: re.Match[str], text: str, value: str) -> bool:
    return value.lower() not in _DEFAULT_COMMUNITIES and _check_cli(m, text, value)


def _check_password_flag(m: re.Match[str], text: str, value: str) -> bool:
    if text.startswith("-c", m.start()):
        return _check_community(m, text, value)
    return _check_cli(m, text, value)


def _password_flag_starts(text: str, _original: str) -> list[int]:
    """Offsets of the _PASSWORD_FLAGS followed by a blank, on a line naming one of its tools."""
    starts = []
    for m in _PASSWORD_FLAG_RE.finditer(text):
        # The tool within _FLAG_REACH before the flag, on its line (a bounded look back: a
        # text of flags only must not cost a pass over its whole line per flag).
        i = m.start()
        reach = max(0, i - _FLAG_REACH)
        line = text[max(reach, text.rfind("\n", reach, i) + 1) : i].lower()
        if any(tool in line for tool in _PASSWORD_FLAGS[m[1]]):
            starts.append(m.start(1))
    return starts


# Oracle tools that take `user/password@db` (and SQL*Plus's `conn[ect]`), Dameng's (DM8)
# disql, dexp and dimp, which took Oracle's login string (secrets s43), and the `userid=`
# parameter of exp/imp/sqlldr and dexp/dimp.
_ORACLE_TOOLS = (
    "sqlplus", "sqlldr", "expdp", "impdp", "rman", "dgmgrl", "conn", "disql", "dexp", "dimp",
    "userid",
)  # fmt: skip


_SQL_VERBS = ("create", "alter", "grant")


def _sql_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of CREATE / ALTER / GRANT, found with str.find."""
    return sorted(i for verb in _SQL_VERBS for i in _finds(lowered, verb))


def _oracle_login_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of the Oracle tool words, found with str.find (a regex tried at every offset
    cost ~10 µs a turn: `conn` is in every "connection")."""
    return sorted(i for tool in _ORACLE_TOOLS for i in _finds(lowered, tool))


# The port field of a .pgpass line (`host:5432:db:user:pw`): lines are tried from its token.
_PGPASS_PORT_RE = re.compile(r":(?:\d{1,5}|\*):[\w.\-*]{1,63}:[\w.\-*]{1,63}:\S", re.ASCII)


def _pgpass_starts(subject: str, _text: str) -> list[int]:
    starts = []
    for m in _PGPASS_PORT_RE.finditer(subject):
        start = m.start()
        while start > 0 and "!" <= subject[start - 1] <= "~":
            start -= 1
        starts.append(start)
    return sorted(set(starts))


# Where a credential-file line can start: past up to 8 blanks, a URL, a path or a quoted path.
# (Found from the newline, a literal `re` can skip to: a `^` in MULTILINE mode is tried at
# every offset and cost ~8 us a turn.)
_OPENER = r"[ \t]{0,8}(?=https?://|davs?://|webdavs?://|/|\")"
_RESOURCE_LINE_RE = re.compile(r"\n" + _OPENER)
_RESOURCE_FIRST_RE = re.compile(_OPENER)


def _resource_line_starts(subject: str, _text: str) -> list[int]:
    """Starts of the lines (past their indentation) that open with a URL or a path."""
    first = _RESOURCE_FIRST_RE.match(subject)
    rest = [m.end() for m in _RESOURCE_LINE_RE.finditer(subject)]
    return [first.end(), *rest] if first else rest


# The end of the name of an API client's constructor or factory (`new JPushClient(`,
# `OSSClient(`, `BasicAWSCredentials(`, `Auth.create(`), found with str.find (a regex for the
# whole name, tried at every offset, cost ~35 us a turn); its arguments: up to 400 characters.
# (No hints: a substring test costs ~2 us on a turn holding Chinese, a str.find the same.)
# `Mac(`: Qiniu's `new qiniu.auth.digest.Mac(accessKey, secretKey)` (secrets s52).
_CLIENT_WORDS = ("Client", "Credential", "Auth", "Mac")
_CALL_OPEN_RE = re.compile(r"s?(?:\.create)?[ \t]{0,3}\(")
_LITERAL_RE = re.compile(r"\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'")


def _client_literal_starts(subject: str, _text: str) -> list[int]:
    """Offsets of the string literals among a client constructor's arguments."""
    starts: list[int] = []
    for word in _CLIENT_WORDS:
        for i in _finds(subject, word):
            call = _CALL_OPEN_RE.match(subject, i + len(word))
            if call is None or (word == "Mac" and i > 0 and subject[i - 1] not in ". "):
                continue  # `digest.Mac(`, `new Mac(`; not `deviceMac(`, `getMac(`
            close = subject.find(")", call.end(), call.end() + 400)
            stop = close if close != -1 else min(len(subject), call.end() + 400)
            starts.extend(lit.start() for lit in _LITERAL_RE.finditer(subject, call.end(), stop))
    return sorted(starts)


def _query_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of `?` and `&`, where a query parameter starts (a one-character str.find is
    fast; the names the rule wants cost ~1 us a turn each to look for)."""
    return sorted([*_finds(lowered, "?"), *_finds(lowered, "&")])


_COMMAND_WORDS = ("pass", "psk", "auth")


def _command_password_starts(lowered: str, text: str) -> list[int]:
    """Offsets of the passwords of the commands in recallnest.core.redact_commands; the secret
    words found for the names mark some of them (`htpasswd`, `change_password`, nmcli's
    `password`, `cf auth`)."""
    offsets = _word_offsets(lowered)
    return password_arg_starts(lowered, text, {w: offsets.get(w, ()) for w in _COMMAND_WORDS})


def _login_call_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of the passwords given positionally to login and connect calls (see
    recallnest.core.redact_calls); the secret words found for the names give "auth" and
    "cred"."""
    offsets = _word_offsets(lowered)
    found = {w: offsets.get(w, ()) for w in ("auth", "cred")}
    return login_call_starts(lowered, _ascii(lowered), found)


def _redis_auth_starts(lowered: str, text: str) -> list[int]:
    """Offsets of Redis passwords: `AUTH [user] <pw>`, `requirepass`, `masterauth`, `>pw`."""
    auth = _word_offsets(lowered).get("auth", ())
    return redis_auth_starts(lowered, text, _ascii(lowered), auth)


_HOST_RE = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}|[a-z0-9\-]{1,63}(?:\.[a-z0-9\-]{1,63}){1,8}")


def _check_slot_password(m: re.Match[str], _text: str, value: str) -> bool:
    """A password in a login's slot: 4+ characters, no placeholder, variable, port, host,
    UUID, or readable letters only (`AUTH LOGIN`, `guest`, `foobared`: published defaults;
    `"onClick"`, a misread slot's handler or database name)."""
    core = value.strip()
    if len(core) < 4 or PORT_RE.match(core) or _SCREAMING_WORD_RE.fullmatch(core):
        return False
    if is_stopword(core) or _HOST_RE.fullmatch(core) or _UUID_AT_RE.fullmatch(core):
        return False
    if core.isalpha() and not random_letters(core):
        return False  # a word or a name in code: `"onClick"`, `"Welcome"`
    return value_ok(core, "pass", bare=m.groupdict().get("bare") is not None, key="password")


# PowerShell's `ConvertTo-SecureString` given the password as plain text: its literal after the
# cmdlet (past `-String`, `-AsPlainText`, `-Force`), or piped into it (`'…' | ConvertTo-…`).
_SECURESTRING = "convertto-securestring"
_PLAINTEXT_FLAG = "-asplaintext"
_SECURESTRING_ARG_RE = re.compile(
    r"(?:[ \t]{1,3}-(?:asplaintext|force|string)(?::\$true)?){0,3}[ \t]{1,3}(?!-)"
)
_SECURESTRING_REACH = 300


def _securestring_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of the literals given to ConvertTo-SecureString -AsPlainText, on its line."""
    starts = []
    for i in _finds(lowered, _SECURESTRING):
        line_start = lowered.rfind("\n", max(0, i - _SECURESTRING_REACH), i) + 1
        newline = lowered.find("\n", i, i + _SECURESTRING_REACH)
        line_end = min(len(lowered), i + _SECURESTRING_REACH) if newline == -1 else newline
        # Without -AsPlainText the string is an encrypted one (ConvertFrom-SecureString's).
        if lowered.find(_PLAINTEXT_FLAG, line_start, line_end) == -1:
            continue
        arg = _SECURESTRING_ARG_RE.match(lowered, i + len(_SECURESTRING), line_end)
        if arg:
            starts.append(arg.end())
        # Piped: a blank, `|`, a blank, then back from the closing quote to its opening one.
        j = _skip_back(lowered, i, line_start, " \t")
        if j > line_start and lowered[j - 1] == "|":
            j = _skip_back(lowered, j - 1, line_start, " \t")
            quote = lowered[j - 1] if j > line_start else ""
            opening = lowered.rfind(quote, line_start, j - 1) if quote in ("'", '"') else -1
            if opening != -1:
                starts.append(opening)
    return sorted(starts)


# The value of an OpenTelemetry exporter's headers variable (`OTEL_EXPORTER_OTLP_HEADERS`, its
# _TRACES_/_METRICS_/_LOGS_ forms): `name=value` pairs separated by commas.
_OTLP_HEADERS_RE = re.compile(
    r"otel_exporter_otlp(?:_[a-z]{1,10})?_headers[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?"
    r"([^\s\"']{1,4096})"
)
_MAX_HEADERS = 16


def _otlp_header_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of the values of the credential headers in an OTLP headers list."""
    starts = []
    for m in _OTLP_HEADERS_RE.finditer(lowered):
        pos = m.start(1)
        for pair in m[1].split(",", _MAX_HEADERS)[:_MAX_HEADERS]:
            name, sep, _value = pair.partition("=")
            if sep and _credential_header(name.strip()):
                starts.append(pos + len(name) + 1)
            pos += len(pair) + 1
    return starts


def _credential_header(name: str) -> bool:
    """`x-honeycomb-team`, `api-key`, `dd-api-key`, `x-sf-token`, `authorization`: a header
    that carries the exporter's key (Honeycomb names its key the team's)."""
    return name.endswith(("authorization", "-team")) or key_profile(name) is not None


# Credential headers in a headers map: YAML (`headers:` and an indented block, or a flow map
# `{…}`), JSON (`"headers": {…}`), HCL (`headers = {…}`), TOML (a `[….headers]` table), and
# lists of name/value pairs (`headers: [{name: x-api-key, value: …}]`, Postman's `"header":
# [{"key": …, "value": …}]`, YAML's `- name: …` / `value: …`); a header and its value after
# `header` and a space (Fluent Bit's `Header X-Honeycomb-Team …`, nginx's `proxy_set_header
# … "…";`) or given to a call (`Header.Set("X-Api-Key", "…")`); curl's `-H` / `--header
# "Name: value"`; and Honeycomb's `X-Honeycomb-Team: …` wherever it is given a value (a raw
# request's header lines).
_HEADERS_OPEN_RE = re.compile(
    r"s?[\"']?[ \t]{0,3}(?::|=>?)[ \t]{0,3}"
    r"(?:(?P<map>\{)|(?P<list>\[)|(?P<block>(?:#[^\n]{0,200})?\r?\n))"
)
# An entry of a map: after `{`, `,` or a line break, a name, then `:`, `=` or `=>`.
_HEADER_ENTRY_RE = re.compile(
    r"[{,\n][ \t]{0,24}(?:-[ \t]{1,3})?[\"']?(?P<name>[a-z][a-z0-9_\-]{0,63})[\"']?"
    r"[ \t]{0,3}(?:=>|[:=])[ \t]{0,3}"
)
_HEADER_WORD_RE = re.compile(r"[\"']?([a-z][a-z0-9_\-]{0,63})")
_HEADER_TABLE_RE = re.compile(r"s?\][ \t]{0,8}\r?\n")
# A header set by a call: Go's `req.Header.Set("X-Api-Key", "…")`, `setRequestHeader('…',
# '…')`, OkHttp's `addHeader(…)`, .NET's `DefaultRequestHeaders.Add(…)`, `headers.append(…)`.
_HEADER_CALL_RE = re.compile(
    r"s?(?:\.[a-z]{2,12})?[ \t]{0,3}\([ \t]{0,3}[\"'](?P<name>[a-z][a-z0-9_\-]{0,63})[\"']"
    r"[ \t]{0,3},[ \t]{0,3}"
)
_HEADER_SPACED_RE = re.compile(
    r"s?[ \t]{1,8}[\"']?(?P<name>[a-z][a-z0-9_\-]{0,63})[\"']?[ \t]{1,8}(?=[^\s:=])"
)
_HEADER_ASSIGNED_RE = re.compile(r"[\"']?[ \t]{0,3}[:=][ \t]{0,3}(?=[^\s])")
_PAIR_NAMES = ("name", "key", "header")
_CURL_HEADER_RE = re.compile(
    r"(?:-h|--header)(?:[ \t]{1,3}|=)[\"']?(?P<name>[a-z][a-z0-9_\-]{0,63})[ \t]{0,3}:[ \t]{0,3}"
)
# `Authorization: Api-Token <token>`: the scheme is no secret (the authorization rule knows
# the common ones; Dynatrace's, Elastic's `ApiKey` and others are read here).
_AUTH_SCHEME_RE = re.compile(r"[a-z][a-z0-9\-]{1,20}[ \t]{1,3}(?=[^\s\"'])")
_HEADERS_REACH = 4096
_PAIR_REACH = 300
_MAX_BLOCK_LINES = 64


def _header_block_starts(lowered: str, text: str) -> list[int]:
    """Offsets of the values of credential headers (see _credential_header) in headers maps
    and curl header arguments."""
    starts: list[int] = []
    covered = 0  # a map or block read already (a `header` word inside it is no new one)
    for i in _finds(lowered, "header"):
        if i < covered:
            continue
        after = i + len("header")
        opening = _HEADERS_OPEN_RE.match(lowered, after)
        if opening is None:
            if table := _HEADER_TABLE_RE.match(lowered, after):
                covered, found = _table_header_values(lowered, table.end())
                starts += found
            elif (spaced := _HEADER_SPACED_RE.match(lowered, after)) and _credential_header(
                spaced["name"]
            ):
                starts.append(_header_value_start(lowered, spaced.end(), spaced["name"]))
            elif (call := _HEADER_CALL_RE.match(lowered, after)) and _credential_header(
                call["name"]
            ):
                starts.append(_header_value_start(lowered, call.end(), call["name"]))
            continue
        if opening["block"] is not None:
            line_start = lowered.rfind("\n", 0, i) + 1
            indent = len(lowered[line_start:i]) - len(lowered[line_start:i].lstrip(" \t-"))
            covered, found = _yaml_header_values(lowered, opening.end(), indent)
        else:
            covered = _closing(lowered, opening.end() - 1)
            found = _map_header_values(lowered, opening.end() - 1, covered)
        starts += found
    for i in _finds(lowered, "-h"):
        if text[i + 1] == "H" or lowered.startswith("--header", i - 1):
            curl = _CURL_HEADER_RE.match(lowered, i - 1 if lowered[i - 1 : i] == "-" else i)
            if curl and _credential_header(curl["name"]):
                starts.append(_header_value_start(lowered, curl.end(), curl["name"]))
    for i in _finds(lowered, "-honeycomb-team"):
        value = _HEADER_ASSIGNED_RE.match(lowered, i + len("-honeycomb-team"))
        if value:
            starts.append(_header_value_start(lowered, value.end(), "x-honeycomb-team"))
    return sorted(set(starts))


def _table_header_values(lowered: str, pos: int) -> tuple[int, list[int]]:
    """(the table's end, credential headers' values) in a TOML table of headers: its
    `name = value` lines up to the next `[table]`."""
    found: list[int] = []
    for _ in range(_MAX_BLOCK_LINES):
        if pos >= len(lowered) or lowered.startswith("[", pos):
            break
        entry = _HEADER_ENTRY_RE.match(lowered, pos - 1)
        if entry and _credential_header(entry["name"]):
            found.append(_header_value_start(lowered, entry.end(), entry["name"]))
        end = lowered.find("\n", pos)
        pos = len(lowered) if end == -1 else end + 1
    return pos, found


_BRACKET_RE = re.compile(r"[{}\[\]]")


def _closing(lowered: str, opening: int) -> int:
    """The offset of the bracket that closes the one at `opening` (or the reach's end)."""
    depth, limit = 0, min(len(lowered), opening + _HEADERS_REACH)
    for bracket in _BRACKET_RE.finditer(lowered, opening, limit):
        depth += 1 if bracket[0] in "{[" else -1
        if depth == 0:
            return bracket.start()
    return limit


def _map_header_values(lowered: str, start: int, end: int) -> list[int]:
    """Credential headers' values in a `{…}` map or a `[…]` list of name/value pairs."""
    found = []
    for entry in _HEADER_ENTRY_RE.finditer(lowered, start, end):
        name = entry["name"]
        if name in _PAIR_NAMES:
            header = _HEADER_WORD_RE.match(lowered, entry.end())
            if header and _credential_header(header[1]):
                # Its `value` entry, in the same object, within _PAIR_REACH either side.
                lo = lowered.rfind("{", max(start, entry.start() - _PAIR_REACH), entry.start() + 1)
                hi = lowered.find("}", entry.end(), min(end, entry.end() + _PAIR_REACH))
                lo = max(start, entry.start() - _PAIR_REACH) if lo == -1 else lo
                hi = min(end, entry.end() + _PAIR_REACH) if hi == -1 else hi
                for other in _HEADER_ENTRY_RE.finditer(lowered, lo, hi):
                    if other["name"] == "value":
                        found.append(_header_value_start(lowered, other.end(), header[1]))
        elif _credential_header(name):
            found.append(_header_value_start(lowered, entry.end(), name))
    return found


def _yaml_header_values(lowered: str, pos: int, indent: int) -> tuple[int, list[int]]:
    """(the block's end, credential headers' values) in the YAML block indented under a
    `headers:` line."""
    found: list[int] = []
    pending = ""  # a `- name: <credential header>` item waiting for its `value:`
    for _ in range(_MAX_BLOCK_LINES):
        if pos >= len(lowered):
            break
        end = lowered.find("\n", pos)
        end = len(lowered) if end == -1 else end
        line = lowered[pos:end]
        body = line.lstrip(" \t")
        if body and not body.startswith("#"):
            if len(line) - len(body) <= indent:
                break
            if body.startswith("-"):
                pending = ""
            entry = _HEADER_ENTRY_RE.match(lowered, pos - 1)
            if entry:
                name = entry["name"]
                if name in _PAIR_NAMES:
                    header = _HEADER_WORD_RE.match(lowered, entry.end())
                    pending = header[1] if header and _credential_header(header[1]) else ""
                elif name == "value" and pending:
                    found.append(_header_value_start(lowered, entry.end(), pending))
                elif _credential_header(name):
                    found.append(_header_value_start(lowered, entry.end(), name))
        pos = end + 1
    return pos, found


def _header_value_start(lowered: str, pos: int, name: str) -> int:
    """Past an opening quote, and an authorization's scheme word."""
    if lowered[pos : pos + 1] in ("'", '"'):
        pos += 1
    if name.endswith("authorization"):
        scheme = _AUTH_SCHEME_RE.match(lowered, pos)
        if scheme:
            pos = scheme.end()
    return pos


# OpenVPN's `auth-user-pass <file>` reads a file of two lines, the user then the password.
_AUTH_FILE_DIRECTIVE = "auth-user-pass"
_AUTH_FILE_WORDS = ("auth", "cred", "pass", "login")
_LINE_WORD_RE = re.compile(r"[ \t]{0,8}([^\s]{1,128})[ \t]*(?:\r?\n|\Z)")
_HEREDOC_RE = re.compile(r"<<-?[ \t]{0,3}[\"']?([a-z_]{1,16})")
_INTRO_REACH = 200


def _auth_file_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of the second of two one-word lines shown as an auth file: right after a line
    that names one (auth, cred, pass, login) and ends in a colon or opens a heredoc, and
    followed by no third such line (a list of words is no auth file)."""
    starts = []
    for i in _finds(lowered, "\n"):
        line_start = lowered.rfind("\n", max(0, i - _INTRO_REACH), i) + 1
        line_start = max(line_start, i - _INTRO_REACH)
        end = _skip_back(lowered, i, line_start, " \t\r")
        heredoc = None
        if lowered.find("<<", line_start, end) != -1:
            heredoc = _HEREDOC_RE.search(lowered, line_start, end)
        if not (heredoc or (end > line_start and lowered[end - 1] in ":：")):
            continue
        if not any(lowered.find(w, line_start, end) != -1 for w in _AUTH_FILE_WORDS):
            continue
        user = _LINE_WORD_RE.match(lowered, i + 1)
        password = _LINE_WORD_RE.match(lowered, user.end()) if user else None
        if user is None or password is None or password.end() == user.end():
            continue
        # A third one-word line makes a list of words, unless it ends the heredoc (Chinese
        # prose has no blanks: a line of it is no word).
        third = _LINE_WORD_RE.match(lowered, password.end())
        more = third is not None and third[1].isascii() and password.end() < len(lowered)
        if more and not (heredoc and third and third[1] == heredoc[1]):
            continue
        starts.append(password.start(1))
    return starts


# --- Per-rule checks ----------------------------------------------------------------------------


def _real_token(_m: re.Match[str], _text: str, value: str) -> bool:
    return not is_dummy_token(value)


# A name right before `=`: `NAME=`, `export NAME=`, `-e NAME=`, `"name=`; not a URL query's
# (`?a=`, `&b=`) nor a run of base64 (`…==`).
_NAME_BEFORE_RE = re.compile(r"(?:^|(?<=[\s\"'`(\[{,;]))[A-Za-z_][A-Za-z0-9_.\-]{0,63}\Z")


def _after_name(text: str, start: int) -> bool:
    """The value at `start` does not follow `=`, or follows a name's `=`.

    Trigger: `MAPBOX_DOWNLOAD_TOKEN=sk.eyJ1…` in a pasted .env (secrets s55, e2e-heldout29
    h29x03), `CARGO_REGISTRY_TOKEN=cio…`. Why: the shape rules (vendor-prefixed, bare
    generated tokens) did not look after any `=`, so such a value was the assignment rule's
    alone, and a name it read as no secret's (a download token, a registry token) let it pass;
    the same value was masked bare, in YAML (`NAME: value`) and spaced (`name = "value"`).
    A value's own shape says it is a secret whatever the name before it. Outcome: after a
    name's `=` the shape rules judge the value as anywhere else (an id's name still keeps it:
    `_named_id`); a URL query's values and base64 runs stay as before."""
    if start == 0 or text[start - 1] != "=":
        return True
    return _NAME_BEFORE_RE.search(text, max(0, start - 65), start - 1) is not None


def _cased_token(_m: re.Match[str], _text: str, value: str) -> bool:
    """Hugging Face tokens are letters only, but always of both cases."""
    _digit, upper, lower = char_classes(value)
    return upper and lower and not is_dummy_token(value)


def _generated_user(_m: re.Match[str], _text: str, value: str) -> bool:
    """A basic-auth user that is a generated key: letters and digits mixed, no word."""
    digit, upper, lower = char_classes(value)
    return digit and (upper or lower) and not is_dummy_token(value) and not wordy(value)


def _mixed_token(_m: re.Match[str], _text: str, value: str) -> bool:
    """Random tokens mix digits and both cases; `sk-learn-tutorial` style words do not."""
    return all(char_classes(value)) and not is_dummy_token(value)


def _check_bare_token(m: re.Match[str], text: str, value: str) -> bool:
    if not _after_name(text, m.start()):
        return False
    # Public keys are base64 too: an SSH key blob opens with "AAAA", a PEM PUBLIC KEY or
    # CERTIFICATE body sits inside its block (a private key block is a rule of its own).
    if value.startswith("AAAA") or _inside_public_block(text, m.start()):
        return False
    # A minisign / signify public key is "RW" and 54 more base64 characters (their secret
    # keys are far longer); secrets s39 look-alike.
    if len(value) == 56 and value.startswith("RW"):
        return False
    # A CAPTCHA site key (`data-sitekey="6Lc…"`, `siteKey: …`) is public by design: served in
    # every page of the site; its secret key has the same shape and is named otherwise
    # (secrets s41 look-alike).
    if _SITE_KEY_NAME_RE.search(text, max(0, m.start() - 24), m.start()):
        return False
    digits = sum(c.isdigit() for c in value)
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    if min(digits, upper, lower) < 3 or not random_body(value) or is_dummy_token(value):
        return False
    return not encoded_text(value) and not _named_id(text, m.start())


_SITE_KEY_NAME_RE = re.compile(r"site[-_ ]?key[\"']?[ \t]{0,3}[:=]?[ \t]{0,3}[\"']?\Z", re.I)
_ID_WORDS = frozenset(("id", "ids", "openid", "unionid", "uid", "guid", "uuid"))
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_ID_REACH = 64


def _named_id(text: str, start: int) -> bool:
    """The value at `start` is given as an id: `openid`, `unionid 是 …`, `"user_id": "…"`,
    `deploymentId=…`, `Team ID …`, and no credential's id (`secret_id`, `access_key_id`: see
    key_profile).

    Trigger: a WeChat unionid `o6_bmBb…` after its name (secrets s42 look-alike). Why: its
    shape is a vendor token's, but an openid or unionid names a user to an app, like any id;
    it grants nothing. (Read backwards from the value, a bounded walk: a regex searched over
    the window cost ~10 us a token inside a private key block.)"""
    lo = max(0, start - _ID_REACH)
    i = _skip_back(text, start, lo, " \t\"'“「")
    if i > lo and text[i - 1] in ":=：是为為":
        i -= 1
    elif text.endswith((" is", " are"), lo, i):
        i = text.rfind(" ", lo, i)
    i = end = _skip_back(text, i, lo, " \t\"'")
    while i > lo and text[i - 1] in _NAME_CHARS:
        i -= 1
    name = text[i:end]
    low, camel = name.lower(), name.removesuffix("s")
    is_id = (
        low in _ID_WORDS
        or low.endswith(("_id", "-id", ".id", "_ids", "-ids"))
        # `userId`, `teamID`; not `PAID`, `VALID`.
        or (len(camel) > 2 and camel.endswith(("Id", "ID")) and not camel[-3].isupper())
    )
    if not is_id or key_profile(name) is not None:
        return False
    # The words before a spaced name are part of it: `user id`, but `secret id`, `access key
    # id` name a credential's id half.
    for _ in range(2):
        word_end = i - 1
        i = word_end
        while i > lo and text[i - 1] in _ASCII_LETTERS:
            i -= 1
        if word_end < 1 or text[word_end] not in " \t" or not 2 <= word_end - i <= 20:
            break
        name = f"{text[i:word_end]}_{name}"
        if key_profile(name) is not None:
            return False
    return True


def _skip_back(text: str, i: int, lo: int, chars: str) -> int:
    """`i` moved back over the characters of `chars`, not below `lo`."""
    while i > lo and text[i - 1] in chars:
        i -= 1
    return i


_PEM_BEGIN_RE = re.compile(r"-----BEGIN ([A-Z ]{3,40})-----")


def _inside_public_block(text: str, pos: int) -> bool:
    begin = text.rfind("-----BEGIN ", 0, pos)
    if begin == -1 or text.find("-----END ", begin, pos) != -1:
        return False
    head = _PEM_BEGIN_RE.match(text, begin)
    return head is not None and "PRIVATE" not in head.group(1)


def _not_placeholder(_m: re.Match[str], _text: str, value: str) -> bool:
    return not is_placeholder(value)


def _always(_m: re.Match[str], _text: str, _value: str) -> bool:
    return True


def _check_url_password(m: re.Match[str], text: str, value: str) -> bool:
    has_scheme = m.start() > 0 and text[m.start() - 1] in _ALNUM
    return has_scheme and not is_placeholder(value)


def _check_dsn_password(_m: re.Match[str], _text: str, value: str) -> bool:
    return not is_placeholder(value)


def _check_key_pair(m: re.Match[str], _text: str, value: str) -> bool:
    return looks_random(m["pair"]) and not is_placeholder(value)


def _check_url_user(m: re.Match[str], text: str, value: str) -> bool:
    has_scheme = m.start() > 0 and text[m.start() - 1] in _ALNUM
    return has_scheme and random_body(value) and not is_placeholder(value)


def _check_sas(m: re.Match[str], text: str, _value: str) -> bool:
    return m.start() > 0 and text[m.start() - 1] in "?&;"


def _check_authorization(m: re.Match[str], _text: str, value: str) -> bool:
    if is_placeholder(value):
        return False
    if m["scheme"]:
        return len(value) >= 6 and not is_stopword(value)
    return looks_random(value)


def _check_cli(_m: re.Match[str], _text: str, value: str) -> bool:
    if len(value) < 3 or PORT_RE.match(value):
        return False
    return plausible_value(value, bare=False, key="")


# Path segments that name what a hash after them is: no key.
_HASH_NAMES = frozenset(
    re.findall(
        r"\S+",
        "commit commits blob blobs tree trees sha shas ref refs status statuses tx txs transaction"
        " transactions block blocks hash hashes digest digests checksum checksums object objects"
        " revision revisions rev changeset changesets build builds artifact artifacts file files"
        " download downloads release releases version versions image images layer layers"
        " manifest manifests tag tags compare md5 sha1 sha256 etag",
    )
)


# A REST collection's name: a plain plural noun (zones, accounts, members, dns_records).
_COLLECTION_RE = re.compile(r"[a-z][a-z_]{1,30}s")
# Collections whose members are themselves credentials: their ids stay masked.
_SECRET_COLLECTIONS = frozenset(
    ("keys", "apikeys", "api_keys", "tokens", "secrets", "credentials", "passwords", "auths")
)


def _names_member(before: str) -> bool:
    """The segment before a hex one is a collection of resources, so the hex is the id of one
    of them (Cloudflare's /zones/<zone id>/purge_cache, Mailchimp's /members/<hash>)."""
    return _COLLECTION_RE.fullmatch(before) is not None and before not in _SECRET_COLLECTIONS


def _check_path_key(m: re.Match[str], _text: str, value: str) -> bool:
    """A key in an API's path: the segment before it names no hash and no collection whose
    member it would be, and it mixes digits and letters as a generated key does."""
    before = m.string[: m.start("s") - 1].rsplit("/", 1)[-1].casefold()
    digits = sum(c.isdigit() for c in value)
    if before in _HASH_NAMES or _names_member(before):
        return False
    return 3 <= digits <= len(value) - 3


_HOOK_SEPARATOR_RE = re.compile(r"[/@.]")


def _check_webhook_path(_m: re.Match[str], _text: str, value: str) -> bool:
    """A hook URL's path holds a UUID or a generated segment of 16+ characters."""
    segments = (seg for seg in _HOOK_SEPARATOR_RE.split(value) if len(seg) >= 16)
    return any(_UUID_AT_RE.fullmatch(seg) or random_body(seg) for seg in segments)


def _check_query_key(_m: re.Match[str], _text: str, value: str) -> bool:
    return (_UUID_AT_RE.fullmatch(value) is not None or looks_random(value)) and not is_dummy_token(
        value
    )


def _check_vendor(m: re.Match[str], text: str, value: str) -> bool:
    """`<vendor>_<random>`: a short prefix that is no identifier's, then a generated body, not
    given as an id (`unionid 是 o6_…`)."""
    if not _after_name(text, m.start()):
        return False
    if not vendor_prefix_ok(m["pfx"]) or is_dummy_token(value):
        return False
    # Trigger: a body in parts (`or-v1-<64 hex>`, `auth-<17>-<32>`). Why: short version or
    # kind words dilute the body's randomness; its longest part carries it.
    body = m["body"]
    generated = random_body(body) or random_body(max(re.split(r"[_\-.]", body), key=len))
    return generated and not _named_id(text, m.start())


_PASSWORD_NOUNS = ("pass", "pw", "pwd")


def _check_copula(m: re.Match[str], text: str, value: str) -> bool:
    """`the admin password is X`, `my token for the registry: X`: prose stating a value.
    A password must not be a plain word (`is stored`, `is on the whiteboard`); any other
    secret must look generated."""
    if not plausible_value(value, bare=m.start("bare") != -1, key=m["key"]):
        return False
    if m["key"].startswith(_PASSWORD_NOUNS):
        core = value.rstrip(".,:;!?")  # "… only the password is masked." ends a sentence
        # Letters only read as prose (`is required`) unless they read as no word.
        letters = core.isalpha() and not random_letters(core)
        return len(core) >= 6 and not letters and not is_stopword(core)
    return looks_random(value)


def _check_pair_label(m: re.Match[str], text: str, value: str) -> bool:
    return plausible_value(value, bare=m.start("bare") != -1, key="sk") and looks_random(value)


def _check_basic_pair(m: re.Match[str], text: str, value: str) -> bool:
    core = value.strip()
    letters = core.isalpha() and not random_letters(core)
    return plausible_value(core, bare=False, key="password") and len(core) >= 6 and not letters


_LOGIN_WORDS = ("账号", "帐号", "账户", "帳號", "登录", "登陆", "登入")
_LOGIN_HINTS = ("log", "cred", "account", "acct", *_LOGIN_WORDS)
_VERSION_RE = re.compile(r"^v?\d+(?:\.\d+)+[a-z]?$", re.ASCII)


def _check_login_pair(_m: re.Match[str], _text: str, value: str) -> bool:
    """The password of a `user / password` pair: a letter and a digit or symbol, not a
    version, a placeholder, a path or a word."""
    core = value.rstrip(".,:;!?")
    if len(core) < 6 or _VERSION_RE.match(core) or not any(c.isalpha() for c in core):
        return False
    if (core.isalpha() and not random_letters(core)) or not plausible_value(
        core, bare=True, key="password"
    ):
        return False
    return not is_stopword(core)


_NETRC_RE = re.compile(r"(?<![a-z])(?:machine|login|default)[ \t]", re.ASCII)


def _check_secrets_line(_m: re.Match[str], _text: str, value: str) -> bool:
    """The third word of a `<resource> <user> <secret>` line looks like a password: 8+
    characters, a letter and a digit, both cases or a symbol, no `=` (a mount option)."""
    if len(value) < 8 or "=" in value or not plausible_value(value, bare=True, key="password"):
        return False
    digit, upper, lower = char_classes(value)
    symbol = any(not c.isalnum() for c in value)
    return digit and (upper or lower) and ((upper and lower) or symbol)


def _check_signing_key(_m: re.Match[str], _text: str, value: str) -> bool:
    """A signing key literal: 12+ characters, no placeholder or plain word."""
    core = value.strip()
    letters = core.isalpha() and not random_letters(core)
    return len(core) >= 12 and not letters and plausible_value(core, bare=False, key="secret")


_HEX_CHARS = frozenset(string.hexdigits)


def _check_client_literal(_m: re.Match[str], _text: str, value: str) -> bool:
    """A generated literal: a random body, or 16+ hex with 3+ digits and 3+ letters (24-hex
    app secrets are too short for random_body's 32); no UUID, no sample, no readable base64."""
    if is_dummy_token(value):
        return False
    if _UUID_AT_RE.fullmatch(value):
        # A UUID alone in the call is the client's token (Postmark's server token: `new
        # PostmarkClient('<uuid>')`, secrets s51); beside other arguments it is an id.
        before, after = _text[: _m.start()].rstrip(), _text[_m.end() :].lstrip()
        return before.endswith("(") and after.startswith(")")
    if set(value) <= _HEX_CHARS:
        digits = sum(c.isdigit() for c in value)
        return len(value) >= 16 and digits >= 3 and len(value) - digits >= 3
    return random_body(value) and not encoded_text(value)


# `PASSWORD`, `NEW_PASS`, `DB_SECRET`: a placeholder in the documentation's style.
_SCREAMING_WORD_RE = re.compile(r"[A-Z][A-Z_]*")


def _check_command_password(m: re.Match[str], _text: str, value: str) -> bool:
    """A listed command's password word: 4+ characters, no placeholder, variable, port, flag
    or path; unquoted, no plain lower-case word either (prose goes on after `upx login`)."""
    core = value.strip()
    if len(core) < 4 or PORT_RE.match(core) or _SCREAMING_WORD_RE.fullmatch(core):
        return False
    if is_stopword(core):
        return False
    if m.start("bare") == -1:
        return plausible_value(core, bare=False, key="password")
    return value_ok(core, "pass", bare=True, key="password")


def _check_securestring(m: re.Match[str], _text: str, value: str) -> bool:
    """A literal of 4+ characters, no placeholder or variable (`$env:PW`), no expression
    (`(Get-Content pw.txt)`) or path."""
    bare = m.start("bare") != -1
    return len(value) >= 4 and plausible_value(value, bare=bare, key="password")


def _defined_name(m: re.Match[str], text: str) -> str:
    group = "key" if m.start("key") != -1 else "ckey"
    return text[m.start(group) : m.end(group)]


def _check_defined_constant(m: re.Match[str], text: str, value: str) -> bool:
    """A secret-named constant's literal, judged as an assignment's quoted value would be."""
    key = _defined_name(m, text)
    profile = key_profile(key)
    return profile is not None and value_ok(value, profile[1], bare=False, key=key)


def _defined_constant_kind(m: re.Match[str], text: str) -> str:
    profile = key_profile(_defined_name(m, text))
    return profile[0] if profile else "generic-secret"


def _check_header_value(_m: re.Match[str], _text: str, value: str) -> bool:
    """An OTLP header's credential: 8+ characters, no placeholder (`${HONEYCOMB_KEY}`)."""
    return (
        len(value) >= 8
        and plausible_value(value, bare=False, key="")
        and not (is_dummy_token(value))
    )


# A bare value that is a name in code (`apiKey`, `process.env.HONEYCOMB_KEY`), not a literal.
_CODE_NAME_RE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")


def _check_header_block_value(m: re.Match[str], text: str, value: str) -> bool:
    """A credential header's value in a headers map: 8+ characters, no placeholder
    (`${env:HONEYCOMB_API_KEY}`, `<your-key>`); unquoted, no name in code unless it looks
    generated (a YAML value is unquoted too: `x-honeycomb-team: pKM1…`)."""
    if not _check_header_value(m, text, value):
        return False
    quoted = m.start() > 0 and text[m.start() - 1] in "'\""
    if quoted or not _CODE_NAME_RE.match(value):
        return True
    return random_body(value) or looks_random(value)


def _pushover_key(value: str) -> bool:
    """30 letters and digits, generated: the letters read as no word (a name of 30 letters,
    `harbourmasteropsnotifications1`, does), or 3+ digits and a random look; no sample.

    Trigger: `user=u8vz…` with two digits (round 43: 3+ digits were needed, and a key of
    random letters and digits has fewer one time in nine)."""
    if is_dummy_token(value):
        return False
    letters = "".join(c for c in value if c.isalpha())
    digits = len(value) - len(letters)
    return random_letters(letters) or (digits >= 3 and looks_random(value))


# The slot right before a Pushover key: a PUSHOVER_* name, user/group key, app/application/api
# token or key, or a bare user/token; then `:`, `=` or `is` (read back from the key).
_PUSHOVER_SLOT_RE = re.compile(
    r"(?<![a-z0-9_])(?P<name>pushover[_\-]?[a-z_\-]{0,24}|(?:user|group)[ _\-]?key"
    r"|app(?:lication)?[ _\-]?(?:token|key)|api[ _\-]?token|user|token)"
    r"\\?[\"']?(?:[ \t]{0,3}[:=]|[ \t]{1,3}is)[ \t]{0,3}\\?[\"']?\Z"
)
_SLOT_REACH = 48


def _check_pushover_key(m: re.Match[str], text: str, value: str) -> bool:
    """A generated key (_pushover_key) in a Pushover slot; under a bare `user` or `token`,
    in a text about Pushover only (elsewhere they are a login's or any service's)."""
    slot = _PUSHOVER_SLOT_RE.search(m.string, max(0, m.start() - _SLOT_REACH), m.start())
    if slot is None or (slot["name"] in ("user", "token") and "pushover" not in m.string):
        return False
    return _pushover_key(value)


def _check_pushover_url(_m: re.Match[str], _text: str, value: str) -> bool:
    user, _at, token = value.partition("@")
    return _pushover_key(user) or _pushover_key(token)


_ALNUM_BYTES = _ALNUM.encode()
_ALNUM_CLASSES = bytes(ord("a") if b in _ALNUM_BYTES else ord(" ") for b in range(256))
_KEY_RUN = b"a" * 30


def _pushover_starts(lowered: str, _text: str) -> list[int]:
    """Offsets of runs of exactly 30 letters and digits (found with str.find on a copy of the
    text mapped to one letter per class; finding the slot words first cost ~9 us a turn:
    `user`, `api` and `token` are in most texts, and looking for them as hints ~2)."""
    mapped = _ascii(lowered).translate(_ALNUM_CLASSES)
    starts = []
    i = mapped.find(_KEY_RUN)
    while i != -1:
        end = mapped.find(b" ", i)
        if (end == -1 and len(mapped) - i == 30) or end - i == 30:
            starts.append(i)
        if end == -1:
            break
        i = mapped.find(_KEY_RUN, end)
    return starts


def _check_auth_file_password(m: re.Match[str], text: str, value: str) -> bool:
    """A password line: nothing names it, so it must look like one (_check_secrets_line: 8+
    characters, a letter and a digit, both cases or a symbol); `persist-tun` is a directive."""
    return _check_secrets_line(m, text, value)


def _check_positional_key(m: re.Match[str], text: str, value: str) -> bool:
    """A key given as a command's word: 8+ characters with a digit, no placeholder or flag."""
    return len(value) >= 8 and any(c.isdigit() for c in value) and _check_cli(m, text, value)


# A crypt(3) hash: `$6$salt$…` (SHA-512), `$5$`, `$1$`, `$2b$10$…` (bcrypt), `$y$` (yescrypt),
# `$apr1$`; it opens with `$` like a variable, but can be cracked offline.
_CRYPT_RE = re.compile(r"\$(?:1|2[abxy]?|5|6|7|y|gy|apr1)\$[./0-9A-Za-z$]{8,}")


def _check_userlist(m: re.Match[str], text: str, value: str) -> bool:
    """A userlist's password or crypt hash, on a line that opens with `user`."""
    if text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip():
        return False
    return _CRYPT_RE.fullmatch(value) is not None or _check_cli(m, text, value)


def _check_sql(m: re.Match[str], text: str, value: str) -> bool:
    """A password literal, not a bind or substitution variable (`:pw`, `&pw`, `?`)."""
    return not value.startswith((":", "&", "?")) and _check_cli(m, text, value)


def _check_spaced(m: re.Match[str], text: str, value: str) -> bool:
    """`NAME VALUE` with only a space between (netrc, .pgpass-like prose, CLI output): a
    password line of a netrc file, or a generated value after any secret name."""
    key = _key_of(m, text)
    profile = key_profile(key)
    # `token expiry`, `password field`: prose; random letters are not (round 43).
    letters = value.isalpha() and not random_letters(value)
    if profile is None or letters:
        return False
    # Trigger: `/p:$RDP_PASSWORD /size:1920x1080`. Why: a variable's use, not a name given the
    # word after it; that word is the command's next argument.
    if text[m.start() - 1 : m.start()] in ("$", "%"):
        return False
    if profile[0] == "password" and _NETRC_RE.search(text, max(0, m.start() - 200), m.start()):
        return value_ok(value, "pass", bare=True, key=key)
    if not random_letters(value) and (len(value) < 12 or not any(c.isdigit() for c in value)):
        return False
    return looks_random(value) and plausible_value(value, bare=True, key=key)


def _check_pgpass(_m: re.Match[str], _text: str, value: str) -> bool:
    return not is_placeholder(value) and _PGPASS_NOT_RE.match(value) is None


# A MAC address or a time split at colons is no .pgpass line.
_PGPASS_NOT_RE = re.compile(r"^[0-9a-f:]+$", re.IGNORECASE)


def _rule(
    kind: str,
    tier: int,
    pattern: str,
    check: Check = _real_token,
    *,
    hints: tuple[str, ...] = (),
    left: str = _ALNUM,
    lower: bool = False,
    kind_of: KindOf | None = None,
    starts: Starts | None = None,
) -> _Rule:
    compiled = re.compile(pattern, re.ASCII)
    groups = tuple(g for g in _VALUE_GROUPS if g in compiled.groupindex)
    return _Rule(kind, tier, compiled, check, hints, left, lower, kind_of, starts, groups)


def _token(
    kind: str,
    pattern: str,
    check: Check = _real_token,
    left: str = _ALNUM,
    hints: tuple[str, ...] = (),
) -> _Rule:
    """A provider token recognisable by its own shape: the whole match is the secret."""
    return _rule(kind, _SPECIFIC, pattern + _RIGHT, check, left=left, hints=hints)


# --- The catalogue -----------------------------------------------------------------------------
# Each rule: Trigger (what the text looks like) / Why (what makes it a secret, not a look-alike).
# Rules with lower=True see the lower-cased text; their checks still get the original slice.

_RULES: tuple[_Rule, ...] = (
    # Trigger: -----BEGIN <any> PRIVATE KEY[ BLOCK]----- up to its END line, or to the end of the
    # text when the paste was cut off. Why: RSA/EC/OPENSSH/PGP/PKCS#8 keys; public keys and
    # certificates have no PRIVATE in the header and stay.
    _rule(
        "private-key",
        _SPECIFIC,
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[^-]++|-(?!----END))*+"
        r"(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
        _always,
        left="",
    ),
    # Trigger: a PuTTY key file's `Private-Lines: N` and the base64 lines under it (64 to a
    # line, the last shorter), and its `Private-MAC:` / `Private-Hash:` (v1). Why: the private
    # half of the key (encrypted or not), and the MAC that lets a passphrase be tested offline;
    # the Public-Lines, the comment and the Argon2 salt stay (secrets s40).
    _rule(
        "private-key",
        _SPECIFIC,
        r"Private-Lines:[ \t]{0,3}\d{1,4}[ \t]{0,3}\r?\n"
        r"(?P<s>(?:[A-Za-z0-9+/]{64}\r?\n){0,200}[A-Za-z0-9+/]{1,64}={0,2})(?=[ \t]*(?:\r?\n|$))",
        left="",
        hints=("private-lines",),
    ),
    _rule(
        "private-key",
        _SPECIFIC,
        r"Private-(?:MAC|Hash):[ \t]{0,3}(?P<s>[0-9a-fA-F]{20,128})" + _RIGHT,
        left="",
        hints=("private-",),
    ),
    # Trigger: a private key as bare base64 DER, with no PEM lines around it: PKCS#8
    # ("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC…", an RSA key; "MIGHAgEAMBMGByqGSM49…", an EC key;
    # "MC4CAQAwBQYDK2VwBCIEI…", Ed25519) and PKCS#1 RSA ("MIIEpAIBAAKCAQEA…"), as SDKs take it
    # (`cfg.setPrivateKey("MIIEvQ…")` for Alipay, WeChat Pay; secrets s52). Why: the DER opens
    # with the key's version 0 (IBA…), which a public key (SPKI "MIIBIjANBgkqhkiG9w0BAQEFAAOC…")
    # or a certificate never has; those stay.
    _rule(
        "private-key",
        _SPECIFIC,
        r"(?:MII[A-Za-z0-9+/]{3}IBA(?:DAN|AKC)|MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49"
        r"|MC4CAQAwBQYDK2Vw)(?:[A-Za-z0-9+/]|\\/){40,}"
        # the rest of a key broken into lines (64 a line, as openssl writes it)
        r"(?:\r?\n[ \t]*(?:[A-Za-z0-9+/]|\\/){60,76}(?=[ \t]*\r?\n))*"
        r"(?:\r?\n[ \t]*(?:[A-Za-z0-9+/]|\\/){1,76})?={0,2}" + _RIGHT,
        _always,
        hints=("mii", "mig", "mc4caqaw"),
    ),
    # Trigger: AKIA/ASIA/ABIA/ACCA + 16 upper-case alphanumerics. Why: AWS access key id.
    _token("aws-access-key", r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}"),
    # Trigger: LTAI + 12-30 alphanumerics (Alibaba Cloud AccessKey ID), AKID + 32 (Tencent Cloud
    # SecretId), GOOG1 + 20-70 upper-case alphanumerics (a Google Cloud Storage HMAC access id).
    # Why: the id half of a cloud key pair, recognisable by its prefix wherever it is pasted
    # (a Chinese sentence, a .boto file); e2e-heldout11, secrets s38.
    _token("cloud-access-key-id", r"LTAI[A-Za-z0-9]{12,30}", _mixed_token, hints=("ltai",)),
    _token("cloud-access-key-id", r"AKID[A-Za-z0-9]{32}", _mixed_token, hints=("akid",)),
    _token("cloud-access-key-id", r"GOOG1[A-Z0-9]{20,70}", hints=("goog1",)),
    # Trigger: Tencent Cloud IM's UserSig signer given its app id and key: `new
    # TLSSigAPIv2.Api(1400…, '<64 hex>')`, `TLSSigAPIv2(1400…, "…")`, Go's `GenUserSig(1400…,
    # "…", …)` (secrets s45). Why: the key signs every user's login ticket; it is an argument,
    # no name beside it.
    _rule(
        "generic-secret",
        _SPECIFIC,
        r"(?:tlssigapi(?:v2)?(?:\.api)?|genusersig\w{0,20})[ \t]{0,3}\([ \t]{0,3}\d{6,12}"
        r"[ \t]{0,3},[ \t]{0,3}[\"'](?P<s>[0-9a-z]{32,128})[\"']",
        hints=("tlssigapi", "genusersig"),
        lower=True,
        left="",
    ),
    # Trigger: dapi + 32 hex (an optional -N suffix). Why: Databricks personal access token.
    _token("databricks-token", r"dapi[0-9a-f]{32}(?:-\d{1,2})?", hints=("dapi",)),
    # Trigger: 40 base64 characters after an aws…secret…key name. Why: AWS secret keys have no
    # prefix, so only the name makes them recognisable.
    _rule(
        "aws-secret-key",
        _SPECIFIC,
        r"(?:aws[a-z0-9_.\-]{0,20}?secret[a-z0-9_.\-]{0,20}?key|secretaccesskey)"
        r"\\?[\"']?(?:[ \t]{0,3}(?:[:=]|=>)[ \t]{0,3}|[ \t]{1,3})\\?[\"']?"
        r"(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        hints=("aws", "secretaccesskey"),
        lower=True,
    ),
    # Trigger: gh[pousr]_ + 36+ alphanumerics. Why: GitHub classic PAT, OAuth, user-to-server,
    # server-to-server and refresh tokens.
    _token("github-token", r"gh[pousr]_[A-Za-z0-9]{36,251}"),
    # Trigger: github_pat_ + 60+ characters. Why: GitHub fine-grained personal access token.
    _token("github-fine-grained-token", r"github_pat_[A-Za-z0-9_]{60,251}"),
    # Trigger: glpat-/gldt-/glrt-/… + 20+ characters. Why: GitLab personal, deploy, runner tokens.
    _token("gitlab-token", r"gl(?:pat|dt|rt|ptt|ft|soat|cbt)-[A-Za-z0-9_\-]{20,64}"),
    # Trigger: pat + 14 alphanumerics + `.` + 64 hex. Why: an Airtable personal access token
    # (its id, then its secret; secrets s43): the prefix is too long for the vendor-token shape,
    # and the `app…` base and `tbl…` table ids beside it are no secrets and stay.
    _token("airtable-token", r"pat[A-Za-z0-9]{14}\.[0-9a-f]{64}", hints=("pat",)),
    # Trigger: sk-ant- + 32+ characters. Why: Anthropic API and admin keys (before OpenAI's sk-).
    _token("anthropic-api-key", r"sk-ant-[A-Za-z0-9_\-]{32,200}", left=_WORDISH),
    # Trigger: sk-[proj-|svcacct-|admin-] + 32+ characters mixing digits and both cases.
    # Why: OpenAI keys; the mix rule keeps `sk-learn-…` style words out.
    _token(
        "openai-api-key",
        r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,200}",
        _mixed_token,
        left=_WORDISH,
    ),
    # Trigger: AIza + 35 characters. Why: Google API key.
    _token("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
    # Trigger: ya29. + 30+ characters. Why: Google OAuth access token.
    _token("google-oauth-token", r"ya29\.[0-9A-Za-z_\-]{30,2048}"),
    # Trigger: xox[abprse]- / xapp- + 10+ characters. Why: Slack bot, user, app, refresh and
    # config tokens; requiring digits and both cases keeps `xoxb-token` prose out.
    _token("slack-token", r"(?:xox[abprse]|xapp)-[0-9A-Za-z\-]{10,250}", _mixed_token),
    # Trigger: hooks.slack.com/services/… Why: the path is the credential; the host stays.
    _rule(
        "slack-webhook",
        _SPECIFIC,
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/\-]{20,300})",
    ),
    # Trigger: sk_/rk_ + live_/test_ + 16+ alphanumerics. Why: Stripe secret and restricted keys
    # (pk_ publishable keys are public and stay).
    _token("stripe-key", r"sk_(?:live|test)_[0-9A-Za-z]{16,250}"),
    _token("stripe-key", r"rk_(?:live|test)_[0-9A-Za-z]{16,250}"),
    # Trigger: whsec_ + 24+ alphanumerics. Why: Stripe webhook signing secret.
    _token("stripe-webhook-secret", r"whsec_[0-9A-Za-z]{24,64}"),
    # Trigger: sdk- or api- + a UUID. Why: LaunchDarkly's server-side SDK key and API access
    # token are a UUID under that prefix (a bare UUID is an id and stays; mob- keys are meant to
    # ship inside apps); secrets s39.
    _token(
        "launchdarkly-key",
        r"(?:sdk|api)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        _always,
        left=_WORDISH,
        hints=("sdk-", "api-"),
    ),
    # Trigger: SK + 32 hex, AC + 32 hex. Why: Twilio API key SID, and the account SID, which
    # is the user-name half of the account's basic auth beside its auth token, like an access
    # key id (e2e-heldout13; an id of that exact shape means nothing else).
    _token("twilio-api-key", r"SK[0-9a-fA-F]{32}"),
    _token("twilio-account-sid", r"AC[0-9a-f]{32}", hints=("ac",)),
    # Trigger: SEC + 64 lower-case hex (a DingTalk robot's signing secret, 加签), under a
    # label no rule knows (`加签: SEC…`, secrets s57, e2e-heldout31 h31x02). Why: the robot's
    # own shape; 64 hex alone is a SHA-256 and stays, but no hash opens with SEC.
    _token("dingtalk-secret", r"SEC[0-9a-f]{64}", hints=("sec",)),
    # Trigger: 32 hex after a twilio…token/secret name. Why: auth tokens have no prefix.
    _rule(
        "twilio-auth-token",
        _SPECIFIC,
        r"twilio[a-z0-9_.\-]{0,24}?(?:token|secret)\\?[\"']?[ \t]{0,3}(?:[:=]|=>)"
        r"[ \t]{0,3}\\?[\"']?(?P<s>[0-9a-f]{32})(?![a-z0-9])",
        lower=True,
    ),
    # Trigger: SG.<22>.<43>. Why: SendGrid API key.
    _token("sendgrid-api-key", r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}"),
    # Trigger: npm_ + 36 alphanumerics. Why: npm access token.
    _token("npm-token", r"npm_[A-Za-z0-9]{36}"),
    # Trigger: pypi-AgE + 50+ characters. Why: PyPI / TestPyPI macaroon (base64 of "pypi.org").
    _token("pypi-token", r"pypi-AgE[A-Za-z0-9_\-]{50,300}"),
    # Trigger: hf_ / api_org_ + 34–40 letters of both cases. Why: Hugging Face tokens.
    _token("huggingface-token", r"hf_[A-Za-z0-9]{34,40}", _cased_token),
    _token("huggingface-token", r"api_org_[A-Za-z0-9]{34,40}", _cased_token),
    # Trigger: base64(user id).<6>.<27–40>, starting M/N/O. Why: Discord bot token.
    _token(
        "discord-bot-token",
        r"[MNO][A-Za-z0-9_\-]{23,27}+\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}",
        _mixed_token,
        left=_WORDISH + ".",
    ),
    # Trigger: discord.com/api/webhooks/<id>/<token>. Why: the token part is the credential.
    _rule(
        "discord-webhook",
        _SPECIFIC,
        r"discord(?:app)?\.com/api/webhooks/\d{5,30}/(?P<s>[A-Za-z0-9_\-]{50,100})",
    ),
    # Trigger: a chat webhook URL (Feishu/Lark `…/bot/v2/hook/<id>`, Teams `webhookb2/…`,
    # Mattermost-style `/hooks/<id>`, `/webhook/`, `/webhooks/`): the path after the hook word.
    # Why: whoever has the URL can post as the bot; a generated segment (a UUID, 16+ random
    # characters) is required, so a numbered hook page (`settings/hooks/4123`) stays.
    _rule(
        "webhook-url",
        _SPECIFIC,
        r"/(?:hooks?|webhooks?|webhookb2)/(?:\d{1,30}/)?(?=[A-Za-z0-9_\-@.]{16})(?P<s>[A-Za-z0-9_\-@./]{16,400}+)",
        _check_webhook_path,
        left="",
        hints=("hook",),
    ),
    # Trigger: `?key=` / `&key=` in a URL with a generated value (WeCom's webhook, many APIs),
    # and the other short key names of query strings: `ak=` (Baidu Maps), `sk=`, `appkey=`,
    # `app_key=`, `accesskey=`, `secret_key=` (secrets s42). Why: a bare `key` or `ak` is
    # ambiguous in code (a dict key, a sort key), but a random value in a query string is an
    # API key. Outcome: short or readable values (`?sk=price`, `&key=name`) stay.
    _rule(
        "url-query-key",
        _SPECIFIC,
        r"[?&](?:key|api[_\-]?key|app[_\-]?key|access[_\-]?key|secret[_\-]?key|ak|sk)="
        r"(?P<s>[A-Za-z0-9_\-]{16,256})(?![A-Za-z0-9_\-])",
        _check_query_key,
        left="",
        lower=True,
        starts=_query_starts,
    ),
    # Trigger: AccountKey= / SharedAccessKey= in a connection string. Why: Azure storage and
    # Service Bus keys (base64).
    _rule(
        "azure-storage-key",
        _SPECIFIC,
        r"(?:accountkey|sharedaccesskey)[ \t]{0,3}=[ \t]{0,3}(?P<s>[a-z0-9+/]{20,200}={0,2})",
        hints=("accountkey", "sharedaccesskey"),
        lower=True,
    ),
    # Trigger: ?sig= / &sig= in a URL. Why: an Azure SAS signature grants access by itself.
    _rule(
        "azure-sas-signature", _SPECIFIC, r"sig=(?P<s>[A-Za-z0-9%+/=]{20,300})", _check_sas, left=""
    ),
    # Trigger: dop_v1_/doo_v1_/dor_v1_ + 64 hex. Why: DigitalOcean tokens.
    _token("digitalocean-token", r"do[opr]_v1_[a-f0-9]{64}"),
    # Trigger: shpat_/shpss_/shpca_/shppa_ + 32 hex. Why: Shopify access tokens and secrets.
    _token("shopify-token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    # Trigger: key- + 32 hex. Why: Mailgun API key; a preceding word (`cache-key-…`) rules it out.
    _token("mailgun-api-key", r"key-[0-9a-f]{32}", left=_WORDISH),
    # Trigger: 32 hex, 8 hex, 8 hex joined by dashes. Why: Mailgun's private API keys since
    # 2021 (secrets s46); no UUID, hash or id has this shape.
    _token("mailgun-api-key", r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", left=_WORDISH),
    # Trigger: 8–10 digit bot id, ":AA", 33 more characters. Why: Telegram bot token.
    _rule(
        "telegram-bot-token",
        _SPECIFIC,
        rf"\d{{8,10}}:AA[0-9A-Za-z_\-]{{33}}{_RIGHT}",
        _mixed_token,
        hints=(":aa",),
    ),
    # ... and in the Bot API's URL, where "bot" runs into the id: api.telegram.org/bot<token>/
    # (secrets s48)
    _rule(
        "telegram-bot-token",
        _SPECIFIC,
        rf"/bot(?P<s>\d{{8,10}}:AA[0-9A-Za-z_\-]{{33}}){_RIGHT}",
        _mixed_token,
        hints=(":aa",),
        left="",
    ),
    # Trigger: eyJ….eyJ….<sig>. Why: header and payload of a JWT are base64url JSON objects.
    _token(
        "jwt",
        r"eyJ[A-Za-z0-9_\-]{8,4096}\.eyJ[A-Za-z0-9_\-]{2,16384}\.[A-Za-z0-9_\-]{0,4096}",
        left=_WORDISH,
    ),
    # Trigger: a NATS NKEY seed: S, the key's type (U user, A account, O operator, N server, C
    # cluster, X curve), A, then 55 base32 characters, bare or inside a `-----BEGIN USER NKEY
    # SEED-----` block (a .creds file). Why: the seed is the private key that signs a NATS
    # connection (secrets s41); public nkeys (U…/A…/N…, 56 characters) and the user JWT stay.
    _token("nkey-seed", r"S[UAONCX]A[A-Z2-7]{55}", left=_ALNUM + "_-"),
    # Trigger: scheme://user:password@host. Why: credentials in DSNs and clone URLs; the user
    # and host are kept for context and only the password is masked.
    _rule(
        "url-password",
        _STRUCTURAL,
        rf"://(?P<user>[^\s:/@'\"<>{_NON_ASCII}]{{0,128}}):"
        rf"(?P<s>[^\s/'\"<>{_NON_ASCII}]{{1,256}})@(?=[A-Za-z0-9\[_])",
        _check_url_password,
        left="",
    ),
    # Trigger: GOV.UK Notify's API key, <key name>-<service id>-<secret>, two UUIDs after a
    # name ("ferrylive-d6f5…-d79a…"). Why: the whole string is the key (e2e-heldout23 h23c03
    # stored one said in prose); no id has two UUIDs run together.
    _token(
        "notify-api-key",
        # (bounded: an unbounded run would be tried from every offset of a long word)
        r"(?<![A-Za-z0-9_-])[A-Za-z0-9_]{1,40}(?:-[A-Za-z0-9_]{1,40}){0,4}?-" + _UUID + "-" + _UUID,
        left=_ALNUM + "_-",
    ),
    # Trigger: a client built from an access key id and its secret, both literals, in that
    # order (`obs.New("8YPN…", "lnJz…", endpoint)`, e2e-heldout23 h23g04). Why: the secret is
    # masked by its shape and the id beside it is the other half of the credential.
    _rule(
        "cloud-access-key-id",
        _STRUCTURAL,
        r"\(\s*(?P<q>[\"'`])(?P<s>(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{16,40})(?P=q)\s*,\s*"
        r"[\"'`](?P<pair>[A-Za-z0-9/+=_-]{30,})[\"'`]",
        _check_key_pair,
        hints=("(",),
        left="",
    ),
    # Trigger: a database connection made with positional arguments, the password third:
    # `new PDO('mysql:…', 'user', 'pass')`, `mysqli_connect('host', 'user', 'pass', 'db')`
    # (secrets s49). Why: no name says it is a password, the call does.
    _rule(
        "db-password",
        _STRUCTURAL,
        r"\b(?:new\s+PDO|new\s+mysqli|mysqli_connect|mysql_connect|pg_connect)\s*\(\s*"
        r"(?P<q1>['\"])[^'\"]*(?P=q1)\s*,\s*(?P<q2>['\"])[^'\"]*(?P=q2)\s*,\s*"
        r"(?P<q3>['\"])(?P<s>[^'\"\s]{1,256})(?P=q3)",
        _check_dsn_password,
        hints=("pdo", "mysqli", "mysql_connect", "pg_connect"),
    ),
    # Trigger: Windows' `net use [X:] \\\\host\\share <password> [/user:[dom\\]user]` and
    # `net use … /user:<user> <password>`; lftp's `-u <user>,<password>`. Why: the password is
    # a positional word of the command (round 51). Outcome: `*` (prompt for it), the share,
    # the drive, the user and switches (`/persistent:no`) stay.
    _rule(
        "cli-secret",
        _GENERIC,
        r"\bnet[ \t]{1,3}use(?:[ \t]{1,3}(?:[a-z]:|\*))?[ \t]{1,3}\\\\[^\s]{1,256}"
        r"(?:[ \t]{1,3}/user:[^\s]{1,128})?[ \t]{1,3}(?!/)" + _VALUE,
        _check_cli,
        lower=True,
        hints=("net use",),
    ),
    _rule(
        "cli-secret",
        _GENERIC,
        r"\blftp\b[^\n]{0,200}?[ \t]-u[ \t]{1,3}[^\s,\"']{1,64},(?P<s>[^\s\"']{1,256})",
        _check_cli,
        lower=True,
        hints=("lftp",),
    ),
    # Trigger: Go's MySQL DSN, user:password@tcp(host:port)/db (no scheme). Why: the
    # password sits where a URL's would, after the user and before "@tcp(" (e2e-heldout22
    # h22x02 stored one); the user, host and database stay.
    _rule(
        "dsn-password",
        _STRUCTURAL,
        r"(?P<user>[A-Za-z0-9_.\-]{1,64}):(?P<s>[^\s@'\"<>`]{1,256})@(?:tcp6?|udp|unix)\(",
        _check_dsn_password,
        hints=("@tcp(", "@tcp6(", "@udp(", "@unix("),
        left=_ALNUM + "_.-/",
    ),
    # Trigger: scheme://<user>@host or scheme://<user>:<anything>@host, the user name a
    # generated body (32 hex, 16+ base62). Why: services that authenticate by the user name
    # alone put the key there (error-tracker DSNs, a token as the git user with any password,
    # an API key as the basic-auth user); a person's or a service's name is no random body.
    _rule(
        "url-user-token",
        _STRUCTURAL,
        rf"://(?P<s>[A-Za-z0-9_\-.~%+]{{16,256}}+)(?::[^\s/@'\"<>{_NON_ASCII}]{{0,256}}+)?"
        r"@(?=[A-Za-z0-9\[_])",
        _check_url_user,
        left="",
    ),
    # Trigger: Authorization / Proxy-Authorization header or key. Why: Bearer/Basic/token
    # credentials; without a scheme word the value must look random.
    _rule(
        "authorization",
        _STRUCTURAL,
        r"authorization\\?[\"']?[ \t]{0,3}[:=][ \t]{0,3}\\?[\"']?"
        r"(?:(?P<scheme>bearer|basic|token|bot|digest|apikey|api-key|sso-key|ssws)[ \t]{1,3})?"
        r"(?P<s>[a-z0-9\-._~+/=:]{1,4096})",
        _check_authorization,
        left=_ALNUM + "_",
        lower=True,
    ),
    # Trigger: Cookie: / Set-Cookie: name=value… Why: session cookies are bearer credentials;
    # the whole header value is masked.
    _rule(
        "cookie",
        _STRUCTURAL,
        r"cookie\\?[\"']?[ \t]{0,3}:[ \t]{0,3}\\?[\"']?"
        r"(?P<s>[^\s=;,\"'\\]{1,256}=[^\r\n\"'\\]{1,4096})",
        _not_placeholder,
        left=_ALNUM + "_",
        lower=True,
    ),
    # Trigger: --password / --passphrase / --token / --api-key / --client-secret … value.
    # Why: secrets passed on command lines (docker login, vault, twine, psql wrappers, gpg
    # --passphrase; secrets s40). `--passphrase-file` / `-fd` name a file, not the secret.
    _rule(
        "cli-secret",
        _GENERIC,
        r"--(?:[a-z0-9]{1,20}[-_]){0,4}"
        r"(?:password|passwd|passphrase|passcode|pass|token|secret|api[-_]?key|access[-_]?key"
        r"|secret[-_]?key|private[-_]?key|credentials?|auth[-_]?(?:key|token))(?:=|[ \t]{1,3})"
        + _VALUE,
        _check_cli,
        left=_WORDISH,
        lower=True,
    ),
    # Trigger: mysql/mariadb … -p<password>, and the clients that took MySQL's flags: OceanBase's
    # obclient, TDengine's taos and taosdump (secrets s44: `obclient -h… -P2881 -uu@t#c
    # -p'…'`, `taos -h … -u root -p<pw>`), mysqlsh, mycli. Why: the password is glued to the
    # flag. Outcome: `-P2881` (a port) and `-p` alone (a prompt) stay.
    # (Two rules: with the names of all the tools in one pattern, opening with different
    # letters, `re` tried far more offsets; the MySQL one runs on every text, as it did.)
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:mysql[a-z]{0,6}|mariadb(?:-[a-z]{1,10})?|mycli)\b[^\n]{0,200}?[ \t]-p" + _VALUE,
        _check_cli,
        left=_WORDISH,
    ),
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:obclient|taos(?:dump)?)\b[^\n]{0,200}?[ \t]-p" + _VALUE,
        _check_cli,
        left=_WORDISH,
        hints=("obclient", "taos"),
    ),
    # Trigger: a client whose short password flag takes the password as its next word:
    # redis-cli -a, mosquitto_pub/_sub/_rr -P, mongo/mongosh/mongodump/… -p, rabbitmqadmin -p,
    # ldapsearch/ldapadd/… -w, zip -P, 7z -p<pw>. Why: the password on the command line, under
    # a one-letter flag each tool chose for itself (minisign's -P is a public key: not listed).
    *(
        _rule(
            "cli-secret",
            _GENERIC,
            tools + r"\b[^\n]{0,200}?[ \t]" + flag + _VALUE,
            _check_cli,
            left=_WORDISH,
            hints=hints,
        )
        for tools, flag, hints in (
            (r"redis-cli", r"-a[ \t]{1,3}", ("redis-cli",)),
            (r"mosquitto_(?:pub|sub|rr)", r"-P[ \t]{1,3}", ("mosquitto_",)),
            (
                r"(?:mongosh|mongo|mongodump|mongorestore|mongoexport|mongoimport)",
                r"-p[ \t]{1,3}",
                ("mongo",),
            ),
            (r"rabbitmqadmin", r"-p[ \t]{1,3}", ("rabbitmqadmin",)),
            (r"ldap(?:search|add|modify|delete|passwd|whoami)", r"-w[ \t]{1,3}", ("ldap",)),
            (r"(?:un)?zip", r"-P[ \t]{1,3}", ("zip",)),
            (r"7za?", r"-p", ("7z",)),
            (r"(?:smbmap|crackmapexec|netexec)", r"-p[ \t]{1,3}", ("smbmap", "exec")),
        )
    ),
    # Trigger: a Samba tool (smbclient, rpcclient, smbcacls, smbget, samba-tool, net, wbinfo …)
    # with -U / --user / -a `user%password`. Why: Samba takes the password after a `%` in the
    # user argument (secrets s40: `smbclient //host/share -U 'frontdesk%…'`); the user stays.
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:smb[a-z]{3,8}|rpcclient|samba-tool|net|wbinfo)\b[^\n]{0,200}?[ \t]"
        r"(?:-U|--user(?:name)?|-a|--authenticate)(?:=|[ \t]{0,3})"
        r"[\"']?[^\s%'\"]{1,128}%" + _VALUE,
        _check_cli,
        left=_WORDISH,
        hints=("%",),
    ),
    # Trigger: mc alias set / mc config host add <name> <url> <access key> <secret key>. Why:
    # the MinIO client takes both halves of an S3 key pair as its last two words; secrets s39.
    *(
        _rule(
            "cli-secret",
            _GENERIC,
            r"\bmc[ \t]{1,3}(?:alias[ \t]{1,3}set|config[ \t]{1,3}host[ \t]{1,3}add)[ \t]{1,3}"
            r"[^\s]{1,64}[ \t]{1,3}[a-z]{2,8}://[^\s]{1,256}[ \t]{1,3}" + pair,
            _check_cli,
            left=_WORDISH,
            hints=("mc ",),
        )
        for pair in (
            r"(?P<s>[^\s'\"]{3,128})(?=[ \t]{1,3}[^\s]{3,})",
            r"[^\s'\"]{3,128}[ \t]{1,3}" + _VALUE,
        )
    ),
    # Trigger: sqlplus/sqlldr/expdp/impdp/rman/dgmgrl user/<pw>[@db], or SQL*Plus `conn[ect]
    # user/<pw>@db`; Dameng's disql/dexp/dimp user/<pw>@host:port, and `userid=user/<pw>`
    # (secrets s43: `disql SYSDBA/…@10.6.0.20:5236`). Why: Oracle's login string carries the
    # password between / and @. Outcome: `disql SYSDBA@host` (a prompt) and paths stay.
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:(?:sqlplus|sqlldr|expdp|impdp|rman|dgmgrl|disql|dexp|dimp)(?:[ \t]{1,3}-[a-z]{1,10})*"
        r"[ \t]{1,3}(?:userid[ \t]{0,3}=[ \t]{0,3})?|conn(?:ect)?[ \t]{1,3}"
        r"|userid[ \t]{0,3}=[ \t]{0,3})[\"']?[a-z0-9_$#]{1,30}/"
        r"(?P<s>[^\s/@\"']{1,128})(?=@|[\"']?(?:\s|$))",
        _check_cli,
        left=_WORDISH,
        lower=True,
        starts=_oracle_login_starts,
        hints=_ORACLE_TOOLS,
    ),
    # Trigger: CREATE/ALTER USER|ROLE|LOGIN|GROUP … [WITH] [LOGIN] [ENCRYPTED] PASSWORD '…'
    # (or `PASSWORD = '…'`), … IDENTIFIED [WITH <plugin>] BY [PASSWORD|VALUES] '…' (MySQL,
    # Oracle's unquoted `IDENTIFIED BY pw`, GRANT … IDENTIFIED BY). Why: SQL that sets an
    # account's password (secrets s40: `ALTER ROLE … WITH LOGIN PASSWORD '…'`). Outcome: after
    # PASSWORD only a quoted literal (`PASSWORD EXPIRE`, `PASSWORD NULL` stay); MySQL's
    # `BY RANDOM PASSWORD` and bind variables (`:pw`, `&pw`) stay.
    _rule(
        "password",
        _GENERIC,
        r"(?:(?:create|alter)[ \t]{1,3}(?:user|role|login|group)|grant)(?![a-z0-9_])[^;]{0,300}?\s"
        r"(?:password[ \t]{0,3}=?[ \t]{0,3}(?=['\"])"
        r"|identified[ \t]{1,3}(?:with[ \t]{1,3}[a-z0-9_'\"]{1,40}[ \t]{1,3})?by[ \t]{1,3}"
        r"(?:(?:password|values)[ \t]{1,3})?(?!random(?![a-z0-9_])))" + _VALUE,
        _check_sql,
        left=_WORDISH,
        lower=True,
        starts=_sql_starts,
        hints=("password", "identified"),
    ),
    # Trigger: SET PASSWORD [FOR 'u'@'h'] = '…' or = PASSWORD('…'). Why: MySQL / MariaDB
    # setting an account's password.
    _rule(
        "password",
        _GENERIC,
        r"set[ \t]{1,3}password(?![a-z0-9_])[^;=\n]{0,120}=[ \t]{0,3}"
        r"(?:(?:old_)?password[ \t]{0,3}\([ \t]{0,3})?(?=['\"])" + _VALUE,
        _check_sql,
        left=_WORDISH,
        lower=True,
        hints=("password",),
    ),
    # Trigger: sshpass -p <pw>. Why: password on the command line.
    _rule(
        "cli-secret", _GENERIC, r"sshpass[ \t]{1,3}-p[ \t]{0,3}" + _VALUE, _check_cli, left=_WORDISH
    ),
    # Trigger: the Windows-style switches of FreeRDP's clients (xfreerdp, wlfreerdp,
    # sdl-freerdp, wfreerdp, their `3` builds): `/p:<pw>`, the gateway's `/gp:<pw>` and
    # `/pth:<NTLM hash>`; and `cmdkey … /pass:<pw>` (secrets s44: `xfreerdp /v:… /u:… /p:…`).
    # Why: an RDP login's password on the command line, after a colon instead of a blank
    # (rdesktop's -p is in _PASSWORD_FLAGS). Outcome: the host (/v:) and the user (/u:) stay.
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:(?:[xw]l?|sdl-)?freerdp3?|cmdkey)\b[^\n]{0,300}?[ \t]/(?:p|gp|pth|pass):" + _VALUE,
        _check_cli,
        left=_WORDISH,
        lower=True,
        hints=("freerdp", "cmdkey"),
    ),
    # Trigger: a credential header in an OpenTelemetry exporter's headers variable:
    # `OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=<key>,x-honeycomb-dataset=…"` (secrets
    # s44), `api-key=` (New Relic), `dd-api-key=`, `x-sf-token=`, `authorization=Basic%20…`.
    # Why: the list is one value under a name that says nothing of secrets, and the header
    # names inside it (`x-honeycomb-team`) are no assignment's names. Outcome: only the
    # credential's value is masked; the dataset, the other headers and placeholders stay.
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?P<s>[^\s\"',]{1,1024})",
        _check_header_value,
        left="",
        lower=True,
        starts=_otlp_header_starts,
        hints=("otel_exporter_otlp",),
    ),
    # Trigger: a credential header (`x-honeycomb-team`, `x-api-key`, `dd-api-key`,
    # `x-auth-token`, `authorization`, …; see _credential_header) in a headers map: an
    # OpenTelemetry collector's `headers:` block, JSON's `"headers": {…}`, HCL's `headers = {…}`,
    # a list of name/value pairs (Postman's `"header": [{"key": …, "value": …}]`), and curl's
    # `-H "X-Honeycomb-Team: …"` (round 43). Why: the header's name is no assignment's name
    # (`x-honeycomb-team`), or its value need not look generated to be a key (Honeycomb's
    # are letters and digits, sometimes letters only). Outcome: the value alone is masked;
    # other headers, names without values, lists of allowed headers, placeholders and names
    # in code (`'x-api-key': apiKey`) stay.
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?P<s>[^\s\"'`,;}\])]{1,1024})",
        _check_header_block_value,
        left="",
        lower=True,
        starts=_header_block_starts,  # (no hints: it looks for the same two words)
    ),
    # Trigger: a Pushover user, group or app key (30 letters and digits) in its slot: any
    # PUSHOVER_* name (`PUSHOVER_APP=`), `user key` / `user_key` / `userKey`, `group key`,
    # `app token` / `application token` / `api token`, with `:`, `=` or `is`; and a bare
    # `user=` / `token=` in a text about Pushover (a blind test's `curl --form-string
    # "user=…" https://api.pushover.net/…`). Round 43: the word "Pushover" is often absent
    # ("user key: u…"), and a key may hold fewer than 3 digits. Why: Pushover's API takes the
    # key as `user`, a name that elsewhere is a login, and `user key` is no secret's name.
    # Outcome: other texts' `user=` and names (`user=ops`, a 30-letter group name) stay, and
    # so do Pushover's other settings (PUSHOVER_SOUND=cosmic).
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?P<s>[a-z0-9]{30})(?![a-z0-9_\-])",
        _check_pushover_key,
        left=_ALNUM,
        lower=True,
        starts=_pushover_starts,
    ),
    # Trigger: Apprise's Pushover URL, `pover://<user key>@<app token>[/device]` (round 43).
    # Why: both halves are Pushover keys; the token stands where a host would, so the URL
    # rules leave it. Outcome: both are masked when either looks generated.
    _rule(
        "generic-secret",
        _SPECIFIC,
        r"pover://(?P<s>[a-z0-9]{30}@[a-z0-9]{30})(?![a-z0-9_\-])",
        _check_pushover_url,
        left=_ALNUM,
        lower=True,
        hints=("pover://",),
    ),
    # Trigger: an OpenVPN `auth-user-pass` file shown in the text: a line naming it that ends
    # in a colon or opens a heredoc, then the user's line and the password's line, and no
    # third one-word line (secrets s44: "…/auth.txt is just two lines:"). Why: the file is
    # nothing but the two values, no name stands beside the password. Outcome: only in texts
    # naming auth-user-pass; lists of words, the user and plain words stay.
    _rule(
        "password",
        _GENERIC,
        r"(?P<bare>[^\s]{1,128})",
        _check_auth_file_password,
        left="",
        lower=True,
        starts=_auth_file_starts,
        hints=(_AUTH_FILE_DIRECTIVE,),
    ),
    # Trigger: PowerShell's `ConvertTo-SecureString "<pw>" -AsPlainText -Force` (or `-String
    # "<pw>"`, or `"<pw>" | ConvertTo-SecureString -AsPlainText`), secrets s44: a service
    # account's password made into a PSCredential. Why: -AsPlainText says the literal is the
    # password itself. Outcome: variables (`$env:PW`), `(Get-Content …)` and an encrypted
    # string without -AsPlainText stay.
    _rule(
        "password",
        _GENERIC,
        _VALUE,
        _check_securestring,
        left="",
        lower=True,
        starts=_securestring_starts,
        hints=(_SECURESTRING,),
    ),
    # Trigger: curl … -u user:<pw>. Why: basic-auth password on the command line.
    _rule(
        "cli-secret",
        _GENERIC,
        # (the user may be masked already: `-u [REDACTED:twilio-account-sid]:<token>`, s50)
        # (a command continued over lines with a trailing backslash is one command)
        r"curl\b(?:[^\n\\]|\\\n|\\(?!\n)){0,600}?[ \t](?:-u|--user)[ \t]{1,3}[\"']?"
        r"(?:\[REDACTED:[\w-]{1,40}\]|[^\s:\"']{1,128}):" + _VALUE,
        _check_cli,
        left=_WORDISH,
    ),
    # Trigger: an API's URL (host api.* or services.*, or a path through /api/) with a path
    # segment of 32-64 hex digits. Why: services that take the key in the path
    # (MarineTraffic's /api/exportvessels/v:8/<key>/…, secrets s50); a commit, blob, tree,
    # transaction or digest, named by the segment before it, stays; so does a resource's id
    # after its collection's plural name (Cloudflare's /zones/<zone id>/purge_cache, secrets
    # s54: an identifier the API's docs print in every example, beside the Bearer token).
    _rule(
        "url-path-key",
        _GENERIC,
        r"https?://(?:(?:api|services)\.[\w.-]+|[\w.-]+(?:/[^\s/?#\"'<>]+){0,3}?/api)"
        r"(?:/[^\s/?#\"'<>]+){0,6}?/(?P<s>[0-9A-Fa-f]{32,64})(?=[/?#\s\"'<>]|$)",
        _check_path_key,
        hints=("api",),
        left="",
    ),
    # Trigger: curl … --user "<key>:<secret>" whose user is itself a generated key (Mailjet's
    # API key beside its secret key, Stripe's `-u sk_…:`, secrets s45). Why: the service takes
    # its key as the basic-auth user; a user name that reads as a name (`api`, `admin`,
    # `deploy-bot`) stays.
    _rule(
        "cli-secret",
        _GENERIC,
        r"curl\b(?:[^\n\\]|\\\n|\\(?!\n)){0,600}?[ \t](?:-u|--user)[ \t]{1,3}[\"']?"
        r"(?P<s>[A-Za-z0-9_\-]{20,128})(?=:)",
        _generated_user,
        left=_WORDISH,
    ),
    # Trigger: etcdctl … --user[=]user:<pw>, `etcdctl user add user:<pw>`, ETCDCTL_USER=user:<pw>.
    # Why: etcd's client takes the password after the user's colon (secrets s43); `--user
    # root` alone prompts for it and stays, and so does docker's `--user 1000:1000`.
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:etcdctl\b[^\n]{0,300}?[ \t](?:--user[ \t=]{1,3}|user[ \t]{1,3}add[ \t]{1,3})"
        r"|etcdctl_user[ \t]{0,3}[=:][ \t]{0,3})[\"']?[^\s:\"']{1,128}:" + _VALUE,
        _check_cli,
        left=_WORDISH,
        lower=True,
        hints=("etcdctl",),
    ),
    # Trigger: keytool / jarsigner -storepass, -keypass, -srcstorepass, -deststorepass,
    # -srckeypass, -destkeypass and a value. Why: the Java keystore's and key's passwords on the
    # command line (secrets s41: an Android upload key). Outcome: `-storepass:env VAR` and
    # `-storepass:file path` name where the password is and stay; a bare `-keypass` (prompt)
    # is followed by a flag and stays.
    _rule(
        "cli-secret",
        _GENERIC,
        r"-(?:src|dest|new)?(?:store|key)pass[ \t]{1,3}" + _VALUE,
        _check_cli,
        left=_WORDISH,
        hints=("pass ",),
    ),
    # Trigger: a CLI's login or install subcommand given the key as a positional word: `wandb
    # login [--relogin] [--host URL] <key>`, `ngrok authtoken <t>` / `ngrok config add-authtoken
    # <t>`, `cloudflared service install <token>`. Why: the tool stores the key it is given, so
    # the command line holds it (secrets s41). Outcome: only a value of 8+ characters with a
    # digit; `wandb login` alone, its flags, `&& …` and `$WANDB_API_KEY` stay.
    _rule(
        "cli-secret",
        _GENERIC,
        r"(?:wandb[ \t]{1,3}login|ngrok[ \t]{1,3}(?:config[ \t]{1,3}add-)?authtoken"
        r"|cloudflared[ \t]{1,3}(?:tunnel[ \t]{1,3})?service[ \t]{1,3}install)"
        r"(?:[ \t]{1,3}--?[a-z][a-z\-]{0,20}(?:[ \t=]{1,3}https?://[^\s]{1,200})?){0,4}"
        r"[ \t]{1,3}" + _VALUE,
        _check_positional_key,
        left=_WORDISH,
        hints=("wandb", "ngrok", "cloudflared"),
    ),
    # Trigger: `b2 account authorize <keyID> <applicationKey>` (the older `b2
    # authorize-account`). Why: Backblaze's CLI takes both halves of the key pair as its last
    # two words (secrets s41); both are masked as one span.
    _rule(
        "cli-secret",
        _GENERIC,
        r"\bb2[ \t]{1,3}(?:account[ \t]{1,3}authorize|authorize[-_]account)"
        r"(?:[ \t]{1,3}--?[a-z][a-z\-]{0,20}){0,3}[ \t]{1,3}"
        r"[\"']?(?P<s>[^\s'\"]{8,128}[\"']?[ \t]{1,3}[\"']?[^\s'\"]{8,128})",
        _check_positional_key,
        left=_WORDISH,
        hints=("authorize",),
    ),
    # Trigger: a known tool's command that takes the password as a positional word or after a
    # keyword of its own: `rabbitmqctl add_user <user> <pw>`, `upx login <bucket> <operator>
    # <pw>`, `pocketbase superuser upsert <email> <pw>`, `htpasswd -b`, `wpa_passphrase <ssid>
    # <pw>`, `nmcli dev wifi connect <ssid> password <pw>` (the table is in
    # recallnest.core.redact_commands). Why: no name stands beside the password, only the
    # tool's grammar says which word it is (secrets s42, e2e-heldout16). Outcome: the user,
    # the bucket and the SSID stay; placeholders, variables and plain words stay.
    _rule(
        "password",
        _GENERIC,
        _VALUE,
        _check_command_password,
        left="",
        lower=True,
        starts=_command_password_starts,
    ),
    # Trigger: haproxy.cfg's `stats auth <user>:<password>`, and a userlist's line `user <name>
    # [insecure-]password <password or crypt hash>`. Why: the logins of the stats page and of
    # the userlist (secrets s41); a hash can be cracked offline; the user name stays. Outcome:
    # a `user` line only at the start of a line, so "the user alice password reset" stays.
    # (Two rules: each pattern opens with a literal `re` can skip to.)
    _rule(
        "password",
        _GENERIC,
        r"stats[ \t]{1,3}auth[ \t]{1,3}[^\s:]{1,64}:" + _VALUE,
        _check_cli,
        left=_WORDISH,
        hints=("stats",),
    ),
    _rule(
        "password",
        _GENERIC,
        r"user[ \t]{1,3}[^\s]{1,64}[ \t]{1,3}(?:insecure-)?password[ \t]{1,3}" + _VALUE,
        _check_userlist,
        left=_WORDISH,
        hints=("password",),
    ),
    # Trigger: an AWS key id, then a slash, colon or space and 40 base64 characters. Why: the
    # pair written in prose or a CSV (`AKIA…/wJalr…`); the secret has no prefix of its own.
    _rule(
        "aws-secret-key",
        _SPECIFIC,
        r"(?:AKIA|ASIA)[A-Z0-9]{16}[/:,; \t]{1,3}(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        _mixed_token,
        hints=("akia", "asia"),
    ),
    # Trigger: a short prefix, `_`, `-` or `.`, then a generated body of 16+ characters
    # (`glsa_…`, `dp.st.prd.…`, `sk-or-v1-…`). Why: most vendors now prefix their tokens;
    # the body's randomness, and a list of identifier prefixes (`msg_`, `cus_`, `sha512-`),
    # keep ids, hashes and snake_case names out. After `=` only a name's (see _after_name).
    _rule(
        "vendor-token",
        _SHAPE,
        r"(?<![A-Za-z0-9_\-.+/@:%$])"
        r"(?P<pfx>[A-Za-z][A-Za-z0-9]{0,11}(?:\.[A-Za-z0-9]{1,5}){0,3})[_\-.]"
        r"(?P<body>[A-Za-z0-9_\-]{15,400}(?:\.[A-Za-z0-9_\-]{8,400}){0,3})" + _RIGHT,
        _check_vendor,
        left="",
        starts=_long_run_starts,
    ),
    # Trigger: a bare run of 28+ letters and digits mixing both cases and digits, 3+ of each,
    # with a generated body's entropy (a crates.io token pasted with no name: "那串我先贴这：
    # cioZx81Lw0qP4nR7uT2vK9bJ3mH6dY5s"). Why: nothing else says it is a secret, and words,
    # hex hashes, UUIDs and versions never look like that. Outcome: masked by its shape alone,
    # also after a name's `=` (see _after_name).
    _rule(
        "generic-secret",
        _SHAPE,
        r"(?<![A-Za-z0-9_\-.+/@:%$&?#])(?P<s>[A-Za-z0-9]{28,256})(?![A-Za-z0-9_\-/=])",
        _check_bare_token,
        left="",
    ),
    # Trigger: a generated value a few words after a secret word in the same sentence ("key
    # 先用我这个 3f9c2a71…", "the token I made yesterday: 9f8e…"). Why: chat puts words between
    # the name and the value, and lower-case hex has no shape of its own (e2e-heldout10).
    # A dotted tail of generated parts is part of the value ("key 是 <32 hex>.<16 base62>",
    # Zhipu's id.secret; secrets s40): the dot had ended the match, which then failed.
    # A dot that ends the sentence ends the value ("…, the key is <32 hex>." in a blind test's
    # transcript): only a dot before more token characters continues it.
    _rule(
        "generic-secret",
        _SHAPE,
        r"(?P<s>[a-z0-9][a-z0-9_\-]{15,255}(?:\.[a-z0-9_\-]{6,255}){0,2})"
        r"(?![a-z0-9_\-/=]|\.[a-z0-9_\-/=])",
        _check_near_word,
        left=_WORDISH + "./+=@%$&?#",
        lower=True,
        starts=_near_word_starts,
        hints=_NEAR_HINTS,
    ),
    # Trigger: a secret noun, an optional `for/on/of <what>`, then is/was/:/= and a value.
    # Why: secrets stated in chatter (`the admin password is …`, `root pw on the NAS is …`).
    _rule(
        "password",
        _GENERIC,
        r"(?P<key>pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|api[ \t]?key"
        r"|(?:access|secret|private|signing|encryption|master|admin|hmac|webhook|jwt|session"
        r"|shared|aes|app|client|license|deploy|cookie)[ \t]key|credentials?)"
        # `<noun> for <what>: X` or `<noun> [for <what>] is X`; a bare `password: X` is the
        # assignment rule's, which knows code (`password: str`).
        r"(?:[ \t]{1,3}(?:for|on|of|to|in)[ \t]{1,3}(?:[^\n,;:.!?]|\.(?=\S)){1,40}?"
        r"[ \t]{0,3}[:=]|(?:[ \t]{1,3}(?:for|on|of|to|in)[ \t]{1,3}"
        r"(?:[^\n,;:.!?]|\.(?=\S)){1,40}?)?(?:,[ \t]{0,3}it)?[ \t]{1,3}(?:is|was|are|were|be))"
        r"[ \t]{1,3}(?:now[ \t]{1,3}|still[ \t]{1,3}|just[ \t]{1,3})?" + _VALUE,
        _check_copula,
        left=_ALNUM + "_",
        lower=True,
        kind_of=_copula_kind,
        starts=_noun_starts,
    ),
    # Trigger: a licence key's noun (key, token, licence/license [key|code], a product,
    # serial, activation or registration key or code, 密钥, 秘钥, 激活码, 注册码, 授权码,
    # 许可证), words of the same clause, then is/was/:/=/是/为 and a key of dash-joined groups
    # of capitals and digits ("btw the N2YO key for the visual-pass cross-check is
    # 9XN8NT-OXDVC7-A60FT6-XNM4", e2e-heldout29 h29c03; "激活码是 W269N-WFGWX-…"). Why: a
    # licence or API key of that shape has too many dashes for the token rules (their runs
    # stop at 15 characters or need a random body), and the copula rule knows only named
    # keys (api key, licence key) and needs a random value. Outcome: masked when two or more
    # groups mix letters and digits; a value named a number, SKU, serial, id, hash, version,
    # build or date between noun and value stays, as do UUIDs (a 12-character group), a key
    # said to be public in its sentence, and one after `cache`, `primary`, `public` ….
    _rule(
        "licence-key",
        _GENERIC,
        r"(?P<key>(?:licen[cs]e|product|activation|registration|serial|cd|api)?[ \t_-]?"
        r"(?:key|token|code)|licen[cs]e|密钥|秘钥|激活码|注册码|授权码|许可证)(?![a-z0-9])"
        r"(?P<mid>[^\n.!?;,。！？；，]{0,48}?)"
        r"(?:[ \t]{1,3}(?:is|was)[ \t]{1,3}|[ \t]{0,3}(?:[:=：]|是|为|為|就是)[ \t]{0,3})[\"'“「]?"
        rf"(?P<s>{_GROUPED})(?![a-z0-9_\-])",
        _check_grouped_key,
        left=_ALNUM + "_",
        lower=True,
        starts=_grouped_key_starts,
    ),
    # Trigger: a login word (login, credentials, account, 账号, 登录 …), optionally `for <what>`,
    # then is / : / 是 or a space, then `user / password` or `user:password`. Why: prose gives
    # the pair without naming the password ("the storage box login is u… / …", e2e-heldout12).
    # Outcome: the password is masked when it holds a letter and a digit or symbol and is no
    # version; "admin / operator", "97 / 100" and paths (no "/" inside the value) stay.
    _rule(
        "password",
        _GENERIC,
        r"(?:log[ \t\-]?in|logon|credentials?|creds|account|acct|" + "|".join(_LOGIN_WORDS) + ")"
        r"(?:[ \t]{1,3}(?:for|on|of|to)[ \t]{1,3}[^\n,;:.!?/]{1,40}?)?"
        r"(?:[ \t]{0,3}[:=：][ \t]{0,3}|[ \t]{1,3}(?:is|are|was)[ \t]{1,3}"
        r"|[ \t]{0,3}(?:是|为|為|就是)[ \t]{0,3}|[ \t]{1,3})"
        r"[a-z0-9_.@+\-]{1,64}(?:[ \t]{0,3}/[ \t]{0,3}|:)"
        rf"(?P<s>[^\s/'\"`,;{_CJK}]{{6,128}})(?=[\s,;)]|[{_CJK}]|$)",
        _check_login_pair,
        left=_ALNUM + "_",
        lower=True,
        hints=_LOGIN_HINTS,
    ),
    # Trigger: a secret-looking name, one space, then a value (netrc `password …`, `token s.…`).
    # Why: netrc and CLI output separate names from values by a space; a netrc password is
    # masked when it is no plain word, any other value only when it looks generated.
    # The value ends at Chinese text or punctuation ("SecretId AKID…，SecretKey …"): it ran on
    # over the full-width comma, swallowed the next name, and left that name's value bare
    # (e2e-heldout12). A `user:` before the value (`auth opsview:<pw>`, haproxy's stats auth)
    # is a user name and stays (secrets s41).
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?P<key>(?:(?:api|access|secret|private|auth|client|bot|admin|master|signing)[ \t])?"
        r"[a-z0-9_.\-]{1,64}+)"
        r"[ \t]{1,3}(?:[a-z][a-z0-9_.\-]{0,31}:(?=[^\s:/]))?"
        rf"(?P<bare>[^\s\"'`,;\\{_CJK}]{{4,512}})(?=[\s,;){_CJK}]|$)",
        _check_spaced,
        left="",
        lower=True,
        kind_of=_assignment_kind,
        starts=_spaced_starts,
    ),
    # Trigger: host:port:database:user:password (a .pgpass line). Why: the last field is the
    # password; the host must hold a letter or a dot (not a MAC address or a time).
    _rule(
        "password",
        _GENERIC,
        # Bounded by white space, the text's ends or non-ASCII (Chinese prose: 行：host:…，).
        r"(?<![!-~])[A-Za-z0-9\-*]*[A-Za-z.*][A-Za-z0-9.\-*]{0,252}:(?:\d{1,5}|\*)"
        r":[\w.\-*]{1,63}:[\w.\-*]{1,63}:(?P<s>[!-9;-~]{4,128})(?![!-~])",
        _check_pgpass,
        left="",
        starts=_pgpass_starts,
    ),
    # Trigger: a line `<url or mount point> <user> <secret>` and nothing else (davfs2's
    # secrets file, secrets s40; `"/mnt/my dav" "user" "pw"` quoted). Why: mount helpers
    # keep a password as the third word of a line that opens with the resource (.netrc and
    # .pgpass have rules of their own). Outcome: masked when it looks like a password (see
    # _check_secrets_line): endpoint tables (`/health 200 3ms`) and mount options stay.
    _rule(
        "password",
        _GENERIC,
        r"(?:(?:https?|davs?|webdavs?)://[^\s\"]{1,512}|/[^\s\"]{0,256}|\"[^\"\n]{1,256}\")"
        r"[ \t]{1,16}(?:[^\s\"#]{1,128}|\"[^\"\n]{1,128}\")[ \t]{1,16}"
        r"(?:\"(?P<dq>[^\"\n]{1,256})\"|(?P<bare>[^\s\"#]{1,256}))[ \t]*(?:\r?\n|$)",
        _check_secrets_line,
        left="",
        starts=_resource_line_starts,
    ),
    # Trigger: `: PSK "…"`, `: XAUTH "…"` (strongSwan / Libreswan ipsec.secrets).
    # Why: the pre-shared key or the user's password of a VPN, quoted after its type.
    _rule(
        "password",
        _GENERIC,
        r":[ \t]{1,3}(?:PSK|XAUTH)[ \t]{1,3}" + _VALUE,
        _check_cli,
        left="",
        hints=("psk", "xauth"),
    ),
    # Trigger: a string literal among the arguments of an API client's constructor (`new
    # JPushClient("<24 hex>", "<24 hex>")`, `BasicAWSCredentials("…", "…")`). Why: SDKs take
    # the app secret positionally, with no name beside it (secrets s40). Outcome: only
    # generated-looking literals (_check_client_literal); hosts, names, regions and UUIDs stay.
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?:\"(?P<dq>[A-Za-z0-9+/=_\-]{16,256})\"|'(?P<sq>[A-Za-z0-9+/=_\-]{16,256})')",
        _check_client_literal,
        left="",
        starts=_client_literal_starts,
    ),
    # Trigger: the key a token is signed or checked with, given as a literal:
    # `jwt.sign(payload, '<secret>', …)`, `jwt.verify(token, "…")`, `jwt.encode(claims, "…")`,
    # `crypto.createHmac('sha256', '…')`, `hmac.new(b'…', …)`. Why: the HMAC key signs every
    # token the service trusts (secrets s51); its name is the call, not a word beside it.
    # Outcome: masked unless a placeholder or a plain word (`'secret'`, `process.env.X`).
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?:\bjwt\.(?:sign|verify|encode|decode)\((?:[^()\n]|\([^()\n]*\)){0,200}?,|\bcreateHmac\("
        r"[ \t]*['\"][\w-]{2,12}['\"][ \t]*,|\bhmac\.new\([ \t]*b?)[ \t]*" + _QUOTED,
        _check_signing_key,
        left="",
        hints=("jwt.", "hmac"),
    ),
    # Trigger: a short flag of _PASSWORD_FLAGS and its value (`docker login -p …`, `ssh-keygen
    # -N …`, `cqlsh … -u ops -p '…'`, `snmpwalk -v3 … -A '…' -x AES -X '…'`, `ipmitool … -P …`,
    # `nodetool -pw …`). Why: each tool took a one-letter flag for its password (secrets s41
    # added cqlsh and net-snmp); the user stays. One scan finds every flag.
    _rule(
        "cli-secret",
        _GENERIC,
        r"-[A-Za-z]{1,2}[ \t]{1,3}" + _VALUE,
        _check_password_flag,
        left="",
        starts=_password_flag_starts,
    ),
    # Trigger: an SNMP community in an agent's configuration: IOS `snmp-server community <c>
    # RO`, snmpd.conf's `rocommunity <c> [source]` / `rwcommunity`, and `com2sec <name>
    # <source> <c>`. Why: a v1/v2c community is the agent's password, sent in the clear (secrets
    # s43 leaked it on snmpwalk's -c). Outcome: the defaults `public` / `private` stay.
    _rule(
        "password",
        _GENERIC,
        r"(?:snmp-server[ \t]{1,3}community|r[ow]community6?"
        r"|com2sec6?(?:[ \t]{1,3}-cn[ \t]{1,3}[^\s]{1,64})?"
        r"[ \t]{1,3}[^\s]{1,64}[ \t]{1,3}[^\s]{1,128})"
        r"[ \t]{1,3}" + _VALUE,
        _check_community,
        left=_WORDISH,
        lower=True,
        hints=("community", "com2sec"),
    ),
    # Trigger: openssl -passin / -passout pass:<pw>. Why: a key's passphrase on the command line.
    _rule(
        "cli-secret",
        _GENERIC,
        r"-pass(?:in|out)?[ \t]{1,3}pass:" + _VALUE,
        _check_cli,
        left=_WORDISH,
        hints=("pass:",),
    ),
    # Trigger: a secret-looking name, then = : := => 是 为 (optionally `: type =`), then a value;
    # or a setter of a secret-named property given one string literal (`setPassword("…")`,
    # `cfg.setMasterSecret("…")`, `user.set_password("…")`; secrets s43: ArduinoOTA, Getui);
    # the name may be a quoted subscript (`app.config['SECRET_KEY'] = …`, Drupal's
    # `$settings['hash_salt'] = …`; round 43).
    # Why: .env, export, docker -e, JSON, YAML, TOML, code, connection strings and chatter; the
    # name decides how sure we must be about the value (see key_profile / value_ok).
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?P<key>(?:(?:api|access|secret|private|auth|client|bot|admin|master|signing)[ \t])?"
        r"[a-z0-9_.\-]{1,64}+)"
        r"(?:\\?[\"']\]|\\?[\"']?)"
        r"(?:[ \t]{0,3}:[ \t]{0,3}[a-z_][a-z0-9_.\[\], |]{0,40}+(?==))?"
        r"[ \t]{0,3}(?P<sep>:=|=>|={1,3}|:|是|为|為|就是|：|\((?=[ \t]{0,3}[\"']))[ \t]{0,3}[“「]?"
        + _BYTES_OF
        + _VALUE,
        _check_assignment,
        left="",
        lower=True,
        kind_of=_assignment_kind,
        starts=_assignment_starts,
    ),
    # Trigger: a constant defined to a string literal under a secret name: PHP's `define(
    # 'DB_PASSWORD', '…' );` (wp-config.php, secrets s44; its AUTH_KEY… salts too) and C's
    # `#define WIFI_PASSWORD "…"` (an Arduino sketch's arduino_secrets.h). Why: the name and
    # the value are a call's two arguments or a directive's two words, with no `=` between.
    # Outcome: the name decides as for assignments (DB_NAME, DB_USER and SECRET_SSID stay;
    # a key or a salt needs a generated value: random_printable takes WordPress's 64
    # characters of symbols and spaces); calls and placeholders (`'put your unique phrase
    # here'`) stay. WordPress aligns the values with up to 9 spaces after the comma (its
    # AUTH_KEY had 9, past the 8 allowed: round 43).
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?:define[ \t]{0,3}\([ \t]{0,3}[\"'](?P<key>[a-z0-9_]{1,64})[\"'][ \t]{0,3},"
        r"|#[ \t]{0,3}define[ \t]{1,3}(?P<ckey>[a-z0-9_]{1,64}))[ \t]{0,16}(?=[\"'])" + _VALUE,
        _check_defined_constant,
        left=_WORDISH,
        lower=True,
        kind_of=_defined_constant_kind,
        hints=("define",),
    ),
    # Trigger: WP-CLI's `wp config set <NAME> <value>` (`wp config set NONCE_SALT '…'`,
    # round 43). Why: it writes the define() of wp-config.php, so the name decides as there.
    # Outcome: `wp config set WP_DEBUG true` and the other settings stay.
    _rule(
        "generic-secret",
        _GENERIC,
        r"wp[ \t]{1,3}config[ \t]{1,3}set(?:[ \t]{1,3}--?[a-z][a-z\-]{0,20}(?:=[^\s]{0,64})?){0,3}"
        r"[ \t]{1,3}[\"']?(?P<key>[a-z0-9_]{1,64})[\"']?[ \t]{1,3}" + _VALUE,
        _check_defined_constant,
        left=_WORDISH,
        lower=True,
        kind_of=_defined_constant_kind,
        hints=("config set",),
    ),
    # Trigger: 密码/口令/密钥/令牌… followed by : = 是 为. Why: secrets given in Chinese chatter.
    _rule(
        "password",
        _GENERIC,
        r"(?P<zhkey>[密口秘私令][码碼令钥鑰牌匙]|授[权權]码|授[权權]碼)[ \t]{0,3}"
        r"(?:[:=：]|是|为|為|就是)[ \t]{0,3}[“「]?" + _VALUE,
        _check_zh,
        left="",
        kind_of=_zh_kind,
    ),
    # Trigger: a bare AK or SK (upper case, a word of its own), then : = 是 为 or "is", then a
    # value. Why: the halves of a cloud key pair as chat names them ("七牛的 AK 是 …，SK 是 …",
    # secrets s46), or with a blank alone ("华为云 OBS，AK 1JTKM45HUM5XG45MPTW7，SK …",
    # e2e-heldout26 h26g04); a lower-case `sk` is a sort key. Outcome: masked when the value
    # looks generated; "AK 是 47 型步枪", "AK 47" stay.
    _rule(
        "generic-secret",
        _GENERIC,
        r"(?<![A-Za-z0-9_])(?P<key>AK|SK)(?:[ \t]{0,3}(?:[:=：]|是|为|為|is)[ \t]{0,3}|[ \t]{1,3})"
        + _VALUE,
        _check_pair_label,
        left="",
    ),
    # Trigger: auth=("user", "…") or HTTPBasicAuth("user", "…") (Python requests, httpx).
    # Why: the second member of a basic-auth pair is the password or API key (Mailgun's
    # `auth=("api", key)`, secrets s46). Outcome: a literal is masked unless it is a
    # placeholder or a plain word; a variable (`auth=("api", key)`) is no literal.
    _rule(
        "password",
        _GENERIC,
        r"(?:\bauth[ \t]*=[ \t]*\(|BasicAuth\()[ \t]*(?:\"[^\"\n]{0,64}\"|'[^'\n]{0,64}')"
        r"[ \t]*,[ \t]*" + _QUOTED,
        _check_basic_pair,
        left="",
        hints=("auth",),
    ),
    # Trigger: 密码/口令/密钥… then only a space, then a value ("账号 device_admin，密码 Qw7!zP3#").
    # Why: chat drops the colon; the value still sits right after the word. Outcome: masked
    # when the value is no plain word (a digit or a symbol, 6+ characters): "密码 reset 流程" stays.
    _rule(
        "password",
        _GENERIC,
        # (授权码: a mail account's authorization code for SMTP, 163/QQ mail, e2e-heldout25)
        r"(?P<zhkey>[密口秘私令][码碼令钥鑰牌匙]|授[权權]码|授[权權]碼)[ \t]{1,3}(?P<bare>"
        + _BARE
        + r"{6,512})",
        _check_zh_spaced,
        left="",
        kind_of=_zh_kind,
    ),
    # (Last, and generic: where an earlier rule masks the same literal, its kind is kept:
    # `Credential("<id>", "<key>")` stays a generic secret.)
    # Trigger: a login made with the password as a positional argument: a call that logs in
    # (`smtp.login(user, "…")`, `$sftp->login('u', '…')`, `ftp_login($conn, 'u', '…')`,
    # `conn.simple_bind_s(dn, "…")`, `new NetworkCredential("u", "…")`,
    # `new PasswordAuthentication("u", "…".toCharArray())`), or one that connects with an
    # address, a port, a user and a password (`client.connect(host, 22, "deploy", "…")`,
    # `DriverManager.getConnection(url, "u", "…")`, `pymysql.connect("db", "u", "…", "shop")`).
    # Why: no name says it is a password, the call's grammar does (round 51, the class found
    # last). Outcome: the password literal alone is masked; the user, host, port, database,
    # names (`login(user, pw)`), keyword arguments, `fn.bind(this, …)`, `.bind("click", …)`,
    # words and published defaults (`"guest"`) stay.
    _rule(
        "password",
        _GENERIC,
        r"(?:\"(?P<dq>[^\"\\\n]{1,256})\"|'(?P<sq>[^'\\\n]{1,256})')",
        _check_slot_password,
        left="",
        lower=True,
        starts=_login_call_starts,
    ),
    # Trigger: Redis's login and its password settings: `AUTH <pw>` and `AUTH <user> <pw>`
    # (the command in capitals, or in any case after a Redis prompt `…:6379>` / `redis>`),
    # a command array (`execute_command("AUTH", "…")`, `sendCommand(['AUTH', '…'])`),
    # `requirepass` / `masterauth` in redis.conf, `CONFIG SET` or `--requirepass`, and an ACL
    # rule's `>pw` (`ACL SETUSER alice on >… ~keys:*`). Why: the password is the command's
    # last word, with no name beside it (round 51). Outcome: the user (`default`), `AUTH LOGIN`,
    # a readable word (`AUTH required`, redis.conf's own `foobared`) and `#<sha256>` stay.
    _rule(
        "password",
        _GENERIC,
        _VALUE,
        _check_slot_password,
        left="",
        lower=True,
        starts=_redis_auth_starts,
    ),
)


# --- Matching and overlap resolution ------------------------------------------------------------


def _secret_span(m: re.Match[str], groups: tuple[str, ...]) -> tuple[int, int]:
    for name in groups:
        start = m.start(name)
        if start != -1:
            return start, m.end(name)
    return m.span()


_MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,40}\]")


def _inside_marker(text: str, pos: int) -> bool:
    """Whether `pos` falls inside one of our own ``[REDACTED:kind]`` markers."""
    opening = text.rfind("[REDACTED:", max(0, pos - 48), pos + 1)
    marker = _MARKER_RE.match(text, opening) if opening != -1 else None
    return marker is not None and marker.end() > pos


def _accept(rule: _Rule, m: re.Match[str], text: str) -> tuple[int, int, str] | None:
    """(start, end, kind) of the secret in match `m`, or None if the rule's checks reject it."""
    if rule.left and m.start() > 0 and text[m.start() - 1] in rule.left:
        return None
    start, end = _secret_span(m, rule.groups)
    end = _query_end(text, m.start(), start, end)
    if end <= start or _inside_marker(text, start) or not rule.check(m, text, text[start:end]):
        return None
    return start, end, rule.kind_of(m, text) if rule.kind_of else rule.kind


def _query_end(text: str, match_start: int, start: int, end: int) -> int:
    """A value in a URL query (`?secret=…&issuer=Acme`) ends at the next `&` or `#`, and a
    password in a URL's user info (`https://x-access-token:…@github.com/…`) at the `@`: the
    rest of the URL is context, not part of the secret."""
    if match_start >= 3 and text.startswith("://", match_start - 3):
        stops = "@"
    elif match_start > 0 and text[match_start - 1] in "?&":
        stops = "&#"
    else:
        return end
    cut = [i for i in (text.find(c, start, end) for c in stops) if i != -1]
    return min(cut) if cut else end


def _scan(
    rule: _Rule, subject: str, text: str, m: re.Match[str] | None
) -> list[tuple[int, int, str]]:
    """Accepted hits of `rule`, starting from its first match `m`."""
    found: list[tuple[int, int, str]] = []
    while m is not None:
        hit = _accept(rule, m, text)
        if hit:
            found.append(hit)
        # Trigger: a rejected match (placeholder, non-secret name, glued to a word). Why: it
        # may overlap a real secret (`x://u:${PW}@h`), so look again just past its start.
        m = rule.pattern.search(subject, m.end() if hit else m.start() + 1)
    return found


def _match_at(rule: _Rule, starts: Starts, subject: str, text: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    covered = 0
    for pos in starts(subject, text):
        m = rule.pattern.match(subject, pos) if pos >= covered else None
        hit = _accept(rule, m, text) if m else None
        if m and hit:
            found.append(hit)
            covered = m.end()
    return found


def _lowered(text: str) -> str:
    """Lower-cased text with the same length, so offsets carry over to the original."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _candidates(text: str) -> list[Candidate]:
    lowered = _lowered(text)
    found: list[Candidate] = []
    for order, rule in enumerate(_RULES):
        # (A loop, not any() over a generator: ~0.3 us less for each of ~35 hinted rules.)
        for hint in rule.hints:
            if hint in lowered:
                break
        else:
            if rule.hints:
                continue
        subject = lowered if rule.lower else text
        # Most rules find nothing in most texts: that case does one search and no other work
        # (the per-rule Python overhead was ~40% of redaction time on secret-free text).
        if rule.starts:
            hits = _match_at(rule, rule.starts, subject, text)
        elif (first := rule.pattern.search(subject)) is None:
            continue
        else:
            hits = _scan(rule, subject, text, first)
        if hits:
            found.extend((start, rule.tier, -end, order, kind) for start, end, kind in hits)
    return found


def _merge(candidates: list[Candidate]) -> list[Redaction]:
    """Earliest start wins, then the most specific rule, then the longest; overlaps are unioned."""
    merged: list[Redaction] = []
    for start, _tier, neg_end, _order, kind in sorted(candidates):
        end = -neg_end
        if merged and start < merged[-1].end:
            last = merged[-1]
            if end > last.end:
                merged[-1] = Redaction(last.kind, last.start, end)
            continue
        merged.append(Redaction(kind, start, end))
    return merged


# Trigger: masking one secret changes its neighbours' context (`AKIA…-----BEGIN …` becomes
# `AKIA…[REDACTED:private-key]`, which now ends on a token boundary). Why: a secret glued to
# another must not survive, and redact() must be idempotent; so rescan the masked text until it
# yields nothing new. Each pass adds at least one span; in practice one rescan is enough.
_MAX_RESCANS = 4

Layout = list[tuple[int, int, int, int]]  # (masked start, masked end, original start, end)


def _mask(text: str, found: list[Redaction]) -> tuple[str, Layout]:
    pieces: list[str] = []
    layout: Layout = []
    pos = size = 0
    for r in found:
        pieces.append(text[pos : r.start])
        size += r.start - pos
        marker = f"[REDACTED:{r.kind}]"
        pieces.append(marker)
        layout.append((size, size + len(marker), r.start, r.end))
        size += len(marker)
        pos = r.end
    pieces.append(text[pos:])
    return "".join(pieces), layout


def _to_original(pos: int, layout: Layout, *, is_end: bool) -> int:
    """Map an offset in the masked text back; inside a marker it snaps to the secret's edge."""
    shift = 0
    for masked_start, masked_end, start, end in layout:
        if pos < masked_start or (is_end and pos == masked_start):
            break
        if pos < masked_end or (is_end and pos == masked_end):
            return end if is_end else start
        shift = end - masked_end
    return pos + shift


def _rescan(text: str, candidates: list[Candidate]) -> list[Redaction]:
    found = _merge(candidates)
    for _ in range(_MAX_RESCANS):
        masked, layout = _mask(text, found)
        extra = _candidates(masked)
        if not extra:
            break
        for start, tier, neg_end, order, kind in extra:
            end = _to_original(-neg_end, layout, is_end=True)
            candidates.append((_to_original(start, layout, is_end=False), tier, -end, order, kind))
        previous, found = found, _merge(candidates)
        if found == previous:
            break
    return found


def find_secrets(text: str) -> list[Redaction]:
    """Spans of secrets in `text`, sorted by start and never overlapping."""
    if not text:
        return []
    # The caches share a text's secret words between rules within this call; cleared so a
    # benchmark repeating one text measures the work a new text costs.
    _word_offsets.cache_clear()
    _word_hits.cache_clear()
    _names.cache_clear()
    _ascii.cache_clear()
    candidates = _candidates(text)
    return _wrapped(text, _rescan(text, candidates)) if candidates else []


def _wrapped(text: str, found: list[Redaction]) -> list[Redaction]:
    """Each secret that ends its line is extended over the next line when that line is the
    rest of a token (wrapped by a terminal or an editor: `sk-proj-…⏎…`)."""
    out: list[Redaction] = []
    for r in found:
        end = continuation_end(text, r.end) if r.end - r.start >= 12 else None
        if end is not None and not (out and out[-1].end > r.end):
            r = Redaction(r.kind, r.start, end)
        if out and r.start < out[-1].end:
            out[-1] = Redaction(out[-1].kind, out[-1].start, max(out[-1].end, r.end))
        else:
            out.append(r)
    return out


def redact(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` with each secret replaced by ``[REDACTED:kind]``, and the kinds in text order.

    Idempotent: redacting the output again changes nothing and finds nothing.
    """
    found = find_secrets(text)
    if not found:
        return text, ()
    return _mask(text, found)[0], tuple(r.kind for r in found)


# A marker with the name it was assigned to (`api_key: [REDACTED:…]`, `password is […]`,
# `密码是 […]`): what is left of a masked secret in a text.
_MASKED_UNIT_RE = re.compile(
    r"(?:[\w.\-]{1,64}[\"']?[ \t]{0,3}(?::=|=>|[:=：]|is|was|是|为|為)?[ \t]{0,3}[\"'“「]?)?"
    r"\[REDACTED:[a-z0-9-]{1,40}\]"
)


def masked_share(text: str) -> float:
    """The share of the non-space characters of `text` that are redaction markers and the
    names they were assigned to: 1.0 for `api_key: [REDACTED:google-api-key]`, about 0.3 for a
    DSN whose password alone is masked. 0.0 when nothing in `text` was masked."""
    if "[REDACTED:" not in text:
        return 0.0
    total = sum(not c.isspace() for c in text)
    masked = sum(sum(not c.isspace() for c in m.group(0)) for m in _MASKED_UNIT_RE.finditer(text))
    return masked / total if total else 0.0

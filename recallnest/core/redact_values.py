"""Value and name policy of the redactor: which values are placeholders, code, paths or words
rather than secrets, how random a value must look, and how sure a secret-looking name must be
about its value (see the policy in `recallnest.core.redact`'s docstring).

Pure and standard library only, like `recallnest.core.redact`, its only caller.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from recallnest.core.redact_shapes import random_body, random_letters, random_printable, wordy

__all__ = [
    "PLAIN_NAME_RE",
    "PORT_RE",
    "TYPE_NAME_RE",
    "char_classes",
    "has_sample_word",
    "is_dummy_token",
    "is_placeholder",
    "is_public_key",
    "is_stopword",
    "key_profile",
    "looks_random",
    "plausible_value",
    "qualified_away",
    "random_letters",
    "random_printable",
    "value_ok",
]


# --- Value policy ------------------------------------------------------------------------------

_PLACEHOLDER_RE = re.compile(
    r"\[REDACTED:|^\$|^%\(|^![a-z_]{2,12}$|^%[A-Za-z_]\w*%$|^<.*>$|^\{.*\}$|^(.)\1*$"
    # `JWT_SECRET=<generate with openssl rand -hex 32>`: the bare value ends at the first space
    r"|^<[A-Za-z][a-z_-]*$"
    r"|xxxx|\*\*\*|\.\.\.|…"
    r"|^your|here$|^replace|^insert|^enter[-_ ]|^dummy|^sample|^redacted|^todo$|^tbd$"
    r"|^change[-_ ]?me$|^(?:password|passwd|pass|pwd|secret|token|user|none|null|nil|undefined)$"
    r"|%s|%\(\w+\)s|\{\w*\}"
    # References to a secret manager, not the secret: vault:…, op://…, ref+awsssm://…, arn:…
    r"|^(?:vault|op|ref\+\w+|ssm|secretsmanager|gcpsm|azkv|keyring|arn):",
    re.IGNORECASE | re.ASCII,
)
# "my-client-secret", "super_secret_token", "challengePassword": words that describe a secret.
_DESCRIPTIVE_RE = re.compile(r"^[a-z]+(?:[-_][a-z]+)*$|^[a-z]+(?:[A-Z][a-z]+)+$")
# "types-auth0-python", "my.service.name": a slug of short words, not a generated value.
_SLUG_RE = re.compile(r"^[a-z]+[0-9]{0,2}(?:[-_./][a-z]+[0-9]{0,2}){2,}$")
# `password = split`, `last_pass = DEFAULT_LAST_PASS`, `_Key = DHPrivateKey`: a name in code.
PLAIN_NAME_RE = re.compile(r"^[A-Za-z_]+$")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOPWORDS = _words(
    "true false yes no on off none null nil undefined required optional string str bytes int"
    " number bool boolean any object env file prompt stdin hidden empty unset default must"
    " should will is are the this that not and for with from was has have when if then see use"
    " using set get enter type your my our their its field value same new old at in on of to be"
    " can cannot please also only missing invalid incorrect wrong changed reset expired ok okay"
    " done updated secretstr secretbytes sensitive text flag option options argument arg param"
    " parameter switch or as which disabled enabled auto self"
)
_EXPRESSION_RE = re.compile(r"[()\[\]{}]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$", re.ASCII)
_IDENTIFIER_RE = re.compile(r"^[a-z_][a-z0-9_]*$|^[a-z]+(?:[A-Z][a-z0-9]*)+$")
TYPE_NAME_RE = re.compile(r"^[A-Z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")
_SECRET_WORD_RE = re.compile(r"pass|pwd|secret|token|key|cred|auth", re.IGNORECASE)
_PATH_RE = re.compile(r"^(?:~|\.{1,2})?/[\w.\-/]{0,256}$|^[A-Za-z]:[\\/]", re.ASCII)
_KEYFILE_RE = re.compile(r"^[\w.\-]{1,64}\.(?:pem|key|crt|cer|p12|pfx|jks|json|ya?ml|txt|gpg|asc)$")
PORT_RE = re.compile(r"^\d{1,5}(?::\d{1,5}){0,2}(?:/\w+)?$", re.ASCII)


# Words that mark a sample wherever they sit in a value (`example-key`, `AKIAIOSFODNN7EXAMPLE`).
_HINT_WORD_RE = re.compile(r"example|placeholder", re.IGNORECASE | re.ASCII)
_MIN_RANDOM_REST = 20


# Trigger: an instruction standing where the value goes (`REPLACE_ME`, `FILL_ME_IN`, `SET_ME`,
# `CHANGE_THIS`, `PUT_YOUR_TOKEN`, `TODO_SET_ME`, `<your key>`), alone or after the provider's
# prefix that tells which key belongs there (`sk_live_REPLACE_ME`, `ghp_YOUR_TOKEN`,
# `sk-proj-<key>`: a .env.example, secrets s53 look-alike). Why: a template's words ask the
# reader for the value and are none; the prefix had hidden them from the anchored hints
# above. Outcome: kept when the words read as words; a generated body is a key whatever it
# opens with (see `_fill_in`).
_FILL_IN_RE = re.compile(
    r"(?:(?:replace|change|set|put|paste|insert|enter|add)[-_ ]?(?:me|it|this|here|with|your)"
    r"|fill[-_ ]?(?:me[-_ ]?)?in|your|todo|tbd)(?:[-_ ][a-z]+)*$|<[a-z][a-z _-]*>?$",
    re.IGNORECASE | re.ASCII,
)
# A provider's prefix: `sk-`, `ghp_`, `SG.`, and a second word after it (`sk_live_`, `sk-proj-`).
_VENDOR_PREFIX_RE = re.compile(r"([A-Za-z]{1,8}[-_.])([a-z]{2,8}[-_])?", re.ASCII)


def _fill_in(value: str) -> bool:
    """The value is a template's instruction, alone or after a provider's prefix."""
    bodies = [value]
    prefix = _VENDOR_PREFIX_RE.match(value)
    if prefix is not None:
        bodies += [value[prefix.end(1) :], value[prefix.end() :]]
    return any(_FILL_IN_RE.match(body) is not None and not looks_random(body) for body in bodies)


def is_placeholder(value: str) -> bool:
    value = value.strip()
    if _fill_in(value):
        return True
    # (`pass:<pw>.` ends a sentence: the placeholder is `<pw>`.)
    if _PLACEHOLDER_RE.search(value) or _PLACEHOLDER_RE.search(value.rstrip(".,;:!?")):
        # Trigger: a generated salt holding `{}`, `%s`, `...` or opening with `$` by chance
        # (WordPress's keys, round 43). Why: those marks make a template only in a value
        # that is otherwise readable; in one drawn from all of printable ASCII they are noise.
        return "[REDACTED:" in value or not random_printable(value)
    if has_sample_word(value):
        return True
    # Trigger: random letters that hold `key` or `pass` by chance (`mtzkeyqwxtdjxgzr`, round
    # 43). Why: a descriptive value reads as words; random letters do not.
    descriptive = _DESCRIPTIVE_RE.match(value) is not None and not random_letters(value)
    return descriptive and _SECRET_WORD_RE.search(value) is not None


def has_sample_word(value: str) -> bool:
    """`example` or `placeholder` in the value, and the rest of it no generated token.

    Trigger: the word inside a random-looking rest of 20+ characters (`…/bPxEXAMPLEKEY9`,
    `Tq8zR3vNexample7Kp2…`). Why: a hint is read, not hidden in noise; around a generated
    body it is a pasted value (a vendor sample someone edited, a key that happens to spell
    it), and masking it costs nothing. `AKIAIOSFODNN7EXAMPLE` (13 characters left) and
    `exampleClientSecretValue12345` (words) stay samples; AWS's published secret-key sample
    (`wJalr…EXAMPLEKEY`, 33 random characters left) is masked: the price of this rule.
    """
    if _HINT_WORD_RE.search(value) is None:
        return False
    rest = _HINT_WORD_RE.sub("", value)
    return len(rest) < _MIN_RANDOM_REST or wordy(rest) or not looks_random(rest)


def is_stopword(value: str) -> bool:
    return value.lower().rstrip(".,:!?") in _STOPWORDS


_SAMPLE_ENDINGS = ("example", "examplekey", "placeholder")


def is_dummy_token(value: str) -> bool:
    """A provider-shaped token that is really a sample (`ghp_xxxx…`, `…EXAMPLE`).

    Trigger: the sample word ends the token, as the vendors' documented samples do
    (`AKIAIOSFODNN7EXAMPLE`, `…EXAMPLEKEY`). Why: a value of the vendor's exact shape with
    the word in its middle (`AKIAQX7EXAMPLE4TFZ2M`, e2e-heldout4) is an edited or generated
    key, not the published sample; it was stored unmasked.
    """
    low = value.lower()
    sample = low.endswith(_SAMPLE_ENDINGS) and has_sample_word(value)
    return sample or "xxxx" in low or "[redacted" in low or len(set(low)) < 6


def char_classes(value: str) -> tuple[bool, bool, bool]:
    """(has digit, has upper case, has lower case)."""
    return (
        any(c.isdigit() for c in value),
        any(c.isupper() for c in value),
        any(c.islower() for c in value),
    )


def looks_random(value: str) -> bool:
    """High-entropy enough to be a generated key rather than a word, name or number.

    Letters-only values must read as no word (random_letters: `BqxDpHVCFWAKOnHr`, not
    `protocolVersion`), or be long and switch case often, as random base62 does about every
    other letter. A value drawn from all of printable ASCII, spaces included, is generated
    too (random_printable: WordPress's salts).
    """
    if value.isalpha() and random_letters(value):
        return True
    if len(value) < 12 or len(set(value)) < 8 or any(c.isspace() for c in value):
        return random_printable(value)
    digit, upper, lower = char_classes(value)
    if _SLUG_RE.match(value):
        return False
    if digit:
        return upper or lower or random_printable(value)
    switches = sum(a.isupper() != b.isupper() for a, b in itertools.pairwise(value))
    long_switching = upper and lower and len(value) >= 24 and switches * 4 >= len(value)
    return long_switching or random_printable(value)


def _is_path_or_url(value: str) -> bool:
    if "://" in value or _KEYFILE_RE.match(value):
        return True
    if not _PATH_RE.match(value):
        return False
    return not any(len(seg) >= 20 and looks_random(seg) for seg in value.split("/"))


def _is_code_ref(value: str, key: str) -> bool:
    """`password=db_password`, `token: apiKey`, `key = os.environ[...]`: a name, not a value."""
    # Trigger: closing brackets glued to the value with no opening one inside it, as in
    # `(DB_PASSWORD=hunter2-x)`. Why: they close the surrounding prose, not a call expression;
    # but `(password: str)` is a parameter annotation, so a bare lowercase word stays code.
    if not any(c in value for c in "([{") and value != value.rstrip(")]}"):
        value = value.rstrip(")]}")
        if value.isalpha() and value.islower():
            return True
    if value.lower() == key.lower() or (
        _EXPRESSION_RE.search(value) and not _generated_part(value)
    ):
        return True
    # Trigger: a lower/snake/camelCase identifier. Why: only names that mention a secret are
    # taken as references (`auth`, `db_password`), so `hunter_two` is still masked.
    # (Random letters holding such a word by chance are no name: see random_letters.)
    named = _IDENTIFIER_RE.match(value) is not None and _SECRET_WORD_RE.search(value) is not None
    return named and not random_letters(value)


def _generated_part(value: str) -> bool:
    """A dotted value with a generated segment is a token, not `settings.SECRET_KEY`.

    Trigger: `API_KEY=SG.k3Jd8sLq0_TzQ.vN2xP7fYw4…` (a SendGrid key under a shorter sample
    body, e2e-heldout10). Why: it matched the attribute-access shape and was kept as code."""
    return any(len(part) >= 16 and random_body(part) for part in value.split("."))


def qualified_away(word: str, noun: str = "") -> bool:
    """`cache`, `public`, `page`…: a word that makes the key or token after it an identifier;
    `object`, `upload`, `registry`…: one that makes a key an identifier, not a token; `site`
    makes a key public (`site key`), not a token or a secret."""
    if word in _NON_SECRET_QUALIFIERS:
        return True
    return noun in _SITE_KEY_NOUNS and (word in _STORE_QUALIFIERS or word == "site")


# Trigger: a Mapbox public token (`pk.eyJ…`, its secret ones open `sk.`) or a Stripe
# publishable key (`pk_live_…`, `pk_test_…`) under a token or key name (`mapboxgl.accessToken
# = 'pk.eyJ…'`, secrets s44 look-alike). Why: both are public client keys, shipped in every
# page that uses them; masking them protects nothing. Outcome: kept wherever they stand.
_PUBLIC_KEY_RE = re.compile(r"pk\.eyJ|pk_(?:live|test)_", re.ASCII)


def is_public_key(value: str) -> bool:
    """A public client key by its prefix: Mapbox's `pk.eyJ…`, Stripe's `pk_live_…`."""
    return _PUBLIC_KEY_RE.match(value.strip("\"'")) is not None


def plausible_value(value: str, *, bare: bool, key: str) -> bool:
    """Not a placeholder, stop word, public key, path, URL or code reference."""
    implausible = (
        is_placeholder(value)
        or is_stopword(value)
        or is_public_key(value)
        or value.lstrip().startswith("=")
        or _flag_shaped(value)
        or _is_path_or_url(value)
        or (bare and _is_code_ref(value, key))
    )
    # A generated salt may open with `-` or `=`, or hold brackets (see random_printable).
    return not implausible or ("[REDACTED:" not in value and random_printable(value.strip()))


def _flag_shaped(value: str) -> bool:
    """`--with-password-file`, `-p`: a command-line flag, not a value.

    Trigger: a value opening with "-" whose rest is generated (`-2NaMmXv_…==`, a base64url
    token, e2e-heldout11). Why: base64url uses "-" as a letter, so a quoted or YAML value may
    open with one; only a dash before words or a short flag is a flag."""
    value = value.lstrip()
    if not value.startswith("-"):
        return False
    rest = value.lstrip("-")
    return not (len(rest) >= 16 and random_body(rest.rstrip("=")))


def value_ok(value: str, strength: str, *, bare: bool, key: str) -> bool:
    if not plausible_value(value, bare=bare, key=key):
        return False
    if strength == "strong":
        return len(value.strip()) >= 4
    if strength == "pass":
        # A plain lower-case word after `…_pass` is prose (`bypass: enabled`); random
        # letters are a password (`db_pass: eeuhzmxs…`, round 43).
        word = value.isalpha() and value.islower() and not random_letters(value)
        return len(value) >= 4 and not word
    if strength == "env":
        return len(value) >= 8 and not value.isdigit()
    if strength == "psk":
        return 8 <= len(value) <= 64  # a WPA passphrase (8-63) or its 64-hex key
    return looks_random(value)


# --- Secret-looking names ----------------------------------------------------------------------

_NAME_PART_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_PASSWORD_PARTS = _words("password passwd pwd pw passphrase passcode")  # pw: round 43
_STRONG_PARTS = _words("secret secrets credential credentials creds")
# (`ukey`: a user key, Feieyun's cloud printer `define('UKEY', '…')`, secrets s45)
_KEY_COMPOUNDS = _words(
    "apikey accesskey secretkey authkey masterkey signingkey encryptionkey ukey"
)
_IGNORED_SUFFIXES = _words("value val b64 base64 raw hex base confirmation confirm plain data")
# Trigger: a weak word (key/token) qualified by one of these. Why: `cache_key`, `public_key`,
# `next_page_token`, `cancellation_token` name identifiers, not credentials: a place in a
# table, a list or a run of pages, or a handle on some state.
# ("routing" is not one: a message queue's routing key is a dotted name, never a generated run,
# and PagerDuty's routing key is the integration's secret, secrets s51 / e2e-heldout25.)
_NON_SECRET_QUALIFIERS = _words(
    "public pub cache sort primary foreign partition idempotency lookup hash page next prev"
    " pagination continuation cursor index max min sync row group shard dedup unique"
    " composite i18n translation field column table hot map dict item list cancellation"
    " cancel lock gsi lsi range"
)
# Trigger: a store or a stream before `key` (`s3_object_key`, `upload_key`, `registry key`,
# `log key`) or before `token` (`MAPBOX_DOWNLOAD_TOKEN`, `CARGO_REGISTRY_TOKEN`, `upload_token`,
# a log drain's `LOG_TOKEN`). Why: a key there names a record (an object's path in its
# bucket, a registry's entry, a log line's field), but a token there is what lets one put or
# take things in that store: Mapbox's secret download token, a crates.io token, Qiniu's upload
# token (secrets s55, e2e-heldout29 h29x03). Outcome: only a plain key is qualified away by
# these; a token, an auth and an api key are not.
_STORE_QUALIFIERS = _words(
    "upload download object bucket file blob path meta registry log event metric trace span message"
)
# Trigger: "site key 6Lc…", `RECAPTCHA_SITE_KEY`, `siteKey`. Why: a CAPTCHA site key
# (reCAPTCHA, hCaptcha, Turnstile) is public by design, served in every page's data-sitekey
# (secrets s41); only `key` is qualified away: `SITE_API_KEY`, `site token`, `site secret` and
# the CAPTCHA's secret key stay secrets.
_SITE_KEY_NOUNS = frozenset(("key", "keys"))


def _is_weak_part(part: str) -> bool:
    return (
        part in ("key", "token", "auth", "bearer")
        or part.endswith("token")
        or (part in _KEY_COMPOUNDS)
    )


@lru_cache(maxsize=4096)
def key_profile(key: str) -> tuple[str, str] | None:
    """(kind, strength) for a secret-looking name, None for any other name."""
    parts = [p.lower() for p in _NAME_PART_RE.findall(key)]
    while parts and (parts[-1].isdigit() or parts[-1] in _IGNORED_SUFFIXES):
        parts.pop()
    if not parts:
        return None
    # Trigger: `private_key_id` (a service-account file). Why: it names the private key that
    # sits next to it; `key_id` alone (`aws_access_key_id`) is an identifier and is not.
    if parts[-2:] == ["key", "id"] and "private" in parts:
        return ("generic-secret", "strong")
    # Trigger: `R2_ACCESS_KEY_ID=<32 hex>`, `hmac_access_key_id`, `secret_id=<uuid>` (an AppRole
    # or Tencent SecretId). Why: the id half of an access key pair is a credential too
    # (e2e-heldout11); AWS's AKIA ids were masked by shape only. A generated value is needed,
    # and `key_id`, `client_id` and `account_id` alone stay identifiers.
    # `access_id` / `AccessId` too (Tuya, Huawei's AK: the id beside an access_secret; round
    # 39 e2e-heldout13).
    if parts[-1:] == ["id"] and (
        parts[-3:-1] == ["access", "key"] or parts[-2:-1] in (["secret"], ["access"])
    ):
        return ("generic-secret", "weak")
    if parts[-2:] in (["accesskey", "id"], ["accessid"]) or parts[-1:] == ["accessid"]:
        return ("generic-secret", "weak")
    last = parts[-1]
    # Trigger: `HUAWEICLOUD_SDK_AK`, `OBS_SK`: the short halves of a cloud key pair (access key
    # id, secret key; Huawei, Baidu, Qiniu). Why: a bare `sk` is a DynamoDB sort key and
    # `gsi1_sk` an index's, so a word must come before it and none may name an index; the value
    # must look generated (strength "pair" is never relaxed to the .env rule's 8 characters).
    if last in ("ak", "sk"):
        pair = len(parts) > 1 and not any(qualified_away(p, "key") for p in parts[:-1])
        return ("generic-secret", "pair") if pair else None
    # Trigger: `psk=` / `wpa_psk=` (wpa_supplicant, hostapd, IPsec). Why: a pre-shared key is
    # the network's password; WPA takes 8-63 characters, so shorter values are something else.
    if last == "psk":
        return ("password", "psk")
    if last in _PASSWORD_PARTS or last.endswith(("password", "passwd")):
        return ("password", "strong")
    # Trigger: a name ending in "pass". Why: `db_pass` is a password but `last_pass`, `bypass`
    # and "single pass:" are not, so the value itself must not be a plain word.
    if last == "pass":
        return ("password", "pass")
    if last in _STRONG_PARTS or last.endswith("secret") or last == "privatekey":
        return ("generic-secret", "strong")
    # Trigger: `securityJsCode`, `AMAP_SECURITY_CODE`, `jscode` (AMap's JS API security key,
    # secrets s43). Why: the map key's secret half, sent with it to sign requests; the name
    # says "code", so a generated value is needed (strength "weak"): `error_code` stays.
    if last in ("jscode", "securitycode") or (
        last == "code" and parts[-2:-1] in (["js"], ["security"])
    ):
        return ("generic-secret", "weak")
    # Trigger: `appCertificate`, `AGORA_APP_CERTIFICATE`, "App Certificate 是 <32 hex>"
    # (Agora's, secrets s44). Why: the app's signing secret beside its public App ID, from
    # which tokens are made; a TLS `ssl_certificate` names a file or a public certificate.
    # A generated value is needed (strength "weak").
    if last == "appcertificate" or parts[-2:] == ["app", "certificate"]:
        return ("generic-secret", "weak")
    # Trigger: WordPress's `AUTH_SALT` / `NONCE_SALT`, Drupal's `hash_salt`, `HASHIDS_SALT`,
    # Flask-Security's `SECURITY_PASSWORD_SALT` (round 43). Why: a site's salts key its
    # cookies and tokens like its secret key; a generated value is needed (strength "weak"),
    # so `SALT_ROUNDS = 12` and `salt = bcrypt.gensalt()` stay, and WordPress's
    # `WP_CACHE_KEY_SALT` is a cache prefix.
    if last == "salt":
        return None if "cache" in parts else ("generic-secret", "weak")
    if not _is_weak_part(last) or parts == ["key"] or parts[-2:] == ["site", "key"]:
        return None
    if "private" in parts or "secret" in parts:
        return ("generic-secret", "strong")
    if _keys_crypto(parts):
        return ("generic-secret", "weak")
    if any(qualified_away(p, last) for p in parts[:-1]):
        return None
    return ("generic-secret", "weak")


# Trigger: `FIELD_ENCRYPTION_KEY`, `column_signing_key`, `cacheHmacKey` (a Fernet key in a
# Kubernetes Secret, secrets s56). Why: a word of encryption or signing right before the key
# says what the key does; a table's, a cache's or a field's word further left only says what
# it protects, so it qualifies nothing away. `public` still does (`PUBLIC_SIGNING_KEY`).
_CRYPTO_WORDS = _words(
    "encryption encrypt crypt crypto cipher signing sign hmac jwt kek dek fernet"
)
_CRYPTO_COMPOUNDS = _words("encryptionkey signingkey")


def _keys_crypto(parts: list[str]) -> bool:
    """The key's name says it encrypts or signs, and nothing in it says public."""
    crypto = parts[-1] in _CRYPTO_COMPOUNDS or (len(parts) > 1 and parts[-2] in _CRYPTO_WORDS)
    return crypto and not any(p in ("public", "pub") for p in parts)

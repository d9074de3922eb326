"""The leak classes of secrets s56 and s57 and of e2e-heldout31 h31x02, on values and phrasings
of our own (every value below was generated for this file).

1. A key named for encrypting or signing stays a secret whatever word stands further left
   (`FIELD_ENCRYPTION_KEY`, `column_signing_key`): that word says what the key protects.
2. A literal turned into bytes or a string object is the value of its assignment: Go's
   `[]byte("…")`, Python's `b"…"` / `bytes("…", …)`, Node's `Buffer.from("…")`, Rust's
   `String::from("…")`.
3. A method called through an arrow (`$redis->auth('…')`) is a step given its secret, as
   `.auth('…')` was.
4. A DingTalk robot's signing secret (SEC + 64 hex) by its own shape, and the Chinese words
   加签, 密匙 / 秘匙 as secret nouns before a generated value.

Each masked case fails on the round's start (24552bc); each kept case passes on both.
"""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

HEX64 = "894b7fc7c7fd2945ec43a44ecff1821e5d77207ce4cb146e6f9aca026d81cd50"
FERNET = "bgAbiMgdrME9BICZu4736J3i6VWoKWz3jgVbuFLbxBU="
BASE62 = "GSApctUngUD4XHAmMPjCJJuf"
SHORT = "23f6I3Wi4OVCU8FUHwp0"

# --- 1. An encryption or signing key qualified by a table's or a field's word -----------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"stringData:\n  COLUMN_ENCRYPTION_KEY: {FERNET}\n  LOG_LEVEL: info", FERNET),
        (f"LOOKUP_SIGNING_KEY={BASE62}", BASE62),
        (f'{{"cacheHmacKey": "{HEX64}", "ttl": 300}}', HEX64),
        (f'ROW_CRYPTO_KEY = "{FERNET}"', FERNET),
        (f"field_encryptionkey: {BASE62}", BASE62),
    ],
)
def test_a_key_named_for_encrypting_or_signing_is_a_secret(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        # A public half stays public, and a field's or a sort's key with no crypto word is a
        # record's name.
        "PUBLIC_SIGNING_KEY=MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=",
        f"field_key: {FERNET}",
        f'sort_key = "{HEX64}"',
        "partition_key: tenant_id",
    ],
)
def test_a_table_or_public_key_stays(text: str) -> None:
    assert_kept(text)


# --- 2. A literal converted to bytes ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f'var hmacSecret = []byte("{BASE62}")', BASE62),
        (f'signing_key = bytes("{HEX64}", "ascii")', HEX64),
        (f'const sessionKey = Buffer.from("{FERNET}", "base64");', FERNET),
        (f'let api_key = String::from("{BASE62}");', BASE62),
        (f'SECRET_KEY = b"{SHORT}"', SHORT),
    ],
)
def test_a_literal_converted_to_bytes_is_the_value(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        'password = os.getenv("DB_PASSWORD_FILE")',
        'token = bytes(token_str, "utf-8")',
        f'cache_key = b"{HEX64}"',
        'key = b"user:42"',
    ],
)
def test_a_lookup_or_a_name_converted_stays(text: str) -> None:
    assert_kept(text)


# --- 3. Arrow and path calls ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"$client->auth('{SHORT}');", SHORT),
        (f'$cache = new Redis();\n$cache->auth("{BASE62}");', BASE62),
        (f"$this->mailer->auth('{SHORT}');", SHORT),
    ],
)
def test_an_arrow_call_given_its_secret_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    ["$redis->auth('default');", "$this->auth($request);", "$router->token('csrf')"],
)
def test_an_arrow_call_given_a_word_or_a_variable_stays(text: str) -> None:
    assert_kept(text)


# --- 4. DingTalk's signing secret and Chinese secret nouns -------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"钉钉机器人的签名：SEC{HEX64} 先放这", f"SEC{HEX64}"),
        (f"the dingtalk bot's sign secret, paste it in settings: SEC{HEX64}", f"SEC{HEX64}"),
        (f"robot:\n  sign: SEC{HEX64}\n  keyword: alarm", f"SEC{HEX64}"),
        (f"加签：{HEX64}", HEX64),
        (f"密匙: {SHORT}", SHORT),
        (f"服务器私匙是 {BASE62}", BASE62),
    ],
)
def test_a_dingtalk_secret_or_a_chinese_secret_noun_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        f"sha256 of the release tarball: {HEX64}",
        f"SECURITY.md 改过了，提交 {HEX64}",
        "加签: 已开启，关键词是 告警",
        f"SEC {HEX64}",
    ],
)
def test_a_hash_near_sec_or_a_setting_in_words_stays(text: str) -> None:
    assert_kept(text)

"""Round 43's leak classes, each as a class on values and phrasings of our own (the values drawn
from /dev/urandom), and the look-alikes of each class that must stay.

Classes: passwords, secrets and tokens of random letters only (`password = BqxDp…` in an INI
file, `db_pass: eeuh…`, "the admin password is wcUr…"), where words, placeholders and code
names stay.

Every leak here was stored before the round's change, and every look-alike stands beside a
leak of the same class, so it fails until the class is handled."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_redact_round41b_classes import assert_masked_keeping

from recallnest.core.redact import redact

LEAKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # --- Passwords, secrets and tokens of random letters only -------------------------------
    "ini-spaced-password-mixed": (
        "[client]\nuser = backup\npassword = BqxDpHVCFWAKOnHr\nhost = db.tide.lan",
        "BqxDpHVCFWAKOnHr",
        ("user = backup", "host = db.tide.lan"),
    ),
    "ini-spaced-secret-lower": (
        "[auth]\nclient_secret = rkvgwzbmhedcrrqg\nclient_id = tide-web",
        "rkvgwzbmhedcrrqg",
        ("client_id = tide-web",),
    ),
    "pass-name-lower-letters": (
        "db_pass: eeuhzmxsaauqqdwl\ndb_user: tide",
        "eeuhzmxsaauqqdwl",
        ("db_user: tide",),
    ),
    "token-lower-letters": (
        "slack:\n  token: ctemklfzigdzkkolwqpx\n  channel: ops",
        "ctemklfzigdzkkolwqpx",
        ("channel: ops",),
    ),
    "api-key-upper-letters-quoted": (
        'config.api_key = "QBWWXCEBBLAWBNNO"',
        "QBWWXCEBBLAWBNNO",
        ("config.api_key = ",),
    ),
    "prose-password-mixed-letters": (
        "the admin password is wcUrKJRUnOYVJDkT for now, rotate it friday",
        "wcUrKJRUnOYVJDkT",
        ("the admin password is", "rotate it friday"),
    ),
    "prose-token-lower-letters": (
        "the webhook token is xfklkrvjvqrcgbtdmnzq, the channel is #alerts",
        "xfklkrvjvqrcgbtdmnzq",
        ("the channel is #alerts",),
    ),
    "netrc-password-letters": (
        "machine ftp.tide.lan login mirror password CQKsXBSGJVrjnCan",
        "CQKsXBSGJVrjnCan",
        ("machine ftp.tide.lan login mirror",),
    ),
    "zh-password-spaced-letters": (
        "测试库账号 tide_ro，密码 EDtDqPLujcZkHuWC，只读",
        "EDtDqPLujcZkHuWC",
        ("测试库账号 tide_ro", "只读"),
    ),
    "login-pair-letters": (
        "the nas login is backup / BGmHDqmKTxItJTOi if the share drops",
        "BGmHDqmKTxItJTOi",
        ("if the share drops",),
    ),
    # Random letters that happen to hold a secret word are no descriptive placeholder.
    "password-letters-holding-key": (
        "password: mtzkeyqwxtdjxgzr",
        "mtzkeyqwxtdjxgzr",
        ("password: ",),
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_masked(name: str) -> None:
    text, secret, kept = LEAKS[name]
    assert_masked_keeping(text, secret, *kept)


# Each look-alike beside a leak of the same class, so the test fails until the class is
# handled and keeps failing if the rule grows too wide.
LOOKALIKES: dict[str, tuple[str, str, str]] = {
    # Words, placeholders, variables and code names in a password or token slot stay.
    "password-words-and-placeholders": (
        "password: changeme\nsecret: mySecretName\npassword: ${DB_PASSWORD}\n"
        "db_pass: notsecure\npassword: eeuhzmxsaauqqdwl",
        "eeuhzmxsaauqqdwl",
        "password: changeme\nsecret: mySecretName\npassword: ${DB_PASSWORD}\ndb_pass: notsecure",
    ),
    "code-names-in-slots": (
        "password = getpass\ntoken = TokenType\nsecret = generateSecret\n"
        "auth_token = refreshToken\npassword = userInputPassword\npassword = BqxDpHVCFWAKOnHr",
        "BqxDpHVCFWAKOnHr",
        "password = getpass\ntoken = TokenType\nsecret = generateSecret\n"
        "auth_token = refreshToken\npassword = userInputPassword",
    ),
    "prose-password-words": (
        "the password is straightforward to reset, the token is configurable, and the "
        "password is incorrect; the real admin password is wcUrKJRUnOYVJDkT",
        "wcUrKJRUnOYVJDkT",
        "the password is straightforward to reset, the token is configurable, and the "
        "password is incorrect;",
    ),
    "weak-slot-words": (
        "api_key: required\ntoken: authentication\nauth: basic\ntoken_type: bearer\n"
        "token: ctemklfzigdzkkolwqpx",
        "ctemklfzigdzkkolwqpx",
        "api_key: required\ntoken: authentication\nauth: basic\ntoken_type: bearer",
    ),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_is_kept(name: str) -> None:
    text, secret, kept = LOOKALIKES[name]
    assert_masked_keeping(text, secret, kept)


# --- Hostile input: each new pattern with repetition completes -------------------------------

HOSTILE: dict[str, Callable[[int], str]] = {
    "letters": lambda n: "password = " + "qzx" * n,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_completes(name: str) -> None:
    """Hostile repetitions of the new rules' words complete and mask idempotently; their time
    is measured by bench/bench_redact.py, not asserted here."""
    masked, _kinds = redact(HOSTILE[name](4_000))
    assert redact(masked) == (masked, ())

"""Round 49's blind secrets batch (s53): a template's instruction standing where the value goes,
alone or after the provider's prefix that says which key belongs there (a .env.example's
`sk_live_REPLACE_ME`), is kept; a generated body or a real password that opens with such a word
is still masked. Values and phrasings of our own, none of the batch's rows."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked


@pytest.mark.parametrize(
    "text",
    [
        # a provider's prefix, then the instruction
        "OPENAI_API_KEY=sk-REPLACE_ME",
        "GITHUB_TOKEN=ghp_REPLACE_ME",
        "PAYMENTS_KEY=sk_test_CHANGE_ME",
        "STRIPE_RESTRICTED_KEY=rk_live_FILL_ME_IN",
        "STRIPE_SECRET_KEY=sk_live_TODO",
        "ANTHROPIC_API_KEY=sk-ant-PUT_YOUR_KEY",
        "export STRIPE_KEY=sk_live_CHANGEME",
        '{"secretKey": "sk_live_REPLACE_WITH_YOUR_KEY", "currency": "eur"}',
        'stripe_secret_key: "sk_test_<your test key>"',
        "gitlab:\n  token: glpat-SET_ME\n  url: https://gitlab.example.org",
        "deploy with --token ghp_REPLACE_ME once the secret is in the vault",
        # the instruction alone, under a password name
        "DB_PASSWORD=FILL_ME_IN",
        "SMTP_PASSWORD=SET_ME",
        "REDIS_PASSWORD=CHANGE_THIS",
    ],
)
def test_a_template_instruction_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a generated body after the instruction word, or an instruction glued to digits
        ("API_KEY=sk-REPLACE_ME_9f8Kq2LmZx7Vb3Nc", "9f8Kq2LmZx7Vb3Nc"),
        ("SECRET=sk_live_Your8dk3JfQ0pLm2Vz9xWq7Rt5", "Your8dk3JfQ0pLm2Vz9xWq7Rt5"),
        # passwords that open with such a word
        ("password: Todo#8812xK", "Todo#8812xK"),
        ("DB_PASSWORD=ChangeMe2024", "ChangeMe2024"),
        ("DB_PASSWORD=todo_2024!", "todo_2024!"),
        ("DB_PASSWORD=settlement-Qx7", "settlement-Qx7"),
    ],
)
def test_a_value_opening_with_such_words_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)

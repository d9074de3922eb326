"""Credential classes that reached the store in round 44's blind batch (secrets s46, and
e2e-heldout20 h20g02), each on values and phrasings of our own, beside look-alikes of the same
rules that must stay: a bare AK/SK label in chat, the password of a basic-auth pair given as
a Python tuple, Mailgun's 32-8-8 key shape, and a `<generate …>` placeholder."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

from recallnest.core.redact import redact

LEAKS = {
    "zh-ak-prose": (
        "对象存储用七牛，AK 是 Rk7vQm2ZtL9xWp4NcB8yHd3-JF-gTs6Ua1Ye5Kq，域名绑 cdn.example.cn",
        "Rk7vQm2ZtL9xWp4NcB8yHd3-JF-gTs6Ua1Ye5Kq",
    ),
    "en-ak-is": (
        "the AK is Zp8Lq2WvTn5Kx9Rb3Md7Hf-QX-c4Gs6Ya0Eu",
        "Zp8Lq2WvTn5Kx9Rb3Md7Hf-QX-c4Gs6Ya0Eu",
    ),
    "ak-colon": (
        "AK: Lw3Rt8Yq1Zp6Kv9Xm2N-bq-5Hc7Jd4Ws, region cn-east-1",
        "Lw3Rt8Yq1Zp6Kv9Xm2N-bq-5Hc7Jd4Ws",
    ),
    "requests-auth-tuple": (
        'r = requests.post(url, auth=("api", "Vq8!Lr2#Tz6Wm4Kx"), data=form)',
        "Vq8!Lr2#Tz6Wm4Kx",
    ),
    "basic-auth-class": (
        "session.auth = HTTPBasicAuth('ops', 'wR7tZq3LmX9p')",
        "wR7tZq3LmX9p",
    ),
    "mailgun-32-8-8": (
        "MAILGUN_KEY is 4f1e8a9c2b7d6e3f0a5c8b1d9e2f7a6c-3b8d1f0e-9a2c7e4b in the vault",
        "4f1e8a9c2b7d6e3f0a5c8b1d9e2f7a6c-3b8d1f0e-9a2c7e4b",
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_the_secret_is_masked(case: str) -> None:
    text, secret = LEAKS[case]
    assert_masked(text, secret)


KEPT = {
    "ak-rifle": "仓库那张海报上印的 AK 是 47 型步枪，不是密钥",
    "ak-word": "AK is short for the access key half; SK is the secret half",
    "auth-variable": 'requests.post(url, auth=("api", api_key), data=form)',
    "auth-placeholder": 'requests.post(url, auth=("api", "your-api-key-here"))',
    "auth-plain-word": 'auth=("user", "password")',
    "generate-placeholder": "JWT_SECRET=<generate with openssl rand -hex 32>",
    "uuid": "request 3f6c2a1e-8b9d-4e7f-a2c5-9d8e7f6a5b4c failed",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_the_look_alike_stays(case: str) -> None:
    assert_kept(KEPT[case])


def test_the_user_of_a_basic_auth_pair_stays() -> None:
    masked = redact('auth=("rota-bot", "Vq8!Lr2#Tz6Wm4Kx")')[0]
    assert "rota-bot" in masked and "Vq8!" not in masked, masked


def test_a_builder_step_with_a_weak_name_and_a_generated_literal_is_masked() -> None:
    # secrets s47 (round 44's final blind batch): Square's Java builder, `.accessToken("EAAA…")`
    secret = "EAAAxQ7vLm2RtZ9pKw4NcY8bHd3JfS6gUa1Ye5Kq0WzXr-Tp_Mn7Vb2Lc9Hs4Qd"
    assert_masked(f'.environment(Environment.PRODUCTION)\n    .accessToken("{secret}")', secret)
    assert_kept('builder.token("refresh").scope("read").build()')

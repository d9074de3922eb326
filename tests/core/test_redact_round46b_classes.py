"""Credential classes of round 46's final blind batch (secrets s51, e2e-heldout25), measured
once on the round's final code and then fixed, each on values and phrasings of our own beside
look-alikes that must stay: a UUID that is the only argument of an API client (a server
token), the key a JWT or HMAC is signed with, a mail account's 授权码, and a routing key that
is a generated run (PagerDuty's integration key)."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

LEAKS = {
    "client-uuid-alone": (
        "$mailer = new Mailer\\MailClient('6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b');",
        "6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b",
    ),
    "jwt-sign": (
        "const t = jwt.sign({ seat: id }, '9b514556b380ead76803285b58ded515', { expiresIn: 2 });",
        "9b514556b380ead76803285b58ded515",
    ),
    "jwt-encode-python": (
        'token = jwt.encode(claims, "3031ab8fc70e9f66e7b844ce93c29362", algorithm="HS256")',
        "3031ab8fc70e9f66e7b844ce93c29362",
    ),
    "create-hmac": (
        "const sig = crypto.createHmac('sha256', 'kzt5Z-zTOW8MbNWU').update(body).digest('hex');",
        "kzt5Z-zTOW8MbNWU",
    ),
    "zh-auth-code": (
        "报名通知走学校邮箱 smtp.example-univ.edu.cn，账号 signup-bot，授权码 Hq7Kx2Lm9PzR4tWc",
        "Hq7Kx2Lm9PzR4tWc",
    ),
    "routing-key-prose": (
        "the events routing key for the on-call service is 5f0c2e8a9b7d4c3e1a6f8b2d9c0e7a41",
        "5f0c2e8a9b7d4c3e1a6f8b2d9c0e7a41",
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_the_secret_is_masked(case: str) -> None:
    text, secret = LEAKS[case]
    assert_masked(text, secret)


KEPT = {
    "uuid-beside-args": "const doc = new DocClient('6f1d2c3b-4a5e-4f60-9b7a-8c9d0e1f2a3b', opts);",
    "jwt-env": "const t = jwt.sign(payload, process.env.JWT_SECRET, { expiresIn: '1h' });",
    "jwt-placeholder": "jwt.sign(payload, 'your-secret-here')",
    "hmac-variable": "hmac.new(key, msg, hashlib.sha256)",
    "queue-routing-key": "the routing key for new orders is orders.created.eu-west",
    "zh-auth-code-word": "授权码 登录流程还没做",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_the_look_alike_stays(case: str) -> None:
    assert_kept(KEPT[case])

"""Credential classes that reached the store in e2e-heldout12, on values and phrasings of our
own: a secret name and its value separated by a space inside Chinese prose (the value used to
run on over the full-width comma into the next name), and a user / password pair stated in
prose. Look-alikes that must stay are below."""

from __future__ import annotations

import pytest

from recallnest.core.redact import redact

LEAKS = {
    # Name, space, value; two of them in one Chinese sentence split by full-width commas.
    "two-spaced-names-zh": (
        "COS 上传走腾讯云 SecretId AKIDq7RmZxW2pLk9VtNc4HbYsJ6fGdE3uQaP，SecretKey "
        "hVbQmRtZxLpWkNsYcJdFgTaEu4rKiOqM8z，桶名 photos",
        "hVbQmRtZxLpWkNsYcJdFgTaEu4rKiOqM8z",
    ),
    "spaced-name-then-zh-comma": (
        "推送服务的 AppSecret xKqLmVnRtZwPsYbCdF4hGj7u，别提交到仓库",
        "xKqLmVnRtZwPsYbCdF4hGj7u",
    ),
    # (values with two digits or fewer: the bare-token shape rule wants three)
    "spaced-name-then-zh-stop": (
        "client secret JdkLmQxZvBnRtYwPq2aHsW8e。",
        "JdkLmQxZvBnRtYwPq2aHsW8e",
    ),
    # A user / password pair after a login word.
    "login-pair-slash": (
        "the NAS backup login is backup7 / Wq9rT2xLm4Zp then it mounts over SMB",
        "Wq9rT2xLm4Zp",
    ),
    "credentials-pair-colon-word": (
        "ftp credentials: deploy_ci / r7Ks!mQ2vX",
        "r7Ks!mQ2vX",
    ),
    "account-pair-for": (
        "the account for the staging router is admin / Tz4k8QpL2w",
        "Tz4k8QpL2w",
    ),
    "login-pair-zh": (
        "路由器后台账号 admin / Hk39xPq2Lm，改过默认的了",
        "Hk39xPq2Lm",
    ),
    "login-pair-zh-copula": (
        "群晖的登录是 nasuser/Ve8m2QxK7p",
        "Ve8m2QxK7p",
    ),
}

KEPT = {
    "spaced-name-prose-zh": "SecretKey 轮换的流程写在 docs/keys.md 里，下周再说",
    "login-page-route": "the login is GET /api/session / POST /api/session",
    "login-pair-words": "the login is admin / operator, depending on the role",
    "login-pair-version": "the account page is v1.2 / v1.3.4 compatible",
    "login-fraction": "login success rate is 97 / 100 on the new build",
    "login-path": "login lives in src / auth/login_form.tsx now",
    "account-dates": "账号有效期 2026 / 12/31 截止",
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_credential_is_masked(name: str) -> None:
    text, secret = LEAKS[name]
    masked, kinds = redact(text)
    assert secret not in masked, masked
    assert kinds


def test_a_spaced_value_stops_at_chinese_punctuation() -> None:
    """The names stay readable: the first value's mask ends at the full-width comma."""
    masked, _kinds = redact(LEAKS["two-spaced-names-zh"][0])
    assert "，SecretKey [REDACTED:" in masked and masked.endswith("，桶名 photos"), masked


@pytest.mark.parametrize("name", sorted(KEPT))
def test_look_alike_is_kept(name: str) -> None:
    text = KEPT[name]
    assert redact(text) == (text, ())

"""Leak classes of the fourth blind secrets batch (s45, measured once at the end of round 43),
each on values and phrasings of our own, with the look-alikes beside them: a builder's step
named for the secret, a user key given to define(), Tencent IM's UserSig signer, a generated
key as curl's basic-auth user, and a URL whose user holds a plus sign."""

from __future__ import annotations

import pytest

from recallnest.core.redact import redact

BUILDER_SECRET = "157344a9860328af5196c2bd0dcaae50"
UKEY = "mkVGbCiu7cdiVEpt"
SIG_KEY = "1e9a5dab67f712e12599cd4ce7d93140825992963bc9ca29e168c2916ee8742a"
BASIC_USER = "236d8fff7a9a32cb3b3db3cd955619ed"
URL_TOKEN = "f64Y7HMCW3SbZTz13Jwp"


@pytest.mark.parametrize(
    "text",
    [
        f'Credentials creds = Credentials.builder()\n    .appId("wx00aa11")\n'
        f'    .appSecret("{BUILDER_SECRET}")\n    .build();',
        f'conn = Client.builder().host("db1").password("{UKEY}").build()',
        f"define('UKEY', '{UKEY}');  // 前台小票机",
        f"const api = new TLSSigAPIv2.Api(1400123456, '{SIG_KEY}');",
        f'sig, err := tencentyun.GenUserSigWithBuf(1400123456, "{SIG_KEY}", "u1", 86400, nil)',
        f'curl -s --user "{BASIC_USER}:{BUILDER_SECRET}" https://api.example-mail.com/v3/send',
    ],
)
def test_the_secret_is_masked(text: str) -> None:
    masked, _ = redact(text)
    for value in (BUILDER_SECRET, UKEY, SIG_KEY, BASIC_USER):
        assert value not in masked, masked


@pytest.mark.parametrize(
    "text",
    [
        'Credentials.builder().appId("wx00aa11").appSecretRef("vault:wx/secret").build();',
        ".password(passwordField.getText())",
        'form.password("Password")',
        "define('DB_NAME', 'shop');",
        "curl -u api:$MAILGUN_KEY https://api.mailgun.net/v3/x/messages",
        "curl --user deploy-bot-2024:$PW https://example.com",
        "api = TLSSigAPIv2(sdkappid, key)",
    ],
)
def test_the_look_alike_is_kept(text: str) -> None:
    assert redact(text)[0] == text


def test_a_url_user_with_a_plus_keeps_the_host_and_path() -> None:
    text = (
        f"git clone https://gitlab+deploy-token-40012:{URL_TOKEN}@gitlab.com/club/scores.git /srv"
    )
    masked, _ = redact(text)
    assert URL_TOKEN not in masked
    assert "@gitlab.com/club/scores.git /srv" in masked, masked

"""Credential classes of round 47's first blind batch (secrets s52, e2e-heldout26), measured once
and then fixed, each on values of our own beside look-alikes that must stay: a private key as
bare base64 DER (no PEM lines), a key pair given positionally to Qiniu's `Mac(…)`, and a cloud
key id after a bare "AK" with only a blank before it."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

PKCS8 = (
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKfLBRv6/ZaSXq46kVkNG9HijxQciw3Ph8WvadXYnGbFyNcn6JFlbe5k0k7i"
    "Oe0j39loAaAFNgE/wWVrSK1v8cCLfdnFkcaSWFXx6CjvvlUrc6QO35ayT/oouKxvBYMDpbBKzjgQdSkvftgJA8nLt9QD"
    "bRIp6XTeK9Y="
)
PKCS1 = (
    "MIIEpAIBAAKCAQEA023qQkyOi7RQ2f/gJYz5jWzvYqeqvIMmi0qQ9BoQ3FlvUqSvB9KPggqzor7PiNbObmfOV4NGeY72"
    "MFfClPTjTrpDOHPss/YjdbJ9z5r4LvECP3U2mabRe+pI"
)
PUBLIC = (
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAMJbr42heCP41kbb501BDSyyPN1iYjB2ljeyEz7hO9CpXB7dd"
    "jomdZWboF1GHM9OxxrctMPH0XnQM5aS/Tq+D93dSOX/FXftUedi3OtNPzBfWK/GSx8Gqbzv8"
)

LEAKS = {
    "der-pkcs8-in-a-setter": (f'config.setMerchantPrivateKey("{PKCS8}");', PKCS8),
    "der-pkcs1-in-yaml": (f"wechatpay:\n  private-key: {PKCS1}\n  mch-id: 1900009191", PKCS1),
    "der-in-prose": (f"商户私钥就是这串 {PKCS8} 别外传", PKCS8),
    "qiniu-mac": (
        "const mac = new qiniu.auth.digest.Mac(\n  'o353348kmASytoJjjBIUDGHSVt7shL9bviTunQ03',\n"
        "  'qygt2KoMdwIeGEjxpw_iDMRx8BjKEyNKrP-8XQN2'\n);",
        "qygt2KoMdwIeGEjxpw_iDMRx8BjKEyNKrP-8XQN2",
    ),
    "ak-after-a-blank": (
        "对象存储用华为云 OBS，AK 3HCB9QNG8D18DU2FUGS6，桶叫 report-pdf",
        "3HCB9QNG8D18DU2FUGS6",
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_credential_is_masked(name: str) -> None:
    assert_masked(*LEAKS[name])


@pytest.mark.parametrize(
    "text",
    [
        # a public key and a certificate open with no version 0
        f"-- the gateway's public key, fine to share: {PUBLIC}",
        "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFsdGltb3Jl",
        # "AK" as a rifle and a state, and a Mac that is a computer
        "AK 47 型步枪的模型放在 assets/ 里",
        "ship to Anchorage, AK 99501 by Friday",
        "const m = new Mac('Mac mini M2 office');",
    ],
)
def test_look_alike_is_kept(text: str) -> None:
    assert_kept(text)


def test_a_bare_key_broken_into_lines_is_masked_whole() -> None:
    lines = "\n".join(PKCS8[i : i + 64] for i in range(0, len(PKCS8), 64))
    assert_masked(f"{lines}\nthat is the key", PKCS8[64:128])


@pytest.mark.parametrize(
    "text",
    ['String id = deviceMac("A4C138F2B9D01E77");', 'mac = hmac.getMac("a1b2c3d4e5f6a7b8c9d0")'],
)
def test_a_call_ending_in_mac_is_no_client(text: str) -> None:
    assert_kept(text)

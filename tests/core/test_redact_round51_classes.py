"""Round 51's leak classes (secrets s55, e2e-heldout29), on values and phrasings of our own.

1. A value whose own shape is a secret (a vendor-prefixed generated token, a bare generated
   run) is masked after a name's `=` as it is bare or in YAML, whatever the name says; and a
   store's or a stream's word (upload, download, object, registry, log …) makes a *key* an
   identifier but leaves a *token* a credential.
2. A licence key in dash-joined groups of capitals and digits, given after a key, token,
   licence or activation noun and is/was/:/=/是 in English or Chinese prose.

Each masked case fails on the round's start (19fad7d); each kept case passes on both.
"""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

# --- 1. The value's shape after a name's `=`, and tokens named for a store -------------------

MAPBOX_SECRET = (
    "sk.eyJ1IjoibWVhZG93bGFyayIsImEiOiJjbTRxN2JzZ3UwMXpoMmtvYjNxNnF4d2RtIn0.Tq4vN8zLx2WcR7pB5mYk9g"
)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # A Mapbox secret token under a name that read as no secret's.
        (f"MAPBOX_DOWNLOAD_TOKEN={MAPBOX_SECRET}\nMAP_STYLE=outdoors-v12", MAPBOX_SECRET),
        # A registry's publish token in a CI .env line.
        (
            "CARGO_REGISTRY_TOKEN=ciow4Rk2Nq8Lz5Xp1Vb7Ht3Jm9Ds6Fg0",
            "ciow4Rk2Nq8Lz5Xp1Vb7Ht3Jm9Ds6Fg0",
        ),
        # Generated shapes after a name that is nobody's secret name.
        (
            "PLUGIN_FEED=glsa_Q3vW8mK2pL7xZ9rT4nB6yH1cF5jD0sAe_4f9c2a71",
            "glsa_Q3vW8mK2pL7xZ9rT4nB6yH1cF5jD0sAe_4f9c2a71",
        ),
        ("SESSION_BLOB=Rk7Tq2LmZ9xWv4Np8Hc3Jd6Fs1Gb5Yy0", "Rk7Tq2LmZ9xWv4Np8Hc3Jd6Fs1Gb5Yy0"),
    ],
)
def test_a_secret_shaped_value_after_a_names_equals_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("S3_UPLOAD_TOKEN=Vq8zR3vNe7Kp2xLmZx7Wb3N", "Vq8zR3vNe7Kp2xLmZx7Wb3N"),
        ("qiniu:\n  upload_token: Xy7kQ2mN9pL4vR8tW3zB", "Xy7kQ2mN9pL4vR8tW3zB"),
        (
            "curl 'https://dl.example.com/sdk.tar.gz?download_token=Xy7kQ2mN9pL4vR8tW3zBq5Hs'",
            "Xy7kQ2mN9pL4vR8tW3zBq5Hs",
        ),
        ("LOG_TOKEN=Zk3Lq9Pw2Xv7Rt5Nm8Bc", "Zk3Lq9Pw2Xv7Rt5Nm8Bc"),
    ],
)
def test_a_token_named_for_a_store_is_a_credential(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        # Page tokens and object keys are identifiers, whatever their shape.
        "next_page_token: CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA0bTM4dnIQpq2dngYa",
        's3_object_key = "avatars/2024/Kq8zR3vNe7Kp2xLmZx7Vb3Nc9f8.png"',
        "OBJECT_KEY=uploads/2024/report-final.pdf",
        "upload_key: invoices/2024/march",
        "IDEMPOTENCY_KEY=3f6c1e8a-9b2d-4c7e-8a1f-5d0b9e2c4a76",
        # A URL query's values are not a name's: the shape rules still do not look there.
        "https://app.example.com/callback?state=Rk7Tq2LmZ9xWv4Np8Hc3Jd6Fs1Gb5Yy0&lang=en",
        # Public keys keep their prefix's verdict after `=` too.
        "MAPBOX_PUBLIC_TOKEN=pk.eyJ1IjoibWVhZG93bGFyayIsImEiOiJjbTRxN2JzZ3UwMXoifQ.Zx8Kq2",
    ],
)
def test_identifiers_named_for_a_store_are_kept(text: str) -> None:
    assert_kept(text)


# --- 2. Licence keys in dash-joined groups -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "btw the geocoder key for the nightly batch is 7QK2MX-B4N9TZ-R8W3LP-2VH6, drop it "
            "into the config",
            "7QK2MX-B4N9TZ-R8W3LP-2VH6",
        ),
        ("my licence is K7P2Q-9XW4M-T3R8N-B6V1J for the whole team", "K7P2Q-9XW4M-T3R8N-B6V1J"),
        ("activation code = 4HJ8-KQ2N-77XA-P9MZ", "4HJ8-KQ2N-77XA-P9MZ"),
        ("product key was NF6HC-QT7DK-8MYWV-2GJ4R, the old laptop", "NF6HC-QT7DK-8MYWV-2GJ4R"),
        ("the demo key is 4XK2-99QA-7TLM-P3RZ, never make it public", "4XK2-99QA-7TLM-P3RZ"),
        ("这个插件的激活码是 3QF7K-WM2X9-TP4RB-8NZ6C，别外传", "3QF7K-WM2X9-TP4RB-8NZ6C"),
        ("注册码：H8K2-M4QZ-9TX7-PL3V", "H8K2-M4QZ-9TX7-PL3V"),
        (
            "卫星那边 N2YO 的 key 是 2RB7QK-M9XD4T-C6W1PZ-H3J8，放配置里",
            "2RB7QK-M9XD4T-C6W1PZ-H3J8",
        ),
        ("激活码是 DEMO-4XK2-99QA-7TLM，不要公开", "DEMO-4XK2-99QA-7TLM"),
    ],
)
def test_a_grouped_licence_key_in_prose_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "the key order number is ORDR-2024-0315-8842",
        "the key part number is AB12-CD34-EF56-GH78",
        "the key for build 2024 is ABCD-1234-EFGH-5678",
        "the serial on the router label is 4XK2-99QA-7TLM-P3RZ",
        "the demo key is 4XK2-99QA-7TLM-P3RZ, it is public on the docs site anyway",
        "演示用的激活码是公开的：DEMO-4XK2-99QA-7TLM",
        "the key is 8E2B41C7-3A9D-4F06-B5E1-C07D9A2F63B4 for the public bucket",
        "the key date is 2024-03-15, the release token is v2-4-1",
        "licence key format is XXXXX-XXXXX-XXXXX-XXXXX",
        "the cache key is AB12-CD34-EF56-GH78",
        "激活码格式是 XXXX-XXXX-XXXX-XXXX",
        "密钥版本号是 V2024-0315-RC01-BETA",
        "the keyboard layout is AB12-CD34-EF56-GH78",
        "设备序列号是 4XK2-99QA-7TLM-P3RZ",
    ],
)
def test_grouped_look_alikes_are_kept(text: str) -> None:
    assert_kept(text)

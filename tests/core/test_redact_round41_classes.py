"""Credential classes that reached the store in round 41's blind secrets batch (s42) and its
end-to-end batch (e2e-heldout16), each on values and phrasings of our own, and the look-alikes
that were masked and must stay (a deployment id, a WeChat unionid: ids, not secrets).

Every test here failed before the round's change: a look-alike of a new rule that was kept
anyway is checked beside a leak of that rule, in the same text."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

from recallnest.core.redact import redact


def assert_masked_keeping(text: str, secret: str, *kept: str) -> None:
    """The secret is masked, and the words around it (user, bucket, SSID, a look-alike of the
    same command on another line) are still there."""
    assert_masked(text, secret)
    masked = redact(text)[0]
    for part in kept:
        assert part in masked, (part, masked)


# --- Short key names in a query string -------------------------------------------------------

QUERY_KEYS = {
    "baidu-ak": (
        "curl 'https://api.map.baidu.com/place/v2/search?query=cafe&region=shanghai&output=json"
        "&ak=Tz8qLm2Vx7Kp4Rw9Nc3Yb6Hd1Jf5Gs0A'",
        "Tz8qLm2Vx7Kp4Rw9Nc3Yb6Hd1Jf5Gs0A",
        ("region=shanghai", "output=json"),
    ),
    "ak-zh": (
        "又接了个地理编码：https://api.example.cn/geo?addr=深圳"
        "&ak=Lq9Wx3Zv7Kr2Mt8Np4Bc6Hy1 ，返回 gcj02",
        "Lq9Wx3Zv7Kr2Mt8Np4Bc6Hy1",
        ("addr=深圳", "返回 gcj02"),
    ),
    "appkey": (
        "https://open.example.cn/api/v2/weather?appkey=Mq7Zr4Lx9Kp2Wv8Nc3Tb6Yd1&city=101010100",
        "Mq7Zr4Lx9Kp2Wv8Nc3Tb6Yd1",
        ("city=101010100",),
    ),
    "sk-alone": (
        "https://api.example.cn/v3/sign?sk=Px5Ln9Qz2Wk7Mt4Vr8Bj3Hd6&ts=1700000000",
        "Px5Ln9Qz2Wk7Mt4Vr8Bj3Hd6",
        ("ts=1700000000",),
    ),
    "sk-beside-ak": (
        "https://api.example.cn/sign?ak=Rj4Kz8Lm2Qx7Vt9Nb3Hc6Wp1&sk=Px5Ln9Qz2Wk7Mt4Vr8Bj3Hd6Cs1Ty0",
        "Px5Ln9Qz2Wk7Mt4Vr8Bj3Hd6Cs1Ty0",
        ("api.example.cn/sign",),
    ),
    "ak-upper-case": (
        "GET /geo?AK=Wc3Vb8Nm2Lk7Jh4Gf9Ds1Aq6&city=hz",
        "Wc3Vb8Nm2Lk7Jh4Gf9Ds1Aq6",
        ("city=hz",),
    ),
    "appkey-zh": (
        "接口是 https://open.example.cn/sms/send"
        "?appkey=Zt6Qm2Lx8Kv4Wn9Rc3Bh7Yd1&mobile=138 ，发验证码用",
        "Zt6Qm2Lx8Kv4Wn9Rc3Bh7Yd1",
        ("mobile=138", "发验证码用"),
    ),
    # Short and readable values of the same names stay.
    "readable-values-stay": (
        "/search?sk=price&ak=1&appkey=demo&q=tea&ak=Rj4Kz8Lm2Qx7Vt9Nb3Hc6Wp1",
        "Rj4Kz8Lm2Qx7Vt9Nb3Hc6Wp1",
        ("sk=price", "ak=1", "appkey=demo"),
    ),
}


@pytest.mark.parametrize("name", sorted(QUERY_KEYS))
def test_query_key_is_masked(name: str) -> None:
    text, secret, kept = QUERY_KEYS[name]
    assert_masked_keeping(text, secret, *kept)


# --- Ids with a token's shape: deployment, project and team ids, openid and unionid -------------

IDS = {
    "vercel-deployment": "Deployment dpl_8Hk2Qz7LmX4vRt9WpN3cYb6JfD1s is READY (built in 31s)",
    "vercel-project-team": (
        "vercel link: project prj_Q4mZ8xLr2Kv7Wt9Nc3Hb6Yd1Js5P, team team_R7kLp2Qz9Xm4Vt8Wn3Cb6Hd"
    ),
    "vercel-api-json": '{"uid": "dpl_3Fq9Lm2Xz7Kv4Rt8Wn6Cb1Hd5J", "state": "READY"}',
    "unionid-zh": "这个用户的 unionid 是 o7_Kq2Lm9Xw4Vb8Nc3Tp6Yd1Hs5J，先别封号",
    "unionid-json": (
        '{"openid": "oLq3Rz8Vx2Mt7Kp4Wn9Bc6Hy1Js", "unionid": "o9_Tz4Qm8Lx2Kv7Wr3Nc6Bh1Yd5"}'
    ),
    "openid-is": "the openid is o6_Hx8Lq2Mz7Vr4Kt9Wn3Cb6Yd1J for that order",
    "user-id-camel": 'const memberId = "m2_Xq7Lz3Vk9Rt4Wn8Cb2Hd6Js1Mp";',
    "team-id-spaced": "Team ID Kq2Lm9Xw4Vb8Nc3Tp6Yd1Hs5JfR7 on the signing page",
}


@pytest.mark.parametrize("name", sorted(IDS))
def test_id_with_a_token_shape_is_kept(name: str) -> None:
    assert_kept(IDS[name])


# A credential's own id, or a secret beside an id, is still masked.
ID_NEIGHBOURS = {
    "session-key-beside-openid": (
        '{"openid": "o8_Rz4Qm8Lx2Kv7Wr3Nc6Bh1Yd5", "session_key": "Jq8Lm3Zx7Vk2Rt9Wn4Cb6Hd"}',
        "Jq8Lm3Zx7Vk2Rt9Wn4Cb6Hd",
        ("o8_Rz4Qm8Lx2Kv7Wr3Nc6Bh1Yd5",),
    ),
    "vercel-token-beside-deployment": (
        "deployment dpl_8Hk2Qz7LmX4vRt9WpN3cYb6JfD1s, token vt_Lq8Zm3Xv7Kr2Wt9Nc4Bh6Yd1Js",
        "vt_Lq8Zm3Xv7Kr2Wt9Nc4Bh6Yd1Js",
        ("dpl_8Hk2Qz7LmX4vRt9WpN3cYb6JfD1s",),
    ),
}


@pytest.mark.parametrize("name", sorted(ID_NEIGHBOURS))
def test_secret_beside_an_id_is_masked_and_the_id_kept(name: str) -> None:
    text, secret, kept = ID_NEIGHBOURS[name]
    assert_masked_keeping(text, secret, *kept)

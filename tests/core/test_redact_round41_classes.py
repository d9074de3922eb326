"""Credential classes that reached the store in round 41's blind secrets batch (s42) and its
end-to-end batch (e2e-heldout16), each on values and phrasings of our own, and the look-alikes
that were masked and must stay (a deployment id, a WeChat unionid: ids, not secrets).

Every test here failed before the round's change: a look-alike of a new rule that was kept
anyway is checked beside a leak of that rule, in the same text."""

from __future__ import annotations

from collections.abc import Callable

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


# --- A known tool's command takes the password as a positional word or after a keyword ----------

COMMAND_PASSWORDS = {
    # rabbitmqctl add_user / change_password / authenticate_user <user> <password>
    "rabbitmqctl-add-user-quoted": (
        "rabbitmqctl add_user billing_svc 'Qm4!tRz8Lw2x'",
        "Qm4!tRz8Lw2x",
        ("billing_svc",),
    ),
    "rabbitmqctl-change-password-sudo": (
        "sudo rabbitmqctl change_password billing_svc Wt7vPq2Lx9",
        "Wt7vPq2Lx9",
        ("billing_svc",),
    ),
    "rabbitmqctl-node-flag": (
        'rabbitmqctl -n rabbit@mq-02 add_user metrics "Zr5#nVq8"',
        "Zr5#nVq8",
        ("rabbit@mq-02", "metrics"),
    ),
    "rabbitmqctl-authenticate": (
        "rabbitmqctl authenticate_user billing 'Lp3@xK9w'",
        "Lp3@xK9w",
        ("authenticate_user billing",),
    ),
    "rabbitmqctl-zh": (
        "给计费服务建个账号：rabbitmqctl add_user billing Hx9mQ2vLz4，然后再授权",
        "Hx9mQ2vLz4",
        ("add_user billing", "然后再授权"),
    ),
    # upx login <bucket> <operator> <password> (UpYun)
    "upx-login": (
        "upx login assets-cdn deployer Yt6mKq2Rw8Zx4Vb1 && upx ls /",
        "Yt6mKq2Rw8Zx4Vb1",
        ("assets-cdn", "deployer", "upx ls /"),
    ),
    "upx-login-zh": (
        "图片桶用命令行传：upx login shop-pics op_ci Nf8Kd2Lq7Wm3Zx9R 然后 upx put ./img /a/",
        "Nf8Kd2Lq7Wm3Zx9R",
        ("shop-pics", "op_ci", "upx put"),
    ),
    "upx-login-quoted-zh": (
        "又拍云：upx login 'media bucket' ops '6vT#qL2m'，登录一次就行",
        "6vT#qL2m",
        ("'media bucket' ops",),
    ),
    # pocketbase superuser|admin create|upsert|update <email> <password>
    "pocketbase-superuser-upsert": (
        "./pocketbase superuser upsert ops@lantern.test 'Gq7!vZ2m#Lx'",
        "Gq7!vZ2m#Lx",
        ("ops@lantern.test",),
    ),
    "pocketbase-superuser-create-prose": (
        "on the VPS I ran pocketbase superuser create root@kiln.dev Hb5@rT8qWz1 and it worked",
        "Hb5@rT8qWz1",
        ("root@kiln.dev", "and it worked"),
    ),
    "pocketbase-admin-create-old": (
        "./pocketbase admin create admin@kiln.dev Kv3xQ9mL2p",
        "Kv3xQ9mL2p",
        ("admin@kiln.dev",),
    ),
    "pocketbase-dir-flag": (
        "./pocketbase --dir ./pb_data superuser update ops@kiln.dev 'Rt4#Qz8vM'",
        "Rt4#Qz8vM",
        ("--dir ./pb_data", "ops@kiln.dev"),
    ),
    # htpasswd -b, mosquitto_passwd -b: batch mode takes the password as the last word
    "htpasswd-b": (
        "htpasswd -b /etc/nginx/.htpasswd grafana Pz8!kW3q",
        "Pz8!kW3q",
        ("grafana",),
    ),
    "htpasswd-bcrypt-cost": (
        "htpasswd -bBC 12 .htpasswd ci 'Mv6#Lr2x'",
        "Mv6#Lr2x",
        (".htpasswd ci",),
    ),
    "htpasswd-nb": (
        "htpasswd -nb traefik 'Tk9@wQ4z' >> users.txt",
        "Tk9@wQ4z",
        ("traefik", ">> users.txt"),
    ),
    "mosquitto-passwd-b": (
        "mosquitto_passwd -b /etc/mosquitto/passwd sensor7 Qx3Lm8Vr",
        "Qx3Lm8Vr",
        ("sensor7",),
    ),
    # Other CLIs' logins with the password as a word of their own.
    "cf-auth": ("cf auth ci-bot@corp.test 'Fw2#pL7z'", "Fw2#pL7z", ("ci-bot@corp.test",)),
    "bw-login": ("bw login me@vault.test 'Ht5!mR8q'", "Ht5!mR8q", ("me@vault.test",)),
    "mega-login": ("mega-login me@vault.test Ry6vN2kQ9", "Ry6vN2kQ9", ("me@vault.test",)),
    "net-user": ("net user backupsvc Vq8#Lm2z /add", "Vq8#Lm2z", ("backupsvc", "/add")),
    "mysqladmin-password": (
        "mysqladmin -u root -h 127.0.0.1 password 'Nz4!qW7r'",
        "Nz4!qW7r",
        ("-u root",),
    ),
}


@pytest.mark.parametrize("name", sorted(COMMAND_PASSWORDS))
def test_command_password_is_masked(name: str) -> None:
    text, secret, kept = COMMAND_PASSWORDS[name]
    assert_masked_keeping(text, secret, *kept)


# --- Wi-Fi passphrases on the command line ---------------------------------------------------

WIFI = {
    "nmcli-connect-quoted": (
        "nmcli dev wifi connect \"Office 5G\" password 'Kettle-Orbit-42'",
        "Kettle-Orbit-42",
        ('"Office 5G"',),
    ),
    "nmcli-connect-zh": (
        "车间的平板连网：nmcli device wifi connect Workshop-2.4G password Wx8kTq3Lz ，再重启",
        "Wx8kTq3Lz",
        ("Workshop-2.4G", "再重启"),
    ),
    "nmcli-modify-psk": (
        'nmcli con modify Lab-AP wifi-sec.psk "Zq7#mP2vX"',
        "Zq7#mP2vX",
        ("Lab-AP",),
    ),
    "nmcli-add-long-property": (
        "nmcli connection add type wifi con-name Home ssid Home"
        " 802-11-wireless-security.key-mgmt wpa-psk 802-11-wireless-security.psk Hv4qL8zWr2",
        "Hv4qL8zWr2",
        ("key-mgmt wpa-psk",),
    ),
    "nmcli-hotspot": (
        'nmcli dev wifi hotspot ifname wlan0 ssid Pop-Up password "Fz6!qR2mWk"',
        "Fz6!qR2mWk",
        ("ssid Pop-Up",),
    ),
    "nmcli-passphrase-words": (
        "nmcli d wifi connect Attic password 'copper lantern meadow'",
        "copper lantern meadow",
        ("Attic",),
    ),
    "wpa-passphrase-quoted-ssid": (
        "wpa_passphrase \"Guest Net\" 'Bp5#tX9qLm' | sudo tee -a /etc/wpa_supplicant.conf",
        "Bp5#tX9qLm",
        ('"Guest Net"', "sudo tee"),
    ),
    "wpa-passphrase-bare": ("wpa_passphrase attic_ap Cq8vK2nLw7", "Cq8vK2nLw7", ("attic_ap",)),
    "iwctl-P": (
        "iwctl -P 'Wy3#kLz8Qm' station wlan0 connect Loft",
        "Wy3#kLz8Qm",
        ("station wlan0 connect Loft",),
    ),
    "iwctl-p-enterprise": (
        "iwctl --username ops -p 'Jd4!vN9qX' station wlan0 connect Corp",
        "Jd4!vN9qX",
        ("--username ops",),
    ),
    "raspi-config": (
        "sudo raspi-config nonint do_wifi_ssid_passphrase Greenhouse 'Gx7#qM2vL'",
        "Gx7#qM2vL",
        ("Greenhouse",),
    ),
}


@pytest.mark.parametrize("name", sorted(WIFI))
def test_wifi_passphrase_is_masked(name: str) -> None:
    text, secret, kept = WIFI[name]
    assert_masked_keeping(text, secret, *kept)


# A look-alike of the same command beside a leak: placeholders, prompts, field lists, prose.
BESIDE = {
    "rabbitmqctl-variables-and-list": (
        "rabbitmqctl add_user billing 'Qm4!tRz8Lw2x'\n"
        'rabbitmqctl add_user auditor "$AUDITOR_PW"\n'
        "rabbitmqctl add_user ingest\n"
        "rabbitmqctl list_users",
        "Qm4!tRz8Lw2x",
        ('"$AUDITOR_PW"', "add_user ingest\n", "list_users"),
    ),
    "upx-placeholders-and-prose": (
        "upx login <bucket> <operator> <password>\n"
        "upx login then upx sync, as the README says\n"
        "upx login assets ci Yt6mKq2Rw8Zx4Vb1",
        "Yt6mKq2Rw8Zx4Vb1",
        ("<password>", "upx login then upx sync"),
    ),
    "pocketbase-doc-words": (
        "./pocketbase superuser upsert EMAIL PASSWORD\n"
        "./pocketbase superuser upsert ops@kiln.dev 'Gq7!vZ2m#Lx'\n"
        "./pocketbase serve --http=0.0.0.0:8090",
        "Gq7!vZ2m#Lx",
        ("EMAIL PASSWORD", "--http=0.0.0.0:8090"),
    ),
    "htpasswd-bcrypt-prompt": (
        "htpasswd -cB .htpasswd admin2\nhtpasswd -b .htpasswd bot Pz8!kW3q",
        "Pz8!kW3q",
        ("admin2",),
    ),
    "nmcli-field-list": (
        "nmcli -g 802-11-wireless-security.psk --show-secrets connection show Lab-AP\n"
        "nmcli con modify Lab-AP wifi-sec.psk 'Zq7#mP2vX'",
        "Zq7#mP2vX",
        ("psk --show-secrets connection show Lab-AP",),
    ),
    "nmcli-prose-and-variable": (
        "nmcli asks for the password interactively unless you give it:\n"
        'nmcli dev wifi connect Loft password "$WIFI_PSK"\n'
        "nmcli dev wifi connect Attic password Wx8kTq3Lz",
        "Wx8kTq3Lz",
        ("password interactively", '"$WIFI_PSK"'),
    ),
    "wpa-passphrase-redirect": (
        "wpa_passphrase attic_ap > /etc/wpa.conf   # prompts\nwpa_passphrase loft Cq8vK2nLw7",
        "Cq8vK2nLw7",
        ("attic_ap > /etc/wpa.conf",),
    ),
    "net-user-delete": (
        "net user olduser /delete\nnet user backupsvc Vq8#Lm2z /add",
        "Vq8#Lm2z",
        ("olduser /delete",),
    ),
}


@pytest.mark.parametrize("name", sorted(BESIDE))
def test_look_alike_beside_a_command_password_is_kept(name: str) -> None:
    text, secret, kept = BESIDE[name]
    assert_masked_keeping(text, secret, *kept)


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


# --- Hostile input: the command words are read line by line, a bounded number of words --------

HOSTILE: dict[str, Callable[[int], str]] = {
    "upx-login": lambda n: "upx login " * n,
    "net-user": lambda n: "net user a " * n,
    "htpasswd-b": lambda n: "htpasswd -b " * n,
    "nmcli-password": lambda n: "nmcli password " * n,
    "add-user-flags": lambda n: "rabbitmqctl add_user -x " * n,
    "one-line-of-flags": lambda n: "rabbitmqctl add_user " + "-x " * (8 * n) + "u 'Qm4!tRz8Lw2'",
    "query-ak": lambda n: "&ak=Rj4Kz8Lm2Qx7Vt9N " * n,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_command_lines_complete(name: str) -> None:
    """Hostile repetitions of the new rules' words complete and mask idempotently; their time
    is measured by bench/bench_redact.py, not asserted here (no wall-clock thresholds in unit
    tests)."""
    masked, _kinds = redact(HOSTILE[name](8_000))
    assert redact(masked) == (masked, ())

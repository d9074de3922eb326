"""Credential classes that reached the store in round 40's second blind secrets batch (s41),
each on values and phrasings of our own, and the look-alikes of each class that must stay
(a CAPTCHA site key among them: public by design)."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

from recallnest.core.redact import redact

SEED_USER = "SUAFIRNV2G4I275UBYER4YTSTS4IEGU2B7INW6UD547L5ZLLNCVJOIHHFE"
SEED_ACCOUNT = "SAABPVJZF645O2QFSPQ3MCSHIJ4K5AVK6FIIRMICNSC3PNACBOJU4ZANSQ"
SEED_OPERATOR = "SOAID3EXERYYOFMCZEOFTMTBD666PIFQRREGDT6CLJ7FM2AILHDZBB5CRA"
SEED_SERVER = "SNAJKZJGAXNQTGSSGLKQ4TQ7FNJAMY7D3RHJXAD37P7TAJRUOAWICWZFWM"
SEED_CLUSTER = "SCANHVLGZ3JR4YDLLTMZL2QJEHM3PQQTARAIVKSKRA3VDBL5ZQYYHGOTYQ"
SEED_CURVE = "SXAL65MT5BFMFPA4RDNCI3DX4SALH7HXG65NNULQJ5YBVZNPOIMLZQI6II"
W_AND_B_KEY = "4c7e1a9b2d5f8e0c3a6b9d1f4e7a0c2b5d8f1e3a"
CAPTCHA_KEY = "6Lf3Qx9aAAAAAKp2mZ7rVt4wLq8NcY1bHs5dJe0U"

LEAKS = {
    # A key as a positional word of a login / install subcommand.
    "wandb-login": (f"wandb login {W_AND_B_KEY}", W_AND_B_KEY),
    "wandb-login-host": (
        f"wandb login --host https://wandb.lab.example --relogin {W_AND_B_KEY}",
        W_AND_B_KEY,
    ),
    "wandb-login-zh": (f"先 wandb login --relogin {W_AND_B_KEY} 再跑训练", W_AND_B_KEY),
    "ngrok-add-authtoken": (
        "ngrok config add-authtoken 2Xq7Lm9Rt4Zp8Wv3Nc6Bh1Jd5Yf0Ka_7sKp2Qw9Xe4Rz8Tv",
        "2Xq7Lm9Rt4Zp8Wv3Nc6Bh1Jd5Yf0Ka_7sKp2Qw9Xe4Rz8Tv",
    ),
    "ngrok-authtoken-v2": (
        "ngrok authtoken 2Xq7Lm9Rt4Zp8Wv3Nc6Bh1Jd5Yf0Ka",
        "2Xq7Lm9Rt4Zp8Wv3Nc6Bh1Jd5Yf0Ka",
    ),
    # Both halves of a Backblaze key pair, new and old spellings.
    "b2-account-authorize-id": (
        "b2 account authorize 0038f2a6c9e1b4d70000000005 K003/Zq8+Xw2Lp7Rt4Vn9Yc1Bh6Jd0F",
        "0038f2a6c9e1b4d70000000005",
    ),
    "b2-account-authorize-key": (
        "b2 account authorize 0038f2a6c9e1b4d70000000005 K003/Zq8+Xw2Lp7Rt4Vn9Yc1Bh6Jd0F",
        "K003/Zq8+Xw2Lp7Rt4Vn9Yc1Bh6Jd0F",
    ),
    "b2-authorize-account-quoted": (
        "b2 authorize-account 7a3e9c1f5b0d 'K003mZq8Xw2Lp7Rt4Vn9Yc1Bh6Jd0Fs'",
        "K003mZq8Xw2Lp7Rt4Vn9Yc1Bh6Jd0Fs",
    ),
    # NATS NKEY seeds of every type, in a .creds block and bare.
    "nkey-creds-block": (
        f"cat ops.creds\n-----BEGIN USER NKEY SEED-----\n{SEED_USER}\n"
        "------END USER NKEY SEED------",
        SEED_USER,
    ),
    "nkey-account-yaml": (f"account_signing_seed: {SEED_ACCOUNT}", SEED_ACCOUNT),
    "nkey-operator-prose": (f"the operator seed is {SEED_OPERATOR}, keep it", SEED_OPERATOR),
    "nkey-server-env": (f"NATS_SERVER_SEED={SEED_SERVER}", SEED_SERVER),
    "nkey-cluster-zh": (f"集群的 seed：{SEED_CLUSTER}", SEED_CLUSTER),
    "nkey-curve-json": (f'{{"xkey_seed": "{SEED_CURVE}"}}', SEED_CURVE),
    # One-letter password flags, case-sensitive.
    "cqlsh-p-quoted": ("cqlsh db1.internal -u ops -p 'Vq8#mZ2xLw' -k metrics", "Vq8#mZ2xLw"),
    "cqlsh-p-bare": ("cqlsh -u loader -p Lq4zR8mT 10.0.3.7", "Lq4zR8mT"),
    "ipmitool-P": (
        "ipmitool -I lanplus -H 10.1.1.20 -U ADMIN -P 'Ip7!qZ2x' chassis status",
        "Ip7!qZ2x",
    ),
    "sqlcmd-P": ("sqlcmd -S db.local -U sa -P 'Sq9#Lm2v' -Q 'select 1'", "Sq9#Lm2v"),
    "nodetool-pw": ("nodetool -u jmxop -pw Nt5vQ8rz status", "Nt5vQ8rz"),
    "rdesktop-p": ("rdesktop -u admin -p 'Rd4#vQ9z' 10.0.0.5", "Rd4#vQ9z"),
    "snmpget-auth": (
        "snmpget -v3 -l authPriv -u mon -a SHA -A Auth7Pass! -x AES -X Priv9Pass! h1 sysUpTime.0",
        "Auth7Pass!",
    ),
    "snmpget-priv": (
        "snmpget -v3 -l authPriv -u mon -a SHA -A Auth7Pass! -x AES -X Priv9Pass! h1 sysUpTime.0",
        "Priv9Pass!",
    ),
    "snmpbulkwalk-auth-only": (
        "snmpbulkwalk -v3 -l authNoPriv -u mon -a SHA256 -A 'kX4-auth-Phrase' router1",
        "kX4-auth-Phrase",
    ),
    # Java keystore passwords.
    "keytool-src": (
        "keytool -importkeystore -srckeystore a.p12 -srcstoretype PKCS12 -srcstorepass Src7Pw!x"
        " -deststorepass 'Dst9Pw#y' -destkeystore b.jks",
        "Src7Pw!x",
    ),
    "keytool-dest": (
        "keytool -importkeystore -srckeystore a.p12 -srcstorepass Src7Pw!x"
        " -deststorepass 'Dst9Pw#y' -destkeystore b.jks",
        "Dst9Pw#y",
    ),
    "keytool-keypass": (
        'keytool -genkeypair -alias rel -storepass "Kt3vQ8xz" -keypass "Kp6wR2my" -dname CN=x',
        "Kp6wR2my",
    ),
    "jarsigner-storepass": (
        "jarsigner -keystore release.jks -storepass Js8mQ2vx app.apk upload",
        "Js8mQ2vx",
    ),
    # haproxy's stats page and userlist logins.
    "haproxy-stats-auth": ("listen stats\n    stats auth monitor:Hq5vT8zwLx2", "Hq5vT8zwLx2"),
    "haproxy-stats-auth-plain": ("    stats auth admin:tulipfield", "tulipfield"),
    "haproxy-userlist-hash": (
        "userlist ops\n    user ana password $6$k9QzXw$Xw3v8Lq2Pz7Rt4Vn9Yc1Bh6Jd0Fs\n",
        "$6$k9QzXw$Xw3v8Lq2Pz7Rt4Vn9Yc1Bh6Jd0Fs",
    ),
    "haproxy-userlist-insecure": (
        "userlist ops\n  user ro insecure-password Rt5mQ8zx groups readers\n",
        "Rt5mQ8zx",
    ),
    # A CAPTCHA's secret key has the site key's shape, and is masked.
    "recaptcha-secret-env": (f"RECAPTCHA_SECRET_KEY={CAPTCHA_KEY}", CAPTCHA_KEY),
    "recaptcha-secret-prose": (f"reCAPTCHA secret key {CAPTCHA_KEY} on the server", CAPTCHA_KEY),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_credential_is_masked(name: str) -> None:
    assert_masked(*LEAKS[name])


# The user names around a masked password stay.
USERS = {
    "haproxy-stats-auth": "monitor",
    "cqlsh-p-quoted": "ops",
    "ipmitool-P": "ADMIN",
    "snmpget-auth": "mon",
    "haproxy-userlist-hash": "ana",
    "b2-account-authorize-key": "b2 account authorize",
}


@pytest.mark.parametrize("name", sorted(USERS))
def test_user_beside_the_password_stays(name: str) -> None:
    assert USERS[name] in redact(LEAKS[name][0])[0]


KEEPS = {
    "captcha-site-key-prose": f"the form uses reCAPTCHA v2, site key {CAPTCHA_KEY} in the page",
    "captcha-data-sitekey": f'<div class="g-recaptcha" data-sitekey="{CAPTCHA_KEY}"></div>',
    "captcha-site-key-env": f"RECAPTCHA_SITE_KEY={CAPTCHA_KEY}",
    "captcha-site-key-js": f'const siteKey = "{CAPTCHA_KEY}";',
    "wandb-login-alone": "wandb login",
    "wandb-login-relogin": "wandb login --relogin && python train.py --config c.yaml",
    "wandb-login-variable": 'wandb login "$WANDB_API_KEY"',
    "wandb-login-prose": "run wandb login first, then the sweep",
    "ngrok-authtoken-placeholder": "ngrok config add-authtoken <your-authtoken>",
    "b2-variables": "b2 account authorize $B2_KEY_ID $B2_APP_KEY",
    "b2-prose": "b2 authorize-account with your key id and app key",
    "b2-bare": "b2 account authorize",
    "nkey-public-user": "user nkey UAMBRZ4BJRYIEEVQKVPMQDNGS5UTCWZPVW23YENHKVNWXBZ5XW5DMGLZ",
    "nkey-public-account": "issuer: AAELAKPR5GPKBW5QXF2WDFBRTTWN6L7TKJ7TQI42HTQHX3M6WGBXLMT4",
    "cqlsh-no-password": "cqlsh 10.0.0.4 9042 -u reader -k metrics",
    "ipmitool-port": "ipmitool -I lanplus -H bmc1 -p 623 -U admin -E power status",
    "snmp-protocols": "snmpwalk -v3 -l authPriv -u mon -a SHA -A $SNMP_A -x AES -X $SNMP_X h1",
    "snmp-v2c": "snmpwalk -v2c -c public 10.0.0.1 IF-MIB::ifDescr",
    "docker-port": "docker run -p 8080:80 -P nginx",
    "other-tool-P": "rsync -P -a src/ dst/",
    "keytool-storepass-env": "keytool -list -keystore x.jks -storepass:env STORE_PW",
    "keytool-storepass-file": "keytool -list -keystore x.jks -storepass:file /run/secrets/sp",
    "keytool-prompt": "keytool -genkeypair -alias k -keypass -dname CN=x",
    "keytool-variable": 'keytool -list -keystore x.jks -storepass "$KEYSTORE_PASSWORD"',
    "haproxy-stats-variable": "    stats auth admin:${STATS_PASSWORD}",
    "haproxy-stats-enable": "    stats enable\n    stats uri /stats\n    stats refresh 10s",
    "haproxy-userlist-variable": "userlist ops\n    user app password $APP_PW\n",
    "user-password-prose": "the user alice password reset link expired",
}


@pytest.mark.parametrize("name", sorted(KEEPS))
def test_look_alike_is_kept(name: str) -> None:
    assert_kept(KEEPS[name])

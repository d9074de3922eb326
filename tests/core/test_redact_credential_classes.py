"""Credential classes that reached the store in round 38's blind sets (e2e-heldout11, secrets
s38), each on values and phrasings of our own, and the look-alikes that must stay."""

from __future__ import annotations

import pytest

from recallnest.core.redact import redact

LEAKS = {
    # A quoted config value that opens with "-" (base64url) is a value, not a command flag.
    "toml-dash-value": (
        'token = "-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFkM-R5Kjp1vRt_1fjORS-6ilI8ih=="',
        "-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA",
    ),
    "yaml-dash-value": (
        "influx:\n  token: -PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA-2O76UMFxFk\n",
        "PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA",
    ),
    # Access key ids: half of a credential pair, named or by their vendor prefix.
    "env-access-key-id": (
        "MINIO_ACCESS_KEY_ID=ed440e50454f31af3176813e02ea68ef\nMINIO_BUCKET=raw",
        "ed440e50454f31af3176813e02ea68ef",
    ),
    "ini-access-key-id": (
        "[default]\nhmac_access_key_id = 86e4d3cea27d26934b484e73cf575dca\n",
        "86e4d3cea27d26934b484e73cf575dca",
    ),
    "secret-id-name": (
        "vault write auth/approle/login role_id=ops secret_id=b2fff17b-3f66-5ede-f106-37ce81fc069e",
        "b2fff17b-3f66-5ede-f106-37ce81fc069e",
    ),
    "aliyun-id-in-chinese": (
        "短信走阿里云，AccessKey ID 是 LTAINhFdnXsiVpzz63FfkCzJ，签名另说",
        "LTAINhFdnXsiVpzz63FfkCzJ",
    ),
    "tencent-secret-id": (
        "COS uses SecretId AKIDr4i0B3JrTAwR4y9ojfljoQoaF1Llqsaj for uploads",
        "AKIDr4i0B3JrTAwR4y9ojfljoQoaF1Llqsaj",
    ),
    "gcs-hmac-id": (
        "the bucket sync runs as GOOG108XUI6D39ZZZZG4ZDMEN2KHVDGAJ8GXBENYJQWX4HH5344TFJGVQ4K7B",
        "GOOG108XUI6D39ZZZZG4ZDMEN2KHVDGAJ8GXBENYJQWX4HH5344TFJGVQ4K7B",
    ),
    "databricks-token": (
        "set DATABRICKS_HOST and paste dapi6b40928b5b7a767c76fb008f86bebb27 when asked",
        "dapi6b40928b5b7a767c76fb008f86bebb27",
    ),
    # A personal access token named by its short name, a few words before it.
    "pat-near-word": (
        "CI reads the feed with my PAT go6mvn6a6wfhym6l3vfz5zfkkibj5j6wjibagi3mnbqnspuq2idw today",
        "go6mvn6a6wfhym6l3vfz5zfkkibj5j6wjibagi3mnbqnspuq2idw",
    ),
    # Chat webhooks: the URL itself lets anyone post.
    "feishu-hook": (
        "告警发到 https://open.feishu.cn/open-apis/bot/v2/hook/"
        "f132bf2d-e040-015c-e064-a11485f1115b 这个群",
        "f132bf2d-e040-015c-e064-a11485f1115b",
    ),
    "wecom-key-query": (
        "POST https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=b2fff17b-3f66-5ede-f106-37ce81fc069e",
        "b2fff17b-3f66-5ede-f106-37ce81fc069e",
    ),
    "teams-hook": (
        "notify https://contoso.webhook.office.com/webhookb2/b2fff17b-3f66-5ede-f106-37ce81fc069e"
        "@f132bf2d-e040-015c-e064-a11485f1115b/IncomingWebhook/ed440e50454f31af3176813e02ea68ef/"
        "b2fff17b-3f66-5ede-f106-37ce81fc069e/1zTOlUcR64cXQLioDnkHIfxIq2HZt-PlJhx2jIcl",
        "1zTOlUcR64cXQLioDnkHIfxIq2HZt",
    ),
    "generic-hooks-path": (
        "mattermost hook: https://chat.example.org/hooks/x8k2m9q4w7e1r5t3y6u0i2o4p1",
        "x8k2m9q4w7e1r5t3y6u0i2o4p1",
    ),
    # Passwords on database command lines.
    "redis-cli-a": (
        "redis-cli -h 10.2.0.9 -p 6379 -a 'NNAL5%wIScGebc' ping",
        "NNAL5%wIScGebc",
    ),
    "sqlplus-user-pass": (
        "sqlplus ledger_rw/UGJmGEp7CgQ0@//db-scan.corp:1521/LEDGER",
        "UGJmGEp7CgQ0",
    ),
    "sqlplus-connect": (
        "SQL> connect ledger_rw/UGJmGEp7CgQ0@LEDGERPDB",
        "UGJmGEp7CgQ0",
    ),
    # Round 39 (secrets s39): short password flags of other clients, the MinIO client's key
    # pair, LaunchDarkly's prefixed UUIDs.
    "mosquitto-sub": (
        "mosquitto_sub -h broker.lan -t 'greenhouse/#' -u reader -P Kq81vXwLp0Zt -v",
        "Kq81vXwLp0Zt",
    ),
    "mongosh-p": (
        'mongosh "mongodb://db1.lan:27017/app" -u app -p "n4Rt!kEw92qL"'
        " --authenticationDatabase admin",
        "n4Rt!kEw92qL",
    ),
    "ldapsearch-w": (
        "ldapsearch -x -H ldaps://dir.corp -D cn=svc,dc=corp -w 'y7Hq2mWv0pLs' '(uid=ana)'",
        "y7Hq2mWv0pLs",
    ),
    "rabbitmqadmin-p": (
        "rabbitmqadmin -H mq.lan -u ops -p Vb73kQw9zRt1 list queues",
        "Vb73kQw9zRt1",
    ),
    "unzip-P": ("unzip -P Lw0qT7zPm3Xa exports-2026-11.zip -d /tmp/x", "Lw0qT7zPm3Xa"),
    "7z-glued": ("7z x backup.7z -pHq3Zr8vNw2Lk -o./restore", "Hq3Zr8vNw2Lk"),
    "mc-config-host-secret": (
        "mc config host add nas http://10.0.0.5:9000 Z1XW8QPF3KJD7VBNMR2T"
        " 9fK2lQm8PzX7nV4bR1cW6tY0hJ5sD3aE",
        "9fK2lQm8PzX7nV4bR1cW6tY0hJ5sD3aE",
    ),
    "mc-alias-access-key": (
        "mc alias set backup https://s3.nas.lan:9000 Z1XW8QPF3KJD7VBNMR2T"
        " 9fK2lQm8PzX7nV4bR1cW6tY0hJ5sD3aE",
        "Z1XW8QPF3KJD7VBNMR2T",
    ),
    "launchdarkly-api-token": (
        "curl -H 'Authorization: x' https://app.launchdarkly.com/api/v2/flags -H"
        " 'LD-API-Version: 20240415' # token api-3d1f0c2a-8b7e-4c6d-9a5f-1e2d3c4b5a69",
        "api-3d1f0c2a-8b7e-4c6d-9a5f-1e2d3c4b5a69",
    ),
    # Round 39 (e2e-heldout13): an access id beside its secret, a Twilio account SID in prose.
    "access-id-yaml": (
        "iot:\n  access_id: k3v9qz1mw7xt2bp8ny4c\n  region: eu\n",
        "k3v9qz1mw7xt2bp8ny4c",
    ),
    "access-id-camel": ('{"accessId": "Rk29vLq7Xw3Zp8Nb"}', "Rk29vLq7Xw3Zp8Nb"),
    "twilio-account-sid-prose": (
        "our Twilio account SID is AC0f9e8d7c6b5a49382716051a2b3c4d5e, the token is in 1Password",
        "AC0f9e8d7c6b5a49382716051a2b3c4d5e",
    ),
    "launchdarkly-sdk-env": (
        "LD_SDK_KEY=sdk-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "sdk-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_credential_is_masked(name: str) -> None:
    text, secret = LEAKS[name]
    masked, _kinds = redact(text)
    assert secret not in masked, masked
    assert "[REDACTED:" in masked


KEEPS = {
    # A public JWK's modulus is base64url with a mixed-case start: no vendor prefix.
    "jwk-modulus": '{"kty":"RSA","kid":"k1","n":"QxT_aB3dE9fGhIjKlMnOpQrStUvWxYz0123456789abcdef"}',
    "account-id": "R2_ACCOUNT_ID=ed440e50454f31af3176813e02ea68ef",
    "client-id": "client_id = b2fff17b-3f66-5ede-f106-37ce81fc069e",
    "key-id": "the signing key_id is 86e4d3cea27d26934b484e73cf575dca",
    "github-hook-id": "see https://github.com/acme/site/settings/hooks/412335123 for deliveries",
    "flag-value": "password_flag = --with-password-file",
    "sqlplus-nolog": "sqlplus /nolog then connect / as sysdba",
    "path-with-slash": "copy reports/2026/summary.csv to the share",
    "redis-other-flag": "redis-cli -h cache.internal -p 6380 --latency",
    "pat-the-dog": "pat yourself on the back: 2f1e0d9c8b7a6f5e4d3c2b1a0f9e8d7c is the build hash",
    "minisign-pubkey": (
        "minisign -Vm app.tar.gz -P RWTq1mVb7xZs0pLk3nQw9eRt5yUi2oPa8sDf4gHj6kLz1xCv7bNm3qWe"
    ),
    "signify-pubkey-file": (
        "untrusted comment: signify public key\n"
        "RWSx0pQw7eRt5yUi2oPa8sDf4gHj6kLz1xCv7bNm3qWe9rTy1uIo2pAs"
    ),
    "mc-ls": "mc ls backup/photos --recursive | head",
    "mosquitto-port": "mosquitto_pub -h broker.lan -p 1883 -t t -m on",
    "bare-uuid": "request 3d1f0c2a-8b7e-4c6d-9a5f-1e2d3c4b5a69 failed with 502",
    "zip-plain": "zip -r -9 site.zip public/",
    "access-id-column": "the access_id column is a bigint, joined to users.id",
    "ac-word": "ACcording to the AC unit log, ACME shipped 32 units",
}


@pytest.mark.parametrize("name", sorted(KEEPS))
def test_look_alike_is_kept(name: str) -> None:
    text = KEEPS[name]
    assert redact(text)[0] == text

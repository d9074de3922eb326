"""Credential classes that reached the store in round 40's blind secrets batch (s40), each on
values and phrasings of our own, in both languages where chat uses both, and the look-alikes of
each class that must stay."""

from __future__ import annotations

import pytest

from recallnest.core.redact import redact

PPK_BODY = "Qm9vbGVhbkZsYWc3NXhWcTJiTjhtSzRwUjF0WjZ3WTNlVTlvSTBhUzVkRjJnSDdq"
PPK_TAIL = "Lk4xQzh2QjN6"

LEAKS = {
    # PuTTY key files: the private lines and the MAC, plain and encrypted, v1 to v3.
    "ppk-plain": (
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy@ci\n"
        f"Private-Lines: 2\n{PPK_BODY}\n{PPK_TAIL}\n"
        "Private-MAC: 9e1d4c7a2b5f80e36d1c9a4b7e2f5d08c3a6b9e1f4d7a0c2b5e8f1a4d7c0b3e6",
        PPK_TAIL,
    ),
    "ppk-encrypted": (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: aes256-cbc\nKey-Derivation: Argon2id\n"
        f"Argon2-Salt: 0a1b2c3d4e5f60718293a4b5c6d7e8f9\nPrivate-Lines: 1\n{PPK_BODY}\n"
        "Private-MAC: 4f2a9c7e1b3d5f80a6c4e2b9d7f1a3c5e8b0d2f4a6c8e1b3d5f7a9c2e4b6d8f0",
        PPK_BODY,
    ),
    "ppk-v2-mac": (
        f"Private-Lines: 1\r\n{PPK_TAIL}\r\nPrivate-MAC: 3c9e0b7a5d2f4e1c8a6b9d0f2e4a7c1b5d8e3f6a",
        "3c9e0b7a5d2f4e1c8a6b9d0f2e4a7c1b5d8e3f6a",
    ),
    "ppk-v1-hash": (
        "Private-Hash: 7d3a1f9c5e2b8d4a0c6e1f3b9d7a5c2e8f0b4d6a",
        "7d3a1f9c5e2b8d4a0c6e1f3b9d7a5c2e8f0b4d6a",
    ),
    # Credential-file lines `<resource> <user> <secret>` (davfs2 and its like).
    "davfs2-url": (
        "# /etc/davfs2/secrets\nhttps://files.kestrel.example/dav/ jonas Vm3q-Ht8r-Wp2z\n",
        "Vm3q-Ht8r-Wp2z",
    ),
    "davfs2-mount-point": (
        '\t/mnt/nextcloud   "kai.m"   "pR7!w2QxLm"\n',
        "pR7!w2QxLm",
    ),
    "davfs2-zh": (
        "挂载不上，secrets 里是这么写的：\n"
        "davs://pan.yunhe.cn/remote.php/webdav xiaoli Zh4ngLi2026x\n",
        "Zh4ngLi2026x",
    ),
    # Passphrase flags in all their spellings.
    "gpg-passphrase-space": (
        "gpg --batch --passphrase 'tidal-Lantern-77' --symmetric notes.tar",
        "tidal-Lantern-77",
    ),
    "gpg-passphrase-equals": (
        "解密用：gpg --pinentry-mode loopback --passphrase=Wq9rT2vX5z -d vault.gpg",
        "Wq9rT2vX5z",
    ),
    "new-passphrase-flag": (
        'keytool-wrapper --new-passphrase "Hx8-lumen-Quay" --alias signing',
        "Hx8-lumen-Quay",
    ),
    "passcode-flag": ("vpn-cli connect --passcode 71Tq9xRz4 --host gw1", "71Tq9xRz4"),
    # Short halves of a key pair as name suffixes, and the long spellings.
    "env-ak-sk": (
        "BCE_SDK_AK=Q8ZRN4TK2WXM7PLD5HVC\nBCE_SDK_SK=b7Kq2Zp9Xw4Lm8Nr3Tv6Yc1Hs5Jd0Fg2Ae7Ui4Ro",
        "b7Kq2Zp9Xw4Lm8Nr3Tv6Yc1Hs5Jd0Fg2Ae7Ui4Ro",
    ),
    "env-ak-id-half": ("QINIU_AK=Q8ZRN4TK2WXM7PLD5HVC", "Q8ZRN4TK2WXM7PLD5HVC"),
    "yaml-sk": ("obs:\n  huawei_sk: Tz4mQ8rV2xL7nB9wK3pY6cH1\n", "Tz4mQ8rV2xL7nB9wK3pY6cH1"),
    "json-secret-key-camel": (
        '{"SecretKey": "Jx7Pq2Lm9Vz4Rt8Kw3Nb6Yc", "Region": "cn-north-4"}',
        "Jx7Pq2Lm9Vz4Rt8Kw3Nb6Yc",
    ),
    "yaml-access-key-camel": ("accessKey: M4XQ9ZT2KW7RLP5N", "M4XQ9ZT2KW7RLP5N"),
    # "<key word> is/是 <value with a dot>": an id.secret pair in prose.
    "zh-key-dotted": (
        "控制台给的 key 是 5e0c9a1b7d3f2e8c4a6b0d9f1e3c7a5b.Kp3mZ8xQ1rW7tV2n，先别外传",
        "Kp3mZ8xQ1rW7tV2n",
    ),
    "en-key-dotted": (
        "the key is 5e0c9a1b7d3f2e8c4a6b0d9f1e3c7a5b.Kp3mZ8xQ1rW7tV2n for the staging model",
        "5e0c9a1b7d3f2e8c4a6b0d9f1e3c7a5b",
    ),
    "en-token-three-parts": (
        "my token: q7Zk2Lw9Rt4Xm8Pv3N.Bc6Hs1Jd5Yf0Ka.R2u8Te4Wq7Zo3Ni",
        "Bc6Hs1Jd5Yf0Ka",
    ),
    # Wi-Fi and IPsec pre-shared keys.
    "wpa-supplicant-psk": (
        'network={\n    ssid="Loft-2G"\n    psk="r4in&Cedar09"\n}',
        "r4in&Cedar09",
    ),
    "hostapd-wpa-psk-hex": (
        "wpa_psk=6f1e8a3c9b2d7f4e0a5c8b1d3f6e9a2c4b7d0f3e5a8c1b4d6f9e2a5c7b0d3f6e",
        "6f1e8a3c9b2d7f4e0a5c8b1d3f6e9a2c4b7d0f3e5a8c1b4d6f9e2a5c7b0d3f6e",
    ),
    "hostapd-wpa-passphrase": ("wpa_passphrase=Orchid-lamp-42", "Orchid-lamp-42"),
    "hostapd-sae-password": ("sae_password=Mq5tide-Rook", "Mq5tide-Rook"),
    "ipsec-secrets-psk": ('%any 203.0.113.9 : PSK "v9Lq2-harbor-Tz"', "v9Lq2-harbor-Tz"),
    # Samba's user%password, and the -p of the SMB scanners.
    "smbclient-percent": ("smbclient //nas/media -U 'mara%Lq8!vz3P' -c ls", "Lq8!vz3P"),
    "rpcclient-domain": (
        'rpcclient -U "CORP\\\\svc_ro%Tz7#pw2K" 10.0.4.2 -c enumdomusers',
        "Tz7#pw2K",
    ),
    "net-ads-join": ("net ads join -U administrator%Wj4nK9qr -S dc01", "Wj4nK9qr"),
    "wbinfo-authenticate": ("wbinfo -a ops%Rx5mT8qz 看看能不能认证", "Rx5mT8qz"),
    "smbget-long-flag": ("smbget --user=lena%Hb3vQ7xw smb://nas/pub/a.iso", "Hb3vQ7xw"),
    "smbmap-p": ("smbmap -u guestops -p 'Vk2#qL9m' -H 10.0.0.7", "Vk2#qL9m"),
    # SQL that sets an account's password, in its forms.
    "pg-create-user-encrypted": (
        "CREATE USER etl WITH ENCRYPTED PASSWORD 'Pv3nq8Rx';",
        "Pv3nq8Rx",
    ),
    "pg-create-role-multiline": (
        "CREATE ROLE metabase WITH\n  LOGIN\n  PASSWORD 'kT9v-Mq2w';\n",
        "kT9v-Mq2w",
    ),
    "pg-alter-user-lower": ("alter user app_rw password 'g7Yt2qLp';", "g7Yt2qLp"),
    "mysql-identified-by": (
        "CREATE USER 'shop'@'%' IDENTIFIED BY 'Sh0p-Tq7x';",
        "Sh0p-Tq7x",
    ),
    "mysql-identified-with": (
        "ALTER USER 'ro'@'10.%' IDENTIFIED WITH mysql_native_password BY 'Rq4zXw8n';",
        "Rq4zXw8n",
    ),
    "mysql-grant-identified": (
        "GRANT SELECT ON shop.* TO 'rep'@'%' IDENTIFIED BY 'Gx6nVb2m';",
        "Gx6nVb2m",
    ),
    "oracle-identified-bare": ("CREATE USER scott IDENTIFIED BY Tig3r_99;", "Tig3r_99"),
    "mysql-set-password-for": (
        "SET PASSWORD FOR 'bob'@'localhost' = 'Bq7mZx2r';",
        "Bq7mZx2r",
    ),
    "mysql-set-password-function": ("SET PASSWORD = PASSWORD('Wn5rLq8z');", "Wn5rLq8z"),
    "mssql-create-login": ("CREATE LOGIN api_svc WITH PASSWORD = 'Ms9q!Lz4';", "Ms9q!Lz4"),
    "zh-sql-prose": (
        "初始化脚本里 CREATE ROLE bi_ro LOGIN PASSWORD 'Bi7r0Qx2'; 要删掉",
        "Bi7r0Qx2",
    ),
    # A generated literal passed positionally to an API client's constructor.
    "java-client-hex": (
        'PushClient pc = new PushClient("3e9a0c7b5d1f4e2a8c6b9d0f", "1b4d7a0c3e6f9b2d5a8c1e4f");',
        "3e9a0c7b5d1f4e2a8c6b9d0f",
    ),
    "java-credentials-pair": (
        'new BasicCredentials("Q8ZRN4TK2WXM7PLD5HVC", "b7Kq2Zp9Xw4Lm8Nr3Tv6Yc1Hs5Jd0Fg2Ae7Ui4Ro")',
        "b7Kq2Zp9Xw4Lm8Nr3Tv6Yc1Hs5Jd0Fg2Ae7Ui4Ro",
    ),
    "python-client-single-quotes": (
        "客户端这么建的 client = SmsClient('Xr7kQ2mZ9pL4vT8w', region='cn-sh')",
        "Xr7kQ2mZ9pL4vT8w",
    ),
    "qiniu-auth-create": (
        'Auth auth = Auth.create("Q8ZRN4TK2WXM7PLD5HVC", "Tz4mQ8rV2xL7nB9wK3pY6cH1");',
        "Tz4mQ8rV2xL7nB9wK3pY6cH1",
    ),
}


def assert_masked(text: str, secret: str) -> None:
    """The secret is gone, a marker stands in its place, and a second pass finds nothing."""
    masked, _kinds = redact(text)
    assert secret not in masked, masked
    assert "[REDACTED:" in masked
    assert redact(masked) == (masked, ())


def assert_kept(text: str) -> None:
    assert redact(text)[0] == text


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_credential_is_masked(name: str) -> None:
    assert_masked(*LEAKS[name])


KEEPS = {
    "ppk-public-only": (
        "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\n"
        "AAAAC3NzaC1lZDI1NTE5AAAAIFv8Qm2Lx7Kp3Rt9Wz4Nc6Yb1Hd5Jf0Ga8Se2Uo7Ri"
    ),
    "ppk-header-prose": "PuTTY counts them in the Private-Lines: header, then the MAC follows",
    "endpoint-table": "/health 200 3ms\n/api/orders POST 201\n",
    "url-method-status": "https://api.shop.test/v2/cart GET 404\n",
    "fstab-options": "/boot/efi vfat umask=0077\n",
    "path-owner-mode": "/etc/hosts root 644\n",
    "url-words-line": "https://docs.python.org/3/ is great reading\n",
    "gpg-passphrase-file": "gpg --batch --passphrase-file ~/.gnupg/pp.txt -d a.gpg",
    "gpg-passphrase-fd": 'echo "$PP" | gpg --passphrase-fd 0 --batch -d a.gpg',
    "gpg-passphrase-var": 'gpg --passphrase "$BACKUP_PASSPHRASE" -d a.gpg',
    "dynamodb-sort-key": '{"PK": "USER#41", "SK": "ORDER#2026-11-05#A17"}',
    "dynamodb-gsi-sort-key": "GSI1_SK=ORDER#2026-11-05#Zq81",
    "state-code-ak": "TAX_RATE_AK=0 and SHIP_ZONE_AK=Anchorage",
    "task-skip": "TASK_SKIP=integration-tests-slow",
    "wpa-key-mgmt": "key_mgmt=WPA-PSK\nproto=RSN\npairwise=CCMP",
    "wpa-psk-placeholder": 'psk="${WIFI_PSK}"',
    "psk-short-value": "modulation psk: bpsk31",
    "ipsec-rsa-file": ": RSA moon.key.pem",
    "zh-key-file-name": "key 在 5e0c9a1b7d3f2e8c4a6b0d9f1e3c7a5b.json 里",
    "key-hash-hostname": "the cache key is 5e0c9a1b7d3f2e8c4a6b0d9f1e3c7a5b.example.com",
    "key-version": "the key is v1.2.3-beta.4 and the token format is 2.0",
    "sql-password-expire": "ALTER USER bob PASSWORD EXPIRE;",
    "sql-password-null": "ALTER ROLE etl WITH PASSWORD NULL;",
    "sql-random-password": "ALTER USER 'u'@'%' IDENTIFIED BY RANDOM PASSWORD;",
    "sql-bind-variable": "CREATE USER app IDENTIFIED BY :pw",
    "sql-no-password": "CREATE USER reporter WITH LOGIN NOSUPERUSER VALID UNTIL '2027-01-01';",
    "sql-placeholder": "CREATE USER app WITH PASSWORD '${DB_PASSWORD}';",
    "sql-plugin-only": "ALTER USER 'x'@'%' IDENTIFIED WITH caching_sha2_password;",
    "sql-prose": "create a user first and set its password later",
    "smbclient-no-password": "smbclient //nas/media -U mara -c ls",
    "smbclient-anonymous": "smbclient -L //nas -U guest -N",
    "net-percent-prose": "the net result is 95%, -U flag not needed",
    "psql-user": 'psql -U app_rw -c "select count(*) from t where pct > 50%"',
    "smbmap-no-password": "smbmap -H 10.0.0.7 -u null",
    "client-url": 'RedisClient rc = new RedisClient("redis://cache.internal:6379");',
    "client-name": 'new HttpClient("orders-service-prod")',
    "client-region": 'S3Client("eu-west-1-secondary")',
    # (a UUID beside other arguments is an id; alone in the call it is the client's token
    # since round 46: Postmark's server token is a UUID, secrets s51)
    "client-uuid": 'new TraceClient("3d1f0c2a-8b7e-4c6d-9a5f-1e2d3c4b5a69", { sampleRate: 0.1 })',
    "client-version": 'GitClient("v2.41.0-windows.1-rc")',
    "client-placeholder": 'new PushClient("your-master-secret", "your-app-key")',
    "non-client-hex-literal": 'assert digest("abc") == "3e9a0c7b5d1f4e2a8c6b9d0f1e3c5a7b"',
}


@pytest.mark.parametrize("name", sorted(KEEPS))
def test_look_alike_is_kept(name: str) -> None:
    assert_kept(KEEPS[name])

"""Credential classes that reached the store in round 41's third blind secrets batch (s44)
and in the transcripts of a blind end-to-end test, each on values and phrasings of our own,
and the look-alikes of each class that must stay.

Classes: a key at the end of a sentence after its noun ("…, the key is <hex>."); an id named as
one after a token's noun (`AppID`, Ronglian SMS); an app certificate (Agora's signing secret);
a password of random letters stated in prose ("the smtp password is …"); MySQL-style clients'
glued -p (obclient, taos); a public client key by its prefix (Mapbox `pk.eyJ…`, Stripe
`pk_live_…`), which is kept.

Every leak here was stored before the round's change, and every look-alike stands beside a
leak of the same rule, so it fails until the rule exists."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_redact_round41b_classes import assert_masked_keeping

from recallnest.core.redact import redact

LEAKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # --- A password of random letters, stated in prose ---------------------------------------
    "password-is-random-letters": (
        "the billing mailbox smtp password is qhtvdkwmbzrplxfn for the test sends",
        "qhtvdkwmbzrplxfn",
        ("billing mailbox smtp password is", "for the test sends"),
    ),
    "password-is-upper-letters": (
        "the wifi password was KRZTPVWQMDHX, printed on the router",
        "KRZTPVWQMDHX",
        ("printed on the router",),
    ),
    # --- A key at the end of a sentence, a few words after its noun ---------------------------
    "key-is-hex-sentence-end": (
        "for the call transcripts we use Deepgram, the key is 4f0a9c2e7b1d83a6c5e2f9b0d7a41c3e.",
        "4f0a9c2e7b1d83a6c5e2f9b0d7a41c3e",
        ("we use Deepgram, the key is", "."),
    ),
    "token-then-next-sentence": (
        "Rev.ai handles the rest; my token there: 02d9e6b3f8a1c74e5b0d2f9a6c3e8b17. Rotate it "
        "monthly.",
        "02d9e6b3f8a1c74e5b0d2f9a6c3e8b17",
        ("Rev.ai handles the rest", ". Rotate it monthly."),
    ),
    # --- An SMS platform's auth token beside its ids (Ronglian / 容联云) ---------------------
    "ronglian-auth-token-zh": (
        "短信走容联云，auth token 是 3c9e27b05d1f48a6e2b7c0d4f9a18e53，AppId 是 "
        "8aa4c2f17e0b3d95a6c1f8e2b7d04c39，签名用「码头通」",
        "3c9e27b05d1f48a6e2b7c0d4f9a18e53",
        ("8aa4c2f17e0b3d95a6c1f8e2b7d04c39", "签名用「码头通」"),
    ),
    "ronglian-auth-token-caps": (
        "容联云：AUTH TOKEN 71d0e4b9a26c3f85e0b7d2a4c9f1e368，应用 AppID "
        "2bf05e8c1a7d49e3b6c0f2a8d5e17b94，模板 ID 940215",
        "71d0e4b9a26c3f85e0b7d2a4c9f1e368",
        ("2bf05e8c1a7d49e3b6c0f2a8d5e17b94", "模板 ID 940215"),
    ),
    # --- A real-time SDK's app certificate beside its public app id (Agora / 声网) ----------
    "agora-app-certificate-zh": (
        "声网后台：App ID 是 c71e0a9d4b2f58e3a6d1c9b0e7f24a85，App Certificate 是 "
        "5b0e8d3c7a1f49e2b6d0c8a4f7e13b92，token 服务要用",
        "5b0e8d3c7a1f49e2b6d0c8a4f7e13b92",
        ("App ID 是 c71e0a9d4b2f58e3a6d1c9b0e7f24a85", "token 服务要用"),
    ),
    "agora-app-certificate-env": (
        "AGORA_APP_ID=c71e0a9d4b2f58e3a6d1c9b0e7f24a85\n"
        "AGORA_APP_CERTIFICATE=9d2f6b0e4a8c13e7b5d9f2a6c0e48b71",
        "9d2f6b0e4a8c13e7b5d9f2a6c0e48b71",
        ("AGORA_APP_ID=c71e0a9d4b2f58e3a6d1c9b0e7f24a85",),
    ),
    "agora-app-certificate-code": (
        'const appCertificate = "e4a0c8f2b6d19e5a3c7f0b4d8e26a1c9";',
        "e4a0c8f2b6d19e5a3c7f0b4d8e26a1c9",
        ("const appCertificate",),
    ),
    # --- MySQL-style clients with the password glued to -p ---------------------------------
    "obclient-glued-quoted": (
        "进 OceanBase 看一下：obclient -h10.2.0.7 -P2881 -uapp@biz_tenant#obprod -p'Vt8qLm2Zx7Kw'"
        " -Dorders -A",
        "Vt8qLm2Zx7Kw",
        ("-P2881", "-uapp@biz_tenant#obprod", "-Dorders -A"),
    ),
    "taos-glued": (
        "TDengine 里查：taos -h tdnode2 -P 6030 -u ingest -pQm7xLz2Vt9Kw -s 'show databases;'",
        "Qm7xLz2Vt9Kw",
        ("-h tdnode2 -P 6030 -u ingest", "show databases;"),
    ),
    "taosdump-glued": (
        "taosdump -h tdnode2 -u root -pHn4Rx8Wq2Lv -o /backup/td",
        "Hn4Rx8Wq2Lv",
        ("-u root", "-o /backup/td"),
    ),
    # --- Windows-style /p: switches of RDP clients, and cmdkey's /pass: -------------------
    "xfreerdp-p": (
        "jump to the PLC hall: xfreerdp /v:10.9.1.4 /u:plc-ops /p:Tq7Lm2Vx9Kw /cert:ignore",
        "Tq7Lm2Vx9Kw",
        ("/v:10.9.1.4", "/u:plc-ops", "/cert:ignore"),
    ),
    "xfreerdp3-quoted-gateway": (
        'xfreerdp3 /v:rdp.corp /u:ops /gp:"Hz4 Lq8!Wm" /g:gw.corp +clipboard',
        "Hz4 Lq8!Wm",
        ("/v:rdp.corp", "/g:gw.corp +clipboard"),
    ),
    "xfreerdp-pass-the-hash": (
        "xfreerdp /v:fs01 /u:Administrator /pth:c3f1a8e07b2d94e6a5c0b8d1f4e72a39",
        "c3f1a8e07b2d94e6a5c0b8d1f4e72a39",
        ("/u:Administrator",),
    ),
    "cmdkey-pass": (
        "cmdkey /generic:TERMSRV/jump01 /user:CORP\\ops /pass:Nx3Kq8Wz2Lv",
        "Nx3Kq8Wz2Lv",
        ("/generic:TERMSRV/jump01", "/user:CORP\\ops"),
    ),
    # --- PowerShell's ConvertTo-SecureString given plain text -------------------------------
    "securestring-literal": (
        '$pw = ConvertTo-SecureString "Kz8!mQ2vLx9" -AsPlainText -Force\n'
        '$cred = New-Object PSCredential("LAB\\svc-backup", $pw)',
        "Kz8!mQ2vLx9",
        ('PSCredential("LAB\\svc-backup", $pw)', "-AsPlainText -Force"),
    ),
    "securestring-string-flag": (
        "$s = ConvertTo-SecureString -String 'Tr4#nW8qZv' -AsPlainText -Force",
        "Tr4#nW8qZv",
        ("-AsPlainText -Force",),
    ),
    "securestring-piped": (
        "[pscredential]::new('ops', ('Hq3$Lv7Xz!' | ConvertTo-SecureString -AsPlainText -Force))",
        "Hq3$Lv7Xz!",
        ("[pscredential]::new('ops',",),
    ),
    # --- A constant defined to a secret literal (PHP define, C #define) ---------------------
    "php-define-db-password": (
        "define( 'DB_NAME', 'harbour_wp' );\ndefine( 'DB_USER', 'harbour_wp' );\n"
        "define( 'DB_PASSWORD', 'Lq7mZ2xV9kTe' );\ndefine( 'DB_HOST', 'localhost' );",
        "Lq7mZ2xV9kTe",
        ("define( 'DB_NAME', 'harbour_wp' );", "define( 'DB_USER', 'harbour_wp' );", "localhost"),
    ),
    "php-define-double-quoted-salt-key": (
        'define("SECURE_AUTH_KEY", "x7;Qm|8+K2v#Zt@9Lp!w4R(e1N~s6Bh^");',
        "x7;Qm|8+K2v#Zt@9Lp!w4R(e1N~s6Bh^",
        ('define("SECURE_AUTH_KEY", ',),
    ),
    "c-define-wifi-pass": (
        '// arduino_secrets.h\n#define SECRET_SSID "PierNet-5G"\n#define SECRET_PASS "Tq8!vLm2Zx"',
        "Tq8!vLm2Zx",
        ('#define SECRET_SSID "PierNet-5G"',),
    ),
    # --- Credential headers in an OpenTelemetry exporter's headers list ---------------------
    "otlp-honeycomb-team": (
        "export OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io\n"
        'export OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=Wq8zLm2Kx7Tn4Rv9Yb3Pc6,'
        'x-honeycomb-dataset=pier-api"',
        "Wq8zLm2Kx7Tn4Rv9Yb3Pc6",
        ("x-honeycomb-team=", "x-honeycomb-dataset=pier-api", "https://api.honeycomb.io"),
    ),
    "otlp-basic-authorization": (
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS=Authorization=Basic%20NzQ2MTIzOmdsY19leUp2SWpvaU1q"
        "QXhOVFF6TWlJc0ltNGlPaUpx,X-Scope-OrgID=746123",
        "NzQ2MTIzOmdsY19leUp2SWpvaU1qQXhOVFF6TWlJc0ltNGlPaUpx",
        ("X-Scope-OrgID=746123",),
    ),
    "otlp-yaml-classic-team-key": (
        "environment:\n  OTEL_EXPORTER_OTLP_HEADERS: "
        '"x-honeycomb-dataset=gate,x-honeycomb-team=c4f81a9e2b7d03f6a5e8c1b4d9f27a06"',
        "c4f81a9e2b7d03f6a5e8c1b4d9f27a06",
        ("x-honeycomb-dataset=gate",),
    ),
    # --- A Pushover user key, in a text about Pushover --------------------------------------
    "pushover-form-user": (
        'curl -s --form-string "token=a7k2m9q4x8v3n6b1z5w0r4t8y2u6i3" --form-string '
        '"user=h3j8k1m6n9p2q5r7s0t4v8w1x6y3z9" --form-string "message=backup ok" '
        "https://api.pushover.net/1/messages.json",
        "h3j8k1m6n9p2q5r7s0t4v8w1x6y3z9",
        ('"message=backup ok"', "https://api.pushover.net/1/messages.json"),
    ),
    "pushover-json-user": (
        'notify via Pushover: {"user": "g2k9m4w8x3v7n1b5z0r6t2y8u4i9o3", "priority": 1, '
        '"token": os.environ["PUSHOVER_TOKEN"]}',
        "g2k9m4w8x3v7n1b5z0r6t2y8u4i9o3",
        ('"priority": 1', "notify via Pushover"),
    ),
    "pushover-env-user": (
        "PUSHOVER_USER=q8w2e6r1t5y9u3i7o0p4a8s2d6f1g5\nPUSHOVER_DEVICE=nas",
        "q8w2e6r1t5y9u3i7o0p4a8s2d6f1g5",
        ("PUSHOVER_DEVICE=nas",),
    ),
    # --- An OpenVPN auth-user-pass file shown in the text ----------------------------------
    "openvpn-auth-file-colon": (
        "the branch router's /etc/openvpn/login.conf holds two lines:\nbranch-vpn-07\n"
        "Xr5tQm8LzW2k\nand its client.ovpn says auth-user-pass login.conf",
        "Xr5tQm8LzW2k",
        ("two lines:\nbranch-vpn-07\n", "auth-user-pass login.conf"),
    ),
    "openvpn-auth-file-heredoc": (
        "cat > /etc/openvpn/creds.txt <<'EOF'\nbranch-07\nZq4!mLx8Tv2\nEOF\n"
        "then add auth-user-pass /etc/openvpn/creds.txt to client.ovpn",
        "Zq4!mLx8Tv2",
        ("branch-07\n", "\nEOF\n"),
    ),
    "openvpn-auth-file-zh": (
        "auth-user-pass 用的 auth.txt 两行：\nkiosk-3\nHq8#vLm2Zx\n第一行是用户名",
        "Hq8#vLm2Zx",
        ("kiosk-3", "第一行是用户名"),
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_masked(name: str) -> None:
    text, secret, kept = LEAKS[name]
    assert_masked_keeping(text, secret, *kept)


# Each look-alike beside a leak of the same rule, so the test fails until the rule exists and
# keeps failing if the rule grows too wide.
LOOKALIKES: dict[str, tuple[str, str, str]] = {
    # A password described, not given: words, placeholders and variables stay.
    "password-is-word": (
        "the password is straightforward to rotate; the smtp password is qhtvdkwmbzrplxfn",
        "qhtvdkwmbzrplxfn",
        "the password is straightforward to rotate",
    ),
    "password-is-required": (
        "the password is required, and the relay password is wvkzqhjtmrdbnxcp",
        "wvkzqhjtmrdbnxcp",
        "the password is required",
    ),
    "password-is-hashed": (
        "the password is hashed with argon2; the old admin password was psktrvmzqwhdlnbf",
        "psktrvmzqwhdlnbf",
        "the password is hashed with argon2",
    ),
    "password-is-placeholder": (
        "the password is your_password until setup, then the password is nbvcxzlkjhgfdsqw",
        "nbvcxzlkjhgfdsqw",
        "the password is your_password until setup",
    ),
    "password-is-stars": (
        "the password is ************, the real password is zxcvbnmlkjhgtrfd",
        "zxcvbnmlkjhgtrfd",
        "the password is ************",
    ),
    "password-is-variable": (
        "the password is $SMTP_PASSWORD in CI, locally the password is mnbvcxzqwrtplkjh",
        "mnbvcxzqwrtplkjh",
        "the password is $SMTP_PASSWORD in CI",
    ),
    # A hash or a file name after the noun stays, sentence end or not.
    "cache-key-sentence-end": (
        "the cache key is 9c4e1a7f2b8d05e3c6a9f1b4d7e02a58. For Speechmatics the key is "
        "b7e3a90c4f2d16e8a5c0b9d3f7e14a62.",
        "b7e3a90c4f2d16e8a5c0b9d3f7e14a62",
        "the cache key is 9c4e1a7f2b8d05e3c6a9f1b4d7e02a58.",
    ),
    "key-file-name": (
        "the key file is 3e8b1c6f9a2d47e0b5c8f1a4d7e03b96.json; the key is "
        "5a1f8c3e0b7d29f4a6c1e8b3d0f72c94.",
        "5a1f8c3e0b7d29f4a6c1e8b3d0f72c94",
        "the key file is 3e8b1c6f9a2d47e0b5c8f1a4d7e03b96.json",
    ),
    # An id named as one, a few words after a token's noun, stays.
    "token-then-app-id": (
        "SMS token 6e1b9d4a2f7c05e8b3a6d9f0c2e74b18, AppID 4d8a2f6c0e9b17d3a5c8f1e0b2d64a97",
        "6e1b9d4a2f7c05e8b3a6d9f0c2e74b18",
        "AppID 4d8a2f6c0e9b17d3a5c8f1e0b2d64a97",
    ),
    "token-then-template-id": (
        "token: 0f7c3a9e5b2d84f1a6c0e9b3d7f25a18, templateId 5c2e9a7f1b4d06e8c3a5f9b2d0e71c46",
        "0f7c3a9e5b2d84f1a6c0e9b3d7f25a18",
        "templateId 5c2e9a7f1b4d06e8c3a5f9b2d0e71c46",
    ),
    # A TLS certificate's file, fingerprint or serial stays.
    "tls-certificate-file": (
        "ssl_certificate /etc/nginx/certs/8c1f5a9e3b7d20f4a6c8e1b5d9f37a02.pem;\n"
        "agora appCertificate: 0c6e2a8f4b1d97e3a5c9f0b2d6e48a17",
        "0c6e2a8f4b1d97e3a5c9f0b2d6e48a17",
        "ssl_certificate /etc/nginx/certs/8c1f5a9e3b7d20f4a6c8e1b5d9f37a02.pem;",
    ),
    "tls-certificate-fingerprint": (
        "the certificate fingerprint is 3f9a1c7e5b2d08f4a6c1e9b3d7f05a2c8e4b6d10, and the "
        "App Certificate is 7a3e9c1f5b0d84e2a6c8f4b0d2e96a13",
        "7a3e9c1f5b0d84e2a6c8f4b0d2e96a13",
        "the certificate fingerprint is 3f9a1c7e5b2d08f4a6c1e9b3d7f05a2c8e4b6d10",
    ),
    # A -p alone prompts for the password; -P is a port.
    "obclient-prompt": (
        "obclient -h10.2.0.7 -P2881 -uroot@sys -p\n"
        "obclient -h10.2.0.7 -P2881 -uroot@sys -pKx9Wm3Tq7Lz",
        "Kx9Wm3Tq7Lz",
        "obclient -h10.2.0.7 -P2881 -uroot@sys -p\n",
    ),
    "taos-prompt-port": (
        "taos -h tdnode2 -P 6030 -u ingest -p  (it asks)\ntaos -u ingest -pWz5Nq8Lx3Rv",
        "Wz5Nq8Lx3Rv",
        "taos -h tdnode2 -P 6030 -u ingest -p  (it asks)",
    ),
    # An RDP line with no password (it prompts), a variable, or cmdkey listing keys stays.
    "xfreerdp-prompt": (
        "xfreerdp /v:jump /u:ops /size:1920x1080\nxfreerdp /v:jump /u:ops /p:Rw5Kx8Lq2Zt",
        "Rw5Kx8Lq2Zt",
        "xfreerdp /v:jump /u:ops /size:1920x1080",
    ),
    "xfreerdp-variable": (
        "xfreerdp /v:jump /u:ops /p:$RDP_PASSWORD /size:1920x1080\nor xfreerdp /p:Rw5Kx8Lq2Zt",
        "Rw5Kx8Lq2Zt",
        "/p:$RDP_PASSWORD /size:1920x1080",
    ),
    "cmdkey-list": (
        "cmdkey /list:TERMSRV/* shows it; cmdkey /add:fs01 /user:ops /pass:Rw5Kx8Lq2Zt",
        "Rw5Kx8Lq2Zt",
        "cmdkey /list:TERMSRV/* shows it",
    ),
    # A variable, a file read or an encrypted string (no -AsPlainText) stays.
    "securestring-variable": (
        "$a = ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText -Force\n"
        "$b = ConvertTo-SecureString 'Wd6#Kq9Lz' -AsPlainText -Force",
        "Wd6#Kq9Lz",
        "ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText",
    ),
    "securestring-file": (
        "$a = Get-Content .\\cred.txt | ConvertTo-SecureString -AsPlainText -Force\n"
        "$b = ConvertTo-SecureString 'Wd6#Kq9Lz' -AsPlainText -Force",
        "Wd6#Kq9Lz",
        "Get-Content .\\cred.txt | ConvertTo-SecureString",
    ),
    "securestring-encrypted": (
        '$a = ConvertTo-SecureString "76492d1116743f0423413b16050a5345MgB8AEQAdQBz" -Key $k\n'
        "$b = ConvertTo-SecureString 'Wd6#Kq9Lz' -AsPlainText -Force",
        "Wd6#Kq9Lz",
        '"76492d1116743f0423413b16050a5345MgB8AEQAdQBz" -Key $k',
    ),
    # A constant that is no secret, a call and WordPress's placeholder stay.
    "php-define-call-and-placeholder": (
        "define( 'DB_PASSWORD', getenv('WP_DB_PASSWORD') );\n"
        "define('AUTH_KEY', 'put your unique phrase here');\n"
        "define('LOGGED_IN_KEY', 'Zt@9Lp!w4R(e1N~s6Bh^x7;Qm|8+K2v#');",
        "Zt@9Lp!w4R(e1N~s6Bh^x7;Qm|8+K2v#",
        "define( 'DB_PASSWORD', getenv('WP_DB_PASSWORD') );\n"
        "define('AUTH_KEY', 'put your unique phrase here');",
    ),
    "c-define-not-secret": (
        '#define OTA_HOSTNAME "gate-b"\n#define LED_PIN 13\n#define OTA_PASSWORD "Mv4#Kq8Lz"',
        "Mv4#Kq8Lz",
        '#define OTA_HOSTNAME "gate-b"\n#define LED_PIN 13',
    ),
    # An OTLP headers list with a placeholder or no credential header stays.
    "otlp-placeholder": (
        'OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=${HONEYCOMB_API_KEY},x-honeycomb-dataset=a"'
        '\nOTEL_EXPORTER_OTLP_LOGS_HEADERS="x-honeycomb-team=Hv3Qm7Lz2Xk9Tn4Rw8Bc6J"',
        "Hv3Qm7Lz2Xk9Tn4Rw8Bc6J",
        'OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=${HONEYCOMB_API_KEY},x-honeycomb-dataset=a"',
    ),
    "otlp-plain-headers": (
        'OTEL_EXPORTER_OTLP_HEADERS="x-scope-orgid=tenant-7,x-team-name=platform"\n'
        'OTEL_EXPORTER_OTLP_METRICS_HEADERS="x-honeycomb-team=Hv3Qm7Lz2Xk9Tn4Rw8Bc6J"',
        "Hv3Qm7Lz2Xk9Tn4Rw8Bc6J",
        'OTEL_EXPORTER_OTLP_HEADERS="x-scope-orgid=tenant-7,x-team-name=platform"',
    ),
    # A user's name in a text about Pushover stays.
    "pushover-user-name": (
        "pushover: user=opsbot and user=harbourmasteropsnotifications1 for the group, "
        "user=m4n8b2v6c1x5z9l3k7j0h4g8f2d6s1 for me",
        "m4n8b2v6c1x5z9l3k7j0h4g8f2d6s1",
        "pushover: user=opsbot and user=harbourmasteropsnotifications1 for the group",
    ),
    # Directives, a list of words and a variable under an auth line stay.
    "openvpn-directives": (
        "client.ovpn auth options:\npersist-key\npersist-tun\nauth-user-pass pass.txt\n\n"
        "pass.txt is two lines:\nops\nTq3#Lw9Zx5",
        "Tq3#Lw9Zx5",
        "client.ovpn auth options:\npersist-key\npersist-tun\n",
    ),
    "openvpn-word-list": (
        "auth-user-pass accounts, one per line:\nops\nbackup-07\nmonitor-2a\n\n"
        "and auth.txt:\nops\nTq3#Lw9Zx5",
        "Tq3#Lw9Zx5",
        "one per line:\nops\nbackup-07\nmonitor-2a\n",
    ),
    "openvpn-variable": (
        "auth-user-pass login.txt, login.txt:\nops\n$VPN_PASSWORD\n\nthe real auth.txt:\n"
        "ops\nTq3#Lw9Zx5",
        "Tq3#Lw9Zx5",
        "login.txt:\nops\n$VPN_PASSWORD\n",
    ),
    # A secret-named variable's use, then the command's next argument, stays.
    "variable-then-argument": (
        "connect.ps1 $RDP_PASSWORD /size:1920x1080\nmachine ftp.corp login ops password "
        "Hq7Lx2Vz9Km",
        "Hq7Lx2Vz9Km",
        "connect.ps1 $RDP_PASSWORD /size:1920x1080",
    ),
    # A public client key stays; a secret key of the same vendor beside it does not.
    "mapbox-public-token": (
        "mapboxgl.accessToken = 'pk.eyJ1IjoibWFyaW5hLW9wcyIsImEiOiJjbHg3cTJ6a3QwMXZ4MmpxNnA4bzR3"
        "eGd6In0.Q7vLk2XmN9pRt4WzY8bH3c';\nMAPBOX_DOWNLOADS_TOKEN=sk.eyJ1IjoibWFyaW5hLW9wcyIsImEiOi"
        "JjbHg3cTN6YnQwMnZ4M2pxN3A5bzV3eGh6In0.Zt5Rm8Kq2Lw7Vx3Nb9Jc4D",
        "sk.eyJ1IjoibWFyaW5hLW9wcyIsImEiOiJjbHg3cTN6YnQwMnZ4M2pxN3A5bzV3eGh6In0",
        "mapboxgl.accessToken = 'pk.eyJ1IjoibWFyaW5hLW9wcyIsImEiOiJjbHg3cTJ6a3QwMXZ4MmpxNnA4bzR3"
        "eGd6In0.Q7vLk2XmN9pRt4WzY8bH3c'",
    ),
    "mapbox-public-token-env": (
        "MAPBOX_ACCESS_TOKEN=pk.eyJ1IjoiZG9jay1tYXAiLCJhIjoiY2x6OHA0bTF3MGJ4cTJrcXZ0NnIzOWg1eCJ9"
        ".Wm4Tq9Lx2Kv7Rz3Nb8Hc5P\nMAPBOX_SECRET=sk.eyJ1IjoiZG9jay1tYXAiLCJhIjoiY2x6OHA1bjJ4MGN5cjN"
        "scnd1N3M0MGk2eSJ9.Hv3Qm7Lz2Xk9Tn4Rw8Bc6J",
        "sk.eyJ1IjoiZG9jay1tYXAiLCJhIjoiY2x6OHA1bjJ4MGN5cjNscnd1N3M0MGk2eSJ9",
        "MAPBOX_ACCESS_TOKEN=pk.eyJ1IjoiZG9jay1tYXAiLCJhIjoiY2x6OHA0bTF3MGJ4cTJrcXZ0NnIzOWg1eCJ9"
        ".Wm4Tq9Lx2Kv7Rz3Nb8Hc5P",
    ),
    "stripe-publishable-under-key-name": (
        "STRIPE_PUBLISHABLE_KEY=pk_live_51Nq8LmZ2Xv7Tk4Rw9Yb3Pc6Hd\n"
        "STRIPE_SECRET_KEY=sk_live_51Nq8LmZ2Xv7Tk4Rw9Yb3Pc6Hd0Wq",
        "sk_live_51Nq8LmZ2Xv7Tk4Rw9Yb3Pc6Hd0Wq",
        "STRIPE_PUBLISHABLE_KEY=pk_live_51Nq8LmZ2Xv7Tk4Rw9Yb3Pc6Hd",
    ),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_is_kept(name: str) -> None:
    text, secret, kept = LOOKALIKES[name]
    assert_masked_keeping(text, secret, kept)


# --- Hostile input: each new pattern with repetition stays linear ----------------------------

HOSTILE: dict[str, Callable[[int], str]] = {
    "pk-token": lambda n: "accessToken = 'pk.eyJ" * n,
    "password-is": lambda n: "password is " * n,
    "app-certificate": lambda n: "App Certificate 是 " * n,
    "taos-p": lambda n: "taos -p" * n,
    "xfreerdp-p": lambda n: "xfreerdp /p:" * n,
    "auth-file-lines": lambda n: "auth-user-pass auth:\n" * n,
    "auth-file-words": lambda n: "auth-user-pass auth:\nops\nTq3#Lw9Zx5\n" * n,
    "pushover-user": lambda n: "pushover user=" * n,
    "otlp-headers": lambda n: "OTEL_EXPORTER_OTLP_HEADERS=" * n,
    "otlp-pairs": lambda n: "OTEL_EXPORTER_OTLP_HEADERS=" + "x-team=a," * n,
    "php-define": lambda n: "define('DB_PASSWORD', " * n,
    "c-define": lambda n: "#define SECRET_PASS " * n,
    "securestring": lambda n: "ConvertTo-SecureString -AsPlainText " * n,
    "securestring-piped": lambda n: "'a' | ConvertTo-SecureString -AsPlainText |" * n,
    "xfreerdp-line": lambda n: "xfreerdp " + "/x " * (8 * n),
    "obclient-line": lambda n: "obclient " + "-x " * (8 * n),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_stays_linear(name: str) -> None:
    """Hostile repetitions of the new rules' words complete and mask idempotently; their time
    is measured by bench/bench_redact.py, not asserted here (no wall-clock thresholds in unit
    tests)."""
    masked, _kinds = redact(HOSTILE[name](8_000))
    assert redact(masked) == (masked, ())

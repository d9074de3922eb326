"""A password given as a positional argument of a login, on values and phrasings of our own
(every value below was generated for this file; round 51, the class found last).

1. A call that logs in takes the password after the user (`smtp.login(user, "…")`,
   `$sftp->login('u', '…')`, `ftp_login($conn, 'u', '…')`, `ldap_bind($ds, $dn, '…')`,
   `new NetworkCredential("u", "…")`); one that connects takes an address, maybe a port, then
   the user and the password (`client.connect(host, 22, "u", "…")`,
   `DriverManager.getConnection(url, "u", "…")`, `pymysql.connect("db", "u", "…", "shop")`).
2. Redis's login: `AUTH [user] <pw>` in capitals or at its prompt, a command array,
   `requirepass` / `masterauth`, an ACL rule's `>pw`.
3. Windows' `net use … <pw>` and lftp's `-u user,<pw>`.

Each masked case fails on the round's second start (7714b2c); each kept case passes on both.
"""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

PW = "0ABKgbTtESzt"
PW2 = "sPkfNe03tjABOc"
PW3 = "cbrJjSNAiMQO0T1V"
READABLE = "tulip-42-harbor"
APP_PW = "vgjz hwqs pdmg ylkd"  # a Gmail app password's shape: four groups of four letters

# --- 1. A login or connect call given the password positionally -------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f'server.login("noreply@example.org", "{PW}")', PW),
        (f"mail.login(SENDER, '{APP_PW}')", APP_PW),
        (f"$sftp->login('deploy', '{PW2}');", PW2),
        (f"ftp_login($conn_id, 'backup', '{PW3}');", PW3),
        (f'ftp.Login("backup", "{PW}")', PW),
        (f'ldap_bind($ds, "cn=admin,dc=example,dc=org", "{PW2}");', PW2),
        (f'conn.simple_bind_s("uid=svc,ou=people,dc=example,dc=org", "{PW3}")', PW3),
        (f'var cred = new NetworkCredential("svc_backup", "{PW}", "CORP");', PW),
        (f'new PasswordAuthentication("ops@example.org", "{PW2}".toCharArray())', PW2),
        (f'new UsernamePasswordAuthenticationToken("alice", "{PW3}")', PW3),
        (f'smtp.PlainAuth("", "ops@example.org", "{PW}", "smtp.example.org")', PW),
        (f'db.auth("admin", "{PW2}")', PW2),
        (f'await signInWithEmailAndPassword(auth, "qa@example.org", "{PW3}")', PW3),
        (f'ssh.connect("10.20.0.4", 22, "deploy", "{PW}")', PW),
        (f'Connection c = DriverManager.getConnection(url, "app", "{PW2}");', PW2),
        (f'conn = pymysql.connect("db.internal", "app", "{PW3}", "shop")', PW3),
        (f"$pdo = new PDO($dsn, 'app', '{PW}');", PW),
        (f'cx_Oracle.connect("scott", "{PW2}", "db.internal/orcl")', PW2),
        (f't.connect("smtp.example.org", 587, "ops", "{PW3}")', PW3),
        (f'用 smtp.login(发件人, "{PW}") 登录邮箱就行', PW),
        (f'连数据库：DriverManager.getConnection(jdbcUrl, "report", "{PW2}")，别外传', PW2),
    ],
)
def test_a_password_given_to_a_login_call_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "smtp.login(user, password)",
        'client.login("admin", "password")',
        'client.login("guest", "guest")',
        'DriverManager.getConnection(url, "sa", "")',
        f'fn.bind(this, "{PW}")',
        f'$("#save").bind("click", "{PW}")',
        'sock.bind(("0.0.0.0", 8080))',
        'net.connect(8080, "localhost")',
        'mqtt.connect("broker.example.org", 1883, 60)',
        'ws.connect(url, "chat-protocol")',
        'app.connect("button-clicked", "onClick")',
        f'client.disconnect("session", "{PW}")',
        'pool.connect("db.internal", "reports", "analytics")',
        'sqlite3.connect("app.db")',
        'signal.connect(receiver, sender="app", weak=False)',
        "self.client.force_login(self.user)",
        "登录接口是 auth.login(request, user)，密码不在代码里",
    ],
)
def test_calls_that_give_no_password_are_kept(text: str) -> None:
    assert_kept(text)


# --- 2. Redis's login and its password settings -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"AUTH default {PW}", PW),
        (f"10.0.0.7:6379> AUTH ops {PW2}\nOK", PW2),
        (f"redis> auth default {READABLE}\nOK", READABLE),
        (f"先 AUTH default {PW} 然后 SELECT 2", PW),
        (f'r.execute_command("AUTH", "default", "{PW2}")', PW2),
        (f"await client.sendCommand(['AUTH', '{PW3}'])", PW3),
        (f"requirepass {PW}", PW),
        (f'CONFIG SET masterauth "{PW2}"', PW2),
        (f"redis-server --requirepass {PW3} --appendonly yes", PW3),
        (f"ACL SETUSER alice on >{PW} ~cached:* +get", PW),
    ],
)
def test_a_redis_password_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "AUTH LOGIN",
        "AUTH required for this endpoint",
        "AUTH default",
        "requirepass foobared",
        "# requirepass is commented out by default",
        "masterauth <master-password>",
        "ACL SETUSER bob on #e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 ~*",
        "redis 的 AUTH 命令要先开 requirepass 才有用",
    ],
)
def test_redis_words_without_a_password_are_kept(text: str) -> None:
    assert_kept(text)


# --- 3. net use and lftp ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"net use \\\\fs01\\share /user:CORP\\jdoe {PW}", PW),
        (f"net use Z: \\\\fs01\\data {PW2} /user:jdoe /persistent:no", PW2),
        (f"lftp -u backup,{PW3} sftp://files.example.org", PW3),
        (f"映射盘符：net use X: \\\\nas\\共享 {PW} /user:admin", PW),
    ],
)
def test_a_password_on_a_share_or_lftp_command_is_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "net use Z: \\\\fs01\\data * /user:jdoe",
        "net use Z: \\\\fs01\\data /persistent:yes",
        "net use \\\\fs01\\data /user:jdoe /persistent:no",
        "lftp -u backup sftp://files.example.org",
    ],
)
def test_share_and_lftp_commands_without_a_password_are_kept(text: str) -> None:
    assert_kept(text)

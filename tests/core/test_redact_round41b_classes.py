"""Credential classes that reached the store in round 41's second blind secrets batch (s43),
each on values and phrasings of our own, and the look-alikes of each class that must stay.

Classes: a setter call given a secret literal (`setPassword("…")`, `setMasterSecret("…")`);
the user/password@host login of Oracle-compatible CLIs (Dameng's disql, dexp, dimp, and a
`userid=user/pw` parameter); an SNMP community string (net-snmp's -c, IOS `snmp-server
community`, snmpd.conf's rocommunity/rwcommunity); etcd's `user:password` (etcdctl --user,
`user add`, ETCDCTL_USER); Airtable personal access tokens; a map SDK's security JS code
(AMap's securityJsCode).

Every leak here was stored before the round's change."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from test_redact_round40_classes import assert_masked

from recallnest.core.redact import redact


def assert_masked_keeping(text: str, secret: str, *kept: str) -> None:
    """The secret is masked, and the words around it are still there."""
    assert_masked(text, secret)
    masked = redact(text)[0]
    for part in kept:
        assert part in masked, (part, masked)


LEAKS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # --- A setter given a secret literal -----------------------------------------------------
    "setter-java-password": (
        'ds.setUser("reporting");\nds.setPassword("Kq7vN2xLm9Rt");\nds.setUrl(url);',
        "Kq7vN2xLm9Rt",
        ('setUser("reporting")', "ds.setPassword(", "ds.setUrl(url)"),
    ),
    "setter-sdk-secret": (
        'PushConfig conf = new PushConfig();\nconf.setAppSecret("Wm3zT8qLr5Vn2Xk9Hb4J");',
        "Wm3zT8qLr5Vn2Xk9Hb4J",
        ("PushConfig conf", "conf.setAppSecret("),
    ),
    "setter-sdk-key": (
        "client.setApiKey('sk9Hq2LmV7xTr4Nz8Wb3Kc6P')  # 生产环境的",
        "sk9Hq2LmV7xTr4Nz8Wb3Kc6P",
        ("client.setApiKey(", "生产环境的"),
    ),
    "setter-python-django": (
        'admin = User(username="ops")\nadmin.set_password("Tr0ub4dor&3x")\nadmin.save()',
        "Tr0ub4dor&3x",
        ('username="ops"', "admin.save()"),
    ),
    "setter-go-spaced": (
        'opts.SetPassword( "h7Yq!mZ2pW" )',
        "h7Yq!mZ2pW",
        ("opts.SetPassword(",),
    ),
    "setter-arduino-zh": (
        '// 门禁板的 OTA 口令\nota.setPassword("Lp4xQz9Vt2");\nota.setHostname("gate-a");',
        "Lp4xQz9Vt2",
        ('setHostname("gate-a")', "门禁板的"),
    ),
    # --- user/password@host of Oracle-compatible CLIs ---------------------------------------
    "disql-plain": (
        "disql APPUSER/Rv8nKq2Lx7@192.168.7.40:5236",
        "Rv8nKq2Lx7",
        ("APPUSER/", "@192.168.7.40:5236"),
    ),
    "disql-zh": (
        "连上达梦看下会话数：disql SYSDBA/Wq3Zt9Mk6Pv@db-dm01:5236 -e 'select 1'",
        "Wq3Zt9Mk6Pv",
        ("SYSDBA/", "db-dm01:5236"),
    ),
    "dexp-userid": (
        "dexp USERID=SYSDBA/Hn5Vx2Qr8Lt@10.0.3.9:5236 FILE=full.dmp LOG=full.log FULL=Y",
        "Hn5Vx2Qr8Lt",
        ("SYSDBA/", "FILE=full.dmp"),
    ),
    "exp-userid-oracle": (
        "exp userid=scott/Bx4mT9qWz2@orclpdb file=scott.dmp owner=scott",
        "Bx4mT9qWz2",
        ("scott/", "file=scott.dmp"),
    ),
    # --- SNMP community strings --------------------------------------------------------------
    "snmpget-community": (
        "snmpget -v2c -c Zt8kQm3xRw 172.16.4.2 sysUpTime.0",
        "Zt8kQm3xRw",
        ("-v2c", "172.16.4.2", "sysUpTime.0"),
    ),
    "snmpbulkwalk-quoted-zh": (
        "交换机流量这样拉：snmpbulkwalk -v 2c -c 'n3tM0n!tor' sw-core-1 ifHCInOctets",
        "n3tM0n!tor",
        ("sw-core-1", "ifHCInOctets"),
    ),
    "ios-snmp-server": (
        "conf t\nsnmp-server community Hq9vL2xPz7 RO 10\nsnmp-server location rack-4",
        "Hq9vL2xPz7",
        ("RO 10", "snmp-server location rack-4"),
    ),
    "snmpd-rocommunity": (
        "# /etc/snmp/snmpd.conf\nrocommunity Mx5Tq8Wz2k 10.20.0.0/16\nsyslocation lab",
        "Mx5Tq8Wz2k",
        ("10.20.0.0/16", "syslocation lab"),
    ),
    "snmpd-com2sec": (
        "com2sec readonly default Wv7Lq3Zx8N\ngroup ro v2c readonly",
        "Wv7Lq3Zx8N",
        ("com2sec readonly default", "group ro v2c readonly"),
    ),
    # --- etcd's user:password -----------------------------------------------------------------
    "etcdctl-user-flag": (
        "etcdctl --endpoints=http://127.0.0.1:2379 --user admin:Vb6Xq2Lm9Tz endpoint status",
        "Vb6Xq2Lm9Tz",
        ("--user admin:", "endpoint status"),
    ),
    "etcdctl-user-equals": (
        "ETCDCTL_API=3 etcdctl --user=ops:'Kd3#wQ8zP' put /cfg/mode blue",
        "Kd3#wQ8zP",
        ("ops:", "put /cfg/mode blue"),
    ),
    "etcdctl-user-add": (
        "先建账号 etcdctl user add reader:Pz7mW4qXk2 再授权",
        "Pz7mW4qXk2",
        ("user add reader:", "再授权"),
    ),
    "etcdctl-user-env": (
        "export ETCDCTL_USER=root:Rt5Lq9Vz3Nx\netcdctl get / --prefix",
        "Rt5Lq9Vz3Nx",
        ("ETCDCTL_USER=root:", "etcdctl get /"),
    ),
    # --- Airtable personal access tokens ------------------------------------------------------
    "airtable-pat-env": (
        "AIRTABLE=patQ3xVb8LmZ2Tk7R."
        "9c1e4a7b2d5f8e0a3c6b9d2e5f8a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6e9f2a",
        "patQ3xVb8LmZ2Tk7R.9c1e4a7b2d5f8e0a3c6b9d2e5f8a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6e9f2a",
        ("AIRTABLE=",),
    ),
    "airtable-pat-curl": (
        'curl "https://api.airtable.com/v0/appX9kQ2mL7vT4zR8/Orders" -H "X-Tok: '
        'patK7mQ2zX9vB4nLw.0f3e6d9c2b5a8f1e4d7c0b3a6f9e2d5c8b1a4f7e0d3c6b9a2f5e8d1c4b7a0f3e"',
        "patK7mQ2zX9vB4nLw.0f3e6d9c2b5a8f1e4d7c0b3a6f9e2d5c8b1a4f7e0d3c6b9a2f5e8d1c4b7a0f3e",
        ("appX9kQ2mL7vT4zR8/Orders",),
    ),
    # --- A map SDK's security JS code -----------------------------------------------------------
    "amap-security-jscode": (
        "window._AMapSecurityConfig = {\n  securityJsCode: 'b41f7c09e2d85a63f7c1e90d4a2b6c38',\n}",
        "b41f7c09e2d85a63f7c1e90d4a2b6c38",
        ("window._AMapSecurityConfig", "securityJsCode"),
    ),
    "amap-security-code-env": (
        "VITE_AMAP_SECURITY_CODE=e6a9c2f50b8d17e4a3c6f90b2d5e8a14",
        "e6a9c2f50b8d17e4a3c6f90b2d5e8a14",
        ("VITE_AMAP_SECURITY_CODE",),
    ),
    "amap-jscode-json": (
        '{"amap": {"jscode": "7d2f9b4e1c6a83f05d9e2b7c4a1f6e38", "zoom": 11}}',
        "7d2f9b4e1c6a83f05d9e2b7c4a1f6e38",
        ('"zoom": 11',),
    ),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_leak_is_masked(name: str) -> None:
    text, secret, kept = LEAKS[name]
    assert_masked_keeping(text, secret, *kept)


# Each look-alike beside a leak of the same rule, so the test fails until the rule exists and
# keeps failing if the rule grows too wide.
LOOKALIKES: dict[str, tuple[str, str, str]] = {
    # A setter given a variable, a call, an empty or a non-secret literal stays.
    "setter-variable": (
        'ds.setPassword(dbPassword);\nds.setPassword("Nq4Lx8Zv2Tm");',
        "Nq4Lx8Zv2Tm",
        "ds.setPassword(dbPassword)",
    ),
    "setter-visibility": (
        'field.setPasswordVisible("true");\nfield.setPassword("Nq4Lx8Zv2Tm");',
        "Nq4Lx8Zv2Tm",
        'setPasswordVisible("true")',
    ),
    "setter-secret-name": (
        'vault.setSecretName("prod/db/main");\nvault.setSecret("Nq4Lx8Zv2Tm");',
        "Nq4Lx8Zv2Tm",
        'setSecretName("prod/db/main")',
    ),
    "setter-placeholder": (
        'cfg.setPassword("${DB_PASSWORD}");\ncfg.setMasterSecret("Jx5Rv8Qm2Tz7Lk3Wn9Hb");',
        "Jx5Rv8Qm2Tz7Lk3Wn9Hb",
        'cfg.setPassword("${DB_PASSWORD}")',
    ),
    "getter-with-name": (
        'pw = store.get_password("billing", "ops")\nstore.set_password("Nq4Lx8Zv2Tm!")',
        "Nq4Lx8Zv2Tm!",
        'store.get_password("billing", "ops")',
    ),
    "setter-key-word": (
        'cfg.setAppKey("default");\ncfg.setAppKey("Hv7Nq2Xk9Lm4Rt8Wz3Pb");',
        "Hv7Nq2Xk9Lm4Rt8Wz3Pb",
        'cfg.setAppKey("default")',
    ),
    # disql and friends: a user with no password (prompt) and a path stay.
    "disql-prompt": (
        "disql SYSDBA@10.0.0.5:5236\ndisql SYSDBA/Gm7Tq2Vx9Lp@10.0.0.5:5236",
        "Gm7Tq2Vx9Lp",
        "disql SYSDBA@10.0.0.5:5236",
    ),
    "disql-script-path": (
        "disql `/opt/dm/init.sql` first, then disql SYSDBA/Gm7Tq2Vx9Lp@dm",
        "Gm7Tq2Vx9Lp",
        "disql `/opt/dm/init.sql` first",
    ),
    # SNMP: the published default communities, snmpd's config file and a command's -c that is
    # no community stay.
    "snmp-public": (
        "snmpwalk -v2c -c public 10.1.1.1 system\nsnmpwalk -v2c -c Fq8Lm2Xz7 10.1.1.1 system",
        "Fq8Lm2Xz7",
        "-c public 10.1.1.1",
    ),
    "snmpd-config-file": (
        "snmpd -f -c /etc/snmp/snmpd.local.conf\nsnmpget -v1 -c Fq8Lm2Xz7 10.1.1.1 sysName.0",
        "Fq8Lm2Xz7",
        "-c /etc/snmp/snmpd.local.conf",
    ),
    "snmp-ios-public": (
        "snmp-server community public RO\nsnmp-server community Fq8Lm2Xz7 RW",
        "Fq8Lm2Xz7",
        "snmp-server community public RO",
    ),
    # etcd: a user alone (it prompts for the password) and docker's uid:gid stay.
    "etcdctl-user-only": (
        "etcdctl --user root get /a\netcdctl --user root:Wz4Qm8Lx2Vt get /a",
        "Wz4Qm8Lx2Vt",
        "etcdctl --user root get /a",
    ),
    "docker-user-uid-gid": (
        "docker run --user 1000:1000 quay.io/coreos/etcd etcdctl --user root:Wz4Qm8Lx2Vt get /a",
        "Wz4Qm8Lx2Vt",
        "--user 1000:1000",
    ),
    # Airtable: a base id and a table id are ids.
    "airtable-base-id": (
        "base appQ3xVb8LmZ2Tk7R table tblK7mQ2zX9vB4nLw with patQ3xVb8LmZ2Tk7R."
        "9c1e4a7b2d5f8e0a3c6b9d2e5f8a1b4c7d0e3f6a9b2c5d8e1f4a7b0c3d6e9f2a",
        "patQ3xVb8LmZ2Tk7R.",
        "base appQ3xVb8LmZ2Tk7R table tblK7mQ2zX9vB4nLw",
    ),
    # AMap: the Web key's service host and a plain word stay.
    "amap-service-host": (
        "window._AMapSecurityConfig = { serviceHost: 'https://maps.shop.test/_AMapService',\n"
        "  securityJsCode: 'c5e8a1b4d7f02e6c9a3b5d8f1e4a7c0b' }",
        "c5e8a1b4d7f02e6c9a3b5d8f1e4a7c0b",
        "serviceHost: 'https://maps.shop.test/_AMapService'",
    ),
    "amap-jscode-placeholder": (
        "securityJsCode: 'your-security-code', later "
        "securityJsCode: 'c5e8a1b4d7f02e6c9a3b5d8f1e4a7c0b'",
        "c5e8a1b4d7f02e6c9a3b5d8f1e4a7c0b",
        "securityJsCode: 'your-security-code',",
    ),
    # The same tools in prose and commands with nothing secret, beside a leak.
    "setter-prose": (
        'call setPassword() before connect(): ds.setPassword("Nq4Lx8Zv2Tm")',
        "Nq4Lx8Zv2Tm",
        "call setPassword() before connect()",
    ),
    "etcdctl-prompt-prose": (
        "run etcdctl --user root and type it, or etcdctl --user root:Wz4Qm8Lx2Vt",
        "Wz4Qm8Lx2Vt",
        "run etcdctl --user root and type it",
    ),
    "disql-prose": (
        "disql SYSDBA@localhost:5236 prompts; disql SYSDBA/Gm7Tq2Vx9Lp@localhost does not",
        "Gm7Tq2Vx9Lp",
        "disql SYSDBA@localhost:5236 prompts",
    ),
}


@pytest.mark.parametrize("name", sorted(LOOKALIKES))
def test_lookalike_is_kept(name: str) -> None:
    text, secret, kept = LOOKALIKES[name]
    assert_masked_keeping(text, secret, kept)


# --- Hostile input: each new pattern with repetition stays linear ----------------------------

HOSTILE: dict[str, Callable[[int], str]] = {
    "setter-open": lambda n: 'a.setPassword("' * n,
    "setter-spaces": lambda n: "setPassword(" + " " * n,
    "disql": lambda n: "disql a/" * n,
    "userid": lambda n: "userid=a/" * n,
    "snmp-c": lambda n: "snmpwalk -c " * n,
    "snmp-community": lambda n: "snmp-server community " * n,
    "etcdctl-user": lambda n: "etcdctl --user a:" * n,
    "etcdctl-long-line": lambda n: "etcdctl " + "--x " * (8 * n),
    "airtable": lambda n: "patAAAAAAAAAAAAAA." * n,
    "jscode": lambda n: "securityJsCode: " * n,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_stays_linear(name: str) -> None:
    """Hostile repetitions of the new rules' words complete and mask idempotently; their time
    is measured by bench/bench_redact.py, not asserted here (no wall-clock thresholds in unit
    tests)."""
    masked, _kinds = redact(HOSTILE[name](8_000))
    assert redact(masked) == (masked, ())

"""Credential classes that reached the store in round 45's first blind batch (secrets s48 and
e2e-heldout22 h22x02), each on values and phrasings of our own, beside look-alikes of the same
rules that must stay: the password of Go's MySQL DSN (user:password@tcp(host)/db), and a
Telegram bot token inside the Bot API's URL (/bot<id>:AA…/sendMessage)."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

from recallnest.core.redact import redact

LEAKS = {
    "go-dsn-yaml": (
        '  dsn: "shop:Lq7vRt2ZpW9xKm4N@tcp(10.0.0.5:3306)/shop?parseTime=true"',
        "Lq7vRt2ZpW9xKm4N",
    ),
    "go-dsn-code": (
        'db, err := sql.Open("mysql", "root:Tz8!kQ2wLp5r@unix(/run/mysqld/mysqld.sock)/booking")',
        "Tz8!kQ2wLp5r",
    ),
    "go-dsn-env": (
        "MYSQL_DSN=ops:Wm3xRq9Lt7Zk@tcp6([::1]:3306)/ops",
        "Wm3xRq9Lt7Zk",
    ),
    "telegram-url": (
        'curl "https://api.telegram.org/bot7301846652:AAxT4kQ9vLm2RtZ8pKw_NcY3bHd6JfS1gUa/getMe"',
        "7301846652:AAxT4kQ9vLm2RtZ8pKw_NcY3bHd6JfS1gUa",
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_the_secret_is_masked(case: str) -> None:
    text, secret = LEAKS[case]
    assert_masked(text, secret)


def test_the_user_host_and_database_of_a_dsn_stay() -> None:
    masked = redact('"shop:Lq7vRt2ZpW9xKm4N@tcp(10.0.0.5:3306)/shop"')[0]
    assert "shop:" in masked and "tcp(10.0.0.5:3306)/shop" in masked, masked


KEPT = {
    "dsn-placeholder": "user:password@tcp(localhost:3306)/dbname",
    "dsn-variable": "DSN=app:${DB_PASSWORD}@tcp(db:3306)/app",
    "dsn-no-password": "root@tcp(127.0.0.1:3306)/test",
    "telegram-docs": "https://api.telegram.org/bot<token>/sendMessage",
    "chat-id": "chat_id=-1001873346120",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_the_look_alike_stays(case: str) -> None:
    assert_kept(KEPT[case])

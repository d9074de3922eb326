"""Credential classes of round 46's first blind batch (secrets s50), measured once on the
round's starting code and then fixed, each on values and phrasings of our own beside
look-alikes that must stay: curl's basic-auth password when the command is continued over
lines or its user is masked already, and an API key carried as a segment of an API's path."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

LEAKS = {
    "curl-user-continued": (
        "curl -s https://ops.example.net/v2/jobs \\\n"
        '  -H "Accept: application/json" \\\n'
        "  -u deploy-bot:Vt8qZr2LmX7kPw4N",
        "Vt8qZr2LmX7kPw4N",
    ),
    "curl-user-masked-first": (
        "curl -X POST https://api.sms.example/2010-04-01/Accounts/AC1234/Messages.json \\\n"
        '  --data-urlencode "To=+15550100" \\\n'
        "  -u AC9f8e7d6c5b4a39281706f5e4d3c2b1a0:c9db3c23981a9302b499855ab841ee56",
        "c9db3c23981a9302b499855ab841ee56",
    ),
    "path-key-services-host": (
        'wget -qO- "https://services.fleetdata.example/api/positions/v:3/'
        '245cb85602d0b00f6fb34f746894f13fdf7e01fe/span:10/format:json"',
        "245cb85602d0b00f6fb34f746894f13fdf7e01fe",
    ),
    "path-key-api-path": (
        "the cron hits https://weather.example.org/api/forecast/"
        "14f662522afbf3646b39037f1706d2ba723d6a3e/51.5,-0.12 every hour",
        "14f662522afbf3646b39037f1706d2ba723d6a3e",
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_the_secret_is_masked(case: str) -> None:
    text, secret = LEAKS[case]
    assert_masked(text, secret)


KEPT = {
    "commit-in-api": (
        "https://api.github.com/repos/acme/tide/commits/245cb85602d0b00f6fb34f746894f13fdf7e01fe"
    ),
    "blob-in-api": (
        "https://api.github.com/repos/acme/tide/git/blobs/14f662522afbf3646b39037f1706d2ba723d6a3e"
    ),
    "tx-in-api": (
        "https://api.chain.example/v1/tx/c9db3c23981a9302b499855ab841ee56c9db3c23981a9302b49985"
    ),
    "curl-port-user": "curl -u admin: https://localhost:8080/status",
    "continued-no-user": "curl -s https://ops.example.net/v2/jobs \\\n  -H 'Accept: text/plain'",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_the_look_alike_stays(case: str) -> None:
    assert_kept(KEPT[case])

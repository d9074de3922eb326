"""Credential classes of round 45's second blind batch (secrets s49, e2e-heldout23), measured
once on the round's final code and then fixed, each on values and phrasings of our own beside
look-alikes that must stay: a GOV.UK Notify key said in prose, an access key id passed beside
its secret to a client or given to a builder's own step (Go chains with the dot at the end of
the line), and a database password passed positionally to PDO or mysqli."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked

from recallnest.core.redact import redact

LEAKS = {
    "notify-prose": (
        "the emails go through GOV.UK Notify, key: tidewatch-3f1c2a9e-8b7d-4c6e-a5f4-1e2d3c4b5a69"
        "-7a6b5c4d-3e2f-4a1b-9c8d-0e1f2a3b4c5d",
        "3f1c2a9e-8b7d-4c6e-a5f4-1e2d3c4b5a69-7a6b5c4d-3e2f-4a1b-9c8d-0e1f2a3b4c5d",
    ),
    "ak-beside-sk": (
        'c, _ := oss.New("Q7ZT4KWM2PLX8RNV3HJB", "f9Vq2LxT7mZ3kR8wP4nB6yH1cJ5dG0sQ9aE2uW4t", ep)',
        "Q7ZT4KWM2PLX8RNV3HJB",
    ),
    "ak-builder-step": (
        'auth := basic.NewCredentialsBuilder().\n\tWithAk("M4KX9QZ2TP7LR3NW8VJD").\n\tBuild()',
        "M4KX9QZ2TP7LR3NW8VJD",
    ),
    "pdo-password": (
        "$pdo = new PDO('mysql:host=db;dbname=kennels', 'kennel_app', 'Rk7!vQ2mZx9Lp');",
        "Rk7!vQ2mZx9Lp",
    ),
    "mysqli-password": (
        '$db = mysqli_connect("localhost", "shop", "Tq8#Lm2Vx7Wz", "shop");',
        "Tq8#Lm2Vx7Wz",
    ),
}


@pytest.mark.parametrize("case", sorted(LEAKS))
def test_the_secret_is_masked(case: str) -> None:
    text, secret = LEAKS[case]
    assert_masked(text, secret)


def test_the_user_and_host_of_a_positional_connection_stay() -> None:
    masked = redact("new PDO('mysql:host=db;dbname=kennels', 'kennel_app', 'Rk7!vQ2mZx9Lp')")[0]
    assert "kennel_app" in masked and "dbname=kennels" in masked, masked


KEPT = {
    "one-uuid": "request a8b1c2d3-1111-2222-3333-444455556666 failed",
    "pdo-variables": "new PDO($dsn, $user, $pass)",
    "id-beside-words": 'fmt.Println("ABCDEFGH12345678", "this is a long but plain sentence")',
    "placeholder-ak": 'b.WithAk("YOUR_AK_HERE_1234567")',
    "tag-step": 'img.withTag("ABCDEF1234567890XYZ")',
    "break": "for { if done { break() } }",
}


@pytest.mark.parametrize("case", sorted(KEPT))
def test_the_look_alike_stays(case: str) -> None:
    assert_kept(KEPT[case])

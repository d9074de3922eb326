"""Round 50's blind secrets batch (s54): a hex id standing after its REST collection's plural
name in an API's path (a zone's, an account's, a list member's) is an identifier, not a key in
the path; a key in the path after a version or an action word, or a member of a collection of
credentials, is still masked. Values and URLs of our own, none of the batch's rows."""

from __future__ import annotations

import pytest
from test_redact_round40_classes import assert_kept, assert_masked


@pytest.mark.parametrize(
    "text",
    [
        "curl https://api.cloudflare.com/client/v4/accounts/9b1c4e7a2d3f4a5b8c6d0e1f2a3b4c5d/workers/scripts",
        'fetch("https://api.cloudflare.com/client/v4/zones/0f2e4c6a8b1d3e5f7a9c2b4d6e8f0a1c/dns_records")',
        "GET https://api.example.com/3.0/lists/4ca5e1f7b2/members/5d41402abc4b2a76b9719d911017c592",
        "the webhook posts to https://api.example.io/v2/projects/7e3a9c1b5d2f4e6a8c0b2d4f6a8c0e1b/events",
    ],
)
def test_a_resource_id_after_its_collection_is_kept(text: str) -> None:
    assert_kept(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "https://services.example.com/api/exportports/v:3/a3f9c2e17b4d8e6f0a1c5b9d2e7f4a8c/protocol:json",
            "a3f9c2e17b4d8e6f0a1c5b9d2e7f4a8c",
        ),
        (
            "curl https://api.example.net/v1/tokens/8f14e45fceea167a5a36dedd4bea2543/revoke",
            "8f14e45fceea167a5a36dedd4bea2543",
        ),
        (
            "curl https://api.weatherfeed.io/forecast/c9f0f895fb98ab9159f51fd0297e236d/daily",
            "c9f0f895fb98ab9159f51fd0297e236d",
        ),
    ],
)
def test_a_key_in_the_path_is_still_masked(text: str, secret: str) -> None:
    assert_masked(text, secret)

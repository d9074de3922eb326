"""Round 52's class (decision 0076), on phrasings of our own: a user's preference or workflow
that the learned model reads as who the user is becomes a profile. The positives fail on
57efff8; the guards, named for what stays, hold on both."""

from __future__ import annotations

import pytest
from test_round47_classes import capture


@pytest.mark.parametrize(
    "said",
    [
        "no admin on this box, IT locks everything down, so always give me portable zip "
        "versions of tools",
        "公司网络访问不了外网，装依赖一律走内部镜像",
    ],
)
def test_a_rule_for_the_users_own_constraints_is_a_profile(said: str) -> None:
    found = capture(said)
    assert found and found[0].category == "profile"
    assert found[0].text.startswith(said[:12])


@pytest.mark.parametrize(
    "said",
    [
        "always use pnpm in this repo, never npm",
        "以后提交信息都用中文写",
        "never squash merge on the release branch",
    ],
)
def test_a_preference_with_nothing_of_the_speaker_stays_a_preference(said: str) -> None:
    assert [c.category for c in capture(said)] == ["preferences"]


def test_an_assistants_turn_is_never_made_a_profile() -> None:
    said = "Noted: no admin on this box, so I'll always give you portable zip versions of tools."
    assert all(c.category != "profile" for c in capture(said, role="assistant"))

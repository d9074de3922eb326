"""Capture, round 44 (second part): more classes blind batch b36 showed, each tested on phrasings
of our own (not the batch's rows), both ways: the answer to which machine the user works on, a
lack of rights as a constraint, a fact that goes on in its next sentence, a correction that goes
on, an assistant's finding, a solved case told as "worked out why", the assistant setting the
user's decision in code, a problem report that is no preference."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- which machine


def test_the_answer_to_which_machine_the_user_works_on_is_a_profile() -> None:
    found = capture(
        "the old thinkpad finally gave up so it's the work macbook now, homebrew and python "
        "3.12. no sudo on it though, the company manages it",
        previous="Which laptop are you working on this week, the ThinkPad or the MacBook? "
        "The install steps are different.",
    )
    kept(found, "profile", "macbook")
    none_of(found, "preferences")


@pytest.mark.parametrize(
    "said",
    [
        "no admin rights on the shop PC, the owner set it up that way",
        "no root access on the shared box, the university runs it",
        "no write permission on the nas share either, I can just read from it",
    ],
)
def test_a_lack_of_rights_is_no_rule(said: str) -> None:
    none_of(capture(said), "preferences")


def test_no_x_in_a_place_is_still_a_rule() -> None:
    kept(capture("no inline styles in the email templates, use the shared css"), "preferences")

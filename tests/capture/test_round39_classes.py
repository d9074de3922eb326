"""Capture, round 39: the classes blind batch b28 showed, each tested on phrasings of our own
(not the batch's rows): a decision said not to exist yet, pasted CI output, rules given as
imperatives or in passing, and the other ways a statement was filed under the wrong category
or not heard at all."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, *values: str) -> None:
    assert any(
        c.category == category and all(v.lower() in c.text.lower() for v in values) for c in found
    ), [(c.category, c.rule, c.text) for c in found]


def none_of(found: list[Capture], category: str) -> None:
    assert [c for c in found if c.category == category] == [], [
        (c.category, c.rule, c.text) for c in found
    ]


# --------------------------------------------------------------------------- no decision yet


@pytest.mark.parametrize(
    "said",
    [
        "we still haven't decided between Redis and Memcached for the session cache",
        "nothing got decided in the architecture sync, we'll revisit it next sprint",
        "the team never agreed on a queue, it's up in the air",
        "评审会开完了，存储方案还是没敲定",
        "鉴权这块等下个版本再定，老板还没拍板",
        "开了一下午会，最后啥也没决定",
    ],
)
def test_a_decision_negated_or_put_off_is_no_decision(said: str) -> None:
    none_of(capture(said), "events")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("We decided not to ship the Windows build.", "Windows"),
        ("定了，缓存用 Redis。", "Redis"),
    ],
)
def test_a_decision_taken_is_still_one(said: str, value: str) -> None:
    kept(capture(said), "events", value)

"""Prompt recall, round 51 (issue 23, decision 0074): the kind of answer a prompt asks for. A
note that names the prompt's subject but cannot hold what is asked (no figure for "what
pressure", "how much", 多久) is not injected for it; one that holds it still is. Notes of our
own wording, in English and Chinese, and prompts that ask for no kind of answer."""

from __future__ import annotations

import pytest
from support.recall import chosen_ids
from test_prompt_recall_round46b import _memory

from recallnest.retrieval.answers import asked_kind, holds

KAYAK_ROUTINE = _memory(
    "Before each kayak session: check the kayak hull for cracks, pack spare paddles and the "
    "throw bag, and log who is on the water.",
    id="routine",
)
KAYAK_PRICES = _memory("Kayak session hire is £25 per kayak, paddles included.", id="prices")
GLAZE_NOTE = _memory("釉料窑炉烧制前要把釉料搅匀，窑炉门要关严。", id="glaze")
GLAZE_TIMES = _memory("釉料窑炉烧制一般要 9 小时，烧完窑炉自然冷却一晚再开门。", id="glaze-times")
BOILER = _memory(
    "The boiler room boiler gets serviced by Hartley Heating; the boiler key hangs in the office.",
    id="boiler",
)


@pytest.mark.parametrize(
    ("prompt", "kind"),
    [
        ("what pressure should the kayak hull be pumped to?", "measure"),
        ("how much does a kayak session cost for a school group", "amount"),
        ("釉料窑炉烧制要多久？", "duration"),
        ("how many kayak paddles do we keep spare?", "count"),
        ("when does the boiler room boiler get serviced?", "time"),
        ("收他多少钱？", "amount"),
        ("锅炉几点开？", "time"),
    ],
)
def test_the_kind_of_answer_a_prompt_asks_for(prompt: str, kind: str) -> None:
    assert asked_kind(prompt) == kind


@pytest.mark.parametrize(
    "prompt",
    [
        "那几个书画柜又有点霉味，上回怎么处理的",  # 那几个: some of them, no count asked
        "when the kayak hull cracks, who do we call?",  # a condition, then who
        "what's the kayak session fee and who is exempt from it?",  # two things asked
        "锅炉房要盯多久？谁来盯？",  # two questions
        "check the kayak hull before the session",
    ],
)
def test_prompts_that_ask_for_no_single_kind(prompt: str) -> None:
    assert asked_kind(prompt) is None


def test_what_holds_a_kind() -> None:
    assert holds("amount", "Hire is free for members.")
    assert holds("count", "We keep two spare paddles.")
    assert holds("time", "Serviced every Monday morning.")
    assert holds("duration", "烧完要冷却一晚")
    assert not holds("measure", "Check the tyres before towing.")
    assert not holds("amount", "Ask the office about hire.")


def test_a_note_without_the_answer_is_not_injected() -> None:
    """Each note shares two words with the prompt (before: injected) but holds no figure."""
    assert chosen_ids("what pressure should the kayak hull be pumped to?", [KAYAK_ROUTINE]) == []
    assert chosen_ids("釉料窑炉烧制要多久？", [GLAZE_NOTE]) == []
    assert chosen_ids("how much does the kayak session cost?", [KAYAK_ROUTINE]) == []


def test_a_note_holding_the_answer_still_is() -> None:
    prompt = "how much does the kayak session cost?"
    assert chosen_ids(prompt, [KAYAK_ROUTINE, KAYAK_PRICES]) == ["prices"]
    assert chosen_ids("釉料窑炉烧制要多久？", [GLAZE_NOTE, GLAZE_TIMES]) == ["glaze-times"]


def test_a_prompt_asking_no_kind_keeps_the_note() -> None:
    assert chosen_ids("who services the boiler room boiler?", [BOILER]) == ["boiler"]
    assert chosen_ids("check the kayak hull before the kayak session", [KAYAK_ROUTINE]) == [
        "routine"
    ]

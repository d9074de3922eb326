"""Prompt recall, round 50 (issue 23, decision 0067, test-blind19): a note on a thing outside
the system answers only a prompt naming that thing; the gap between two readings a prompt
sets against each other meets the offset a note states; a prompt asking what model a thing
is meets the note naming its product. Each class with notes of our own wording, and
look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids, flat
from test_prompt_recall_round46b import _memory, _turn

from recallnest.retrieval import limits, relevance
from recallnest.retrieval.relevance import analyse_prompt

# --- an outside note answers only a prompt naming its thing ---------------------------------

KIOSK = _memory(
    "The lobby kiosk belongs to the building management company and shows their adverts; it "
    "is not part of the parking permit system.",
    id="kiosk",
)
CAFE = _memory(
    "图书馆门口的咖啡车是街道另外招租的，用自己的收款码，跟借阅系统没有关系。", id="cafe"
)


def test_a_prompt_on_the_system_and_the_owner_gets_no_outside_note() -> None:
    """The prompt shares the system's word and the owner's, nothing of the kiosk."""
    prompt = "write to the building management company asking them to fund a second permit system"
    assert chosen_ids(prompt, [KIOSK]) == []
    assert chosen_ids("帮我给街道写个申请，借阅系统想再加一台自助机", [CAFE]) == []


def test_a_prompt_naming_the_thing_and_the_system_still_gets_it() -> None:
    assert chosen_ids("can the lobby kiosk show the parking permit system's queue?", [KIOSK]) == [
        "kiosk"
    ]
    assert chosen_ids("借阅系统能不能顺便管门口咖啡车的收款", [CAFE]) == ["cafe"]


def test_the_thing_an_outside_note_is_about_is_its_opening() -> None:
    assert relevance.outside_thing(KIOSK.text) == frozenset({"lobbi", "kiosk"})
    assert "咖啡" in (relevance.outside_thing(CAFE.text) or set())


# --- the gap between two readings meets a stated offset -------------------------------------

DATUM = _memory(
    "Our depth sounder reads from the keel, which sits 1.8 m below the waterline; the chart "
    "plotter shows depth below the surface.",
    id="datum",
)


def test_the_gap_between_two_readings_meets_the_offset_a_note_states() -> None:
    prompt = "plotter says 5.3 m here but the sounder shows 3.5. which one do I trust?"
    assert chosen_ids(prompt, [DATUM]) == ["datum"]
    plan = analyse_prompt("the tape says 240 cm but the drawing says 2.6 m")
    assert ("240", "length apart") in {(t, d) for t, d, _ in plan.quantities}


def test_no_gap_without_two_readings_at_odds() -> None:
    """One reading, two not set against each other, or a gap far from the offset."""
    for prompt in (
        "the plotter says 5.3 m here, which is plenty",
        "anchored in 5.3 m and let out 30 m of chain",
        "plotter says 5.3 m but the sounder shows 1.1, odd",
    ):
        plan = analyse_prompt(prompt)
        assert limits.at_limit(plan.quantities, DATUM.text) == set(), prompt
    # a height is no offset between two references
    plan = analyse_prompt("plotter says 5.3 m but the sounder shows 3.5")
    assert limits.at_limit(plan.quantities, "The mast is 1.8 m tall.") == set()


# --- asking what model a thing is ------------------------------------------------------------

SCANNER = _memory(
    "The dock scanner is a Zebra DS3678 on the loading bay wall, paired with the packing PC.",
    id="scanner",
)
SCANNER_CHAT = _turn("the loading bay scanner keeps beeping twice, is that normal?", id="chat")


def test_asking_what_model_a_thing_is_meets_the_note_naming_its_product() -> None:
    prompt = (
        "the loading bay scanner fell off the wall, what exactly is the unit so I can buy a spare?"
    )
    assert chosen_ids(prompt, [SCANNER, SCANNER_CHAT]) == ["scanner"]
    assert analyse_prompt("收银机坏了，是什么型号来着").asks_model


def test_the_product_name_weighs_only_for_a_model_question() -> None:
    """The same note with and without its product's name: the name adds NAME_BONUS for a
    prompt asking the model, nothing for the same words without the question."""
    named = "The dock scanner is a Zebra DS3678 on the loading bay wall."
    plain = "The dock scanner is a handheld one on the loading bay wall."
    asked = analyse_prompt("dock scanner cracked, which model do I order?")
    told = analyse_prompt("dock scanner cracked again, I will order a new one")
    gain = relevance.relevance(asked, named, flat, memory=True) - relevance.relevance(
        asked, plain, flat, memory=True
    )
    assert gain >= relevance.NAME_BONUS - 0.01
    same = relevance.relevance(told, named, flat, memory=True) - relevance.relevance(
        told, plain, flat, memory=True
    )
    assert same < 0.05
    assert not analyse_prompt("the loading bay scanner fell off the wall again").asks_model
    assert not analyse_prompt("what is the unit of the weight column, kg or lb?").asks_model

"""Prompt recall, round 45 (issue 23, decision 0051): a short code of a capital and a digit
("bay C3", "room 2B", "licence C1") names the one thing it labels, as a longer identifier
does; each case with a note the code reaches and look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


BAYS = _memory(
    "Bays C3 and C4 share one extractor over the booth, so they are reserved as a pair, "
    "together or not at all.",
    id="bays",
)
SLOTS = _memory(
    "Evening sessions are reserved in fixed slots by the hour; the rota goes out on Friday.",
    id="slots",
)
PROMPT = "the evening sprayers only want the booth for an hour, can they take just C3?"


def test_the_code_the_prompt_names_answers_over_notes_sharing_its_other_words() -> None:
    """The code and one more shared word (booth) make the note about bay C3 the answer; the
    note about evening sessions shares as many words but no code, and falls under the bar
    relative to it."""
    assert chosen_ids(PROMPT, [SLOTS, BAYS]) == ["bays"]


def test_without_the_code_the_notes_weigh_as_before() -> None:
    prompt = "the evening sprayers only want the booth for an hour, can they take the corner?"
    assert chosen_ids(prompt, [SLOTS, BAYS])[0] == "slots"


def test_a_code_alone_is_one_shared_word() -> None:
    """As an acronym (round 44): 'C3' shared and nothing else does not answer."""
    assert chosen_ids("is C3 wired for three-phase power?", [BAYS]) == []


def test_codes_are_read_beside_chinese_and_in_either_order() -> None:
    assert analyse_prompt("学员表加个字段，区分C1和C2").codes == ("c1", "c2")
    assert analyse_prompt("can the 2B meeting room hold twelve people").codes == ("2b",)


def test_lower_case_and_longer_tokens_are_no_code() -> None:
    """'b4' in chat is 'before'; 'C12' and 'B-22' are longer identifiers read as terms and
    names already; a version 'v2' or a size '4k' in lower case labels nothing."""
    for prompt in (
        "can you check the build b4 lunch",
        "C12 is back to zero again, what was it last time",
        "who asked for B-22 three days ago",
        "move the api to v2 and render thumbnails at 4k",
    ):
        assert analyse_prompt(prompt).codes == (), prompt


def test_a_code_the_note_says_only_in_lower_case_or_inside_a_word_is_not_named() -> None:
    """The note must name the same code: 'c3' in a lower-case hash or 'C3PO' is not bay C3,
    and gets no more weight than its shared words give it."""
    for text in (
        "Booth logins use the hash prefix c3 for the spray terminal in the back office.",
        "Booth bookings are made on the C3PO kiosk by the door of the back office.",
    ):
        assert chosen_ids(PROMPT, [SLOTS, _memory(text)])[0] == "slots", text

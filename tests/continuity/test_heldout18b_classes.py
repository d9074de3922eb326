"""The failure classes e2e-heldout18 still showed after round 42's reading, each tested on
phrasings of our own, both ways: a compiler's code frame pasted with its error, a new value
said with a verb the change words did not list or named by a word cut in half, a sentence
holding other things' numbers beside the old value, a correction that names its setting only
in its lead, a rule for every project given after a colon of other talk, a house rule, and a
family's pets in Chinese chit-chat."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures
from test_heldout7_classes import kept

from recallnest.capture.chatter import is_pasted_line, is_small_talk
from recallnest.capture.salience import gate_turn


@pytest.mark.parametrize(
    "line",
    [
        "  41 |   const total = order.items.reduce(sum, 0)",
        "> 42 |   return total.toFixed(2)",
        "     |          ^",
        "Type error: Argument of type 'string' is not assignable to parameter of type 'number'.",
        "Failed to compile.",
        "src/app.ts(4,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    ],
)
def test_a_compilers_code_frame_and_error_head_are_pasted_output(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize(
    "line",
    ["the fix was to pin 3 | 4 as the allowed range", "Type errors are what we want CI to catch"],
)
def test_prose_with_a_bar_or_the_words_type_error_is_no_paste(line: str) -> None:
    assert not is_pasted_line(line)


def test_a_pasted_build_error_leaves_only_the_users_words() -> None:
    said = (
        "deploy failed:\n\n./src/cart.ts:42:10\nType error: Property 'qty' does not exist on "
        "type 'Line'.\n\n  41 |   const n = line.qty\n> 42 |   return n * price\n     |   ^"
    )
    assert gate_turn(said).sentences == ("deploy failed:",)


@pytest.mark.parametrize(
    ("before", "after", "old", "new"),
    [
        (
            "the newsletter is Astro on Netlify, and the digest email goes out 48 hours before"
            " each event",
            "The digest job now sends 12 hours before the event (DIGEST_HOURS_BEFORE = 12).",
            "48 hours",
            "12 hours",
        ),
        (
            "the clinic app is Django on Render; the reminder text goes out 24 hours before",
            "ok. The reminder job now sends 2 hours before the visit.",
            "24 hours",
            "2 hours",
        ),
    ],
)
def test_a_new_value_said_with_a_new_verb_rewrites_the_old_one(
    before: str, after: str, old: str, new: str
) -> None:
    text = kept((before, "ok."), (after, "ok."))
    assert old not in text and new in text, text


def test_a_value_of_another_setting_in_the_new_words_is_left_alone() -> None:
    text = kept(
        ("the clinic app is Django on Render; the reminder text goes out 24 hours before", "ok."),
        ("the invoice job now runs 2 hours after closing", "ok."),
    )
    assert "24 hours" in text, text


def test_a_sentence_with_other_things_numbers_is_rewritten_at_the_one_value() -> None:
    text = kept(
        ("house rule: 30 labels per sheet, each label cut at 80 mm. the printer jams", "ok."),
        ("correction on the label width: the new printer wants 100 mm per label", "ok."),
    )
    assert "30 labels per sheet" in text and "100 mm" in text, text
    assert "80 mm" not in text, text


def test_a_code_name_beside_another_code_name_is_rewritten_alone() -> None:
    text = kept(
        ("ok", "pager.py now uses ROWS_PER_PAGE = 30 and MAX_COLS = 80, with a test for both."),
        ("ok", "MAX_COLS is now 100; the golden files are regenerated."),
    )
    assert "ROWS_PER_PAGE = 30" in text and "MAX_COLS = 100" in text and "COLS = 80" not in text


def test_a_rule_for_everything_of_mine_after_a_colon_of_other_talk_is_kept_without_it() -> None:
    found = captures(
        "other repo: birdlog, my bird-count app, Flutter + Hive. and one for everything I do:"
        " never merge for me, I merge after reading the diff"
    )
    rules = [c for c in found if c.category == "preferences"]
    assert rules and rules[0].scope == "global", found
    assert "never merge" in rules[0].text and "Flutter" not in rules[0].text, found


def test_a_house_rule_stays_in_its_project() -> None:
    found = captures("hard rule: invoices are numbered per year, never reset mid-year")
    rules = [c for c in found if c.category == "preferences"]
    assert rules and rules[0].scope != "global", found


@pytest.mark.parametrize(
    "said", ["我家猫昨晚把我新买的耳机线咬断了，心疼死", "对了，我家狗子今天第一次自己开门，笑死"]
)
def test_the_familys_pets_are_chit_chat(said: str) -> None:
    assert is_small_talk(said)


def test_a_pet_clinics_work_is_no_chit_chat() -> None:
    assert not is_small_talk("宠物医院的疫苗提醒要提前 3 天发短信")


def test_an_old_value_said_twice_is_not_rewritten_at_one_place() -> None:
    text = kept(
        ("ok", "Added the digest: at 07:00 it mails orders due in 3 days (DUE_DAYS_AHEAD=3)."),
        ("ok", "DUE_DAYS_AHEAD is now 5 and the mail names the weekday."),
    )
    assert "in 3 days" not in text and "DUE_DAYS_AHEAD=3" not in text, text


def test_a_change_asked_in_so_many_words_reaches_the_one_value_of_its_unit() -> None:
    text = kept(
        ("and cap uploads at 50 MB, the VPS disk is tiny", "Uploads over 50 MB are refused."),
        ("ok. raise the cap to 80 MB, we moved to a bigger disk", "ok."),
    )
    assert "50 MB" not in text, text

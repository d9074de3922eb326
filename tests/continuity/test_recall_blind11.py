"""Prompt recall, the classes of test-blind11 (issue 23, round 44), read after its one
measurement: each with a note injected for the class and a look-alike that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval.relevance import analyse_prompt, is_rule


def _memory(
    text: str, project: str | None = "p", id: str = "m1", category: str | None = None
) -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project, category=category)


def _turn(text: str, id: str = "t1") -> SearchHit:
    return SearchHit(kind="turn", id=id, text=text, score=1.0, project="p")


# --- a recurrence said in other words -----------------------------------------------------

KILN_TURN = (
    "the kiln controller skipped the cooling ramp overnight and three glazed bowls cracked on "
    "the bottom shelf"
)


def test_a_prompt_expecting_it_gone_points_back_at_the_past_turn() -> None:
    """'I thought this couldn't happen anymore', 'wasn't this fixed', 'didn't we fix' say it
    happened before: the raw turn needs no more than a memory would."""
    prompt = "the kiln cracked two plates overnight, I thought this couldn't happen anymore"
    assert chosen_ids(prompt, [_turn(KILN_TURN)]) == ["t1"]
    for said in (
        "wasn't this fixed?",
        "didn't we fix that",
        "the same crack as before",
        "thought we had that sorted",
        "炉子又把盘子烧裂了",
        "不是已经修好了吗",
    ):
        assert analyse_prompt(f"the kiln cracked two plates overnight, {said}").recurs, said


def test_the_same_report_without_it_still_needs_the_turns_bar() -> None:
    prompt = "the kiln cracked two plates overnight, I thought my clay was dry enough"
    assert not analyse_prompt(prompt).recurs
    assert chosen_ids(prompt, [_turn(KILN_TURN)]) == []


def test_anymore_alone_is_no_recurrence() -> None:
    for prompt in (
        "we don't use the old kiln anymore, move the schedule to the new one",
        "I thought we could glaze on fridays",
    ):
        assert not analyse_prompt(prompt).recurs, prompt


# --- an acronym is a word, not an identifier ------------------------------------------------

EXAMS = _memory("Members sit their LAMDA acting exams in the June session only.")


def test_an_acronym_alone_does_not_answer_a_question() -> None:
    """A name of capitals only (LAMDA, ABRSM, NASA) shared and nothing else is one shared
    word: the syllabus question is not about when members sit the exam."""
    assert chosen_ids("what's in the LAMDA grade 5 syllabus?", [EXAMS]) == []


def test_an_acronym_with_other_shared_words_still_answers() -> None:
    assert chosen_ids("which LAMDA exam session should members sit?", [EXAMS]) == ["m1"]


def test_an_identifier_alone_still_answers() -> None:
    note = _memory("refund_window_days is 14 for EU orders and 30 elsewhere.")
    assert chosen_ids("what does refund_window_days control?", [note]) == ["m1"]


# --- "the only" describes, it rules nothing ---------------------------------------------------

CASE = _memory(
    "Two deploy notices reached the channel because both the post-deploy hook and the CI job "
    "posted one; the CI job is now the only poster."
)


def test_the_only_is_no_rule_word() -> None:
    assert not is_rule("so the CI job is the only poster now")
    assert not is_rule("its only consumer is the nightly cron")
    assert is_rule("pnpm only, never npm")
    assert is_rule("deploys happen only on Tuesdays")


def test_a_case_saying_the_only_is_no_convention_for_what_is_made() -> None:
    """'set up a pre-commit hook' and a past case naming 'the post-deploy hook ... the only
    poster' share the one word hook: no convention about hooks."""
    assert chosen_ids("set up a pre-commit hook that runs eslint", [CASE]) == []


def test_a_rule_about_hooks_still_answers_the_hook() -> None:
    rule = _memory("Git hooks run formatters only; tests never run in a hook.", project=None)
    assert chosen_ids("set up a pre-commit hook that runs eslint", [rule]) == ["m1"]


# --- a month inside a season, a weekday against the days a note allows ----------------------

VISITS = "can a primary school come round the garden in october?"


def test_a_month_inside_a_season_the_note_rules_on() -> None:
    note = _memory(
        "Visits to the walled garden are in the summer term only; it closes for replanting "
        "from autumn until spring."
    )
    assert chosen_ids(VISITS, [note]) == ["m1"]


def test_a_note_stating_no_season_shares_no_month() -> None:
    note = _memory("Visits to the walled garden are booked through the office.")
    assert chosen_ids(VISITS, [note]) == []


POOL_HOURS = "7 月份晚上几点关门？会员在问"


def test_a_chinese_month_inside_a_range_of_months() -> None:
    note = _memory("游泳馆 6 到 8 月晚上开到 22:00，其余月份 21:00 闭馆，周一全天维护。")
    assert chosen_ids(POOL_HOURS, [note]) == ["m1"]


def test_a_chinese_note_stating_no_months_shares_no_month() -> None:
    assert chosen_ids(POOL_HOURS, [_memory("游泳馆晚上 21:00 闭馆，周一全天维护。")]) == []


KILN = _memory(
    "The big kiln is only fired on Fridays, so students' pieces must be dry and on the "
    "glaze shelf by Thursday noon."
)


FIRING = "can my pottery class fire their bowls on monday?"


def test_a_weekday_proposed_against_the_days_a_rule_allows() -> None:
    assert chosen_ids(FIRING, [KILN]) == ["m1"]


def test_a_weekday_in_a_note_that_restricts_nothing_is_no_shared_word() -> None:
    note = _memory("The big kiln was serviced on a Friday last March by the supplier.")
    assert chosen_ids(FIRING, [note]) == []


# --- a column or a field of a table is a schema change -----------------------------------

SCHEMA_RULE = _memory(
    "Any schema change must come with a down migration, shown to the user before it runs.",
    project=None,
)
ZH_SCHEMA_RULE = _memory(
    "用户要求改表结构之前必须先备份整库，并把回滚脚本发给他确认。", project=None
)


def test_adding_a_column_answers_the_schema_rule() -> None:
    prompt = "add a nullable discount_code column to the orders table"
    assert chosen_ids(prompt, [SCHEMA_RULE]) == ["m1"]


def test_adding_a_chinese_field_answers_the_schema_rule() -> None:
    prompt = "会员表加个 birthday 字段，用来发生日券"
    assert chosen_ids(prompt, [ZH_SCHEMA_RULE]) == ["m1"]


def test_a_form_field_is_no_schema_change() -> None:
    plan = analyse_prompt("add a phone number field to the signup form")
    assert not plan.changes_schema
    assert chosen_ids(plan, [SCHEMA_RULE]) == []


def test_a_schema_change_finds_its_rules_by_their_words() -> None:
    """The rules lookup (Engine._with_rules) reads the schema rule's words too: the rule says
    no word of the prompt."""
    plan = analyse_prompt("加一个 coupon_code 字段到订单表")
    assert plan.changes_schema
    assert {"schema", "迁移"} <= plan.rules_about
    assert "schema" not in analyse_prompt("write a test for the coupon parser").rules_about

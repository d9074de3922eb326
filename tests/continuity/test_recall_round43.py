"""Prompt recall, round 43 classes (issue 23): what the prompt asks to make when the object is
followed by where it goes, or named by what holds it (a comment block, a log line)."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import Explain, SearchHit
from recallnest.retrieval.relevance import (
    ACROSS_FEW_MARGIN,
    ACROSS_FEW_PART,
    ACROSS_POOL_MIN,
    across_few_passes,
    forbidden,
)


def _memory(text: str, project: str | None = None, id: str = "m1") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


COMMENTS_ZH = "代码注释统一用英文写，不要写拼音。"


def test_a_comment_block_placed_somewhere_takes_the_comment_convention() -> None:
    """'add a comment block above X' asks for comments: the rule about comments, written in the
    other language, answers it on that one word (test-blind9's class)."""
    prompt = "add a comment block above the retry decorator saying why it waits"
    assert chosen_ids(prompt, [_memory(COMMENTS_ZH)]) == ["m1"]


def test_a_comment_block_does_not_take_a_rule_about_something_else() -> None:
    prompt = "add a comment block above the retry decorator saying why it waits"
    other = "日志统一用英文写，不要写拼音。"
    assert chosen_ids(prompt, [_memory(other)]) == []


METRIC = "The user wants metric units (kilograms, metres) in every app and export."


def test_a_unit_asked_for_takes_the_global_units_convention() -> None:
    """Which unit a value is in is how it is shown: the global units rule answers on one
    shared word, as it does for a chart or a report (test-blind's class)."""
    prompt = "should the parcel weight column be in pounds or kilograms?"
    assert chosen_ids(prompt, [_memory(METRIC)]) == ["m1"]
    metric_zh = "用户要求所有项目一律用公制单位（公斤、米）。"
    assert chosen_ids("新加的包裹字段用公斤还是磅？", [_memory(metric_zh)]) == ["m1"]


def test_a_value_said_with_its_unit_asks_nothing_about_units() -> None:
    assert chosen_ids("what crate fits a 12 m mast, any ideas?", [_memory(METRIC)]) == []
    assert chosen_ids("the 30 kg parcels keep failing the scale check", [_memory(METRIC)]) == []
    assert chosen_ids("the sync now finishes in seconds, keep the metres", [_memory(METRIC)]) == []


def test_a_project_units_rule_still_needs_two_shared_words() -> None:
    prompt = "should the parcel weight column be in pounds or kilograms?"
    assert chosen_ids(prompt, [_memory(METRIC, project="depot")]) == []


STICKERS = (
    "The depot lead wants every parcel sticker to carry the recipient name in large print with "
    "the tracking code in brackets beneath it; never tracking codes alone, because drivers sort "
    "the vans by name at the loading door each morning."
)


def test_a_prompt_proposing_what_a_rule_rules_out_takes_the_rule() -> None:
    """The prompt asks for what the rule's never-clause names: the moment the rule matters
    most, though it shares few words with the prompt (test-blind8: 'Font grades only' against
    '... never Font alone')."""
    prompt = "should the new labels just show tracking codes? looks tidier to me"
    assert chosen_ids(prompt, [_memory(STICKERS)]) == ["m1"]


def test_words_outside_the_never_clause_get_no_such_weight() -> None:
    prompt = "should the new labels just show the recipient name? looks tidier to me"
    assert chosen_ids(prompt, [_memory(STICKERS)]) == []


def test_a_failure_naming_what_a_rule_rules_out_proposes_nothing() -> None:
    """A pasted error or a crash report mentions the thing; it does not propose doing it."""
    prompt = "the label printer crashed on tracking codes, traceback attached"
    assert chosen_ids(prompt, [_memory(STICKERS)]) == []


def test_what_a_rule_rules_out() -> None:
    assert forbidden(STICKERS) == frozenset({"track", "code", "alon"})
    assert forbidden("新功能上线一律先挂开关；禁止直接改数据库里的菜单表。") >= {"数据", "菜单"}
    assert forbidden("The user wants type hints on every public function.") == frozenset()


ISO_ZH = "接口返回的时间统一用 ISO 8601 格式，带时区。"


def _few(text: str, margin: float = 0.04) -> SearchHit:
    why = Explain(ranks={}, parts={"across_margin": margin, ACROSS_FEW_PART: 1.0})
    return SearchHit(kind="memory", id="m1", text=text, score=0.0, project="svc", explain=why)


def test_the_closest_of_few_notes_in_the_other_language_answers_on_a_translated_word() -> None:
    """An English project's few Chinese conventions: the closest one to an English prompt,
    standing out by the same-language margin, answers when it says one of the prompt's words
    in Chinese (format -> 格式); dev-bridge's class, where the pool (6) is too small for the
    large-pool rule's z-score."""
    prompt = "Which format should timestamps in webhook payloads use?"
    assert chosen_ids(prompt, [_few(ISO_ZH)]) == ["m1"]


def test_the_closest_of_few_notes_says_none_of_the_prompts_words() -> None:
    prompt = "Write a blog post about how our team uses Docker"
    assert chosen_ids(prompt, [_few(ISO_ZH)]) == []


def test_few_notes_need_the_margin_and_are_not_the_large_pool_rule() -> None:
    assert across_few_passes(ACROSS_FEW_MARGIN, 6)
    assert not across_few_passes(ACROSS_FEW_MARGIN - 0.001, 6)
    assert not across_few_passes(0.2, 1)  # a note alone in its language stands out of nothing
    assert not across_few_passes(0.2, ACROSS_POOL_MIN)  # the z-score rule's pool


def test_the_command_to_do_something_takes_the_command_convention() -> None:
    rule = "The user wants shell commands as one pasteable block, no leading $ prompt."
    prompt = "give me the command to copy yesterday's backups onto the NAS"
    assert chosen_ids(prompt, [_memory(rule)]) == ["m1"]


def test_a_character_of_another_word_is_no_prohibition() -> None:
    """别 alone would read 级别 (level), 区别, 识别 as 'don't'."""
    assert forbidden("日志级别统一用 INFO，生产环境也一样。") == frozenset()

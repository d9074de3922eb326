"""A standing convention is stated in the team's own word, and asked about in another word for
the same thing (issue 23, decision 0033): for a memory worded as a rule, a synonym in the
prompt's own language is a shared word; for any other note it is not (docker -> image is
another sense of the word in "the image resizer is owned by ...")."""

from __future__ import annotations

from collections.abc import Iterable

from recallnest.retrieval.relevance import analyse_prompt, passes, relevance


def flat(terms: Iterable[str]) -> dict[str, float]:
    return dict.fromkeys(terms, 1.0)


def test_a_rule_in_the_teams_word_answers_a_prompt_in_another_word() -> None:
    plan = analyse_prompt("Should the report store its dates in local time?")
    rule = "All timestamps must be stored in UTC and converted only for display."
    score = relevance(plan, rule, flat, memory=True)
    assert passes(score, score, "memory")
    zh = analyse_prompt("周六晚上能上线吗？")
    freeze = "周六和周日禁止发布，紧急情况要值班负责人批准。"
    score = relevance(zh, freeze, flat, memory=True)
    assert passes(score, score, "memory")


def test_a_fact_or_a_raw_turn_in_other_words_is_not_an_answer() -> None:
    plan = analyse_prompt("Should the report store its dates in local time?")
    fact = "The billing daemon stores its logs in UTC."
    assert relevance(plan, fact, flat, memory=True) == 0.0
    rule = "All timestamps must be stored in UTC and converted only for display."
    assert relevance(plan, rule, flat, memory=False) == 0.0  # a turn, not a convention
    zh = analyse_prompt("周六晚上能上线吗？")
    assert relevance(zh, "周六发布了一个新版本。", flat, memory=True) == 0.0

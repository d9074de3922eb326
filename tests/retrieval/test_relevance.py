"""The prompt-time recall gate (issue 23): what is skipped, and the absolute relevance score."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from recallnest.retrieval.relevance import ambiguous, analyse_prompt, passes, relevance


def flat(terms: Iterable[str]) -> dict[str, float]:
    return dict.fromkeys(terms, 1.0)


@pytest.mark.parametrize(
    ("prompt", "reason"),
    [
        ("", "empty"),
        ("thanks", "chatter"),
        ("ok, go ahead", "chatter"),
        ("好的", "chatter"),
        ("继续", "chatter"),
        ('```\nTraceback (most recent call last):\n  File "a.py", line 1\n```', "pasted"),
    ],
)
def test_prompts_that_never_get_notes(prompt: str, reason: str) -> None:
    assert analyse_prompt(prompt).skip == reason


def test_intent_picks_the_profile() -> None:
    assert analyse_prompt("test_checkout is failing again").profile == "debug"
    assert analyse_prompt("what naming conventions do we use for tables").profile == "writing"
    assert analyse_prompt("how do we deploy the billing service").profile == "default"


def test_a_memory_answering_the_prompt_scores_above_the_bar_and_an_unrelated_one_zero() -> None:
    plan = analyse_prompt("how do we deploy the billing service")
    good = relevance(plan, "We deploy the billing service with make ship", flat)
    bad = relevance(plan, "The docs site uses hugo themes", flat)
    assert passes(good, good, "memory")
    assert bad == 0.0


def test_one_chinese_word_is_one_match_not_two() -> None:
    plan = analyse_prompt("帮我写一个数据库慢查询的排查文档")
    assert relevance(plan, "数据库迁移之前必须先做全量备份", flat) == 0.0


def test_four_chinese_characters_in_a_row_are_two_words() -> None:
    """迁移之前 is 迁移 + 之前: a shared run of four characters is two matched words, so the
    note clears the two-word rule; a three-character run (数据库) stays one word."""
    plan = analyse_prompt("我要给订单表加一个字段，迁移之前需要注意什么？")
    assert (
        relevance(plan, "数据库迁移之前必须先做全量备份，备份脚本是 scripts/pg_backup.sh", flat) > 0
    )
    assert relevance(analyse_prompt("帮我给这个 PR 写一段提交说明"), "提交说明都用中文写", flat) > 0
    assert relevance(analyse_prompt("数据库慢查询的排查文档怎么写"), "数据库要先备份", flat) == 0.0


def test_a_family_of_equal_matches_is_ambiguous() -> None:
    assert ambiguous([0.33, 0.32, 0.32, 0.31, 0.31])
    assert not ambiguous([0.5, 0.2, 0.0])

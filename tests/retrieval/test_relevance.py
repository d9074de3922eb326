"""The prompt-time recall gate (issue 23): what is skipped, and the absolute relevance score."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from recallnest.retrieval.relevance import ambiguous, analyse_prompt, makes, passes, relevance


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
        ("好的，谢谢", "chatter"),  # two acknowledgements in a row, as in English
        ('```\nTraceback (most recent call last):\n  File "a.py", line 1\n```', "pasted"),
        # how things are in general, not here (round 40)
        ("how long does a tennis court's clay usually last?", "general"),
        ("一般来说游泳池的水多久换一次？", "general"),
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


# --- round 37: a task and the convention about what it makes; words in the other language ---


def test_a_rule_about_what_the_prompt_makes_passes_on_that_one_word() -> None:
    """ "Write a test" shares no word with "plain pytest functions" (test -> pytest is a synonym
    of the thing made) and "写一条 SQL" one word (SQL) with the SQL style rule: the rule names
    what is being made, so it answers the task. Before: 0.0 (fewer than two words)."""
    plan = analyse_prompt("Write a new test for the discount code parser")
    rule = "The user prefers plain pytest functions with fixtures over unittest TestCase classes."
    score = relevance(plan, rule, flat, memory=True)
    assert passes(score, score, "memory")
    sql = analyse_prompt("帮我写一条统计每个城市订单量的 SQL")
    style = "用户要求 SQL 关键字大写，每个字段单独一行，表别名用有意义的英文缩写。"
    score = relevance(sql, style, flat, memory=True)
    assert passes(score, score, "memory")


def test_the_made_thing_rule_needs_a_rule_the_head_noun_and_a_memory() -> None:
    plan = analyse_prompt("Write a new test for the discount code parser")
    fact = "The search api logs to loki in the test rack"  # names it, states no rule
    assert relevance(plan, fact, flat, memory=True) == 0.0
    rule = "The user prefers plain pytest functions with fixtures over unittest TestCase classes."
    assert relevance(plan, rule, flat, memory=False) == 0.0  # a raw turn is not a convention
    guide = analyse_prompt("Write a migration guide for the API v2 clients")
    alembic = "Schema migrations use alembic; run alembic upgrade head before merging."
    assert relevance(guide, alembic, flat, memory=True) == 0.0  # a guide is made, not one


def english_only(terms: Iterable[str]) -> dict[str, float]:
    """A store with no Chinese rows: every Chinese pair weighs 0."""
    return {t: 0.0 if t[0] >= "\u4e00" else 1.0 for t in terms}


def test_a_word_in_the_other_language_is_a_shared_word() -> None:
    """数据库迁移 against "database migration": two words said in English. Before: 0.0 (no
    shared term; and a Chinese pair no row holds weighed nothing)."""
    plan = analyse_prompt("数据库迁移前要做什么？")
    note = "Before any database migration, take a pg_dump backup with scripts/backup.sh."
    score = relevance(plan, note, english_only)
    assert passes(score, score, "memory")


def test_same_language_synonyms_and_general_words_are_not_a_second_word() -> None:
    docker = analyse_prompt("Write a blog post about how our team uses Docker")
    assert relevance(docker, "The image resizer is owned by the payments team", flat) == 0.0
    zh = analyse_prompt("payments 服务刚才发版出问题了，怎么回滚？")
    assert relevance(zh, "The feature flag service is owned by the payments team", flat) == 0.0


@pytest.mark.parametrize(
    "prompt",
    [
        "how long does our clay court usually last before resurfacing?",
        "我们的泳池一般多久换一次水？",
    ],
)
def test_a_general_word_about_our_own_things_is_still_asked(prompt: str) -> None:
    assert analyse_prompt(prompt).skip is None


@pytest.mark.parametrize(
    ("prompt", "note"),
    [
        (
            "the cold room temperature chart has a gap around lunchtime again",
            "冷库的温度曲线每天中午都会断一截：网关插在后厨插排上，中午跳闸。",
        ),
        (
            "冰箱的温度探头又报警了",
            "The fridge temperature probe alarms when the door is left open.",
        ),
    ],
)
def test_everyday_things_apps_watch_are_shared_across_languages(prompt: str, note: str) -> None:
    """Round 42 (test-blind8): a sensor reading asked about in one language, stored in the
    other, shared no word before the vocabulary had sensors, readings and times of day."""
    plan = analyse_prompt(prompt)
    score = relevance(plan, note, flat, memory=True)
    assert passes(score, score, "memory")


def test_a_code_change_request_is_answered_by_how_code_comes_back() -> None:
    """Before round 42 the rule shared no word with the prompt and weighed 0."""
    plan = analyse_prompt("rewrite invoice_export.py so it reads better and send it back")
    rule = "The user wants code changes as unified diffs of the changed parts, not whole files."
    assert makes(plan, rule)
    assert relevance(plan, rule, flat, memory=True) > 0.0
    assert not makes(plan, "invoice_export.py writes one CSV per customer to exports/.")

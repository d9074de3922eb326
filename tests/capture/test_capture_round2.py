"""Capture, second round of issue 17: classes of phrasing the first round missed (lower-case
tool names, reason clauses, "we're keeping X", Chinese workflows/profiles/copular corrections,
root causes with 不再报错), junk it kept ("let's keep going", "still failing" after a fix, an
assistant reading a file), and the end-to-end failures: a correction's leading "that's wrong
now:" clause, and an assistant's confirmation that restated the user's rule as a fragment."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def one(text: str, role: str = "user", previous: str | None = None) -> Capture:
    found = capture(text, role, previous)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    "text",
    [
        "We use ruff for linting and formatting in this repo.",
        "We run vitest with the jsdom environment here.",
        "Here we use uv and a single lockfile for the workspace.",
    ],
)
def test_lower_case_tool_names_make_a_declarative_a_fact(text: str) -> None:
    assert one(text).text == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("We're pinned to Python 3.11 because the base image hasn't moved yet.", "3.11"),
        ("We're stuck on Postgres 13 until the DBA team finishes the upgrade.", "13"),
    ],
)
def test_a_yet_in_the_reason_does_not_make_the_statement_transient(text: str, value: str) -> None:
    assert value in one(text).text


def test_still_transient_when_the_main_statement_says_so() -> None:
    assert capture("We're on the old API for now, because the client isn't ready.") == []


@pytest.mark.parametrize(
    "text",
    [
        "After a long debate we're keeping Django; a rewrite in FastAPI isn't worth it.",
        "In the end we're sticking to REST for the public API.",
    ],
)
def test_we_are_keeping_x_is_a_decision(text: str) -> None:
    assert one(text).category == "events"


@pytest.mark.parametrize(
    "text",
    [
        "Understood, Vite it is; I've deleted the webpack config.",
        "明白，用 Sentry，去掉自己写的错误上报。",
    ],
)
def test_an_acknowledged_choice_is_a_decision(text: str) -> None:
    assert one(text, role="assistant").category == "events"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("我自己在创业，更看重上线速度。", "profile"),
        ("我是独立开发者，没有测试团队。", "profile"),
        ("改数据库结构之前最好先跟我确认一下。", "patterns"),
        ("以后写的正则都给我加上注释。", "preferences"),
        ("日志里用英文，别混进中文。", "preferences"),
    ],
)
def test_chinese_user_forms(text: str, category: str) -> None:
    assert one(text).category == category


def test_a_chinese_copular_correction_without_a_value_is_kept() -> None:
    found = one("不对，会话是存在服务端的，不是存在浏览器里。", previous="会话我放在浏览器里存。")
    assert "服务端" in found.text and found.category == "entities"


def test_a_chinese_correction_about_the_speakers_is_not_a_fact() -> None:
    assert capture("不对，是我看错了。", previous="端口是 8080。") == []


@pytest.mark.parametrize(
    "text",
    [
        "根因是重试没有退避，下游被打满了；加上指数退避之后就不再报错了。",
        "问题出在缓存：两个实例的时钟不一致，改成用数据库时间之后对上了。",
    ],
)
def test_chinese_root_cause_with_fix_is_a_case(text: str) -> None:
    assert one(text, role="assistant").category == "cases"


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("I never remember the name of that env var, anyway, let's move on.", "user"),
        ("I applied the fix you suggested and the job is still failing.", "user"),
        ("我试了昨天的修复方法，还是报错。", "user"),
        ("我看了 src/db.ts，连接数是从 POOL_SIZE 读的。", "assistant"),
        ("我老是忘了那个命令叫啥，算了。", "user"),
    ],
)
def test_junk_is_not_kept(text: str, role: str) -> None:
    assert capture(text, role=role) == []


@pytest.mark.parametrize(
    "lead",
    ["Actually, that's wrong now:", "That's outdated:", "No, that's not right anymore:"],
)
def test_a_correction_drops_its_leading_clause(lead: str) -> None:
    found = one(f"{lead} we moved off Jenkins, CI runs on Buildkite agents in ci/.")
    assert found.text.startswith("we moved off Jenkins"), found.text


def test_a_chinese_outdated_lead_is_dropped() -> None:
    found = one("那个已经过时了，我们现在用 Buildkite 跑 CI。", previous="CI 跑在 Jenkins 上。")
    assert found.text.startswith("我们现在用 Buildkite"), found.text


USER_RULE = "Never deploy the api from a laptop; only the deploy job in CI ships to prod."


def test_the_users_rule_is_kept_not_the_assistants_restatement() -> None:
    assert capture(USER_RULE)  # the user's own words are the memory
    assert capture("Understood: deploys only from the CI deploy job.", "assistant", USER_RULE) == []
    assert capture("Thanks for the correction: the deploy job in CI ships to prod.", "assistant",
                   USER_RULE) == []  # fmt: skip


def test_a_confirmation_with_news_is_still_kept() -> None:
    found = one(
        "Understood: the deploy job reads its token from DEPLOY_TOKEN in the CI secrets.",
        "assistant",
        "Can you check how CI gets the token?",
    )
    assert "DEPLOY_TOKEN" in found.text


def test_a_confirmation_is_kept_when_the_user_turn_gave_nothing() -> None:
    found = one("Got it: the staging API listens on port 8443.", "assistant", "staging is 8443 btw")
    assert "8443" in found.text


@pytest.mark.parametrize(
    "text",
    [
        "Correction: invoices go to the billing queue, not the default one.",
        "Correction: the cron runs in the worker container instead of the web one.",
    ],
)
def test_a_correction_with_a_contrast_needs_no_value(text: str) -> None:
    assert one(text).category == "entities"


def test_an_assistant_agreeing_where_something_belongs_is_a_fact() -> None:
    found = one("You're right, fixtures belong in tests/data; I'll move them.", "assistant")
    assert "tests/data" in found.text


def test_no_recaps_is_a_style_preference() -> None:
    assert one("No recap paragraphs at the end of replies, please.").category == "preferences"


def test_a_would_fail_consequence_does_not_hide_the_fact() -> None:
    found = one("我们的构建跑在内网机器上，访问外网的步骤都会失败。")
    assert "内网" in found.text and found.category == "entities"


def test_an_observed_failure_is_still_no_fact() -> None:
    assert capture("我们的构建跑在内网机器上，昨天失败了。") == []


@pytest.mark.parametrize("text", ["我总是搞混 let 和 const。", "我总是忘了 rebase 的参数。"])
def test_always_getting_something_wrong_is_no_preference(text: str) -> None:
    assert capture(text) == []


def test_always_using_something_is_still_a_preference() -> None:
    assert one("我总是用 fd 代替 find。").category == "preferences"

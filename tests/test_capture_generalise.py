"""Capture on new phrasing (issue 17): what is never a memory (instruction files, test-runner
output, 搞定了), corrections with no previous turn in view, plain declaratives, assistant
confirmations and root causes, scope from what a statement is about, a reply's subject taken
from the turn it answers, and polarity kept through every cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recallnest.capture import capture_turn, gate_reason
from recallnest.models import GLOBAL_SCOPE, Capture, Turn
from recallnest.polarity import negated_cut, reversed_in

PROJECT = "shop"


def turn(text: str, role: str = "user", record: str = "r1") -> Turn:
    return Turn(
        agent="claude", session_id="s1", role=role,  # type: ignore[arg-type]
        text=text, timestamp=None, path="/tmp/s1.jsonl", record_id=record, offset=0,
    )  # fmt: skip


def capture(text: str, role: str = "user", previous: str | None = None) -> list[Capture]:
    other = "assistant" if role == "user" else "user"
    prev = turn(previous, other, record="r0") if previous else None
    return capture_turn(turn(text, role), prev, project=PROJECT)


def one(text: str, role: str = "user", previous: str | None = None) -> Capture:
    found = capture(text, role, previous)
    assert len(found) == 1, found
    return found[0]


# --------------------------------------------------------------------------- never memories

INSTRUCTION_FILES = [
    "# AGENTS.md\n\n## Conventions\n- Use pnpm for everything.\n- I prefer small PRs.",
    "Here's our CLAUDE.md:\n\n## Commands\n- `make dev` starts it\n- Never commit to main",
    "This file provides guidance to Claude Code when working with code in this repository.\n"
    "- Always use uv, never pip.",
    "Contents of GEMINI.md:\n\n- Always run the linter before committing.",
    "# CLAUDE.md\n\n## 项目约定\n- 统一使用 pnpm 管理依赖\n- 提交前必须运行 pnpm test",
]


@pytest.mark.parametrize("text", INSTRUCTION_FILES)
def test_a_pasted_instruction_file_is_never_a_memory(text: str) -> None:
    assert gate_reason(turn(text)) == "injected_context"
    assert capture(text) == []


def test_talking_about_an_instruction_file_is_still_speech() -> None:
    found = capture("We keep CLAUDE.md short. Always use uv for Python deps.")
    assert "Always use uv for Python deps." in [c.text for c in found]


TEST_RUNNER_OUTPUT = [
    "✓ src/utils/date.test.ts (12)\n✓ src/api/client.test.ts (8)\n× src/api/retry.test.ts (3)",
    " PASS  src/cart.test.js\n FAIL  src/payment.test.js\n\nTests:       1 failed, 30 passed",
    "> web@0.3.0 test\n> vitest run\n\n ✓ src/lib/format.test.ts (5 tests) 4ms\n"
    " Test Files  1 passed (1)\n      Tests  5 passed (5)",
    "结果：\n✔ packages/core/src/index.test.ts (4)\n✔ packages/ui/src/button.test.tsx (11)",
]


@pytest.mark.parametrize("text", TEST_RUNNER_OUTPUT)
def test_test_runner_output_is_never_a_memory(text: str) -> None:
    assert capture(text) == []
    assert capture(text, "assistant") == []


DONE = ["搞定了", "搞定了，谢谢！", "终于搞定了，累死了。", "弄好了，下一个。"]


@pytest.mark.parametrize("text", DONE)
def test_done_is_not_a_decision(text: str) -> None:
    assert [c for c in capture(text) if c.category == "events"] == []


def test_a_real_decision_with_ding_le_is_kept() -> None:
    assert one("数据库就这么定了，用 PostgreSQL。").category == "events"


# --------------------------------------------------------------------------- new phrasing

KEPT = [
    ("Actually, that's wrong. The worker reads jobs from Redis.", "user", "entities", "redis"),
    ("Actually, that's not right. Sessions live in Memcached.", "user", "entities", "memcached"),
    ("That's wrong, we never squash on main.", "user", "patterns", "never squash"),
    ("We use Turborepo in this monorepo.", "user", "entities", "turborepo"),
    ("We're pinned to Node 18 because of the Lambda runtime.", "user", "entities", "node 18"),
    ("Our search index is rebuilt nightly from the warehouse.", "user", "entities", "search index"),
    ("I'm on a Raspberry Pi 4, so don't suggest CUDA.", "user", "profile", "raspberry pi"),
    ("I mostly live in Neovim.", "user", "profile", "neovim"),
    ("我喜欢用 zod 来做参数校验。", "user", "preferences", "zod"),
    ("别再给我推荐 Jupyter 了。", "user", "preferences", "jupyter"),
    ("我们用 pnpm workspace 管理这几个包。", "user", "entities", "pnpm workspace"),
    ("Understood: Tailwind stays; we drop styled-components.", "assistant", "events", "tailwind"),
    ("Got it, we'll go with Argon2 for hashing.", "assistant", "events", "argon2"),
    ("明白，接口文档统一用 OpenAPI 3 来写。", "assistant", "events", "openapi"),
    (
        "The deadlock happened because two workers locked rows in opposite order; sorting the "
        "ids first fixed it.",
        "assistant", "cases", "sorting",
    ),
    ("It was a stale service worker cache; bumping the cache name made it go away.", "assistant",
     "cases", "cache name"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "role", "category", "needle"), KEPT)
def test_new_phrasing_is_kept(text: str, role: str, category: str, needle: str) -> None:
    found = one(text, role)
    assert found.category == category
    assert needle in found.text.casefold()


@pytest.mark.parametrize(
    "text",
    ["We're on it.", "We're stuck on this bug again.", "Got it, running the tests now.",
     "明白，我先看一下。", "Our tests are failing again."],
)  # fmt: skip
def test_declarative_and_acknowledgement_lookalikes_are_not_kept(text: str) -> None:
    role = "assistant" if text.startswith(("Got", "明白")) else "user"
    assert capture(text, role) == []


# --------------------------------------------------------------------------- scope (item 3)

PROJECT_SCOPED = [
    "Never publish the package from a local machine.",
    "Never run the seed script against prod.",
    "Don't touch the generated files under src/gen.",
    "Never hardcode STRIPE_API_KEY, read it from the environment.",
    "不要在线上库直接跑迁移。",
    "In this repo we use 4-space indentation, not tabs.",
]
GLOBAL_SCOPED = [
    "Always use uv for Python deps.",
    "Please stop adding emoji to commit messages.",
    "For all my projects, I want commit messages in the imperative mood.",
    "I prefer tabs everywhere.",
    "所有项目都一样，缩进用两个空格。",
]


@pytest.mark.parametrize("text", PROJECT_SCOPED)
def test_a_rule_about_this_project_stays_in_it(text: str) -> None:
    assert one(text).scope == PROJECT


@pytest.mark.parametrize("text", GLOBAL_SCOPED)
def test_personal_style_and_every_project_rules_are_global(text: str) -> None:
    assert one(text).scope == GLOBAL_SCOPE


@pytest.mark.parametrize(
    "text",
    ["For all my repos, the CI must pass before merging.", "在所有项目里，合并之前都要先跑测试。"],
)
def test_every_project_makes_a_workflow_global(text: str) -> None:
    found = one(text)
    assert (found.category, found.scope) == ("patterns", GLOBAL_SCOPE)


# --------------------------------------------------------------------------- subject (item 4)

SCRAPER = "I'll point the metrics scraper at port 8080 on the exporter."


@pytest.mark.parametrize(
    "text",
    ["no, the port is 9090 not 8080", "Thanks, but no, the port is 9090 not 8080.",
     "I checked the config. no, the port is 9090 not 8080."],
)  # fmt: skip
def test_a_correction_takes_its_subject_from_the_turn_it_corrects(text: str) -> None:
    found = one(text, previous=SCRAPER)
    assert "9090" in found.text and "exporter" in found.text
    assert not found.text.startswith(("Thanks", "I checked"))  # no leading clause sticks


def test_a_chinese_correction_takes_its_subject_too() -> None:
    found = one("不对，是 6380。", previous="Redis 我连的是默认的 6379 端口。")
    assert "6380" in found.text and "Redis" in found.text


def test_an_answer_takes_its_subject_from_the_question() -> None:
    found = one("It listens on 9090.", previous="Which port does the exporter listen on?")
    assert found.category == "entities"
    assert "9090" in found.text and "exporter" in found.text


def test_a_correction_that_names_its_subject_is_stored_as_said() -> None:
    found = one("no, the staging port is 8443.", previous="The staging API is on port 8080.")
    assert found.text == "the staging port is 8443."


def test_an_unrelated_previous_turn_lends_no_subject() -> None:
    found = one("no, the port is 9090 not 8080", previous="I renamed the helper to loadUser.")
    assert found.text == "the port is 9090 not 8080"


# --------------------------------------------------------------------------- polarity (item 5)

EN_NEGATORS = ["not", "never", "don't", "no longer", "isn't", "doesn't", "won't", "can't"]
ZH_NEGATORS = ["不是", "不要", "别", "没有", "不再", "不用"]
EN_LEADS = ["", "no, ", "No — ", "Actually, ", "Correction: ", "Actually, that's wrong: "]
ZH_LEADS = ["", "不对，", "其实，", "更正一下：", "错了，"]
_NAMES = st.sampled_from(["Redis", "pnpm", "the staging bucket", "port 8443", "Node 18"])
_ZH_NAMES = st.sampled_from(["Redis", "pnpm", "预发环境", "8443 端口", "MySQL"])


def _assert_polarity(text: str, found: list[Capture], negator: str) -> None:
    for c in found:
        assert not reversed_in(text, c.text), (text, c.text)
        # the negator that governs the statement is still in what was stored
        assert negator.casefold() in c.text.casefold(), (text, c.text)


EN_BODIES = [
    "we {neg} use {a} here, we use {b}",
    "the cache {neg} {a}, it is {b}",
    "{neg} {a}, it's {b} on this repo",
    "{neg} use {a} for the workers, use {b}",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(EN_LEADS), st.sampled_from(EN_NEGATORS), st.sampled_from(EN_BODIES),
       _NAMES, _NAMES, st.booleans())  # fmt: skip
def test_english_negation_survives_capture(
    lead: str, negator: str, body: str, a: str, b: str, replying: bool
) -> None:
    text = f"{lead}{body.format(neg=negator, a=a, b=b)}."
    previous = "The cache is on port 6379 and we use Redis." if replying else None
    _assert_polarity(text, capture(text, previous=previous), negator)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(ZH_LEADS), st.sampled_from(ZH_NEGATORS), _ZH_NAMES, _ZH_NAMES,
       st.booleans())  # fmt: skip
def test_chinese_negation_survives_capture(
    lead: str, negator: str, a: str, b: str, replying: bool
) -> None:
    said = f"{negator} {a}，是 {b}。" if negator == "不是" else f"{negator}用 {a}，用 {b}。"
    text = f"{lead}{said}"
    previous = "缓存在 6379 端口，用的是 Redis。" if replying else None
    _assert_polarity(text, capture(text, previous=previous), negator)


@pytest.mark.parametrize(
    ("text", "needle"),
    [("不是 MySQL，是 PostgreSQL 15，库名叫 orders。", "不是 MySQL"),
     ("不是 Nginx，是 Caddy 在前面做反向代理。", "不是 Nginx"),
     ("错了，不是 main 分支，我们的默认分支是 develop。", "不是 main"),
     ("Actually, that's wrong. The worker pulls from Redis, not from Postgres.", "not from")],
)  # fmt: skip
def test_contrast_corrections_keep_their_negation(text: str, needle: str) -> None:
    found = one(text)
    assert needle in found.text


def test_negated_cut() -> None:
    assert negated_cut("不是 ") and negated_cut("we no longer") and negated_cut("别")
    assert not negated_cut("不是，") and not negated_cut("No, ") and not negated_cut("Nope —")


# --------------------------------------------------------------------------- lookalikes


def test_contractions_are_not_quoted_names() -> None:
    # "don't bother, it's" once read as the quoted name 't bother, it'
    assert capture("No, don't bother, it's fine as it is.", previous="Shall I rename it?") == []


@pytest.mark.parametrize(
    ("previous", "kept"),
    [("Want me to also rename the variables?", False), ("要不要我再加一个测试？", False),
     ("So the worker calls the API when a job finishes?", True)],
)  # fmt: skip
def test_no_declines_an_offer_but_corrects_a_claim(previous: str, kept: bool) -> None:
    found = capture("no, the API calls the worker, not the reverse.", previous=previous)
    assert bool(found) is kept


@pytest.mark.parametrize(
    "text", ["e2e 测试就用 Playwright 吧，Cypress 太不稳定了。", "重试以后还是不正常了。"]
)
def test_a_negated_outcome_is_not_a_fix(text: str) -> None:
    assert [c for c in capture(text) if c.category == "cases"] == []


def test_a_naming_convention_is_a_workflow() -> None:
    found = one("Feature branches are named feat/<ticket>-<slug>.")
    assert found.category == "patterns"


@pytest.mark.parametrize(("text", "kept"), [("Go with Playwright for e2e.", True),
                                             ("go with option B", False)])  # fmt: skip
def test_go_with_a_named_choice_is_a_decision(text: str, kept: bool) -> None:
    assert [c.category for c in capture(text)] == (["events"] if kept else [])


@pytest.mark.parametrize(
    ("text", "category"),
    [("好的，新包统一用 Vitest，不用 Jest。", "events"),
     ("好的，README 已经更新了新参数的说明。", None),
     ("OK, running the suite again.", None),
     ("Right, so the staging cluster is eu-central-1 and prod is eu-west-1.", "entities")],
)  # fmt: skip
def test_weak_acknowledgements_confirm_only_choices_and_facts(
    text: str, category: str | None
) -> None:
    assert [c.category for c in capture(text, "assistant")] == ([category] if category else [])

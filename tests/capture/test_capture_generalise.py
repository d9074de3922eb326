"""Capture on new phrasing (issue 17): what is never a memory (instruction files, test-runner
output, 搞定了), corrections with no previous turn in view, plain declaratives, assistant
confirmations and root causes, scope from what a statement is about, a reply's subject taken
from the turn it answers, and polarity kept through every cut."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.capturing import PROJECT, capture
from support.examples import examples

from recallnest.capture.polarity import negated_cut, reversed_in
from recallnest.capture.salience import gate_turn
from recallnest.core.models import GLOBAL_SCOPE, Capture


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
    assert gate_turn(text).reason == "injected_context"
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


# Said for every project, in any wording: singular or plural, "wherever I work", "whatever
# the project", 无论哪个项目. Each is a rule that must follow the user into a fresh repository.
EVERY_PROJECT_PHRASES = [
    "For every repository I work in, write commit messages in Conventional Commits style.",
    "In every project, run the formatter before committing.",
    "Across all my codebases, never push straight to main.",
    "Wherever I work, keep commits small and focused.",
    "For any repo of mine, use squash merges.",
    "Whatever the project, the CI must be green before merging.",
    "In each of my repositories, add a CHANGELOG entry for user-facing changes.",
    "Whichever repo I'm in, run the linter before pushing.",
    "无论哪个项目，提交信息都用英文写。",
    "不论在哪个仓库，合并前都要先跑测试。",
    "在每一个项目里，发布前都要打 tag。",
]


@pytest.mark.parametrize("text", EVERY_PROJECT_PHRASES)
def test_a_rule_said_for_every_project_is_global_in_any_wording(text: str) -> None:
    found = capture(text)
    assert found, text
    assert all(c.scope == GLOBAL_SCOPE for c in found), found


@pytest.mark.parametrize(
    "text",
    ["In this project, every repository module needs a docstring.",
     "Run the migrations in every environment of this repo before release.",
     "Rename fetchUser to loadUser everywhere and update the imports."],
)  # fmt: skip
def test_every_thing_inside_one_project_is_not_every_project(text: str) -> None:
    assert all(c.scope == PROJECT for c in capture(text)), capture(text)


@pytest.mark.parametrize(
    "text",
    ["这个仓库提交前必须跑 cargo clippy -- -D warnings，不能有警告。", "合并前一定要跑完集成测试。",
     "发版前需要先跑 e2e。", "部署前务必检查迁移脚本。"],
)  # fmt: skip
def test_a_step_required_before_a_commit_or_release_is_a_project_workflow(text: str) -> None:
    found = capture(text)
    assert [(c.category, c.scope) for c in found] == [("patterns", PROJECT)], found


def test_asking_whether_a_step_is_needed_is_no_workflow() -> None:
    assert capture("合并前要不要跑集成测试？") == []


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


@settings(max_examples=examples(200), deadline=None)
@given(st.sampled_from(EN_LEADS), st.sampled_from(EN_NEGATORS), st.sampled_from(EN_BODIES),
       _NAMES, _NAMES, st.booleans())  # fmt: skip
def test_english_negation_survives_capture(
    lead: str, negator: str, body: str, a: str, b: str, replying: bool
) -> None:
    text = f"{lead}{body.format(neg=negator, a=a, b=b)}."
    previous = "The cache is on port 6379 and we use Redis." if replying else None
    _assert_polarity(text, capture(text, previous=previous), negator)


@settings(max_examples=examples(150), deadline=None)
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


@pytest.mark.parametrize(
    ("text", "role", "category"),
    [
        ("So for context, this service is the billing gateway between Stripe and the ledger.",
         "user", "entities"),
        ("先交代一下背景：这个服务是计费网关，夹在 Stripe 和账本库中间。", "user", "entities"),
        ("I'm mostly a frontend person, backend is new-ish for me.", "user", "profile"),
        ("I'm colorblind, so don't rely on red and green alone.", "user", "profile"),
        ("我是色弱，界面别只靠红绿区分。", "user", "profile"),
        ("That's not how we do it here: migrations are generated with alembic and then "
         "hand-edited.", "user", "patterns"),
        ("tabs not spaces in the Makefile, but 2 spaces everywhere else", "user", "preferences"),
        ("Please always explain the tradeoffs before proposing a big refactor.", "user",
         "preferences"),
        ("Always ask me before deleting files.", "user", "patterns"),
        ("根因是 ORM 懒加载导致 N+1；改用 selectinload 后页面快了十倍。", "assistant", "cases"),
        ("Good call — keeping the retry logic in the client and out of the server makes sense.",
         "assistant", "events"),
        ("有道理，重试逻辑放在客户端、不放服务端。", "assistant", "events"),
    ],
)  # fmt: skip
def test_third_batch_classes(text: str, role: str, category: str) -> None:
    assert one(text, role).category == category


def test_a_heading_that_names_an_instruction_file_marks_a_paste() -> None:
    assert capture("## Project notes (from AGENTS.md)\n- Use Bun\n- Keep PRs under 300 lines") == []
    assert capture("## 项目说明（摘自 AGENTS.md）\n- 使用 Bun\n- PR 不超过 300 行") == []


@pytest.mark.parametrize(
    ("text", "role", "category"),
    [
        ("Right, you want the changelog grouped by type, not by date.", "assistant", "events"),
        ("明白，changelog 按类型分组，不按日期。", "assistant", "events"),
        ("谢谢说明，那上传是直接传到 R2，接口只存对象的 key。", "assistant", "entities"),
        ("记下了：特性开关只在服务端判断，从不在浏览器里判断。", "assistant", "entities"),
        ("Turns out the cron had no TZ set; setting TZ=Europe/Berlin made it fire at local "
         "midnight.", "assistant", "cases"),
        ("文档托管在 Read the Docs 上，每次打 tag 都会触发构建。", "user", "entities"),
        ("移动端的配置是从 Firebase Remote Config 读的。", "user", "entities"),
        ("我用 Windows 11 加 PowerShell，给我能在上面跑的命令。", "user", "profile"),
        ("我们约好了，2.0 发布之前公开 API 冻结。", "user", "events"),
        ("讨论了一大圈，最后还是保留 Celery，不换 Dramatiq。", "user", "events"),
    ],
)  # fmt: skip
def test_fourth_batch_classes(text: str, role: str, category: str) -> None:
    assert one(text, role).category == category


def test_a_users_own_bullet_list_of_rules_is_kept_item_by_item() -> None:
    text = (
        "A few things for this repo:\n- we use Biome, not ESLint\n"
        "- tests live in __tests__ next to the code\n- never commit .env.local"
    )
    texts = [c.text for c in capture(text)]
    assert len(texts) == 3
    assert "tests live in __tests__ next to the code" in texts  # a dunder name is not bold


@pytest.mark.parametrize(
    ("text", "role", "category"),
    [
        ("Can you look at it? For background, the suite runs against a Testcontainers Postgres.",
         "user", "entities"),
        ("ok so the thing is, our Redis is shared with the analytics team, so never flush it.",
         "user", "entities"),
        ("是这样的，我们的 Redis 是和数据分析组共用的，千万别 FLUSHALL。", "user", "entities"),
        ("Just so we're clear: I review every migration myself before it ships.", "user",
         "patterns"),
        ("每个迁移上线前我都会亲自 review。", "user", "patterns"),
        ("我写 Go 大概八年了，主要做网络服务。", "user", "profile"),
        ("The login loop was Safari dropping the cookie without Secure; adding Secure fixed it.",
         "user", "cases"),
        ("v1 的 webhook 三月份下线，别再基于它开发新功能。", "user", "events"),
        ("So to summarise the decision: we keep Postgres and use Elasticsearch only for search.",
         "assistant", "events"),
        ("总结一下决定：Postgres 继续作为唯一数据源，Elasticsearch 只用来做搜索。", "assistant",
         "events"),
        ("用 Biome，不用 ESLint。", "user", "preferences"),
    ],
)  # fmt: skip
def test_fifth_batch_classes(text: str, role: str, category: str) -> None:
    assert one(text, role).category == category


@pytest.mark.parametrize(
    "text",
    [
        "GraphQL 要不要留还没想好，先看原型效果。",
        "这个仓库有几条规矩：",
        "每次打 tag 都会触发构建。",
    ],
)
def test_fifth_batch_lookalikes(text: str) -> None:
    assert [c for c in capture(text) if c.category in ("preferences", "patterns")] == []


def test_no_after_a_proposal_corrects_it() -> None:
    found = one(
        "不行，那些机器上 1024 以下的端口要 root，改用 8080。",
        previous="我把健康检查绑到 80 端口。",
    )
    assert "1024" in found.text


def test_an_assistant_explaining_a_library_in_chinese_states_no_project_fact() -> None:
    text = "这是 Context 的典型问题：value 一变，所有消费者都会重渲染。"
    assert capture(text, "assistant") == []
    assert one("文档托管在 Read the Docs 上。").category == "entities"  # the user's setup is


def test_a_naming_style_is_not_a_project_thing() -> None:
    # snake_case is a style, not an environment variable: the preference stays global
    assert one("所有新建的表名一律用 snake_case。").scope == GLOBAL_SCOPE
    assert one("Never hardcode STRIPE_API_KEY.").scope == PROJECT


@pytest.mark.parametrize(
    "text",
    [
        "好的，已改成 CartSkeleton 组件，恢复完成后再渲染真实列表。",
        "好的，逐个修了 11 处，规则保持开启。",
    ],
)
def test_an_acknowledged_progress_report_is_narration(text: str) -> None:
    assert capture(text, "assistant") == []


def test_an_agreed_decision_stays_a_decision() -> None:
    found = one("Agreed: python:3.12-slim pinned by digest in every Dockerfile.", "assistant")
    assert found.category == "events"
    assert one("好的，决定：状态管理用 Zustand，不引入 Redux。", "assistant").category == "events"


def test_a_loop_in_an_instruction_is_not_a_symptom() -> None:
    text = "Wrap the call in a loop: up to 3 attempts with a 10 s sleep, then log the event."
    assert [c for c in capture(text, "assistant") if c.category == "cases"] == []


def test_a_killed_worker_is_a_symptom_not_a_fact() -> None:
    assert capture("跑全量数据的时候 worker 被 kill 了，日志最后一行就是 Killed。") == []


@pytest.mark.parametrize(
    ("text", "role", "category"),
    [
        ("Sure — since the team already standardised on Terraform, I'll write it as a module.",
         "assistant", "events"),
        ("好的，既然团队已经统一用 Terraform，我就写成 Terraform 模块。", "assistant", "events"),
        ("Okay, I've noted that prod deploys happen only on Tuesdays and Thursdays.",
         "assistant", "patterns"),
        ("明白，单体先保留，计费模块以后再拆出来。", "assistant", "events"),
        ("We're a Django shop, everything server-rendered, HTMX for the interactive bits.",
         "user", "entities"),
        ("我们是 Django 技术栈，交互的部分用 HTMX。", "user", "entities"),
        ("I'm on a 13-inch screen, so keep generated tables narrow.", "user", "profile"),
        ("我屏幕只有 13 寸，生成的表格别太宽。", "user", "profile"),
        ("Anything touching payments needs two approvals.", "user", "patterns"),
        ("涉及支付的改动需要两个人 approve。", "user", "patterns"),
        ("问题在于 Celery beat 用的是本地时间；改成 UTC 后就不会重复执行了。", "assistant",
         "cases"),
        ("我希望每个公开函数都有带示例的 docstring。", "user", "preferences"),
    ],
)  # fmt: skip
def test_sixth_batch_classes(text: str, role: str, category: str) -> None:
    assert one(text, role).category == category


@pytest.mark.parametrize(
    "text", ["正在跑 `pnpm test`：\n\n```\n✓ 48 passed\n```", "我现在去更新快照测试。"]
)
def test_chinese_progress_narration_is_not_a_fact(text: str) -> None:
    assert capture(text, "assistant") == []

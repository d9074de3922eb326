"""Capture, third round of issue 17: the classes a blind batch (b22) missed, each tested on
phrasings of our own (not the batch's rows): background stated as a fact of the user's life,
house rules without a trigger verb, team changes reported as done, one-sentence diagnoses,
workflows given as a list of steps, and an assistant's commitment to the user's rule. Each
class has its guard: the narration, requests and reports that look like it and are no memory."""

from __future__ import annotations

import pytest
from support.capturing import capture


def categories(text: str, role: str = "user", previous: str | None = None) -> list[str]:
    return [c.category for c in capture(text, role, previous)]


def kept(text: str, category: str, value: str, role: str = "user") -> None:
    found = capture(text, role)
    assert any(c.category == category and value.lower() in c.text.lower() for c in found), found


# --------------------------------------------------------------------------- profile


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Day to day it's mostly Elixir and a bit of Rust for the NIFs.", "elixir"),
        ("day-to-day I'm in Kotlin, Android side.", "kotlin"),
        ("I came over from eight years of C# and .NET, so Python idioms are new-ish.", "c#"),
        ("Spent six years writing Perl before this job, so regexes don't scare me.", "perl"),
        ("My background is mostly data engineering, Airflow and dbt.", "airflow"),
        ("我平时主要写 Swift，Android 那边不太懂。", "swift"),
        ("我日常基本都在写 Rust。", "rust"),
        ("我本科学的物理，后来才转的开发。", "物理"),
        ("我研究生读的计算机视觉。", "计算机视觉"),
        ("其实我前年就转后端了，前端的东西不太跟了。", "后端"),
        ("我去年从测试转到开发了。", "开发"),
    ],
)
def test_background_statements_are_profile(text: str, value: str) -> None:
    kept(text, "profile", value)


@pytest.mark.parametrize(
    "text",
    [
        "Day to day the dashboard gets about 200 visitors.",
        "It's been six years since anyone touched this module.",
        "我平时很少看邮件。",
        "把这个转成 JSON 再发给我。",
    ],
)
def test_background_lookalikes_are_not_profile(text: str) -> None:
    assert "profile" not in categories(text)


# --------------------------------------------------------------------------- preferences


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Keep barrel files out of the frontend, they wreck tree-shaking.", "barrel files"),
        ("keep lodash out of new code, native array methods are enough", "lodash"),
        ("Shell scripts you write for me should start with set -euo pipefail.", "pipefail"),
        ("Any regex you give me needs a comment saying what it matches.", "regex"),
        ("dataclasses only, no pydantic models in the domain layer", "dataclasses"),
        ("async/await only, nothing with .then() chains in this service", "async/await"),
        ("这个仓库不引 lodash，原生方法就够用了。", "lodash"),
        ("我们不引入 moment，dayjs 就够了", "dayjs"),
        ("新写的接口我都写成 async 的，不再用回调。", "async"),
        ("解释问题的时候别一上来就贴日志，先用一句话说结论。", "结论"),
    ],
)
def test_house_rules_are_preferences(text: str, value: str) -> None:
    kept(text, "preferences", value)


@pytest.mark.parametrize(
    "text",
    [
        "Keep the logs out of the PR description for this one.",
        "The docs you sent me should be in the wiki by now.",
        "Only the first test fails.",
        "这个函数我已经写成 async 的了。",
    ],
)
def test_house_rule_lookalikes_are_not_preferences(text: str) -> None:
    assert "preferences" not in categories(text)


# --------------------------------------------------------------------------- events (done)


@pytest.mark.parametrize(
    ("text", "value", "role"),
    [
        (
            "We ripped Sentry out in March; errors go to GlitchTip at errors.corp now.",
            "glitchtip",
            "user",
        ),
        (
            "we cut over to the new Redis cluster last night, the old one is read-only",
            "redis",
            "user",
        ),
        ("We moved the job queue off RabbitMQ onto SQS last week.", "sqs", "user"),
        (
            "Done: the Elasticsearch 7 -> 8 migration on search-prod finished overnight.",
            "search-prod",
            "assistant",
        ),
        ("Sam and I settled it: the public beta starts April 2, invites only.", "april 2", "user"),
        ("上个月 Travis 已经下线了，现在都走 GitHub Actions。", "github actions", "user"),
        ("上周已经全量切到 pnpm 了，npm 的锁文件删掉了。", "pnpm", "user"),
        ("订单服务推迟到 9 月 15 号上线，先上退款。", "9 月 15", "user"),
        ("已完成：Node 从 16 升到了 20，CI 全绿。", "20", "assistant"),
    ],
)
def test_changes_reported_done_are_events(text: str, value: str, role: str) -> None:
    kept(text, "events", value, role)


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("Done. Let me know if you want anything else.", "assistant"),
        ("Done: I renamed the helper and updated the two call sites.", "assistant"),
        ("我已经把这个函数挪到 utils 里了。", "assistant"),
        ("Moved the import to the top of the file.", "assistant"),
    ],
)
def test_edit_reports_are_not_events(text: str, role: str) -> None:
    assert "events" not in categories(text, role)


# --------------------------------------------------------------------------- cases


@pytest.mark.parametrize(
    ("text", "value", "role"),
    [
        (
            "`test_invoice_pdf` was flaky because the fixture used datetime.now() and crossed "
            "midnight on CI.",
            "datetime.now",
            "user",
        ),
        (
            "The 504s on /reports were the load balancer, not the app: its idle timeout is 60s "
            "and the export takes 90.",
            "idle timeout",
            "assistant",
        ),
        (
            "the segfaults in the worker weren't our code at all, an old libxml2 in the base image "
            "did it, bumping the image made them go away",
            "libxml2",
            "user",
        ),
        ("页面白屏是因为 CDN 上的 chunk 还是旧版本，缓存没刷。", "cdn", "user"),
        (
            "接口超时不是数据库的事，是 DNS：容器里 resolv.conf 配了一个不通的地址。",
            "resolv.conf",
            "user",
        ),
        (
            "The memory leak was the LRU cache having no maxsize; setting maxsize=1024 keeps RSS "
            "flat and it has been stable all night.",
            "maxsize",
            "assistant",
        ),
    ],
)
def test_one_sentence_diagnoses_are_cases(text: str, value: str, role: str) -> None:
    kept(text, "cases", value, role)


@pytest.mark.parametrize(
    "text",
    [
        "The tests fail because I haven't written the fixture yet.",
        "是因为你没登录吗？",
        "The 504s started around noon.",
    ],
)
def test_unsolved_or_questions_are_not_cases(text: str) -> None:
    assert "cases" not in categories(text)


# --------------------------------------------------------------------------- workflows


@pytest.mark.parametrize(
    ("text", "value", "role"),
    [
        (
            "Hotfixes here go: branch off the release tag, `make patch`, get one review, then "
            "cherry-pick to main.",
            "make patch",
            "user",
        ),
        (
            "New services always start from `templates/svc`, config goes in deploy/<name>.yaml and "
            "the owner is set in CODEOWNERS.",
            "templates/svc",
            "user",
        ),
        (
            "改接口的话，先在 openapi.yaml 里改定义，跑一遍 codegen，最后才动实现。",
            "codegen",
            "user",
        ),
        (
            "I'll follow your release flow: bump the version, run `make dist`, tag it, and push "
            "the tag only after CI is green.",
            "make dist",
            "assistant",
        ),
    ],
)
def test_workflows_given_as_steps_are_patterns(text: str, value: str, role: str) -> None:
    kept(text, "patterns", value, role)


# --------------------------------------------------------------------------- assistant commitments


def test_an_assistant_committing_to_the_users_rule_keeps_it() -> None:
    text = (
        "Got it. In the API handlers I'll return errors as RFC 7807 problem details from now on, "
        "never bare strings."
    )
    found = capture(text, "assistant", previous="stop returning plain text errors from the API")
    assert any(c.category == "preferences" and "7807" in c.text for c in found), found


@pytest.mark.parametrize(
    "text",
    [
        "Got it. I'll update the README next.",
        "Understood. I'll rerun the tests now.",
        "I'll leave the rest of the file alone.",
    ],
)
def test_an_assistant_announcing_its_next_step_is_no_memory(text: str) -> None:
    assert capture(text, "assistant", previous="ok") == []


# ------------------------------------------------------------------ second blind batch (b23)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm deuteranopia-level colour-blind, so red vs green diffs are lost on me.", "blind"),
        ("我这边是 macOS + Homebrew，命令给 zsh 的就行。", "macos"),
        ("我在深圳一家做 SaaS 的小公司，负责计费那块。", "计费"),
        ("我是半路转行的，之前干了三年财务。", "财务"),
    ],
)
def test_more_background_is_profile(text: str, value: str) -> None:
    kept(text, "profile", value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("uv, not pip. the lock is uv.lock and pip install would ignore it", "uv"),
        (
            "When you write migrations here make them reversible, with a down() every time.",
            "reversible",
        ),
        ("Docs use American spelling, color not colour.", "american"),
        ("回答用英文就行，代码里的日志还是保持中文", "英文"),
        ("别每次都整个文件重写给我，只贴改动的那几行", "改动"),
        ("能用内置模块就别引第三方库", "内置模块"),
    ],
)
def test_more_house_rules_are_preferences(text: str, value: str) -> None:
    kept(text, "preferences", value)


def test_an_or_question_is_still_a_question() -> None:
    assert capture("用 pnpm 还是 yarn") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Deploys go: build the image, push it to ECR, bump the tag in helm/values.yaml, then "
            "argocd sync.",
            "argocd",
        ),
        (
            "my routine is: pull, run the smoke tests, then `make deploy` from the release branch.",
            "make deploy",
        ),
        ("before tagging a release I run the full e2e suite against staging", "e2e"),
        ("每次发版前都会先跑一遍 smoke test，然后再打 tag", "smoke"),
        ("我们这都是从 main 拉 release/x.y 分支，测完合回 main", "release/"),
        ("Ask me before you drop or rename any column in the billing schema.", "billing"),
    ],
)
def test_more_workflows_are_patterns(text: str, value: str) -> None:
    kept(text, "patterns", value)


@pytest.mark.parametrize(
    ("text", "value", "role"),
    [
        (
            "Summary of this session: moved auth to `lib/auth.ts`, bumped Prisma 5.10 → 5.14, all "
            "92 tests pass.",
            "5.14",
            "assistant",
        ),
        ("本次改动总结：新增 `/api/refunds` 接口，补了 3 个测试。", "/api/refunds", "assistant"),
        (
            "Done: dropped the `legacy_orders` table in migration 0112 after the backfill.",
            "legacy_orders",
            "assistant",
        ),
        ("we cut v4.1.0 from main this morning", "v4.1.0", "user"),
        ("昨天 v2.0.3 已经发生产了，修了登录超时。", "v2.0.3", "user"),
        ("上周我们把前端仓库拆成了两个：admin 和 h5。", "h5", "user"),
        ("OpenTelemetry 已经接进来了，collector 在 otel.svc:4317。", "opentelemetry", "user"),
    ],
)
def test_more_done_reports_are_events(text: str, value: str, role: str) -> None:
    kept(text, "events", value, role)


def test_deciding_later_is_not_a_decision() -> None:
    assert "events" not in categories("我先看一下 service 层的代码，再决定从哪里改。", "assistant")


@pytest.mark.parametrize(
    ("text", "value", "role"),
    [
        (
            "Root cause: the wheel was built against glibc 2.35 while the Lambda runtime has 2.26. "
            "I rebuilt it in the manylinux2014 image and the import error is gone.",
            "manylinux2014",
            "assistant",
        ),
        (
            "That 413 came from the ingress rejecting bodies over 1m. I raised "
            "`proxy-body-size` to 20m and the uploads go through now.",
            "proxy-body-size",
            "assistant",
        ),
        (
            "消息重复消费的问题找到了，是 consumer 没有手动 ack，改成手动 ack 就好了",
            "手动 ack",
            "user",
        ),
        (
            "下载接口 502 是因为网关的 `proxy_buffer_size` 太小，响应头放不下。",
            "proxy_buffer_size",
            "user",
        ),
    ],
)
def test_more_diagnoses_are_cases(text: str, value: str, role: str) -> None:
    kept(text, "cases", value, role)


def test_an_assistant_noting_a_constraint_keeps_it() -> None:
    text = "Noted that the partner SDK still pins protobuf 3.20, so `protobuf<4` stays in the lock."
    found = capture(text, "assistant")
    assert any(c.category == "entities" and "protobuf" in c.text for c in found), found

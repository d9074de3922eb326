"""Capture: the classes blind batch b27 missed or kept wrongly, each tested on phrasings of our
own (not the batch's rows): a how-to under a heading ("Renewing the cert: …, then …",
"X goes like this: a, b, and c", 发版：先…再…, …的步骤：…，再…, 我们是这么处理的：先…事后…), a
route every item of a kind goes through, and, the other way, a progress report or a remark
shaped like a heading."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, value: str) -> None:
    assert any(c.category == category and value.lower() in c.text.lower() for c in found), [
        (c.category, c.text) for c in found
    ]


# --------------------------------------------------------------------------- how-to headings


@pytest.mark.parametrize(
    ("said", "role", "value"),
    [
        (
            "Rotating the API token: generate a new one with `bin/token mint`, store it in"
            " Vault under ci/deploy, then revoke the old one after the next green pipeline.",
            "assistant",
            "bin/token mint",
        ),
        (
            "Onboarding a tenant goes like this: create the org row, seed the defaults with"
            " `make seed-tenant`, and send the invite from the admin panel.",
            "assistant",
            "seed-tenant",
        ),
        (
            "发测试包：先在 Jenkins 上选 release 分支，再把产物传到蒲公英；最后在群里通知测试。",
            "assistant",
            "蒲公英",
        ),
        (
            "加一个新数据源的步骤：在 sources/ 下写适配器，到 loader.py 里登记，再补集成测试。",
            "assistant",
            "loader.py",
        ),
        (
            "数据库告警我们是这么处理的：先看慢查询日志，半小时内压不下来就扩容只读副本，事后补一份分析",
            "user",
            "慢查询",
        ),
    ],
)
def test_a_how_to_under_a_heading_is_a_workflow(said: str, role: str, value: str) -> None:
    previous = "ok" if role == "assistant" else None
    kept(capture(said, role, previous=previous), "patterns", value)


def test_a_route_every_item_of_a_kind_goes_through_is_a_workflow() -> None:
    said = "all deploys to prod go through the Spinnaker pipeline, no kubectl apply"
    kept(capture(said), "patterns", "Spinnaker")


@pytest.mark.parametrize(
    ("said", "role"),
    [
        # progress on the task at hand under a heading: narration, not a how-to
        ("Progress so far: I updated the parser, then reran the suite.", "assistant"),
        ("进展：先改了解析器，再重跑了测试。", "assistant"),
        ("问题：先别动 prod 的配置，再观察一下。", "user"),
    ],
)
def test_a_heading_over_progress_is_not_a_workflow(said: str, role: str) -> None:
    previous = "ok" if role == "assistant" else None
    found = capture(said, role, previous=previous)
    assert not any(c.category == "patterns" for c in found), [(c.category, c.text) for c in found]


# --------------------------------------------------------------------------- solved cases


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "The webhook calls were blocked by the WAF: its rule set flagged the JSON body as"
            " SQL. I added an exclusion for /hooks/stripe and the events arrive again.",
            "exclusion",
        ),
        (
            "Found why the worker pool never drained: the Redis connection was never closed."
            " Added `await redis.quit()` to the shutdown hook and the process exits again.",
            "redis.quit",
        ),
        (
            "The avatar uploads were blocked by the bucket policy: it only allowed the old role"
            " ARN. I added the new role to the policy and uploads work again.",
            "new role",
        ),
    ],
)
def test_a_cause_and_the_fix_that_made_it_work_again_is_a_case(said: str, value: str) -> None:
    kept(capture(said, "assistant", previous="any luck?"), "cases", value)


def test_a_correction_that_is_a_solved_case_stays_a_case() -> None:
    previous = "Could the crash come from the new ORM version?"
    said = (
        "no, it was the node image — it ships with a 2GB heap by default and the importer ran"
        " past it. raised --max-old-space-size in the Dockerfile and it's fine now"
    )
    found = capture(said, previous=previous)
    kept(found, "cases", "max-old-space-size")
    assert not any(c.category == "preferences" for c in found), [
        (c.category, c.text) for c in found
    ]


def test_a_lone_period_in_chinese_code_does_not_end_the_sentence() -> None:
    said = (
        "查到了，Makefile 里 cp -r . . 会把 build 目录也拷进去，所以包越来越大。"
        "改成只拷 src，现在包只有 3MB"
    )
    found = capture(said)
    kept(found, "cases", "build 目录")


@pytest.mark.parametrize(
    ("said", "role", "previous"),
    [
        # a symptom coming back is no fix
        ("let's see if the timeout comes up again after lunch", "user", None),
        # a retry about to happen is no fix
        ("The deploy failed on a flaky step; I'll run it again now.", "assistant", "status?"),
        ("The login page was blocked by the proxy and it still fails.", "assistant", "status?"),
    ],
)
def test_a_recurrence_or_a_retry_is_not_a_solved_case(
    said: str, role: str, previous: str | None
) -> None:
    found = capture(said, role, previous=previous)
    assert not any(c.category == "cases" for c in found), [(c.category, c.text) for c in found]


# --------------------------------------------------------------------------- preferences


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "in the shell scripts please keep env var names in uppercase, it's what I grep for",
            "uppercase",
        ),
        ("for the CSS class names please stick to lowercase with dashes", "lowercase"),
        ("when you hand me a cron expression, break it down field by field", "cron"),
        ("when you send me a diff, group it by file instead of one long blob", "by file"),
    ],
)
def test_how_the_user_wants_things_written_or_handed_over_is_a_preference(
    said: str, value: str
) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    "said",
    [
        "I renamed the uppercase constants in config.py earlier today",
        "the lowercase table names broke the ORM mapping on Tuesday",
    ],
)
def test_a_remark_about_letter_case_is_no_preference(said: str) -> None:
    found = capture(said)
    assert not any(c.category == "preferences" for c in found), [
        (c.category, c.text) for c in found
    ]


# --------------------------------------------------------------------------- profile


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("everything runs on my M2 Air, so no local GPU builds", "M2 Air"),
        ("my laptop has 16GB, so running the whole stack locally is fine", "16GB"),
        ("I can only get to this repo in the evenings, weekdays are the day job", "evenings"),
        ("我去年从 PHP 转 Rust，生命周期那块还在摸索", "Rust"),
        ("我一般周末才有空看 PR，平时回得慢", "周末"),
    ],
)
def test_the_users_machine_hours_and_move_between_languages_are_profile(
    said: str, value: str
) -> None:
    kept(capture(said), "profile", value)


@pytest.mark.parametrize(
    "said",
    [
        # the project's machines, not the user's
        "the build runs on a c6i.2xlarge with 16GB in CI",
        # someone else's move
        "他去年从 PHP 转 Rust 了",
    ],
)
def test_machines_and_moves_that_are_not_the_users_are_no_profile(said: str) -> None:
    found = capture(said)
    assert not any(c.category == "profile" for c in found), [(c.category, c.text) for c in found]


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "decision from the design review: uploads go straight to S3 with presigned URLs",
            "presigned",
        ),
        ("outcome of today's planning: the mobile app drops iOS 15 support in March", "iOS 15"),
        ("今天评审的结论：订单表按月分区，历史数据归档到 OSS", "按月分区"),
    ],
)
def test_what_a_meeting_settled_is_a_decision(said: str, value: str) -> None:
    kept(capture(said), "events", value)


def test_an_approval_repeating_the_proposals_verb_keeps_the_proposal() -> None:
    proposal = (
        "I'd recommend vendoring the protobuf definitions under proto/ so builds stop"
        " fetching them."
    )
    kept(capture("sure, vendor them", previous=proposal), "events", "proto/")


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        # the verb is not the proposal's: an order for the task at hand
        ("yep, delete it", "I'd suggest pinning the base image to node:20.14-bookworm-slim."),
        # no proposal at all
        ("ok, pin it", "The build took 4 minutes and the image is 1.2 GB."),
    ],
)
def test_a_bare_order_after_a_turn_is_no_approval(said: str, previous: str) -> None:
    found = capture(said, previous=previous)
    assert not any(c.category == "events" for c in found), [(c.category, c.text) for c in found]


# --------------------------------------------------------------------------- facts


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "The thumbnailer runs on the nodejs20.x runtime with 1024 MB, as declared in"
            " serverless.yml.",
            "nodejs20.x",
        ),
        (
            "Push notifications go out through OneSignal on the 'orders-app' channel; the API"
            " key is read from ONESIGNAL_KEY.",
            "OneSignal",
        ),
    ],
)
def test_a_fact_with_a_note_of_where_it_is_written_is_kept(said: str, value: str) -> None:
    kept(capture(said, "assistant", previous="where does that run?"), "entities", value)


@pytest.mark.parametrize(
    "said",
    [
        # only where a value is read or a symbol declared: code navigation
        "All API keys are read from the environment.",
        "The retry helper is declared in utils/retry.ts.",
    ],
)
def test_a_note_of_where_something_is_written_alone_is_no_fact(said: str) -> None:
    found = capture(said, "assistant", previous="where does that come from?")
    assert not any(c.category == "entities" for c in found), [(c.category, c.text) for c in found]

"""Capture, round 46, second part (decision 0057): the classes blind batch b40 showed, each
tested on phrasings of our own (not the batch's rows), both ways."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- a check's outcome


@pytest.mark.parametrize(
    "said",
    [
        "All 64 tests pass and CI is green.",
        "mypy is clean and all 301 tests pass on CI.",
        "CI 流水线是绿的，测试全部通过。",
    ],
)
def test_checks_passing_this_minute_are_no_fact(said: str) -> None:
    assert capture(said, role="assistant") == []


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("CI runs on the self-hosted runner ci-07, and the tests need Postgres 15 there.", "ci-07"),
        ("测试库在 CI 上用的是 postgres:15-alpine 镜像，端口 5433。", "5433"),
    ],
)
def test_what_ci_runs_on_stays_a_fact(said: str, value: str) -> None:
    kept(capture(said, role="assistant"), "entities", value)


# --------------------------------------------------------------------------- supposed futures


@pytest.mark.parametrize(
    "said",
    [
        "假如以后要接入集团统一支付，订单模块估计都得重写",
        "suppose we switch to Postgres one day, the reporting queries would all need rewriting",
    ],
)
def test_a_future_supposed_and_guessed_at_is_no_memory(said: str) -> None:
    assert capture(said) == []


@pytest.mark.parametrize(
    ("said", "category", "value"),
    [
        ("if the build fails, always ping me on slack before retrying", "patterns", "slack"),
        ("如果以后要加字段，一律先写迁移脚本，别直接改库", "preferences", "迁移脚本"),
    ],
)
def test_a_condition_with_a_rule_stays(said: str, category: str, value: str) -> None:
    kept(capture(said), category, value)


# --------------------------------------------------------------------------- someone else's view


def test_someone_elses_push_the_user_does_not_take_up_is_no_memory() -> None:
    said = "our CTO keeps pushing for GraphQL everywhere. I'm not convinced, nothing's been agreed"
    assert capture(said) == []


def test_someone_elses_rule_reported_as_holding_stays() -> None:
    kept(capture("my manager says all invoices go through Xero from now on"), "preferences", "Xero")


# --------------------------------------------------------------------------- the system's regime


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "Some background: our platform stores council tenants' records, so nothing may leave "
            "the county's network, which means no cloud APIs and no SaaS error trackers.",
            "no cloud APIs",
        ),
        (
            "先说明：这套系统跑在医院内网，等保二级，npm 包必须走内网 Verdaccio 源，不能直连外网。",
            "等保二级",
        ),
    ],
)
def test_the_regime_the_users_system_runs_under_is_a_profile(said: str, value: str) -> None:
    found = capture(said)
    kept(found, "profile", value)
    none_of(found, "entities")


def test_a_ci_jobs_isolation_stays_a_fact() -> None:
    said = "The CI job is air-gapped, so the Docker images are pulled from registry.internal:5000."
    found = capture(said)
    kept(found, "entities", "registry.internal:5000")
    none_of(found, "profile")


# --------------------------------------------------------------------------- a guarded layout


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "backups run on the old nas in the hall closet, share name 'vault', every sunday at "
            "3am. dont mess with its cron pls",
            "vault",
        ),
        (
            "收银数据导出在 D:/pos/export 下面，按日期一个文件，这个目录千万别乱动 会计每月要来拷",
            "D:/pos/export",
        ),
    ],
)
def test_a_layout_closed_by_a_casual_caution_is_a_fact(said: str, value: str) -> None:
    found = capture(said)
    kept(found, "entities", value)
    none_of(found, "preferences")


@pytest.mark.parametrize(
    ("said", "value"), [("don't mess with the crontab pls", "crontab"), ("路径千万别乱改", "路径")]
)
def test_a_caution_with_nothing_before_it_stays_a_rule(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


# --------------------------------------------------------------------------- findings


def test_a_finding_announced_alone_is_no_case_of_its_own() -> None:
    found = capture(
        "Found it. The invoice totals were off by one cent because the tax was rounded per line "
        "instead of per invoice. Rounding now happens once on the total.",
        role="assistant",
        previous="why are some invoice totals one cent off??",
    )
    assert [c.text for c in found if c.category == "cases"] != []
    assert all(c.text.strip() != "Found it." for c in found), [c.text for c in found]


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "查到了：仓库的温控器是 Inkbird ITC-308，通过 mqtt 桥接，主题是 farm/cold/1；"
            "报警阈值配在 alerts/cold.yaml 里，是 8℃。",
            "冷库的温控器现在是怎么接的？阈值在哪配？",
            "farm/cold/1",
        ),
        (
            "Found it: the sensor ids are mapped in config/sensors.toml, and the poll interval is "
            "30 s.",
            "where do the sensor ids come from?",
            "config/sensors.toml",
        ),
    ],
)
def test_what_was_looked_up_where_or_how_is_a_fact(said: str, previous: str, value: str) -> None:
    found = capture(said, role="assistant", previous=previous)
    kept(found, "entities", value)
    none_of(found, "cases")


def test_a_finding_after_a_fault_stays_a_case() -> None:
    found = capture(
        "Found it: the worker was pointing at the staging queue jobs-stg.",
        role="assistant",
        previous="why are the emails not going out?",
    )
    kept(found, "cases", "jobs-stg")


# --------------------------------------------------------------------------- a routine's steps


def test_a_routine_named_then_three_clauses_that_do_something_is_a_workflow() -> None:
    said = "门店交班是这样的：当班店员点完零钱交给下一班，交接本上签字，保险柜钥匙锁进抽屉"
    kept(capture(said), "patterns", "交接本")


@pytest.mark.parametrize(
    "said",
    [
        "我们的时间是这样的：早班 8 点，中班 14 点，晚班 20 点",
        "价格是这样的：成人 30，儿童 15，老人免费",
    ],
)
def test_times_or_prices_after_the_lead_are_no_workflow(said: str) -> None:
    none_of(capture(said), "patterns")

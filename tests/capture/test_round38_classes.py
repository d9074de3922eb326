"""Capture, round 38: the classes the test split still missed or kept wrongly, each tested on
phrasings of our own (not the set's rows): a workflow the assistant sets down for later, a
change to a new named state reported done, a cause followed by the speaker's change (or
announced as a finding first), and, the other way, an assistant's promise to remember a step."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, *values: str) -> None:
    assert any(
        c.category == category and all(v.lower() in c.text.lower() for v in values) for c in found
    ), [(c.category, c.rule, c.text) for c in found]


# --------------------------------------------------------------------------- workflows


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "For next time: the integration tests need Redis up first — `make redis`, then "
            "`pytest -m integration`.",
            ("make redis", "pytest -m integration"),
        ),
        (
            "What works for rebuilding the docs here: `make clean`, then `sphinx-build -W docs "
            "build`, then upload build/ to the bucket.",
            ("make clean", "sphinx-build"),
        ),
        (
            "For future releases the safe order is: tag on main, wait for the wheels job, then "
            "publish from CI.",
            ("tag on main", "publish"),
        ),
        (
            "I've set up the flow you asked for: every new endpoint gets an OpenAPI entry, then a "
            "contract test, then the handler.",
            ("OpenAPI", "contract test"),
        ),
        (
            "以后这个项目发版的步骤：先跑 make check，再打 tag，最后在 CI 里点发布。",
            ("make check", "tag"),
        ),
        ("总结一下这次的排查方法：先看慢日志，再用 EXPLAIN 看执行计划。", ("慢日志", "EXPLAIN")),
        (
            "以后 yarn 再报 integrity 校验失败，先清 ~/.yarn/cache 再重装，不要直接删 yarn.lock。",
            ("yarn/cache",),
        ),
    ],
)
def test_a_procedure_set_down_for_later_is_a_workflow(said: str, values: tuple[str, ...]) -> None:
    kept(capture(said, "assistant", previous="ok"), "patterns", *values)


@pytest.mark.parametrize(
    "said",
    [
        "好的，我下次会记得先跑 lint 再提交。",
        "收到，下次我会注意先备份再迁移。",
        "I'll remember to run the formatter, then the linter, before I hand anything back.",
    ],
)
def test_an_assistants_promise_to_remember_a_step_is_no_memory(said: str) -> None:
    assert capture(said, "assistant", previous="ok") == []


def test_a_fact_the_assistant_will_remember_is_still_kept() -> None:
    kept(capture("I'll remember that staging uses port 8443.", "assistant"), "entities", "8443")


# --------------------------------------------------------------------------- changes done


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "Done: renamed the orders.total column to amount_cents in migration 0112 and updated "
            "the two reports that read it.",
            "amount_cents",
        ),
        (
            "Done: migrated the cron jobs from crontab to systemd timers and deleted the old "
            "scripts.",
            "systemd timers",
        ),
        ("Pinned numpy to 1.26.x in requirements.txt so the 2.0 ABI change can't hit us.", "1.26"),
        (
            "Done. Per your call, the old /export route is read-only now and new callers go to "
            "/exports.",
            "read-only",
        ),
    ],
)
def test_a_change_to_a_new_named_state_reported_done_is_a_decision(said: str, value: str) -> None:
    kept(capture(said, "assistant", previous="ok"), "events", value)


@pytest.mark.parametrize(
    "said",
    [
        "Done: I renamed the helper to parse_rows.",
        "I renamed the helper to parse_rows and updated the imports.",
        "Upgraded the function signature to accept a list.",
    ],
)
def test_an_edit_to_code_stays_narration(said: str) -> None:
    assert [c for c in capture(said, "assistant") if c.category == "events"] == []


# --------------------------------------------------------------------------- solved cases


@pytest.mark.parametrize(
    ("said", "previous", "values"),
    [
        (
            "The nightly export ran twice because both cron hosts had the job enabled. I disabled "
            "it on cron-b and kept cron-a as the only scheduler.",
            "ok",
            ("ran twice", "cron-b"),
        ),
        (
            "Found it. The worker leaked file handles on every retry. I wrapped the client in a "
            "context manager.",
            "ok",
            ("leaked file handles", "context manager"),
        ),
        (
            "查到了：登录偶尔失败是 token 刷新和请求并发，旧 token 被作废了。"
            "已经在拦截器里加了刷新锁，并发请求会等新 token。",
            "ok",
            ("token", "刷新锁"),
        ),
        (
            "It's the weekly partition job: it drops last week's partition before the new one is "
            "loaded. I moved the drop to run after the load finishes.",
            "why is the dashboard empty on Mondays?",
            ("partition", "after the load"),
        ),
    ],
)
def test_a_cause_then_the_speakers_change_is_one_case(
    said: str, previous: str, values: tuple[str, ...]
) -> None:
    kept(capture(said, "assistant", previous=previous), "cases", *values)


def test_a_finding_announced_first_makes_what_follows_a_case() -> None:
    said = (
        "figured out the flaky upload test!! the fixture shared one temp dir across workers. "
        "switched it to tmp_path and it passes 100 runs in a row"
    )
    kept(capture(said), "cases", "temp dir", "tmp_path")


def test_a_reason_for_the_speakers_own_choice_is_no_case() -> None:
    said = "I chose Postgres because the team knows it. I set up the schema in db/schema.sql."
    assert [c for c in capture(said, "assistant") if c.category == "cases"] == []

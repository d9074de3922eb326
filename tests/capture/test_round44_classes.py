"""Capture, round 44: the classes blind batch b36 showed, each tested on phrasings of our own
(not the batch's rows), both ways: a rule's memory and the sentence the model reads as more of
it, a self-introduction (an occupation "here", what the user is not, a job at its workplace, the
business the user runs, when the user can work on it) kept as one profile."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- one memory, not two


@pytest.mark.parametrize(
    ("said", "role", "category", "values"),
    [
        (
            "Done: the nightly export now writes Parquet instead of CSV, since the warehouse team "
            "loads it with DuckDB. The export.py job finishes in 40 s and the files are a fifth "
            "of the size.",
            "assistant",
            "events",
            ("Parquet", "40 s"),
        ),
        (
            "定了，对账从每周一次改成每天一次。"
            "银行每天凌晨 3 点推 statement.csv，月底一次核几千笔根本来不及",
            "user",
            "events",
            ("每天一次", "statement.csv"),
        ),
    ],
)
def test_a_sentence_the_model_reads_as_the_rules_memory_joins_it(
    said: str, role: str, category: str, values: tuple[str, ...]
) -> None:
    found = capture(said, role=role)
    kept(found, category, *values)
    assert len([c for c in found if c.category == category]) == 1, found


def test_a_fact_of_another_kind_beside_a_decision_stays_its_own() -> None:
    found = capture(
        "定了，对账从每周一次改成每天一次。对账脚本在 scripts/reconcile.py 里，跑一次大概两分钟"
    )
    kept(found, "events", "每天一次")
    assert not any("reconcile.py" in c.text and c.category == "events" for c in found), found


# --------------------------------------------------------------------------- who the user is


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("soil scientist here, the lab's sample tracker is my side project", "soil scientist"),
        ("Retired electrician here. My grandson set this repo up for me.", "electrician"),
        ("I'm not a coder, I just keep the Raspberry Pi running", "not a coder"),
        (
            "I run the front desk at a dental clinic and keep the recall list app going",
            "front desk",
        ),
        ("I manage the stockroom at a garden centre, the tablet app is mine", "stockroom"),
        ("我是开面馆的。点餐小程序的后台在 admin.php 里，数据库是 MySQL 5.7", "开面馆"),
        ("我在菜市场卖鱼，不是程序员，你说的命令我都得照着抄", "不是程序员"),
    ],
)
def test_a_self_introduction_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


@pytest.mark.parametrize(
    "said",
    [
        "the admin here can't log in since this morning",
        "我是开玩笑的，别当真",
        "我觉得这段代码不是程序员写的，像是工具生成的",
        "it's not a dev dependency, move it to dependencies",
    ],
)
def test_look_alikes_of_a_self_introduction_are_no_profile(said: str) -> None:
    none_of(capture(said), "profile")


def test_a_thing_done_at_an_hour_is_no_job_at_a_workplace() -> None:
    found = capture("I run the backups at a quiet hour so nobody notices")
    assert not [c for c in found if c.rule == "profile.role"], found


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I only get to it on saturday mornings, so keep each change small", "saturday mornings"),
        ("白天要上班，代码只能晚上十一点以后弄", "晚上十一点以后"),
    ],
)
def test_when_the_user_can_work_on_it_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_when_a_job_runs_is_no_profile() -> None:
    none_of(capture("备份只能晚上十一点以后跑，白天库太忙"), "profile")


def test_a_self_introduction_over_sentences_is_one_profile() -> None:
    found = capture(
        "I'm a pharmacist at a county hospital. I only get to it in the evenings, so keep "
        "changes small."
    )
    kept(found, "profile", "pharmacist", "evenings")
    assert len([c for c in found if c.category == "profile"]) == 1, found


# --------------------------------------------------------------------------- routines on a calendar


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "first monday of every month, same drill: rotate the API keys, update the vault "
            "entry, and ping #ops",
            "rotate the API keys",
        ),
        (
            "Friday close-out, each week: reconcile the till export, flag the gaps for Sam, "
            "then freeze the ledger",
            "freeze the ledger",
        ),
        ("每天早上先看一眼 Grafana，报警多的话把截图发群里", "Grafana"),
    ],
)
def test_a_routine_named_by_when_it_recurs_is_a_workflow(said: str, value: str) -> None:
    kept(capture(said), "patterns", value)


def test_a_routine_restated_by_the_assistant_stays_a_workflow() -> None:
    found = capture(
        "好的，以后每周一早上先跑 returns_report.py，把上周的退货汇总统一发到仓库群。",
        role="assistant",
        previous="每周一早上都要把上周的退货单汇总一下，发给仓库",
    )
    kept(found, "patterns", "returns_report.py")
    none_of(found, "events")


@pytest.mark.parametrize(
    "said",
    [
        "every week: same story, the build breaks and nobody knows why",
        "each morning: nothing but meetings, standups, and more meetings",
        "every week: who runs the backup, you or me?",
    ],
)
def test_a_recurring_complaint_is_no_workflow(said: str) -> None:
    none_of(capture(said), "patterns")


# --------------------------------------------------------------------------- no decision: asking


def test_a_someday_question_not_done_yet_is_no_decision() -> None:
    found = capture("如果以后要支持外卖，订单表是不是要加字段？先不做，只是问问")
    none_of(found, "events")


def test_a_decision_beside_it_is_still_one() -> None:
    kept(capture("定了，对账从每周一次改成每天一次。"), "events", "每天一次")


# --------------------------------------------------------------------------- what a reader sees


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "anything customers receive by email should show prices with VAT included, the "
            "accountant insists",
            "VAT",
        ),
        (
            "everything the drivers open on their phones has to stay under 100 KB, rural signal "
            "is awful",
            "100 KB",
        ),
    ],
)
def test_what_everything_a_reader_sees_must_look_like_is_a_preference(
    said: str, value: str
) -> None:
    kept(capture(said), "preferences", value)


def test_what_a_reader_sees_said_as_a_fact_is_no_preference() -> None:
    none_of(capture("anything members see is cached for 5 minutes in redis"), "preferences")


# --------------------------------------------------------------------------- undone, with a rule


@pytest.mark.parametrize(
    ("plan", "said", "value"),
    [
        (
            "I've added console.log lines to every reducer in store/.",
            "no, take the console.log lines back out unless they sit behind the DEBUG flag",
            "DEBUG flag",
        ),
        (
            "I've added a retry around every HTTP call in services/.",
            "nope, rip the retries back out except for the payment calls. the queue already "
            "retries",
            "payment calls",
        ),
    ],
)
def test_the_agents_work_undone_under_a_condition_is_a_preference(
    plan: str, said: str, value: str
) -> None:
    kept(capture(said, previous=plan), "preferences", value)


def test_the_agents_work_undone_once_is_no_preference() -> None:
    found = capture(
        "no, take the banner back out. the promo ended yesterday",
        previous="I've added the promo banner to the checkout page.",
    )
    none_of(found, "preferences")

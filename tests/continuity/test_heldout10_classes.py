"""The failure classes the tenth blind held-out set found (eval/continuity/e2e-heldout10,
eval/RESULTS.md), each tested on variants of its own, both ways: pasted output introduced
without a colon, a team's choice kept in its project, a labelled fix after a finding, decisions
without a subject, values declared old or gone, and an address moved to another bucket."""

from __future__ import annotations

import pytest
from test_heldout2_classes import PROJECT, captures
from test_heldout7_classes import kept, remembered

from recallnest.capture.salience import strip_noise
from recallnest.continuity.checkpoint_rules import drop_log_lines

# --------------------------------------------------------------------------- pasted output

DEPLOY_LOG = (
    "deploy output fyi\n"
    "Starting rollout to fleet-7\n"
    "2026-03-04 11:02:17 INFO host web-03 updated\n"
    "Hosts updated: 9\n"
    "Total time: 00:04:11"
)
ZH_LOG = (
    "日志如下\n"
    "[worker-2] 2026-03-04 11:02:17 WARN retry 3/5 for job 8812\n"
    "Jobs failed: 4\n"
    "Peak memory: 812.5 MB"
)


@pytest.mark.parametrize("pasted", [DEPLOY_LOG, ZH_LOG])
def test_output_introduced_without_a_colon_is_one_block(pasted: str) -> None:
    prose, _ = strip_noise(pasted)
    assert prose == pasted.splitlines()[0], prose
    assert captures(pasted) == []


def test_the_bare_intro_goes_with_its_output_from_the_checkpoint() -> None:
    assert drop_log_lines(DEPLOY_LOG).strip() == ""
    assert drop_log_lines(ZH_LOG).strip() == ""


def test_a_short_line_about_logs_with_no_output_after_it_stays() -> None:
    said = "ship the audit logs to loki\nthe retention is 30 days there"
    assert strip_noise(said)[0] == said
    assert drop_log_lines(said) == said


# --------------------------------------------------------------------------- scope


@pytest.mark.parametrize(
    "said",
    [
        "the printer can't do PETG reliably, so we go with PLA instead of PETG",
        "the board has no FPU, so we use fixed-point math instead of floats",
        "timestamps: we go with UTC everywhere, the cron host reads ops/cron.yaml",
    ],
)
def test_a_teams_choice_stays_in_its_project(said: str) -> None:
    found = captures(said)
    assert found and all(c.scope == PROJECT for c in found), [(c.scope, c.text) for c in found]


@pytest.mark.parametrize(
    "said",
    [
        "I prefer PLA instead of PETG for my own prints",
        "for all my projects we go with pnpm instead of npm",
    ],
)
def test_a_personal_or_every_project_choice_stays_global(said: str) -> None:
    found = captures(said)
    assert found and all(c.scope == "global" for c in found), [(c.scope, c.text) for c in found]


# --------------------------------------------------------------------------- cases


@pytest.mark.parametrize(
    ("said", "fix"),
    [
        (
            "Confirmed it's the ORM identity map. Fix: call session.expire_all() after the "
            "bulk update.",
            "expire_all",
        ),
        ("看了日志，worker 每处理 5000 条就被 OOM kill。修复：分批读取，每批 500 条。", "分批读取"),
    ],
)
def test_a_labelled_fix_after_a_finding_makes_one_case(said: str, fix: str) -> None:
    found = captures("the export hangs after a while", said)
    cases = [c for c in found if c.category == "cases"]
    assert cases and fix in cases[0].text, [(c.category, c.text) for c in found]


@pytest.mark.parametrize(
    "said",
    [
        "Found the culprit: the CDN cached the 404 page for an hour.",
        "定位到问题了：定时任务用的是服务器本地时区，夏令时切换那天跑了两次。",
    ],
)
def test_found_it_opens_a_diagnosis(said: str) -> None:
    assert [c.category for c in captures("why did it run twice", said)] == ["cases"]


# --------------------------------------------------------------------------- decisions


@pytest.mark.parametrize(
    ("said", "why"),
    [
        (
            "release cadence is a mess. going with a release every tuesday, qa only works mon-wed",
            "qa only",
        ),
        ("部署窗口定一下：每周四晚上 10 点以后。原因是白天有门店在用收银系统", "门店"),
    ],
)
def test_a_decision_without_a_subject_is_kept_with_its_reason(said: str, why: str) -> None:
    found = captures(said)
    assert [c.category for c in found] == ["events"] and why in found[0].text, found


@pytest.mark.parametrize("said", ["going to grab lunch, back in 20", "going with the flow today"])
def test_going_somewhere_is_no_decision(said: str) -> None:
    assert not [c for c in captures(said) if c.category == "events"]


# --------------------------------------------------------------------------- values declared gone


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            ("Added a CI step that restores build/.cache before the compile job.",),
            (
                "wait, build/.cache is the old location, Priya moved things last week. the "
                "cache sits under .turbo/cache now",
            ),
            "restores build/.cache",
            ".turbo/cache",
        ),
        (
            ("发票数据每天从金蝶导出一次，脚本在 scripts/export_invoices.py",),
            ("金蝶已经停用了，现在发票改从用友 API 拉",),
            "从金蝶导出",
            "用友",
        ),
    ],
)
def test_a_value_declared_old_or_gone_retires_the_facts_stating_it(
    first: tuple[str, ...], later: tuple[str, ...], old: str, new: str
) -> None:
    got = kept(first, later)
    assert old not in got and new in got, got


def test_a_value_declared_gone_leaves_facts_about_other_things() -> None:
    got = kept(
        ("发票数据每天从金蝶导出一次", "报表服务跑在 10.2.0.8 上，端口 8443"),
        ("金蝶已经停用了，现在发票改从用友 API 拉",),
    )
    assert "10.2.0.8" in got and "从金蝶导出" not in got, got


# --------------------------------------------------------------------------- moved address


def test_a_new_bucket_retires_every_fact_giving_the_old_one() -> None:
    got = kept(
        (
            "nightly dumps land in gs://acme-dumps-old/nightly. we keep 30 days of history "
            "because compliance audits ask for a month",
            "The backup CronJob now writes to gs://acme-dumps-old/nightly.",
        ),
        ("infra moved our storage: nightly dumps land in gs://acme-archive/nightly now",),
    )
    assert "acme-dumps-old" not in got and "acme-archive" in got, got
    assert "30 days of history" in got, got  # what the old fact said besides survives


def test_a_url_of_another_kind_is_not_moved() -> None:
    got = kept(
        ("the status page is https://status.acme.dev and alerts go to #ops-alerts",),
        ("nightly dumps land in gs://acme-archive/nightly now",),
    )
    assert "status.acme.dev" in got, got


def test_no_fragment_survives_a_correction() -> None:
    got = remembered(
        ("ok so levels live in data/lvl, one file each. the editor needs to load and save them",),
        ("data/lvl is the old layout, levels are in assets/stages now",),
    )
    assert not [m.text for m in got if m.text.endswith("them")], [m.text for m in got]

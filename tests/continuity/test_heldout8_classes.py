"""The failure classes the eighth blind held-out set found (eval/continuity/e2e-heldout8,
eval/RESULTS.md), each tested on variants of its own, both ways: withdrawals in more words,
what a withdrawn memory said besides the withdrawn thing, one sentence holding a rule for every
project and one for this project, and more shapes of pasted output."""

from __future__ import annotations

import pytest
from test_heldout2_classes import PROJECT, captures
from test_heldout7_classes import kept

from recallnest.capture.chatter import is_pasted_line
from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import GLOBAL_SCOPE, Turn

# --------------------------------------------------------------------------- withdrawals


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "Load tests run against the perf cluster at perf.acme-internal.net, ask Dana.",
            "Forget everything I told you about the perf cluster, we decommissioned it, it's not "
            "running anymore. Load tests now run in k6 cloud, project acme-load.",
            "perf.acme-internal.net",
            "k6 cloud",
        ),
        (
            "报表导出走的是 Metabase，地址 bi.corp.lan，每周一自动发邮件。",
            "之前跟你说报表走 Metabase 那个不对了，已经换成 Superset 了，地址 superset.corp.lan。",
            "bi.corp.lan",
            "superset.corp.lan",
        ),
    ],
)
def test_a_withdrawal_in_more_words_retires_the_old_fact(
    first: str, later: str, old: str, new: str
) -> None:
    got = kept((first,), (later,))
    assert new in got and old not in got, got


def test_saying_what_i_said_earlier_withdraws_nothing() -> None:
    assert not any("correcting" in c.text for c in captures("之前说要用 pnpm，这个保持。"))


def test_a_withdrawal_keeps_what_the_old_memory_said_about_something_else() -> None:
    got = kept(
        ("背景：安装包都放在 MinIO 的 builds 桶里，签名用 minisign，公钥在 keys/ 目录。",),
        ("之前跟你说安装包放 MinIO 那个不对了，已经迁到 S3，桶叫 acme-builds。",),
    )
    assert "acme-builds" in got and "minisign" in got and "MinIO 的 builds" not in got, got


def test_a_withdrawal_of_the_whole_rule_keeps_nothing_of_it() -> None:
    got = kept(
        ("这个项目训练固定用 8 张 H100，batch size 2048，别乱改",),
        ("之前说的固定 8 卡那条作废，现在只有 4 张 A10，batch size 你按显存自己调",),
    )
    assert "2048" not in got and "A10" in got, got


# --------------------------------------------------------------------------- scope per clause


def test_a_rule_for_every_project_and_one_for_this_project_are_two_memories() -> None:
    reply = Turn(
        agent="claude",
        session_id="s",
        role="assistant",
        text="明白：所有项目的提交信息用英文；billing-api 的 go test 一律加 -race。",
        timestamp=None,
        path="p",
        record_id="r1",
        offset=1,
    )
    got = {c.text: c.scope for c in capture_turn(reply, None, project=PROJECT)}
    race = [scope for text, scope in got.items() if "-race" in text]
    english = [scope for text, scope in got.items() if "英文" in text]
    assert race == [PROJECT] and english == [GLOBAL_SCOPE], got


def test_a_semicolon_inside_one_scope_keeps_the_sentence_whole() -> None:
    said = "in all my repos: tabs for Go; spaces for Python"
    got = captures(said)
    assert len(got) == 1 and "spaces for Python" in got[0].text, got


# --------------------------------------------------------------------------- pasted output


@pytest.mark.parametrize(
    "line",
    [
        "24/11/02 07:01:09 INFO DAGScheduler: Job 4 finished",
        "03.11.2025 14:22:10 ERROR [main] Pool exhausted",
        "Runtime Error: [ E0042 ] buffer overrun at index 9",
        "glDrawElements(): invalid enum",
        "handle = 0x7ffd1c2b9a40, refcount = 2",
        "iter 400 lr=0.0003 loss=1.882 grad_norm=0.91",
    ],
)
def test_more_shapes_of_output_are_pasted(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "We keep max_conns=50, pool=10 and idle=5 in prod",
        "The release is on 24/11/02 if QA signs off",
        "Error handling lives in src/errors.rs",
    ],
)
def test_prose_with_settings_or_dates_is_not_pasted(line: str) -> None:
    assert not is_pasted_line(line)


def test_a_remainder_never_keeps_the_withdrawn_product_inside_a_path() -> None:
    got = kept(
        ("Email goes out through Mailgun; the bounce hook is /hooks/mailgun and it is signed.",),
        ("Scratch what I said about Mailgun: we moved to Postmark, hooks at /hooks/postmark.",),
    )
    assert "/hooks/mailgun" not in got and "Postmark" in got, got

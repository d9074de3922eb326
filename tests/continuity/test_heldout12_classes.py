"""The failure classes the twelfth blind held-out set found (eval/continuity/e2e-heldout12,
docs/decisions/0037), each tested on variants of our own, both ways: a lower-case statement
followed by a paste opener on the same line, Ruby test-runner output, and a setting changed
to a new value, said in Chinese by the user or reported done by the agent, which must retire
the memory holding the old value; and a global memory that this project has since given
another value. The switch "from X to Y" is tested with the other switches, in
test_heldout11_classes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest
from test_heldout2_classes import PROJECT, T0, captures
from test_heldout11_classes import project_facts

from recallnest.capture.admission import Admitter
from recallnest.capture.chatter import is_pasted_line
from recallnest.continuity.compose import ResumeInputs, compose_context
from recallnest.core.models import GLOBAL_SCOPE, Capture, Memory

DAY = timedelta(days=1)


# --------------------------------------------------------------------------- paste openers


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "moved the staging redis to the new box, it answers on 6380 now and the old box is"
            " off. compose file if you want it:\n\nservices:\n  cache:\n    image: redis:7",
            "6380",
        ),
        (
            "the plotter is an AxiDraw V3 on /dev/ttyACM0 at 115200 baud. my settings file so"
            " the pen heights match:\n\npen_up=60\npen_down=30",
            "AxiDraw",
        ),
    ],
)
def test_a_statement_before_a_paste_opener_is_kept(said: str, kept: str) -> None:
    found = captures(said, "Noted.")
    assert any(kept in c.text for c in found), found
    assert not any(c.text.rstrip().endswith(":") for c in found), found


# --------------------------------------------------------------------------- Ruby test output


@pytest.mark.parametrize(
    "line",
    [
        "Finished in 0.42 seconds (files took 1.1 seconds to load)",
        "12 examples, 2 failures",
        "3 examples, 0 failures, 1 pending",
        "rspec ./spec/services/invoice_total_spec.rb:31 # InvoiceTotal adds VAT",
        "Failures:",
        "Failed examples:",
        "     Failure/Error: expect(total).to eq(119)",
        "     # ./spec/services/invoice_total_spec.rb:33:in `block (2 levels) in <top (required)>'",
        "Finished in 0.031s, 193.5 runs/s, 387.1 assertions/s.",
        "6 runs, 12 assertions, 1 failures, 0 errors, 0 skips",
    ],
)
def test_ruby_test_runner_lines_are_pasted_output(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "Finished the invoice export, it writes one row per line item.",
        "We run rspec in CI on every push.",
        "The spec for totals lives in spec/services.",
    ],
)
def test_prose_about_tests_is_not_pasted_output(line: str) -> None:
    assert not is_pasted_line(line)


# --------------------------------------------------------------------------- settings changed


def admitted(old: Sequence[str], new: Sequence[str]) -> str:
    """Capture `new` (one session: user, agent, …) a day after the project facts `old` and
    admit what it yields; the active texts."""
    held = project_facts(old)
    admitter = Admitter(lambda c: list(held.values()))
    for cap in captures(*new):
        admitter.admit(cap, T0 + DAY, "test")
        held.update(admitter.pending)
    return " | ".join(m.text for m in held.values() if m.status == "active")


@pytest.mark.parametrize(
    ("old", "new", "stale", "fresh"),
    [
        (
            "已加 MAX_UPLOAD_MB = 8，超过就在前端提示压缩。",
            ["上传上限放宽一点，运营说图太糊了", "已把 MAX_UPLOAD_MB 改成 20，前端提示同步改了。"],
            "= 8",
            "20",
        ),
        (
            "Worker 按 batch_size = 50 拉取任务，失败的进死信队列。",
            ["批量大一点", "batch_size 已改成 200，压测下来吞吐翻倍；死信逻辑没动。"],
            "= 50",
            "200",
        ),
        (
            "Added MAX_UPLOAD_MB = 8; the form warns before sending anything larger.",
            [
                "raise the upload cap please",
                "MAX_UPLOAD_MB is now 20; the form's hint says 20 too.",
            ],
            "= 8",
            "20",
        ),
        (
            "Added RESERVE_TTL = 30 min in app/reserve.py; a sweeper frees expired seats.",
            ["shorter reservations", "RESERVE_TTL is 12 minutes now; the banner reads it too."],
            "= 30",
            "12 minutes",
        ),
        (
            "加了清理任务：下单 20 分钟后未支付的订单自动取消，库存放回。",
            ["清理时间也改一下，45 分钟，付款的人老是来不及", "清理时间已改成下单后 45 分钟。"],
            "20 分钟",
            "45 分钟",
        ),
        (
            "The worker pulls jobs with batch_size = 50 and parks failures in a dead-letter queue.",
            ["bigger batches", "Changed batch_size to 200; throughput doubled in the load test."],
            "= 50",
            "200",
        ),
    ],
)
def test_a_setting_reported_changed_retires_its_old_value(
    old: str, new: list[str], stale: str, fresh: str
) -> None:
    text = admitted([old], new)
    assert stale not in text, text
    assert fresh in text, text


@pytest.mark.parametrize(
    ("said", "setting"),
    [
        ("对了，订单超时改成 45 分钟吧，客户反映付款来不及", "订单超时改成 45"),
        ("积分倍率改成 3 倍，老客户嫌力度太小", "积分倍率改成 3"),
        ("那就把重试次数改成 5 次，网络太差了", "重试次数改成 5"),
        ("make the order timeout 45 minutes, customers can't pay in time", "45 minutes"),
        ("bump the upload limit to 20 MB, ops says the photos are too blurry", "20 MB"),
        ("holds: make them 12 minutes. people kept the seats while hunting for a card", "12 min"),
        # round 39 (e2e-heldout13): the setting named, then its number; done, words between
        ("轮询间隔也调一下，15 秒。现在这个太慢了", "15 秒"),
        ("会话超时改一下，90 分钟，用户老被踢出去", "90 分钟"),
    ],
)
def test_a_setting_changed_to_a_number_is_captured(said: str, setting: str) -> None:
    found = captures(said, "好的。")
    assert any(setting in c.text for c in found), found


@pytest.mark.parametrize(
    "said",
    [
        "改成 3 个以后试试看？",
        "我把变量名改成了 total_cents",
        "文档里的例子改成 5 个吧",
        "把依赖版本改成 3.11.2，再跑一遍测试",
        "set the counter to 0 before the loop and rerun it",
        "make the example list 5 items long",
        "文档也改一下，3 个例子就够",
        "标题已改成首页顶部 2 行",
    ],
)
def test_no_setting_change_without_a_setting(said: str) -> None:
    found = captures(said, "好的。")
    assert not any(word in c.text for word in ("改成", " to 0", "5 items") for c in found), found


# --------------------------------------------------------------------------- switch from X to Y


# --------------------------------------------------------------------------- global vs project


def resume(*memories: Memory) -> str:
    inputs = ResumeInputs(PROJECT, "claude", "startup", T0 + 3 * DAY, memories=memories)
    return compose_context(inputs).text


def remembered(text: str, scope: str, category: str, days: int) -> Memory:
    cap = Capture(category, text, 0.7, 0.8, "test", scope=scope)
    return Admitter._new(cap, T0 + days * DAY, "test")


@pytest.mark.parametrize(
    ("stale", "newer"),
    [
        (
            "a cart reservation lasts 30 minutes, then the seats go back on sale",
            "RESERVATION_TTL is 20 minutes now; the banner counts down from it",
        ),
        ("老用户续费一律打 8 折，团购的也一样", "续费折扣改成 85 折，财务说毛利撑不住"),
    ],
)
def test_a_global_memory_this_project_gave_a_new_value_is_left_out_here(
    stale: str, newer: str
) -> None:
    text = resume(
        remembered(stale, GLOBAL_SCOPE, "preferences", 0),
        remembered(newer, PROJECT, "entities", 1),
    )
    assert stale not in text and newer in text, text


@pytest.mark.parametrize(
    ("kept", "newer"),
    [
        # Another thing in the same unit: no shared word but the unit.
        ("keep pre-commit hooks under 10 s", "the nightly export takes 40 s now"),
        # The project's value is the older one: the global memory is what holds now.
        ("a cart reservation lasts 30 minutes", "RESERVATION_TTL is 20 minutes"),
    ],
)
def test_a_global_memory_stays_when_nothing_newer_here_replaces_it(kept: str, newer: str) -> None:
    older = newer.endswith("minutes")
    text = resume(
        remembered(kept, GLOBAL_SCOPE, "preferences", 1 if older else 0),
        remembered(newer, PROJECT, "entities", 0 if older else 1),
    )
    assert kept in text, text

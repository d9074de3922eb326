"""The failure classes the ninth blind held-out set found (eval/continuity/e2e-heldout9,
eval/RESULTS.md), each tested on variants of its own, both ways: withdrawals with nothing in
their place, more ways of saying one in Chinese, copies of a withdrawn statement, and pasted
output taken as a block."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures
from test_heldout7_classes import kept, remembered

from recallnest.capture.chatter import is_pasted_line, smoothed
from recallnest.capture.rules import RETRACTION, WITHDRAWAL_RULE
from recallnest.capture.salience import strip_noise
from recallnest.continuity.checkpoint_rules import drop_log_lines

# --------------------------------------------------------------------------- withdrawals


@pytest.mark.parametrize(
    ("first", "withdrawal", "old"),
    [
        ("会员价先按 25 元/月、年费 199 元来做页面。", "之前会员价那条整个收回，当我没说。", "199"),
        (
            "Demo day is on the 14th, so freeze the feature branches on the 12th.",
            "ok forget everything I told you about demo day, it got cancelled.",
            "14th",
        ),
    ],
)
def test_a_withdrawal_with_nothing_in_its_place_retires_the_statement(
    first: str, withdrawal: str, old: str
) -> None:
    active = remembered((first,), (withdrawal,))
    assert not any(old in m.text for m in active), [m.text for m in active]


def test_a_withdrawal_itself_is_kept_out_of_sight() -> None:
    found = captures("之前会员价那条整个收回，当我没说。")
    assert [c.rule for c in found] == [WITHDRAWAL_RULE]
    active = remembered(("会员价先按 25 元/月来做页面。",), ("之前会员价那条整个收回，当我没说。",))
    assert active == []


@pytest.mark.parametrize(
    "said",
    [
        "上周跟你说的那个已经不对了",
        "第一天我说的部署方式那句话，整个作废",
        "之前排期那条全部收回",
        "yeah. ok scratch everything i told you about the cutoff",
    ],
)
def test_more_ways_of_withdrawing(said: str) -> None:
    assert RETRACTION.match(said)


@pytest.mark.parametrize(
    "said", ["之前说要用 pnpm", "上周的排期挺好的", "ok so what I told you works"]
)
def test_mentioning_what_was_said_withdraws_nothing(said: str) -> None:
    assert not RETRACTION.match(said)


def test_a_copy_said_right_after_a_withdrawn_statement_goes_with_it() -> None:
    got = kept(
        ("Safari 先不管，只做 Chrome", "好的，打包目前只针对 Chrome。"),
        ("第一天我说的支持哪些浏览器那句话，整个作废，当我没说过",),
    )
    assert "Chrome" not in got, got


def test_a_withdrawal_of_one_browser_rule_leaves_unrelated_facts() -> None:
    got = kept(
        ("e2e 测试用 Playwright 跑，配置在 e2e/playwright.config.ts",),
        ("Safari 先不管，只做 Chrome",),
        ("第一天我说的支持哪些浏览器那句话，整个作废",),
    )
    assert "playwright.config.ts" in got and "只做 Chrome" not in got, got


# --------------------------------------------------------------------------- pasted blocks

BUILD = """tail of the flash run, fyi:
[212/214] Linking C executable sensor.elf
picotool v2.0.0
Loading into Flash...
sensor.uf2 written, 0x2f3a0 bytes"""


def test_a_block_introduced_as_output_is_output_whatever_its_lines_look_like() -> None:
    prose, noise = strip_noise(BUILD)
    assert prose == "tail of the flash run, fyi:" and noise["tool_output"] == 4
    assert drop_log_lines(BUILD).strip() == "tail of the flash run, fyi:"


def test_output_continues_past_a_blank_line_after_its_intro() -> None:
    text = "构建输出：\n\n> app@2.1.0 build\n> vite build\n\n✓ 88 modules transformed.\na.js  1 kB"
    assert strip_noise(text)[0] == "构建输出："


def test_a_line_between_two_output_lines_is_output() -> None:
    lines = [
        "srun: error: n12: task 3: Killed",
        "srun: Job step aborted: waiting",
        "srun: error: x",
    ]
    assert smoothed(lines, [True, False, True]) == [True, True, True]


def test_prose_after_output_and_a_list_after_a_colon_stay() -> None:
    text = BUILD + "\nThe flash script lives in tools/flash.sh."
    assert strip_noise(text)[0].endswith("The flash script lives in tools/flash.sh.")
    rules = "Two rules from the build team:\n- use pnpm\n- no emoji in commits"
    assert strip_noise(rules)[0] == rules


@pytest.mark.parametrize(
    "line",
    [
        "slurmstepd: error: *** STEP 99 ON n01 CANCELLED AT 2026-01-01T00:00:00 ***",
        "git: fatal: not a git repository",
        "*** JOB 77 CANCELLED ***",
        "asset main.js 120 KiB [emitted] [minimized] (name: main)",
        "webpack 5.90.1 compiled successfully in 812 ms",
        "rollup v4.9.0",
        "Bundling assets...",
    ],
)
def test_more_output_lines(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize(
    "line", ["note: the api uses error codes", "We use v2.3 of the API", "Deploying is manual."]
)
def test_prose_that_looks_a_little_like_output(line: str) -> None:
    assert not is_pasted_line(line)


# --------------------------------------------------------------------------- new values


def test_a_subject_less_correction_retires_the_host_it_renames() -> None:
    got = kept(
        ("订单服务的 MQ 连的是 mq-03.shop.internal，端口 5672，vhost 是 orders",),
        ("上周跟你说的那个已经不对了，现在是 mq-08.shop.internal:5673，vhost 还是 orders",),
    )
    assert "mq-08" in got and "mq-03" not in got and "5672" not in got, got


def test_a_change_report_in_other_words_replaces_only_its_clause() -> None:
    got = kept(
        ("tracker 是个记账 app，Flutter 写的，最低支持 Android 9，数据存 Firestore",),
        ("最低系统版本改成 11 了，老机型放弃",),
    )
    assert "Android 9" not in got and "Firestore" in got and "11" in got, got


def test_a_change_of_one_of_two_numbers_in_a_clause_supersedes_nothing() -> None:
    first = "The API listens on 8080 and the admin UI on 9090."
    got = kept((first,), ("We're going with port 8443 for the API now.",))
    assert "9090" in got, got


def test_a_withdrawal_after_fillers_and_its_verdict_keeps_what_holds() -> None:
    said = (
        "yeah. ok scratch everything i told you about the billing cutoff last week, it was "
        "wrong. every region has its own cutoff, they're in config/regions.yaml under cutoff"
    )
    got = [c for c in captures("Noted.", said) if c.rule.startswith("correction.retract")]
    assert got and got[0].text.startswith("every region") and "billing cutoff)" in got[0].text


def test_a_long_solved_case_shows_its_fix() -> None:
    from recallnest.continuity.compose import ITEM_MAX_CHARS, _cause_and_fix

    text = (
        "Root cause: the importer reads every CSV row into one list before it writes, so a 2 GB "
        "export exhausts the worker's memory and the container is OOM-killed halfway. Fix: "
        "stream rows in batches of 5000 with csv.reader and commit each batch. Verified on the "
        "2 GB file."
    )
    shown = _cause_and_fix(text)
    assert "batches of 5000" in shown and len(shown) <= ITEM_MAX_CHARS
    assert _cause_and_fix("A short case. Nothing more.") == "A short case. Nothing more."


# --------------------------------------------------------------------------- cause, fix, loops


@pytest.mark.parametrize(
    ("said", "fix"),
    [
        (
            "Root cause: the cron container runs in UTC while the schedule was written in local "
            "time, so the digest fired at 02:00. Fix: the schedule is now TZ=Europe/Berlin.",
            "TZ=Europe/Berlin",
        ),
        ("根因：连接池只有 5 个连接，高峰期全被占满。修复：pool_size 调到 30。", "pool_size"),
    ],
)
def test_a_diagnosis_keeps_the_fix_said_right_after_it(said: str, fix: str) -> None:
    from test_heldout2_classes import turn

    from recallnest.capture.heuristics import capture_turn

    got = capture_turn(turn(1, "assistant", said), turn(0, "user", "why?"), project="/p")
    cases = [c for c in got if c.category == "cases"]
    assert cases and fix in cases[0].text, got


def test_a_withdrawal_closes_the_open_loop_it_names() -> None:
    from test_checkpoint_quality import built, items

    old = built(
        ("user", "把注册页的表单校验补上。"),
        ("assistant", "已补上注册页的表单校验。"),
        ("user", "TODO: 会员价先按 25 元/月来写落地页文案。"),
        session="s0",
    )
    assert any("25 元" in i for i in items(old)), items(old)
    withdrawn = built(
        ("user", "之前会员价那条整个收回，当我没说。先把登录页的按钮颜色改成品牌色。"),
        ("assistant", "已改成 #0A84FF。"),
        earlier=old,
    )
    assert not any("25 元" in i for i in items(withdrawn)), items(withdrawn)
    other = built(
        ("user", "之前排期那条整个收回。先把登录页的按钮颜色改成品牌色。"),
        ("assistant", "已改成 #0A84FF。"),
        earlier=old,
    )
    assert any("25 元" in i for i in items(other)), items(other)


def test_a_copy_with_a_port_after_the_withdrawn_host_goes_too() -> None:
    got = kept(
        (
            "队列连的是 mq-03.shop.internal，vhost 是 orders",
            "已配置 amqp: mq-03.shop.internal:5672/orders。",
        ),
        ("上周跟你说的那个已经不对了，现在是 mq-08.shop.internal:5673",),
    )
    assert "mq-03" not in got and "mq-08" in got, got


def test_a_pnpm_failure_line_after_a_pasted_trace_is_output() -> None:
    text = (
        "build broke again:\n[vite] error during build:\nRollupError: boom\n"
        "    at x (file:///a/b.js:1:2)\n ELIFECYCLE  Command failed with exit code 1."
    )
    assert drop_log_lines(text).strip() == "build broke again:"


def test_the_subject_a_marker_names_stops_at_its_sentence() -> None:
    said = "change of plans on the default region. the real client is in Frankfurt: eu-central-1"
    got = [c.text for c in captures(said)]
    assert got and got[0].endswith("(correcting: what was said about default region)"), got

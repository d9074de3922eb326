"""Classes of resume failure read from e2e-heldout27 (round 49), each tested with phrasings of
its own: a change that disowns the old value first ("not €8 anymore, it's €11"), money written
with its sign before the number, two asks in one session each with its own report, Chinese
reports of work said by their verb, a report's account of how failures are now handled, news of
the user's day answered with a wish, and test-runner progress rows and hex dumps pasted in."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures, checkpoint, session

from recallnest.capture.admission import quoted_change, without_old_value
from recallnest.capture.chatter import pasted_kind

# --------------------------------------------------------------------------- quoted old values


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("the deposit went up, it's not $40 anymore, it's $55 per booking", ("55", "40")),
        ("and the retry budget, not 3 attempts, 6. the vendor is flaky at night", ("6", "3")),
        ("会员日不是 8 折了，改成 75 折", ("75", "8")),
        ("bump the membership fee, £30 doesn't cover the hall, make it £45", ("45", "30")),
        (
            "90 second polls are too lazy for the dashboard, people miss alerts. make it 30",
            ("30", "90"),
        ),
    ],
)
def test_a_change_names_both_values_in_these_forms(text: str, change: tuple[str, str]) -> None:
    assert quoted_change(text) == change


@pytest.mark.parametrize(
    ("text", "old", "kept"),
    [
        ("the deposit went up, it's not $40 anymore, it's $55 per booking", "$40", "$55"),
        ("bump the membership fee, £30 doesn't cover the hall, make it £45", "£30", "£45"),
        ("会员日不是 8 折了，改成 75 折，老板说 8 折亏本", "8 折", "75 折"),
        ("the retry budget, not 3 attempts, 6. the vendor is flaky at night", "3 attempts", "6"),
    ],
)
def test_the_old_value_is_not_shown(text: str, old: str, kept: str) -> None:
    shown = without_old_value(text)
    assert old not in shown
    assert kept in shown


def test_a_range_or_a_kept_value_is_no_change() -> None:
    assert without_old_value("tickets cost $12, not $15 as the poster said") != ""
    assert quoted_change("we open at 9 and close at 17, not on sundays") is None


# --------------------------------------------------------------------------- two asks


def test_each_ask_keeps_its_own_report() -> None:
    cp = checkpoint(
        session(
            "the nightly export drops rows with an emoji in the name, find out why",
            "The CSV writer opened the file as latin-1, so those rows raised and were skipped. "
            "I switched the writer to utf-8 and the export keeps every row now.",
            "also raise the page size to 200",
            "PAGE_SIZE is now 200.",
        )
    )
    assert cp is not None
    assert "utf-8" in cp.summary
    assert "PAGE_SIZE is now 200" in cp.summary
    assert cp.summary.index("utf-8") < cp.summary.index("Later:")


def test_each_ask_keeps_its_own_report_in_chinese() -> None:
    cp = checkpoint(
        session(
            "月报里退款金额是负的两倍，看下为什么",
            "退款在汇总时被减了两次：明细里已经是负数，汇总又取了一次反。改成直接累加明细，月报金额对上了。",
            "顺便把导出文件名改成按月份命名",
            "导出文件名改成 report-2024-05.xlsx 这种格式了。",
        )
    )
    assert cp is not None
    assert "直接累加明细" in cp.summary
    assert "report-2024-05.xlsx" in cp.summary


def test_a_fault_report_answered_by_its_fix_is_an_ask() -> None:
    cp = checkpoint(
        session(
            "把首页的轮播图换成三张",
            "首页轮播改成三张了。",
            "另外 iOS 上推送点开后白屏，日志：\n\nE/push (2231): handler null\n"
            "E/push (2231): route missing",
            "通知点开时路由表还没初始化。已在启动流程里补上路由预加载，点推送能直接进详情页。",
        )
    )
    assert cp is not None
    assert "路由预加载" in cp.summary


# --------------------------------------------------------------------------- loops


def test_how_failures_are_handled_now_is_no_open_failure() -> None:
    cp = checkpoint(
        session(
            "2 号冷库有个探头一直显示 -127",
            "-127 是传感器读失败时的返回值。现场看了是探头线被老鼠咬断，已经换了新线。"
            "程序里现在把 -127 当无效读数，不参与报警，页面显示“探头异常”。",
        )
    )
    assert cp is not None
    assert not [loop for loop in cp.open_loops if loop.startswith("Unresolved")]


# --------------------------------------------------------------------------- small talk


@pytest.mark.parametrize(
    ("news", "wish"),
    [
        ("ran the half marathon this morning, 1:52, a personal best", "Congrats, what a time!"),
        (
            "our choir sings at the cathedral on sunday, 40 of us",
            "That should be a lovely evening.",
        ),
        ("今天机房空调坏了，热得跟桑拿一样", "注意防暑，多喝点水。"),
    ],
)
def test_news_answered_with_a_wish_is_no_ask(news: str, wish: str) -> None:
    cp = checkpoint(
        session(
            "add a dark mode toggle to the settings page",
            "I added the toggle to settings/Appearance.tsx; it follows the system theme.",
            news,
            wish,
        )
    )
    assert cp is not None
    first = news.split(",")[0].split("，")[0]
    assert first not in cp.summary


@pytest.mark.parametrize(
    ("ask", "reply"),
    [
        ("Move the session store to Redis", "Sounds like a plan."),
        ("Replace MySQL with Postgres in the compose file", "Great choice!"),
    ],
)
def test_an_instruction_answered_with_approval_stays_an_ask(ask: str, reply: str) -> None:
    cp = checkpoint(
        session(
            "add a dark mode toggle to the settings page",
            "I added the toggle to settings/Appearance.tsx; it follows the system theme.",
            ask,
            reply,
        )
    )
    assert cp is not None
    assert ask in cp.summary


# --------------------------------------------------------------------------- pasted output


@pytest.mark.parametrize(
    "line",
    [
        "...........S.......F...                                   23 / 23 (100%)",
        "SEND: 01 06 00 10 00 2A 89 D5",
        "0040: 48 54 54 50 2f 31 2e 31 20 32 30 30",
        "> 7e 00 0a 01 02 03 04 05 06 07",
    ],
)
def test_runner_progress_and_hex_dumps_are_pasted(line: str) -> None:
    assert pasted_kind(line) is not None


@pytest.mark.parametrize(
    "line",
    ["we ship 12 34 or 56 units a day", "the lockers are 10 11 12 13 14 15 on floor 2"],
)
def test_numbers_in_prose_are_no_dump(line: str) -> None:
    assert pasted_kind(line) is None


# --------------------------------------------------------------------------- e2e-heldout28


def test_a_setting_named_in_inline_code_is_read_as_a_setting() -> None:
    from recallnest.continuity.stale import values

    assert values("`RETRY_LIMIT` is now 6.") == values("RETRY_LIMIT is now 6.")
    assert values("`SYNC_BATCH_ROWS` 改成 500，日志一起改了")["name:sync_batch_rows"] == {"500"}


def test_a_report_naming_its_setting_in_code_is_captured_as_the_change() -> None:
    said = captures(
        "同步批量改成 500 行吧", "`SYNC_BATCH_ROWS` 改成 500，日志里的批次号也跟着改了。"
    )
    assert any("SYNC_BATCH_ROWS" in c.text and "500" in c.text for c in said), said


def test_a_code_span_that_reads_as_words_keeps_its_ticks() -> None:
    from recallnest.capture.chatter import without_inline_ticks

    assert without_inline_ticks("keys live under `cart:v2:{uid}`") == (
        "keys live under `cart:v2:{uid}`"
    )
    assert without_inline_ticks("see `api/rules/limits.py`") == "see api/rules/limits.py"


@pytest.mark.parametrize(
    "line",
    [
        "* What went wrong:",
        "Execution failed for task ':app:mergeDebugResources'.",
        "* Try:",
    ],
)
def test_gradle_failure_lines_are_pasted(line: str) -> None:
    assert pasted_kind(line) is not None


def test_news_before_the_ask_is_no_part_of_it() -> None:
    cp = checkpoint(
        session(
            "add a dark mode toggle to the settings page",
            "I added the toggle to settings/Appearance.tsx; it follows the system theme.",
            "the sunset over the bay was unreal tonight. anyway I want the export to include "
            "the tide height per row",
            "Added tide_height_m to each export row in export/csv.py.",
        )
    )
    assert cp is not None
    assert "sunset" not in cp.summary
    assert "tide height" in cp.summary


def test_a_diagnosis_keeps_the_fix_after_it() -> None:
    cp = checkpoint(
        session(
            "同一个优惠券被用了两次",
            "原因：两个请求同时核销，读券状态和写核销记录不在一个事务里，两边都以为券还没用过。"
            "这次给核销加了唯一索引 (coupon_id)，第二个请求会直接失败并提示“券已使用”。",
        )
    )
    assert cp is not None
    assert "唯一索引" in cp.summary


def test_a_value_the_named_setting_outdates_leaves_the_resumed_summary_everywhere() -> None:
    from recallnest.continuity.stale import current, values

    said = "`BULK_MIN_QTY` is now 12."
    old = (
        "Later: bulk price for 20 crates or more, 5% off. "
        "Done: Added `BULK_MIN_QTY = 20` in pricing.py; the price applies from there."
    )
    shown = current(old, [(said.replace("`", ""), values(said.replace("`", "")))])
    assert "20 crates" not in shown and "= 20" not in shown, shown


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("the nurses pushed back on 5 shifts. max 4 in a row", ("4", "5")),
        ("exports: 1000 rows is too slow, at most 500 please", ("500", "1000")),
    ],
)
def test_a_cap_gives_the_new_value(text: str, change: tuple[str, str]) -> None:
    assert quoted_change(text) == change


def test_a_chinese_old_value_goes_with_its_unit() -> None:
    shown = without_old_value("师傅说 3 天做不完，改成 5 天")
    assert "3 天" not in shown and "5 天" in shown, shown


def test_a_removal_reported_done_keeps_its_ask() -> None:
    cp = checkpoint(
        session(
            "这个项目别再用 lodash 了，能用原生就用原生",
            "src 里的 lodash 调用全换成了原生写法，package.json 里的 lodash 删掉了。",
            "另外登录页偶尔白屏，看下",
            "登录页在 token 过期时没有兜底跳转。现在 token 失效会直接跳回登录页，不再白屏。",
        )
    )
    assert cp is not None
    assert "lodash" in cp.summary + " ".join(cp.decisions), cp


@pytest.mark.parametrize(
    "said",
    [
        "package.json 里的 lodash 删掉了。",
        "旧的定时任务去掉了，改由队列触发",
        "导出文件名改成 2024-05.xlsx 了",
    ],
)
def test_chinese_reports_of_work_done(said: str) -> None:
    from recallnest.continuity import checkpoint_rules as R

    assert R.DONE.search(said)


@pytest.mark.parametrize(
    "said",
    [
        "ok, invoices. decided: we bill monthly, not per job. the accountant wants one run",
        "right so. new rule: no deploys after 4pm on fridays. we got burned twice",
    ],
)
def test_a_decision_label_after_lower_case_chat_is_captured(said: str) -> None:
    label = said.split(". ")[1].split(":")[0]
    assert [c for c in captures(said) if c.text.startswith(label)], captures(said)


@pytest.mark.parametrize(
    ("ask", "report"),
    [
        (
            "only trustees can approve refunds over £100",
            "Refunds over £100 now need the trustee role.",
        ),
        ("只有值班医生能改医嘱", "改医嘱接口现在只允许值班医生角色调用。"),
    ],
)
def test_who_may_do_what_is_a_rule_of_the_project(ask: str, report: str) -> None:
    said = captures(ask, report)
    assert {c.text for c in said} >= {ask, report}, said


def test_only_as_a_count_is_no_rule() -> None:
    assert not captures("only one worker can run at a time?")

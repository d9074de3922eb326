"""The failure classes of e2e-heldout26 (round 47's first blind batch, measured once and then
read), each tested on variants of our own, both ways.

- A pytest summary without its ===== frame ("1 failed, 63 passed in 4.88s") is pasted output.
- A named setting changed with its old value said first ("NAME 从 40 改成 50", "NAME went from
  6 to 8") or after a verb ("NAME lowered to 4") is a value change, and shows its new value only.
- A decision's reason said as what failed ("GPS 签到老失败", "根本没信号") joins it.
- The agent's report of what a decided thing became ("签到改成扫…二维码") is kept as the
  decision carried out.
- A bound set in a few words ("min 6 photos per check-in", 每单最多 3 张券) is the user's rule.
- A change that quotes the value it replaces ("5MB 不够用，…改成 10MB") changes what holds that
  value, in a resumed session's summary too, with no other word in common.
"""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures, checkpoint, session

from recallnest.capture.admission import without_from_value, without_old_value
from recallnest.capture.chatter import pasted_kind
from recallnest.continuity.stale import current, named_in_prose, values

VALUE_CHANGED = "decision.value_changed"


@pytest.mark.parametrize(
    "line", ["1 failed, 63 passed in 4.88s", "212 passed in 9.01s", "3 passed, 1 skipped in 0.12s"]
)
def test_a_bare_pytest_summary_is_pasted_output(line: str) -> None:
    assert pasted_kind(line) is not None


@pytest.mark.parametrize(
    "line", ["2 failed in the nightly run, can you look", "3 passed reviews in a row"]
)
def test_prose_counting_results_is_no_output(line: str) -> None:
    assert pasted_kind(line) is None


@pytest.mark.parametrize(
    "said",
    [
        "MAX_RETRY_COUNT 从 3 改成 5，重试日志也加了。",
        "PAGE_SIZE went from 20 to 50 in settings.py.",
        "MIN_CHECKIN_PHOTOS lowered to 4; the hint text follows the setting.",
        "SESSION_TTL_MIN raised to 45 after the complaints.",
    ],
)
def test_a_named_setting_changed_is_a_value_change(said: str) -> None:
    found = captures("ok", said)
    assert any(c.rule == VALUE_CHANGED for c in found), found


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "MAX_RETRY_COUNT 从 3 改成 5，重试日志也加了。",
            "MAX_RETRY_COUNT 改成 5，重试日志也加了。",
        ),
        ("PAGE_SIZE went from 20 to 50 in settings.py.", "PAGE_SIZE went to 50 in settings.py."),
        ("bumped the refund cap from $200 to $350 today", "bumped the refund cap to $350 today"),
    ],
)
def test_a_change_shows_its_new_value_only(text: str, shown: str) -> None:
    assert without_old_value(text) == shown


@pytest.mark.parametrize(
    "text",
    ["the shop is open from 9 to 5", "从 9 点到 5 点营业", "flights from 10 to 12 were cancelled"],
)
def test_a_range_is_no_change(text: str) -> None:
    assert without_from_value(text) == text


def test_a_decisions_reason_said_as_what_failed_joins_it() -> None:
    found = captures("打卡改成刷工牌，不用人脸了。车间里戴口罩人脸识别老失败，每天都有人找我补卡")
    decided = [c for c in found if c.category == "events"]
    assert decided and "老失败" in decided[0].text, found


def test_the_report_of_what_a_decided_thing_became_is_kept() -> None:
    found = captures(
        "打卡定了用工牌，不用人脸了。",
        "打卡改成刷工牌上的 NFC 芯片（卡号绑工号），人脸只留作备用。",
    )
    assert any("NFC" in c.text and c.category == "events" for c in found), found


def test_a_report_after_no_decision_is_no_memory() -> None:
    found = captures("按钮颜色随便调一下", "按钮改成深蓝色了，hover 时变浅一点。")
    assert not any("深蓝色" in c.text for c in found), found


@pytest.mark.parametrize(
    "said", ["min 6 photos per check-in", "max 2 refunds per order", "每单最多 3 张券"]
)
def test_a_terse_bound_is_a_rule(said: str) -> None:
    assert any(c.category == "events" for c in captures(said)), said


@pytest.mark.parametrize("said", ["min 6 mins late today, sorry", "max was grumpy per usual"])
def test_a_number_in_chat_is_no_bound(said: str) -> None:
    assert not any(c.rule == "decision.bound" for c in captures(said)), said


def test_a_change_quoting_the_old_value_rewrites_an_older_summary() -> None:
    older = "Asked: 附件单个文件限制 5MB。"
    newer = "Asked: 5MB 不够用，合同扫描件动不动八九兆，改成 10MB。"
    assert "5MB" not in current(older, [(newer, values(newer))])


def test_the_same_value_in_another_unit_is_untouched() -> None:
    older = "Asked: 日志保留 5 天。"
    newer = "Asked: 5MB 不够用，改成 10MB。"
    assert current(older, [(newer, values(newer))]) == older


def test_a_named_default_raised_from_one_value_to_another_is_a_value_change() -> None:
    found = captures("ok", "EXPORT_ROWS_MAX default raised from 5000 to 20000; docs follow.")
    assert any(c.rule == VALUE_CHANGED for c in found), found


@pytest.mark.parametrize(
    "said",
    [
        "staging config for reference:\n\nDB_HOST=db-stg-01\nPOOL_SIZE=12",
        "配置是这样：\n\nREDIS_URL=redis://cache-01:6379/2",
    ],
)
def test_the_intro_of_a_paste_is_no_memory(said: str) -> None:
    assert not [c for c in captures(said) if c.text.rstrip().endswith((":", "："))]


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("lol someone left a rubber duck on lot 88's seat today", "Ha, hope it finds its owner."),
        ("今天 3 号店停电了一下午，哈哈大家都在摸鱼", "哈哈，辛苦了！"),
    ],
)
def test_a_turn_answered_with_a_pleasantry_is_no_ask(said: str, reply: str) -> None:
    cp = checkpoint(session(said, reply, "add a CSV export of the results table", "Done."))
    assert cp is not None and said[:12] not in cp.summary, cp.summary
    assert "CSV export" in cp.summary, cp.summary


def test_a_task_answered_in_a_word_stays_an_ask() -> None:
    cp = checkpoint(session("rename the export button to Download CSV", "On it."))
    assert cp is not None and "Download CSV" in cp.summary, cp.summary


def test_a_rule_for_every_project_agreed_to_does_not_carry_this_projects_facts() -> None:
    found = captures(
        "另外说一声，不管哪个项目，写数据库迁移都要带 down，之前回滚吃过亏",
        "记下了：所有项目的迁移都同时写 up 和 down。"
        "这个项目的排期在 jobs/schedule.go，单批上限 MAX_JOBS = 8。",
    )
    shared = [c for c in found if c.scope == "global"]
    assert shared and not any("MAX_JOBS" in c.text for c in shared), found


def test_a_report_on_the_work_answered_with_a_pleasantry_stays() -> None:
    cp = checkpoint(
        session("just checked: the nightly job finished in 2 min, the GROUP BY fix works", "Great!")
    )
    assert cp is not None and "GROUP BY" in cp.summary, cp.summary


# --------------------------------------------------------------------------- review of round 47


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("Drop the legacy export endpoint, nobody uses it anymore", "Makes sense."),
    ],
)
def test_an_instruction_answered_with_praise_stays_an_ask(said: str, reply: str) -> None:
    cp = checkpoint(session(said, reply, "add a CSV export of the results table", "Done."))
    assert cp is not None and said[:20] in cp.summary, cp.summary


def test_plain_words_of_a_name_are_no_phrase_of_it() -> None:
    names = frozenset({("name:max_per_day", "50")})
    assert named_in_prose("The digest goes out per day in 3 batches.", names) == {}


def test_a_quoted_old_time_links_no_other_setting() -> None:
    older = "Asked: 轮询间隔 30 秒。"
    newer = "Asked: 把请求超时从 30 秒改成 60 秒。"
    assert current(older, [(newer, values(newer))]) == older


@pytest.mark.parametrize(
    "text",
    [
        "We moved the pages numbered from 1 to 10 into the appendix",
        "Temperatures drop from 20 to 10 overnight here",
    ],
)
def test_a_range_after_a_verb_of_motion_stays(text: str) -> None:
    assert without_from_value(text) == text


@pytest.mark.parametrize("line", ["  at least 2.5", "   at 10.30"])
def test_indented_prose_with_a_decimal_is_no_frame(line: str) -> None:
    assert pasted_kind(line) is None

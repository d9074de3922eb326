"""The failure classes round 40's blind sets found (capture b29 and b30, eval/continuity/
e2e-heldout14; docs/decisions/0042), each tested on variants of our own, both ways: a pick named
from the options the other side asked about, a counter-instruction to the agent's plan, a
replacement reported done, a project description the model took for a profile, and a change
that quotes the value it replaces, which retires every memory still holding that value and is
shown without it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest
from test_heldout2_classes import captures, checkpoint, session
from test_heldout12_classes import admitted

from recallnest.capture.admission import quoted_change, without_old_value
from recallnest.capture.chatter import is_small_talk, pasted_kind
from recallnest.continuity import checkpoint_rules as R
from recallnest.continuity.compose import _current

DAY = timedelta(days=1)


def kinds(*said: str) -> list[tuple[str, str]]:
    return [(c.category, c.text) for c in captures(*said)]


# --------------------------------------------------------------------------- picks and plans


@pytest.mark.parametrize(
    ("asked", "reply", "named"),
    [
        (
            "We can either poll the printer's status page every minute or subscribe to its"
            " MQTT topic with paho. Which do you prefer?",
            "mqtt. the status page times out whenever a job is spooling",
            "mqtt",
        ),
        (
            "导出可以用 openpyxl，也可以直接写 CSV，你来定？",
            "openpyxl 吧，财务那边要带格式的表",
            "openpyxl",
        ),
        (
            "排班可以按工龄自动轮换，也可以让护士自己报班，你倾向哪种？",
            "按工龄轮换吧，自己报班每次都吵架",
            "按工龄轮换",
        ),
    ],
)
def test_a_pick_named_from_the_options_asked_is_a_decision(
    asked: str, reply: str, named: str
) -> None:
    found = kinds("what's the plan for this part?", asked, reply)
    assert ("events", reply) in found, found


@pytest.mark.parametrize(
    ("asked", "reply"),
    [
        # no options were offered: a bare word is no pick of one
        ("I've set the cron job to run at 02:00.", "mqtt. anyway, what's next"),
        # the choice left open
        ("导出可以用 openpyxl，也可以直接写 CSV，你来定？", "都行吧，你看着办"),
    ],
)
def test_no_pick_without_options_or_with_the_choice_left_open(asked: str, reply: str) -> None:
    # (the report asked about may be a memory of its own: "set the cron job to run at 02:00")
    assert not any(c == "events" and t == reply for c, t in kinds("what's next?", asked, reply))


@pytest.mark.parametrize(
    ("plan", "reply", "kept"),
    [
        (
            "I'll commit the generated client straight into src/api/.",
            "never commit generated code please, it's built in CI from the openapi file",
            "never commit generated code",
        ),
        (
            "I'll log the request bodies with console.log so you can follow along.",
            "structured logs please, pino with a child logger per route",
            "pino",
        ),
        (
            "我在每个页面都写了一份自己的 fetch 封装。",
            "请求统一走 src/lib/http.ts，别每个页面自己包一层",
            "src/lib/http.ts",
        ),
    ],
)
def test_a_counter_instruction_to_the_agents_plan_is_a_preference(
    plan: str, reply: str, kept: str
) -> None:
    found = kinds("go ahead", plan, reply)
    assert any(c == "preferences" and kept in t for c, t in found), found


def test_a_value_corrected_against_the_agents_plan_stays_a_fact() -> None:
    found = kinds(
        "set up the nightly export",
        "I'll schedule the export at 3 in the morning.",
        "not 3, the backup job holds the disk until 4. run it at 05:15",
    )
    assert not any(c == "preferences" for c, _ in found), found


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Done: receipts are rendered with WeasyPrint now instead of headless Chrome, and"
            " the container lost 600 MB.",
            "WeasyPrint",
        ),
        ("已经把缓存从 memcached 换成了 Redis，会话也一起挪过去了。", "Redis"),
    ],
)
def test_a_replacement_reported_done_is_a_decision(said: str, kept: str) -> None:
    found = kinds("can you sort out the receipts thing", said)
    assert any(c == "events" and kept in t for c, t in found), found


def test_a_done_report_without_a_replacement_is_no_decision() -> None:
    found = kinds("fix the typo", "Done: fixed the typo in the footer instead of the header.")
    assert not any(c == "events" for c, _ in found), found


# --------------------------------------------------------------------------- profile


def test_a_project_description_is_no_profile() -> None:
    said = (
        "图书漂流系统 piaoliu，Go + Gin + MySQL。每本书贴一个二维码，扫码能看到它漂到过哪些人手里，"
        "二维码 16 位"
    )
    assert not any(c == "profile" for c, _ in kinds(said))


def test_a_self_introduction_without_a_subject_is_still_a_profile() -> None:
    said = "mostly a data person myself, pandas and SQL, so go easy on the React bits"
    assert ("profile", said) in kinds(said)


# --------------------------------------------------------------------------- quoted old values


@pytest.mark.parametrize(
    ("said", "change"),
    [
        ("取件码改成 8 位，6 位太容易撞了", ("8", "6")),
        (
            "the match threshold has to come down to 0.35. at 0.5 we missed half the names",
            ("0.35", "0.5"),
        ),
        ("提醒改成晚上 20:30，21:30 大家都睡了", ("20:30", "21:30")),
        ("the lock timeout needs 90 seconds, not 30. big uploads hold it longer", ("90", "30")),
        ("lower the late fee to 12 euros. 15 scared people off", ("12", "15")),
        # bare numbers of other sizes, or in one clause: two things, no change of one
        ("move the proxy to 8443, the 3 services share it", None),
        ("scale workers to 6 in the 2 regions", None),
    ],
)
def test_a_change_names_its_old_value(said: str, change: tuple[str, str] | None) -> None:
    assert quoted_change(said) == change


@pytest.mark.parametrize(
    ("old", "new", "stale", "kept"),
    [
        (
            [
                "寄存柜每个取件码 6 位，短信里发给用户",
                "取件码由 internal/code 生成（6 位，纯数字），校验在 internal/pickup 里做。",
            ],
            ["取件码改成 8 位，6 位太容易撞了，上周有两个人拿错了件"],
            "6 位",
            "internal/pickup",
        ),
        (
            [
                "namematch links donor records to the CRM; the scorer in match/score.py treats"
                " pairs above 0.5 similarity as the same person. the review UI is in ui/."
            ],
            ["the similarity cutoff has to come down to 0.35. at 0.5 we missed half the names"],
            "0.5",
            "review UI",
        ),
    ],
)
def test_a_change_quoting_its_old_value_retires_every_memory_holding_it(
    old: Sequence[str], new: Sequence[str], stale: str, kept: str
) -> None:
    active = admitted(old, new)
    assert stale not in active.replace(new[0], ""), active
    assert kept in active, active


def test_an_unrelated_memory_with_the_same_number_stays() -> None:
    active = admitted(
        ["会员卡号 6 位，印在卡背面"],
        ["取件码改成 8 位，6 位太容易撞了"],
    )
    assert "会员卡号 6 位" in active, active


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "取件码改成 8 位，6 位太容易撞了，上周有两个人拿错了件",
            "取件码改成 8 位，上周有两个人拿错了件",
        ),
        (
            "the similarity cutoff has to come down to 0.35. at 0.5 we missed half the names,"
            " they were all short ones",
            "the similarity cutoff has to come down to 0.35.",
        ),
        # the clause with the new value names nothing: shown as said
        (
            "retrying every 30 seconds is too slow for a pager. make it 5 seconds, please",
            "retrying every 30 seconds is too slow for a pager. make it 5 seconds, please",
        ),
        ("nothing changes here at 30 seconds", "nothing changes here at 30 seconds"),
    ],
)
def test_a_change_is_shown_without_its_old_value(text: str, shown: str) -> None:
    assert without_old_value(text) == shown


def test_a_checkpoint_summary_keeps_its_labels() -> None:
    summary = "Asked: 提醒改成晚上 20:30，21:30 大家都睡了。 Done: REMIND_AT 改成 20:30。"
    assert _current(summary) == "Asked: 提醒改成晚上 20:30。 Done: REMIND_AT 改成 20:30。"


# --------------------------------------------------------------------------- noise and chat


@pytest.mark.parametrize(
    "line",
    [
        "W, [2026-11-30T22:14:09.551 #4410]  WARN -- : [Sidekiq] retrying ReceiptJob in 25s",
        "E, [2026-11-30 22:14:10 #4410] ERROR -- : Errno::ECONNREFUSED (Connection refused)",
    ],
)
def test_a_ruby_logger_line_is_pasted_output(line: str) -> None:
    assert pasted_kind(line) == "log"


def test_prose_with_a_bracketed_date_is_no_log() -> None:
    assert pasted_kind("we froze the schema on [2026-11-30 09:00] and nothing moved since") is None


@pytest.mark.parametrize(
    ("said", "chat"),
    [
        ("our new intern from Porto started today, it's been chaos, fun chaos though", True),
        ("周末搬家搬了一天，累瘫了", True),
        ("what a week, the whole office had the flu", True),
        ("the deploy to Fly was chaos, the health check kept failing", False),
        ("epic refactor of the parser is done, the Lexer class is gone", False),
    ],
)
def test_how_a_day_went_is_chit_chat(said: str, chat: bool) -> None:
    assert is_small_talk(said) is chat


def test_a_bare_deferral_takes_the_work_named_before_it() -> None:
    cp = checkpoint(
        session(
            "会员积分改成每消费 10 元积 1 分",
            "积分规则改好了，历史订单没有重算。",
            "历史订单重算还没做吧？那下次接着做",
        )
    )
    assert cp is not None
    assert any("历史订单重算" in step for step in cp.next_actions), cp
    assert not any(loop.startswith("Unanswered") for loop in cp.open_loops), cp


@pytest.mark.parametrize(
    ("said", "category"),
    [
        ("我视力不太好是真的，我的眼睛不太好，代码块别用浅色主题截图", "profile"),
        ("我是视障用户，平时用读屏软件，你给的表格尽量简单", "profile"),
        ("我现在读初三，周末才有时间写这个小游戏", "profile"),
        (
            "whenever a tenant reports a broken heater, step one is `bin/ticket-freeze <unit>`",
            "patterns",
        ),
        (
            "whenever a runner's chip fails on course I enter the time by hand in overrides.csv",
            "patterns",
        ),
        ("我们的习惯是每个需求一个分支，合并前必须有人 review", "patterns"),
    ],
)
def test_new_profile_and_workflow_phrasings(said: str, category: str) -> None:
    assert any(c == category for c, _ in kinds(said)), kinds(said)


def test_a_version_upgrade_is_no_quoted_change() -> None:
    said = "升级把 pandas 从 2.1.4 升到了 2.2.1，2.2 起 read_csv 的默认值变了；修复：锁到 2.1.4"
    assert quoted_change(said) is None
    assert without_old_value(said) == said


@pytest.mark.parametrize(("said", "works"), [("好了，能打包了👍", True), ("能部署了吗", False)])
def test_it_works_again_is_no_open_request(said: str, works: bool) -> None:
    assert bool(R.WORKS_NOW.search(said)) is works


def test_a_description_holding_the_old_value_keeps_its_other_words_at_the_new_one() -> None:
    active = admitted(
        [
            "the kiosk polls the ticket queue every 20 seconds, prints the number on the thermal"
            " printer and rings the bell through gpiozero"
        ],
        ["polling every 20 seconds is too slow at lunch. make it 5 seconds, the API copes"],
    )
    assert "every 5 seconds, prints the number" in active, active
    assert "gpiozero" in active, active


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        (
            "the regatta got blown out, 35 knots at the start line. what a week",
            "Sounds like a rough one! What's next for the scoring app?",
        ),
        ("今天爬了一天山，腿都软了，拍了 300 多张照片", "辛苦了，今天要做点什么？"),
    ],
)
def test_a_turn_answered_with_whats_next_is_no_ask(said: str, reply: str) -> None:
    cp = checkpoint(session(said, reply, "add a CSV export of the results table", "Done."))
    assert cp is not None
    assert said[:12] not in cp.summary, cp.summary
    assert "CSV export" in cp.summary, cp.summary


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("don't copy that anywhere else", False),
        ("never paste these into Slack", False),
        ("别把这个发出去", False),
        ("don't copy the .env anywhere else", True),
        ("never commit generated files", True),
    ],
)
def test_a_rule_about_a_pointer_alone_is_no_preference(said: str, kept: bool) -> None:
    assert any(c == "preferences" for c, _ in kinds(said)) is kept


@pytest.mark.parametrize(
    ("said", "change"),
    [
        ("make the sync run every 15 min instead of 60", ("15", "60")),
        ("the retry cap is 5 retries, not 3", ("5", "3")),
        ("switched the feed to 1-minute updates. drop whatever still assumes 5", ("1", "5")),
        ("it is not 5 but 6", None),
    ],
)
def test_a_value_said_against_the_old_one(said: str, change: tuple[str, str] | None) -> None:
    assert quoted_change(said) == change


def test_a_setting_named_in_the_change_retires_its_value_with_that_unit() -> None:
    active = admitted(
        ["计费在 src/fee.ts 的 price()：起步 5 元含 2 公里，之后每公里 2 元"],
        ["另外物业说起步价改成 6 元"],
    )
    assert "起步 6 元含 2 公里" in active, active
    assert "起步 5 元" not in active, active


def test_a_description_at_one_gets_the_singular_unit() -> None:
    active = admitted(
        ["the scanner uploads a batch every 5 minutes to the sorting API"],
        ["we've switched the scanners to 1-minute uploads. update whatever still assumes 5"],
    )
    assert "every 1 minute to the sorting API" in active, active


def test_chit_chat_stays_chit_chat_when_the_reply_reports_other_work() -> None:
    cp = checkpoint(
        session(
            "周末去爬山了，排了一个小时队才上缆车，离谱",
            "那确实离谱。导出接口我加了分页，每页 50 条。",
            "下次做导出的权限控制，今天先不弄",
        )
    )
    assert cp is not None
    assert "缆车" not in cp.summary, cp.summary

"""The failure classes e2e-heldout21 left after round 44, each tested on variants of our own,
both ways.

- A change the user said with both values, taken up by the agent's report of the new value:
  the user's sentence is not rewritten to say the new value twice ("现在截止时间是 17:45，太早
  了，改成 17:45").
- A range ("2 to 4 people medium, large from 5 up") is no change from one value to another.
- A line cut short before pasted lines ("also settings.toml has") is no fact.
- A cause with no cause word ("… long enough for writes to fail"), then "X now does Y instead",
  is one solved case; so is 原因找到了：… then 现在 X 带上 Y.
- What the project is, said with no tool in it ("这是幼儿园的接送系统，…"), is a project fact,
  with the stack said next; 我是园里的保健老师 is who the user is.
"""

from __future__ import annotations

import pytest
from test_heldout2_classes import PROJECT, T0, captures, checkpoint, remembered, session, texts

from recallnest.capture.admission import quoted_change, remainder, revalued, without_old_value
from recallnest.capture.heuristics import capture_turn
from recallnest.capture.salience import classify_line
from recallnest.continuity import checkpoint_rules as R
from recallnest.core.models import Memory


@pytest.mark.parametrize(
    ("said", "report"),
    [
        (
            "看到没，现在截止时间是 17:30，太早了，改成 17:45，中班大班下午有延时课",
            "截止时间改成 17:45 了（PICKUP_DEADLINE=17:45），超时提醒要过了 17:45 才会发。",
        ),
        (
            "the reminder text goes out 7 days after a visit, which is too soon in winter. "
            "make it 10 days",
            "Reminders now go out 10 days after the last visit (REMINDER_DAYS = 10).",
        ),
    ],
)
def test_a_change_taken_up_by_the_report_is_not_said_twice(said: str, report: str) -> None:
    # rewritten at the new value, the user's change would give it as what was wrong
    # ("现在截止时间是 17:45，太早了，改成 17:45"); the report holds the new value
    users = captures(said)
    replies = [c for c in captures("go on", report) if c.text.startswith(report[:6])]
    assert users and replies, (users, replies)
    target = Memory(
        id="a" * 32,
        scope=PROJECT,
        category=users[0].category,
        text=users[0].text,
        importance=0.6,
        created_at=T0,
        updated_at=T0,
    )
    assert revalued(replies[0], target) is None


def test_a_sentence_that_holds_the_old_value_is_still_revalued() -> None:
    replies = [
        c
        for c in captures("go on", "Reminders now go out 10 days after the last visit.")
        if c.text.startswith("Reminders")
    ]
    target = Memory(
        id="b" * 32,
        scope=PROJECT,
        category="entities",
        text="Reminders go out 7 days after the last visit, by email through Postmark.",
        importance=0.6,
        created_at=T0,
        updated_at=T0,
    )
    assert replies
    found = revalued(replies[0], target)
    assert found is None or "7 days" not in found.text


@pytest.mark.parametrize(
    "text",
    [
        "sizes: one adult gets small, 2 to 4 people medium, large from 5 people up.",
        "tiers: 1 to 3 seats basic, 4 to 9 seats team, 10 seats and up enterprise",
    ],
)
def test_a_range_is_no_change(text: str) -> None:
    assert quoted_change(text) is None
    assert without_old_value(text) == text


def test_a_change_to_a_value_still_quotes_the_old_one() -> None:
    assert quoted_change("raise the cap to 5 people, 3 is too few") == ("5", "3")


@pytest.mark.parametrize(
    "lead",
    [
        "also settings.toml has",
        "and the compose file for the worker looks like",
        "the cron line is",
    ],
)
def test_a_line_cut_short_before_a_paste_is_no_fact(lead: str) -> None:
    found = captures(
        f'{lead}\n[mailer]\nhost = "smtp.example.org"\nport = 2525\n'
        "and the digest should go out at 7 on mondays"
    )
    assert not [c for c in found if lead.endswith(c.text.strip()) or "[mailer]" in c.text], found


@pytest.mark.parametrize(
    ("failure", "reply", "kept"),
    [
        (
            "getting this every night around 2am: sqlite3.OperationalError: database is locked",
            "The 2am backup job copies the db while the app has it open, and the copy holds a "
            "lock long enough for writes to fail. The cron job now takes a consistent copy "
            "with the online backup API and copies that instead.",
            "online backup",
        ),
        (
            "each scan at the door charges twice sometimes",
            "原因找到了：门禁网络不稳时会把同一条请求重发，/api/door/scan 没做幂等，"
            "每来一次就扣一次。"
            "现在门禁请求带上 request_id，服务端按 request_id 去重。",
            "request_id",
        ),
        (
            "each scan at the door charges twice sometimes",
            "Found it: the reader retries the same scan when the wifi drops, and /api/scan is "
            "not idempotent, so every retry charges again. Now the reader sends a request_id "
            "and the server drops repeats.",
            "request_id",
        ),
    ],
)
def test_a_cause_then_what_now_happens_is_one_case(failure: str, reply: str, kept: str) -> None:
    found = captures(failure, reply)
    cases = [c for c in found if c.category == "cases"]
    assert cases and kept in cases[0].text, found


def test_a_new_failure_after_a_cause_is_no_fix() -> None:
    found = captures(
        "why does the nightly export die",
        "The export reads the whole table into memory, long enough for the box to swap. "
        "Now the export fails on the first batch too.",
    )
    assert not any("first batch" in c.text for c in found if c.category == "cases"), found


@pytest.mark.parametrize(
    ("said", "intro", "profile"),
    [
        (
            "这是幼儿园的接送系统，家长在小程序上扫码签到签退，老师在后台看谁还没被接走。"
            "后端 Laravel。"
            "我是园里的保健老师，兼职写点代码",
            "接送系统",
            "保健老师",
        ),
        (
            "这是我们诊所的预约小程序，病人在上面挂号。我是诊所的前台，顺手维护",
            "预约小程序",
            "前台",
        ),
        (
            "this is the booking app for our climbing wall's route setters. backend is Django. "
            "I'm the gym's front desk manager and code on the side",
            "booking app",
            "front desk manager",
        ),
    ],
)
def test_what_the_project_is_and_who_the_user_is(said: str, intro: str, profile: str) -> None:
    found = captures(said)
    facts = [c for c in found if c.category == "entities" and intro in c.text]
    assert facts and facts[0].scope == PROJECT, found
    assert any(c.category == "profile" and profile in c.text for c in found), found


@pytest.mark.parametrize(
    "said",
    [
        "this is the app crashing on login again",
        "这是个 bug 吧",
        "这是不是系统的问题？",
        "is this the right service?",
        "我是说老师那边的页面",
    ],
)
def test_a_failure_a_question_or_a_phrase_is_no_project_intro(said: str) -> None:
    found = captures(said)
    assert not [c for c in found if c.rule.endswith("project_intro")], found
    assert not [c for c in found if c.category == "profile"], found


# --------------------------------------------------------------------------- e2e-heldout22


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "佣金比例不是 8%，合同上写的是 10%，之前我记错了",
            "佣金比例合同上写的是 10%，之前我记错了",
        ),
        ("上门费不是 30 块，是每次 45 元，30 块是前年的价了。", "上门费是每次 45 元。"),
        ("一天 5 场不对，场地要打扫，其实最多只能 3 场", "一天场地要打扫，其实最多只能 3 场"),
        (
            "winter hours: tours are not 10:00, 12:00 and 14:00 anymore. it's 11:00 and 13:00.",
            "winter hours: tours: it's 11:00 and 13:00.",
        ),
        (
            "the grace period: 30 was too generous, the owner says 20 days now",
            "the grace period: the owner says 20 days now",
        ),
    ],
)
def test_a_value_said_to_be_wrong_is_left_out_where_another_stands(said: str, shown: str) -> None:
    assert without_old_value(said) == shown


@pytest.mark.parametrize(
    "said",
    [
        "we don't run it every 5 minutes, it runs on every push",
        "the API is not on 8080, the admin UI is on 9090",
        "not 2 but 3 replicas",
        "不是 5 分钟跑一次，是每次提交都跑",
    ],
)
def test_nothing_is_left_out_when_no_other_value_stands_or_both_do(said: str) -> None:
    assert without_old_value(said) == said


def test_a_clock_time_gives_no_new_number_to_a_rule() -> None:
    kept = remembered(
        (
            "new rule: a horse doesn't go on a trail ride if its morning temperature is more "
            "than 2% over its normal. they just get sluggish on the hills",
        ),
        ("TRAIL_TIMES is now 10:00,16:00 and the rota builds two rides a day.",),
    )
    assert any("2% over" in m.text for m in kept), texts(kept)


@pytest.mark.parametrize(
    "remark",
    [
        "今天河边雾好大，骑手都说看不清路",
        "今天来了一只 14 岁的老狗，主人一直在哭，我也挺难受的",
        "the hall at Thornby has a stage that's basically kindling. lovely caretaker though",
        "gonna grab a brew, back later",
        "我去倒杯水，等下回来",
    ],
)
def test_a_remark_left_at_the_end_is_no_open_loop(remark: str) -> None:
    assert not loops_after_an_export(remark)


def loops_after_an_export(said: str) -> tuple[str, ...]:
    """The open loops of a session that ends on `said`, after one finished request."""
    found = checkpoint(
        session(
            "add a CSV export to the members page",
            "Added a CSV export button to the members page; it streams the rows.",
            said,
        )
    )
    assert found is not None
    return found.open_loops


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the export to safari looks weird, the columns are shifted", "safari"),
        ("退款规则先写进去，7 天无理由", "退款规则"),
        ("也把 refund.go 的超时改成 30 秒", "refund.go"),
        ("why does the nightly import skip sundays?", "sundays"),
        ("To do: move these credentials into the vault.", "vault"),
        ("also the backfill has to run with workers=4 or it takes all night", "workers=4"),
        (
            "Open: should --csv write one file per day (daily) or one big file? People diff them.",
            "daily",
        ),
    ],
)
def test_a_last_ask_or_fault_left_unanswered_is_an_open_loop(said: str, kept: str) -> None:
    loops = loops_after_an_export(said)
    assert any(kept in loop for loop in loops), loops


@pytest.mark.parametrize(
    ("said", "kept", "reason"),
    [
        ("快递改成顺丰，别发中通了。上个月中通丢了三个件，客户追着骂", "改成顺丰", "丢了三个件"),
        ("退款必须店长审核才能打款。之前有人把同一单退了两次", "店长审核", "退了两次"),
        (
            "deliveries only after 10am please. the lane is blocked by the school run before that",
            "after 10am",
            "school run",
        ),
        ("20 min cleaning gap after every session, all courts.", "20 min", ""),
    ],
)
def test_an_order_for_the_project_is_kept_with_its_reason(
    said: str, kept: str, reason: str
) -> None:
    found = captures(said)
    events = [c for c in found if c.category == "events" and kept in c.text]
    assert events and events[0].scope == PROJECT, found
    assert reason in events[0].text, found


@pytest.mark.parametrize(
    "said",
    [
        "必须先登录才能看到吗？",
        "it only fails on mondays please help",
        "日志统一用结构化 JSON 输出，别再用 print 调试了。",
    ],
)
def test_a_question_a_failure_or_a_convention_is_no_order(said: str) -> None:
    found = captures(said)
    assert not [
        c for c in found if c.rule.startswith(("decision.zh.", "decision.only", "decision.buf"))
    ], found


@pytest.mark.parametrize(
    "said",
    [
        "in general, for all my stuff: never pipe curl into sh.",
        "global thing, every repo: never run npm audit fix --force.",
    ],
)
def test_a_rule_after_a_lead_that_sets_its_scope_is_global(said: str) -> None:
    found = captures(said)
    assert [c for c in found if c.category == "preferences" and c.scope == "global"], found


@pytest.mark.parametrize(
    "said",
    [
        "max crew is 5 now, not 4. all boats.",
        "the deposit is now 80",
        "late fee is 3 euros now",
    ],
)
def test_a_setting_said_at_its_new_number_now_is_a_change(said: str) -> None:
    found = captures(said)
    assert [c for c in found if c.category == "events"], found


@pytest.mark.parametrize("said", ["it is 5 now and the tests pass", "there are 3 now"])
def test_a_count_of_nothing_named_is_no_setting(said: str) -> None:
    assert not [c for c in captures(said) if c.rule == "decision.setting"]


@pytest.mark.parametrize(
    ("project", "said", "kept"),
    [
        ("/home/dev/tidewatch", "tidewatch runs the rota for our lifeboat crew. rails 7.", "rota"),
        ("/home/dev/kilnbook", "kilnbook = firing schedule for the pottery studio", "firing"),
        ("/home/dev/xiaoshu", "xiaoshu 是我们社区图书角的借书登记，两个书架", "借书登记"),
    ],
)
def test_the_project_said_by_its_own_name_is_a_project_fact(
    project: str, said: str, kept: str
) -> None:
    found = capture_turn(session(said)[0], None, project=project)
    facts = [c for c in found if c.category == "entities" and kept in c.text]
    assert facts and facts[0].scope == project, found


def test_an_assignment_is_still_code() -> None:
    for line in ("total = price * qty", "result = a if b else c", 'name = "my app"'):
        assert classify_line(line) == "code", line


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "also the limit is 10 not 12, the council's letter came",
            "also the limit is 10, the council's letter came",
        ),
        ("the port is 9090 not 8080", "the port is 9090"),
        ("单价是 36，不是 32 了", "单价是 36"),
    ],
)
def test_the_old_value_said_beside_the_new_one_in_its_clause_goes(said: str, shown: str) -> None:
    assert without_old_value(said) == shown


def test_a_build_that_passes_again_resolves_the_failure() -> None:
    found = checkpoint(
        session(
            "add a start time label to the slot cards",
            "Added a start time label to each slot card in components/SlotCard.tsx.",
            "build's broken\n\nType error: Property 'time' does not exist on type 'Slot'.\n\n"
            "> Build failed because of webpack errors",
            "Two components still used the old slot.time field; they use slot.startsAt now "
            "and the next build passes.",
        )
    )
    assert found is not None
    assert not found.open_loops, found.open_loops


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the variant filter step is next, dont touch the cpu path", "variant filter"),
        ("next in this branch: show the nearest defibrillators on the map", "defibrillators"),
    ],
)
def test_the_next_thing_said_last_is_still_an_open_loop(said: str, kept: str) -> None:
    loops = loops_after_an_export(said)
    assert any(kept in loop for loop in loops), loops


def test_an_assistant_setting_up_work_is_no_package_manager_output() -> None:
    found = checkpoint(
        session(
            "ok, today: push notifications when a new route goes up, through FCM",
            "Setting up firebase_messaging: adding per-sector topics in lib/push/topics.dart "
            "and an edge function that posts to FCM…",
        )
    )
    assert found is not None and "FCM" in found.summary, found
    assert classify_line("Setting up libssl3:amd64 (3.0.2-0ubuntu1.10) ...") != "text"


def test_a_task_with_its_own_lead_is_no_global_rule() -> None:
    found = captures(
        "add a max speed guard: never spin faster than 900 rpm, whatever the recipe says"
    )
    assert not [c for c in found if c.scope == "global"], found


def test_a_limit_a_later_note_says_is_wrong_leaves_the_older_description() -> None:
    import test_round44_e2e_classes as r44

    older = r44.memory(
        "a",
        1,
        "beacon sells tickets for the lighthouse. the tower climb is the big thing, 117 steps, "
        "max 12 people up the tower at once",
    )
    newer = r44.memory("b", 6, "also the limit is 10 not 12, the fire officer's letter came")
    other = r44.memory("c", 2, "the gift shop sells 12 kinds of postcards")
    shown = r44.resume(r44.cp("s1", 8, "Asked: add a wind check."), [older, newer, other])
    assert "117 steps" in shown and "12 people" not in shown, shown
    assert "12 kinds of postcards" in shown, shown


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("最近来自习的一大半都是考研的，整个店安静得掉根针都听得见", False),
        ("订单数据来自美团的开放平台接口", True),
    ],
)
def test_come_from_is_read_as_a_word_not_across_two(said: str, fact: bool) -> None:
    found = [c for c in captures(said) if c.category == "entities"]
    assert bool(found) == fact, found


def test_the_steps_the_code_now_takes_close_the_failure() -> None:
    found = checkpoint(
        session(
            "打印机偶尔收不到任务，你看下：\n\n"
            "[2027-01-02 07:00:02] ERROR print: 401 signature failed",
            "签名是对格式化前的 JSON 算的，发送时请求体又被重新序列化了一次，导致验签失败。"
            "现在先序列化成字节，再对同一份字节签名并发送。",
        )
    )
    assert found is not None
    assert not found.interrupted and not found.open_loops, found


@pytest.mark.parametrize("said", ["现在先看下日志，再决定怎么改", "现在先改 config.py，再跑测试"])
def test_the_agent_s_own_next_move_is_no_done_report(said: str) -> None:
    assert R.DONE.search(said) is None


@pytest.mark.parametrize(
    ("fault", "reply", "fix"),
    [
        (
            "the 18:40 from Hexham has vanished on sundays",
            "stop_times.txt marks that trip with pickup_type 1, and export.py read it as "
            "'no service', so the sunday run was dropped. Fixed the mapping in gtfs/trips.py; "
            "the 18:40 is back.",
            "Fixed the mapping",
        ),
        (
            "周六的早班车突然不见了",
            "calendar.txt 里周六那列是 1，导出脚本把它当成了停运，所以整班被过滤掉了。"
            "已经把判断改成按 service_id 查，周六早班又出来了。",
            "service_id",
        ),
    ],
)
def test_the_reply_to_a_fault_then_its_fix_is_one_case(fault: str, reply: str, fix: str) -> None:
    found = captures(fault, reply)
    cases = [c for c in found if c.category == "cases"]
    assert cases and fix in cases[0].text, found
    assert not [c for c in found if c.text.startswith(fault[:12])], found


def test_the_project_said_by_its_name_keeps_what_it_goes_on_to_say() -> None:
    said = (
        "cragbook tracks the routes our setters put up at the gym. Flutter app, Supabase "
        "backend. grades: Font scale for the boulders, French grades for the rope routes"
    )
    found = capture_turn(session(said)[0], None, project="/home/dev/cragbook")
    assert any("Font scale" in c.text and "cragbook" in c.text for c in found), found


@pytest.mark.parametrize(
    ("said", "kept"), [("Now the invoices endpoint.", "invoices"), ("然后是退款那块", "退款")]
)
def test_an_ask_by_ellipsis_is_an_open_loop(said: str, kept: str) -> None:
    loops = loops_after_an_export(said)
    assert any(kept in loop for loop in loops), loops


@pytest.mark.parametrize(
    ("project", "said", "kind"),
    [
        ("/home/dev/foodshare", "foodshare allocates veg boxes for the Westgate pantry", "intro"),
        ("/home/dev/foodshare", "foodshare needs a swap button", None),
        ("/home/dev/foodshare", "foodshare crashes on startup since the upgrade", None),
    ],
)
def test_what_the_project_does_is_said_with_any_verb(
    project: str, said: str, kind: str | None
) -> None:
    found = [c for c in capture_turn(session(said)[0], None, project=project)]
    intros = [c for c in found if c.rule == "entity.project_intro"]
    assert bool(intros) == (kind == "intro"), found


def test_the_project_fact_stops_at_a_rule_for_every_project() -> None:
    said = (
        "kilnlog 是陶艺工作室的窑烧排期，一窑最多 40 件。"
        "另外说一声，不管哪个项目，写数据库迁移都要带 down"
    )
    found = capture_turn(session(said)[0], None, project="/home/dev/kilnlog")
    intro = [c for c in found if c.rule == "entity.project_intro"]
    assert intro and "迁移" not in intro[0].text, found
    assert any(c.scope == "global" and "迁移" in c.text for c in found), found


def test_sizes_by_range_are_a_fact() -> None:
    found = captures("sizes: one adult gets small, 2 to 4 people medium, large from 5 people up")
    assert any("large from 5" in c.text for c in found), found


def test_a_change_s_own_old_value_is_no_remainder() -> None:
    said = "班级上限最多改成 10 人，12 个人老师根本看不过来"
    target = Memory(
        id="c" * 32,
        scope=PROJECT,
        category="events",
        text=said,
        importance=0.6,
        created_at=T0,
        updated_at=T0,
    )
    report = "上周的课已挪到周日上午，下月 1 号起生效；班级上限改成 10 人（max_students = 10）。"
    caps = [c for c in captures("go on", report) if c.text.startswith("上周")]
    assert caps, captures("go on", report)
    left = remainder(caps[0], target)
    assert left is None or "12 个人" not in left.text, left


def test_a_price_named_with_its_attribute_changes_the_plain_name() -> None:
    kept = remembered(
        ("卡种在 card_types 表，目前是次卡 20 次 800 元、月卡 399、年卡 2999。",),
        ("月卡价格改成 429，下个月 1 号起",),
    )
    assert "月卡 399" not in texts(kept), texts(kept)


def test_a_value_a_later_note_says_is_wrong_leaves_an_older_note_about_the_same_thing() -> None:
    import test_round44_e2e_classes as r44

    older = r44.memory("a", 1, "上门费每次 30 元，同城配送费 10 元")
    newer = r44.memory("b", 6, "上门费不是 30 块，是每次 45 元，30 块是前年的价了")
    shown = r44.resume(r44.cp("s1", 8, "Asked: 加个预约提醒。"), [older, newer])
    assert "同城配送费 10 元" in shown and "每次 30 元" not in shown, shown


def test_a_solved_case_keeps_the_value_it_replaced() -> None:
    import test_round44_e2e_classes as r44

    case = r44.memory(
        "a",
        3,
        "The worker was OOMKilled: the memory limit in values.yaml is 256Mi and three workers "
        "need more. I raised the limit to 512Mi.",
        category="cases",
    )
    shown = r44.resume(r44.cp("s1", 8, "Asked: add an alert."), [case])
    assert "OOMKilled" in shown, shown

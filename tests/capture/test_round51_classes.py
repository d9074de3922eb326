"""Round 51's classes from blind batches b46 and b47 (decision 0072), on phrasings of our own.
Each positive fails on 24552bc; the guards, named for what stays or is still so, hold on both."""

from __future__ import annotations

import pytest
from test_round47_classes import capture

# --------------------------------------------------------------------------- routines


@pytest.mark.parametrize(
    ("said", "role", "step"),
    [
        # a "so …" inside the lead says why it is told; the method follows the colon, and
        # the clause before the "so" is no report that a release was cut
        (
            "how I cut a release of the app, so you can do one without me: bump the version, "
            "run the tests, then push the tag",
            "user",
            "run the tests",
        ),
        # a dot inside a token ("v3.2.1", "./flash.sh") ends no sentence
        (
            "how we ship the kiosk image: tag v3.2.1 on main, run ./flash.sh on the spare "
            "unit, then swap it in at closing. never flash two kiosks on one night",
            "user",
            "flash.sh",
        ),
        # the user's habit, named as such, then three steps with no 然后
        (
            "开学报名我们一般这样处理：家长扫码填表，老师核对名单，财务最后开收据",
            "user",
            "核对名单",
        ),
        (
            "每周排班我都是这么搞的：周五收大家的空闲时间，周六排好发群里，周日微调",
            "user",
            "周六排好",
        ),
        # the assistant carrying out the user's usual way, step by step
        (
            "Ran the payroll export the way you normally do it: locked the period, exported "
            "the CSV, then emailed it to the accountant.",
            "assistant",
            "locked the period",
        ),
    ],
)
def test_a_routine_named_as_the_speakers_way_is_a_workflow(said: str, role: str, step: str) -> None:
    found = capture(said, role=role)
    ruled = [c for c in found if c.category == "patterns" and "learned" not in c.rule]
    assert [c for c in ruled if step in c.text], found


def test_a_list_of_values_after_its_lead_is_still_no_routine() -> None:
    found = capture("营业时间是这样的：周一到周五 9:00-21:00，周六 10:00-22:00，周日 10:00-18:00")
    assert not [c for c in found if c.category == "patterns"], found


def test_a_way_of_thinking_is_still_no_routine() -> None:
    assert capture("我一般这么想的：先做出来再说") == []


# --------------------------------------------------------------------------- cause, then fix


PREVIOUS = "the reminder emails are doubled again"


@pytest.mark.parametrize(
    ("said", "cause", "fix"),
    [
        # a consequence sentence between the cause and the fix
        (
            "Found it. The reminder job and the nightly cron both send the invoice email. "
            "So every client got two on Mondays. I removed the cron entry and made "
            "send_reminder skip invoices already marked reminded. One email each on staging.",
            "nightly cron",
            "removed the cron entry",
        ),
        (
            "查到了。会员卡的到期时间是按 UTC 存的，夜里零点到八点办的卡都算成了前一天。"
            "所以有些会员早一天就过期了。我把到期判断改成了按北京时间算。",
            "UTC",
            "北京时间",
        ),
    ],
)
def test_a_case_runs_from_its_cause_to_its_fix(said: str, cause: str, fix: str) -> None:
    found = capture(said, role="assistant", previous=PREVIOUS)
    assert [c for c in found if c.category == "cases" and cause in c.text and fix in c.text], found


@pytest.mark.parametrize(
    ("said", "cause", "fix"),
    [
        # the cause kept as one case and the fix as another
        (
            "查到了：安卓 7 自带的 webview 不支持可选链，整页脚本直接报错，所以看着像白屏。"
            "我把构建目标改成了 es2017，可选链会被转译掉。两台旧收银机上试过，现在都能打开。",
            "可选链",
            "es2017",
        ),
        # a look around first, an aside, then the cause and the fix
        (
            "我看了同步脚本的日志。里面有不少超时的告警，先不用管。真正的原因是：供应商接口每天零点"
            "换 token，脚本还拿着旧的。我把 token 改成了每次请求前重新获取。",
            "换 token",
            "重新获取",
        ),
    ],
)
def test_a_case_read_whole_already_stays_one(said: str, cause: str, fix: str) -> None:
    found = capture(said, role="assistant", previous=PREVIOUS)
    assert [c for c in found if c.category == "cases" and cause in c.text and fix in c.text], found


def test_a_cause_with_no_change_after_it_stays_a_diagnosis() -> None:
    said = (
        "Found it. The scale sends weights in pounds while the till expects kilos. "
        "So every bag of flour rang up at about twice its price."
    )
    found = capture(said, role="assistant", previous="the till is charging double for flour")
    assert [c.category for c in found] == ["cases"], found
    assert "pounds" in found[0].text, found


# --------------------------------------------------------------------------- agreed, then a fact


@pytest.mark.parametrize(
    ("said", "where"),
    [
        # the model reads the agreement and the promise after the fact ("I'll move it") as
        # nothing, sure enough to veto a catch-all fact; the fact between them stands
        ("You're right, that helper belongs in utils/dates.py; I'll move it.", "utils/dates.py"),
        ("Good catch, the webhook handlers belong in api/hooks/; I'll move them.", "api/hooks"),
        ("收到，夹具归 tests/data 管，我挪一下。", "tests/data"),
        ("你说得对，工具函数归 utils/dates.py 管，我挪过去。", "utils/dates.py"),
    ],
)
def test_a_fact_stated_after_agreeing_survives_the_veto(said: str, where: str) -> None:
    found = capture(said, role="assistant")
    assert [c for c in found if c.category == "entities" and where in c.text], found


@pytest.mark.parametrize(
    "said", ["All 58 tests pass and the linter is clean.", "还有要改的随时喊我。"]
)
def test_a_report_the_model_is_sure_states_nothing_is_still_vetoed(said: str) -> None:
    assert capture(said, role="assistant") == []


# --------------------------------------------------------------------------- how the agent answers


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        # what the agent hands the user, and how, with no comma between
        ("if you write SQL for me use CTEs instead of nested subqueries", "CTEs"),
        ("when you write Dockerfiles for me pin the base image to a digest", "digest"),
        ("when I ask for a summary just give me three bullets, nothing else", "three bullets"),
        ("also, when I ask for a review just list the problems, skip the praise", "problems"),
        # the language the agent answers in, or writes the team's messages in
        ("commit message 用英文写，前面带 ticket 号，比如 `SHOP-12: fix cart`", "ticket"),
        ("注释统一用英文写，TODO 后面带上负责人", "负责人"),
        # a way of working said for every project the user has
        ("我所有项目都一个规矩：函数不超过 40 行，超过就拆", "40 行"),
        (
            "for all my repos, one rule: no default exports, named ones only, index re-exports",
            "default exports",
        ),
    ],
)
def test_how_the_agent_should_answer_or_write_is_a_preference(said: str, kept: str) -> None:
    found = capture(said)
    assert [c for c in found if c.category == "preferences" and kept in c.text], found


def test_steps_for_every_project_are_still_a_workflow() -> None:
    found = capture("我所有项目都一样：先写测试，再写实现，最后跑一遍 lint")
    assert [c.category for c in found] == ["patterns"], found


@pytest.mark.parametrize(
    "said",
    [
        "when you write the migration, run it on staging first",  # a step in this project's flow
        "if you write tests for the parser, the fixtures are in tests/data",  # where things are
    ],
)
def test_a_step_or_a_fact_for_the_agents_work_is_still_no_preference(said: str) -> None:
    assert not [c for c in capture(said) if c.category == "preferences"], capture(said)


def test_a_message_that_was_written_in_chinese_is_no_rule() -> None:
    found = capture("回复我的那封邮件用中文写的，我看不太懂")
    assert not [c for c in found if "zh.answers" in c.rule], found


# --------------------------------------------------------------------------- a change reported done


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        # a version pinned or a service switched, said with an "I" (after "Done." or not)
        (
            "Done. I upgraded Django to 4.2.11 in requirements.txt: 4.1 is out of support.",
            "4.2.11",
        ),
        (
            "I've pinned numpy to 1.26.4 in pyproject.toml because 2.0 breaks the pandas build.",
            "1.26.4",
        ),
        ("I switched the queue from Redis to SQS; the worker reads the URL from QUEUE_URL.", "SQS"),
        # how data is kept, replaced and reported done, or a service named before its switch
        (
            "已经把 `users`、`orders` 两张表的金额字段改成按分存整数（`bigint`），接口统一返回元。",
            "按分存整数",
        ),
        ("图片存储已经从七牛换成阿里云 OSS 了，七牛那边流量太贵。", "阿里云 OSS"),
    ],
)
def test_a_change_the_assistant_reports_done_is_a_decision(said: str, kept: str) -> None:
    found = capture(said, role="assistant")
    ruled = [c for c in found if c.category == "events" and "learned" not in c.rule]
    assert [c for c in ruled if kept in c.text], found


@pytest.mark.parametrize(
    "said",
    [
        "I pinned the message to the top of the channel so people see it.",
        "已经把时间字段改成 UTC 存储了吗？",
    ],
)
def test_a_pin_with_no_version_or_a_question_is_no_decision(said: str) -> None:
    assert not [c for c in capture(said, role="assistant") if c.category == "events"]


# --------------------------------------------------------------------------- textbook answers


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        (
            "whats the difference between a mutex and a semaphore again?",
            "A mutex is owned by the thread that locks it and only that thread unlocks it; a "
            "semaphore is a counter any thread can signal. Go's sync.Mutex is the former.",
        ),
        (
            "pnpm 和 npm 到底啥区别",
            "pnpm 把依赖装在全局的 ~/.pnpm-store 里，项目 node_modules 里放的是硬链接；npm 每个项目"
            "都复制一份。",
        ),
        (
            "utf8 和 utf8mb4 有什么区别",
            "MySQL 的 utf8 其实只支持 3 字节，存不了 emoji；utf8mb4 才是完整的 UTF-8。",
        ),
        # a future supposed for the user, not the project as it is
        (
            None,
            "If you ever outgrow SQLite, Postgres would be the natural next step, but for one "
            "shop SQLite with a nightly backup in /var/backups is plenty.",
        ),
    ],
)
def test_a_textbook_answer_is_no_fact_of_the_project(asked: str | None, said: str) -> None:
    assert capture(said, role="assistant", previous=asked) == []


@pytest.mark.parametrize(
    ("asked", "said", "kept"),
    [
        (
            "what's the difference between our staging and prod configs?",
            "Staging reads config/staging.toml and prod reads config/prod.toml; only the "
            "database URL differs.",
            "config/prod.toml",
        ),
        (
            "我们项目里 api 和 worker 两个服务有啥区别",
            "api 服务跑在 8080 端口，处理 HTTP 请求；worker 从 redis 队列里取任务，"
            "跑在 jobs/ 目录下。",
            "8080",
        ),
    ],
)
def test_what_tells_two_of_our_own_things_apart_is_still_a_fact(
    asked: str, said: str, kept: str
) -> None:
    found = capture(said, role="assistant", previous=asked)
    assert [c for c in found if c.category == "entities" and kept in c.text], found


# --------------------------------------------------------------------------- don't hardcode it


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "the invoice due period is driven by `INVOICE_DUE_DAYS` in settings, currently 30. "
            "dont hardcode it anywhere else pls",
            "INVOICE_DUE_DAYS",
        ),
        ("会员折扣的比例放在 `MEMBER_DISCOUNT` 里，现在是 0.9，别在代码里写死", "MEMBER_DISCOUNT"),
    ],
)
def test_where_a_value_is_kept_then_dont_hardcode_it_is_a_fact(said: str, kept: str) -> None:
    found = capture(said)
    assert [c.category for c in found] == ["entities"], found
    assert kept in found[0].text


def test_a_rule_then_dont_hardcode_is_still_a_preference() -> None:
    found = capture("以后写脚本路径都从参数传进来，别在代码里写死")
    assert [c.category for c in found] == ["preferences"], found


# --------------------------------------------------------------------------- a value taken back


@pytest.mark.parametrize(
    ("said", "first", "last"),
    [
        (
            "set the session timeout to 20 minutes. actually no, make it 30, the nurses step "
            "away a lot",
            "session timeout",
            "30",
        ),
        ("订单自动取消改成 15 分钟。不对，还是 30 分钟吧，有人付款慢", "订单自动取消", "30 分钟"),
        (
            "会员生日券改成提前 3 天发。哦不对，3 天太赶了，改 5 天吧……"
            "算了还是 7 天，跟月初对账对齐",
            "生日券",
            "7 天",
        ),
    ],
)
def test_a_value_taken_back_in_the_turn_is_kept_with_its_last_word(
    said: str, first: str, last: str
) -> None:
    found = capture(said)
    assert len(found) == 1, found
    assert first in found[0].text and last in found[0].text, found


def test_a_question_after_a_value_is_no_revision() -> None:
    found = capture("set the cache TTL to 60s. actually, what's the current value?")
    assert [c.text for c in found] == ["set the cache TTL to 60s."], found


# --------------------------------------------------------------------------- the user's fix story


@pytest.mark.parametrize(
    ("said", "fix"),
    [
        # a machine's sleep is no chit-chat: the fix sentence reaches the rules
        (
            "figured out why the till kept losing the card reader at night. the windows power "
            "plan puts USB to sleep after an hour. disabled sleep mode on the till and it's been "
            "fine since",
            "disabled sleep mode",
        ),
        (
            "查到了，监控录像半夜断档是因为 NAS 凌晨两点硬盘休眠，挂载点直接卡死。"
            "关掉了硬盘休眠，一周没再断过",
            "关掉了硬盘休眠",
        ),
        # no finding lead: the failure, its cause, the patch and its proof
        (
            "the badge export was crashing whenever a kid had no surname — a null in the name "
            "join. patched it to fall back to the first name, works now",
            "fall back",
        ),
    ],
)
def test_a_users_fix_story_is_one_case_with_its_fix(said: str, fix: str) -> None:
    found = capture(said)
    ruled = [c for c in found if c.category == "cases" and "learned" not in c.rule]
    assert [c for c in ruled if fix in c.text], found


def test_a_night_without_sleep_is_still_chit_chat() -> None:
    assert capture("didn't sleep much last night lol") == []

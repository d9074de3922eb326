"""Capture, round 45 (second part, decision 0052): the classes blind batch b38 showed, each
tested on phrasings of our own (not the batch's rows), both ways: someone else's view waved off,
a layout closed by a caution, the user's main job, a decision named as one, the user's call
carried out, steps written into the docs, how every value is kept, a tool kept out and what does
instead, a value put right by arithmetic, the user's rule restated, the rights the user lacks, a
short answer in the question's words, an option picked in its words, names mapped to ids, and
values written into a named setting."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept

# --------------------------------------------------------------------------- waved off


@pytest.mark.parametrize(
    "said",
    [
        "我领导说后台要全部改成 React，随口一说的，别管他",
        "老板说以后都用飞书登录，他就是随便说说，不用理",
        "my manager said we should use kubernetes for this. just ignore that",
        "our cto says we should move to kubernetes. don't listen to him, not gonna happen",
    ],
)
def test_someone_elses_view_waved_off_is_no_memory(said: str) -> None:
    assert capture(said) == []


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("老板说以后订单都要用飞书审批，下周开始", "飞书审批"),
        ("my boss says all invoices must go through Xero from now on", "Xero"),
    ],
)
def test_someone_elses_rule_not_waved_off_stays(said: str, value: str) -> None:
    assert any(value in c.text for c in capture(said))


# --------------------------------------------------------------------------- guarded layouts


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "the test bucket is shop-media-test and the live one is shop-media, "
            "please don't mix them up",
            ("shop-media-test", "mix them up"),
        ),
        (
            "staging api is api-stg.example.org and prod is api.example.org. "
            "don't confuse the two again",
            ("api-stg.example.org",),
        ),
        (
            "the uploads bucket is media-live and the scratch one is media-tmp. "
            "please don't get them mixed up again",
            ("media-live", "media-tmp"),
        ),
        ("缓存 redis 在 10.1.0.7:6379，db 3 放购物车，db 1 别动", ("10.1.0.7:6379", "db 1 别动")),
    ],
)
def test_a_layout_closed_by_a_caution_is_one_fact(said: str, values: tuple[str, ...]) -> None:
    found = capture(said)
    kept(found, "entities", *values)
    assert len(found) == 1, found


@pytest.mark.parametrize(
    ("said", "category"),
    [
        ("don't touch db 0", "preferences"),
        ("please don't mix up the staging and prod buckets", "preferences"),
        ("日志都在 /var/log/shop 下面，nginx 的在 /var/log/nginx，别删", "preferences"),
        ("别用 npm，用 pnpm，别搞混了", "preferences"),
    ],
)
def test_a_caution_of_its_own_stays_a_rule(said: str, category: str) -> None:
    found = capture(said)
    assert [c.category for c in found] == [category], found


# --------------------------------------------------------------------------- the user's main job


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("我白天的工作是开货车的，晚上才有空弄", "开货车"),
        ("我主业是卖保险的，这个小程序是帮朋友做的", "卖保险"),
        ("我本职是船上的大副，一年大半年在海上", "大副"),
        ("deckhand here, I only get wifi in port", "deckhand"),
        ("I am a ship's carpenter, I only get to this in port", "carpenter"),
    ],
)
def test_the_users_main_job_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


@pytest.mark.parametrize(
    "said",
    ["the driver here is the bottleneck", "我的本职是什么不重要", "船长说今天不出海"],
)
def test_a_job_not_the_users_is_no_profile(said: str) -> None:
    assert [c for c in capture(said) if c.category == "profile"] == []


# --------------------------------------------------------------------------- named decisions


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("decided: invoices stay in the spreadsheet for now, we'll revisit in spring", "invoices"),
        ("we've decided to stay on paper forms for now", "paper forms"),
        ("定了：签到先用纸质表，暂时不上电子签", "纸质表"),
        ("决定了，会员卡暂时还用纸的，等明年再说", "会员卡"),
    ],
)
def test_a_decision_named_as_one_holds_for_now(said: str, value: str) -> None:
    kept(capture(said), "events", value)


@pytest.mark.parametrize(
    "said",
    ["for now let's just keep it on paper", "let's go with redis for now", "先这样吧，暂时用纸的"],
)
def test_a_for_now_without_a_decision_named_is_no_decision(said: str) -> None:
    assert [c for c in capture(said) if c.category == "events"] == []


# --------------------------------------------------------------------------- the user's call, done


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "I've switched the invoices from PDF attachments to a download link, as you decided.",
            "download link",
        ),
        ("I've moved the reminders to email only, as agreed.", "email only"),
        (
            "I've put the booking cutoff at 48 hours — per your call, since the vans load early.",
            "48",
        ),
    ],
)
def test_a_change_done_as_the_user_decided_is_a_decision(said: str, value: str) -> None:
    kept(capture(said, role="assistant"), "events", value)


@pytest.mark.parametrize(
    "said",
    ["I've renamed the helper, as you asked.", "I've moved the reminders to email only."],
)
def test_a_change_done_with_no_decision_named_is_none(said: str) -> None:
    assert [c for c in capture(said, role="assistant") if c.category == "events"] == []


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "Added to RELEASING.md as we agreed: bump the version, tag it, push the tag, "
            "then run `make publish`.",
            "make publish",
        ),
        (
            "Documented in docs/ops.md: drain the queue, snapshot the volume, "
            "then restart the worker.",
            "snapshot the volume",
        ),
        ("按约定写进了 RELEASE.md：先打 tag，再推到 GitHub，最后跑 `make publish`。", "打 tag"),
    ],
)
def test_steps_written_into_the_docs_are_a_workflow(said: str, value: str) -> None:
    found = capture(said, role="assistant")
    kept(found, "patterns", value)
    assert len(found) == 1, found


def test_a_report_written_into_the_docs_is_no_workflow() -> None:
    found = capture(
        "Added to the README: I fixed the typo, then reran the build.", role="assistant"
    )
    assert [c for c in found if c.category == "patterns"] == []


# ------------------------------------------------------------------------ how every value is kept


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("Kindly keep all timestamps in UTC in the database.", "UTC"),
        ("save every export as UTF-8 with a BOM, excel chokes otherwise", "UTF-8"),
        ("请把所有重量都以克为单位存成整数", "以克为单位"),
        ("所有时长都按秒存，别存成小时", "按秒存"),
    ],
)
def test_how_every_value_of_a_kind_is_kept_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    "said",
    [
        "Kindly fix the login bug.",
        "store all the photos in the uploads folder",
        "把所有测试都跑一遍",
    ],
)
def test_a_task_over_all_of_something_is_no_preference(said: str) -> None:
    assert [c for c in capture(said) if c.category == "preferences"] == []


# --------------------------------------------------------------------------- kept out, and instead


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "No Tailwind here. Plain CSS modules, I want to read the styles.",
            ("Tailwind", "CSS modules"),
        ),
        (
            "No Redux in this project. Plain React context is enough for three screens.",
            ("Redux", "React context"),
        ),
        ("No GraphQL in this one. REST with OpenAPI, the clients already speak it.", ("REST",)),
    ],
)
def test_a_tool_kept_out_and_what_does_instead_are_one_preference(
    said: str, values: tuple[str, ...]
) -> None:
    found = capture(said)
    kept(found, "preferences", *values)
    assert len(found) == 1, found


@pytest.mark.parametrize("said", ["No problem here. Thanks!", "No idea in this one."])
def test_no_tool_kept_out_is_no_preference(said: str) -> None:
    assert capture(said) == []


# --------------------------------------------------------------------------- a value put right


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "找到原因了：温控器上报的是十分之一度，代码当成了整度，所以显示成 215 度。"
            "已经在 sensor.go 里除以 10，旧数据也修正了。",
            ("十分之一度", "除以 10"),
        ),
        (
            "Found it: the thermostat reports tenths of a degree and we treated them as degrees, "
            "so 215 showed as 215°C. I've divided the reading by 10 in sensor.py.",
            ("tenths", "divided the reading by 10"),
        ),
    ],
)
def test_a_cause_and_the_value_put_right_by_arithmetic_are_one_case(
    said: str, values: tuple[str, ...]
) -> None:
    found = capture(said, role="assistant")
    kept(found, "cases", *values)
    assert len(found) == 1, found


# ----------------------------------------------------------------------- the user's rule, restated


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        ("好的，以后变量名都用英文全称，不用拼音缩写。", "以后变量名别用拼音了", "英文全称"),
        (
            "Got it — from now on I'll use pnpm for everything in this repo.",
            "use pnpm from now on, not npm",
            "pnpm",
        ),
    ],
)
def test_the_users_standing_rule_restated_is_their_preference(
    said: str, previous: str, value: str
) -> None:
    found = capture(said, role="assistant", previous=previous)
    kept(found, "preferences", value)
    assert len(found) == 1, found


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        ("好的，这次的提交信息用中文。", "以后 commit message 都用中文写"),
        (
            "Got it — from now on I'll use pnpm for everything in this repo.",
            "which package manager should I use?",
        ),
    ],
)
def test_a_restatement_of_no_standing_rule_is_no_preference(said: str, previous: str) -> None:
    found = capture(said, role="assistant", previous=previous)
    assert [c for c in found if c.category == "preferences"] == [], found


# ------------------------------------------------------------------------ a decision, carried out


@pytest.mark.parametrize(
    ("said", "previous", "values"),
    [
        (
            "Agreed, Mailgun it is — the free tier covers our volume. "
            "I've set MAILGUN_DOMAIN in .env.example so deploys pick it up.",
            "let's use mailgun for the receipts",
            ("Mailgun", "MAILGUN_DOMAIN"),
        ),
        (
            "好，就用 SQLite，一个人写、每月几百单完全够用。"
            "我已经打开了 WAL 模式，夜里备份不用停服务。",
            "订单就存 sqlite 吧",
            ("SQLite", "WAL"),
        ),
    ],
)
def test_a_decision_and_the_change_that_carries_it_out_are_one(
    said: str, previous: str, values: tuple[str, ...]
) -> None:
    found = capture(said, role="assistant", previous=previous)
    kept(found, "events", *values)
    assert len(found) == 1, found


def test_an_unrelated_edit_after_a_decision_stays_out() -> None:
    found = capture(
        "Agreed, Mailgun it is — the free tier covers our volume. I've also renamed the helper.",
        role="assistant",
        previous="let's use mailgun",
    )
    assert all("renamed" not in c.text for c in found), found


# ---------------------------------------------------------------------- the rights the user lacks


@pytest.mark.parametrize(
    ("said", "values"),
    [
        ("I have no admin rights on the office PC.", ("no admin rights",)),
        (
            "I'm the only IT person at a small charity. Everything has to run on the office's "
            "shared Windows laptop, and I don't have admin rights on it.",
            ("only IT person", "admin rights"),
        ),
    ],
)
def test_the_rights_the_user_lacks_are_their_profile(said: str, values: tuple[str, ...]) -> None:
    found = capture(said)
    kept(found, "profile", *values)
    assert len(found) == 1, found


def test_rights_someone_else_lacks_are_no_profile() -> None:
    found = capture("the deploy user has no admin rights on the box")
    assert [c for c in found if c.category == "profile"] == [], found


# ----------------------------------------------------------------------- a short answer, echoed


@pytest.mark.parametrize(
    ("said", "previous", "values"),
    [
        (
            "提前 24 小时。24 小时以内退房就扣一晚，旺季房紧",
            "民宿退订要提前多久才全额退款？",
            ("提前 24 小时", "扣一晚"),
        ),
        ("最多 20 个人", "一个班最多多少人？", ("最多 20 个人", "一个班")),
        (
            "48 hours ahead. Anything later is charged in full.",
            "how long ahead do clients need to cancel to get a refund?",
            ("48 hours ahead", "charged in full"),
        ),
    ],
)
def test_a_short_answer_in_the_questions_words_is_one_fact(
    said: str, previous: str, values: tuple[str, ...]
) -> None:
    found = capture(said, previous=previous)
    kept(found, "entities", *values)
    assert len(found) == 1, found


def test_a_short_reply_to_no_question_for_a_value_is_no_answer() -> None:
    found = capture("提前 24 小时。", previous="民宿退订的规则你再想想。")
    assert [c for c in found if c.rule == "answer.fact"] == [], found


# ----------------------------------------------------------------------- an option, in its words


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "weekly digest, sunday evening. daily is too much for them",
            "Do you want a daily digest email or a weekly digest?",
            "weekly digest",
        ),
        (
            "text message at 8am, nobody reads email",
            "Should the alert be a text message or an email?",
            "text message",
        ),
    ],
)
def test_a_reply_opening_with_one_options_words_is_the_pick(
    said: str, previous: str, value: str
) -> None:
    kept(capture(said, previous=previous), "events", value)


def test_a_reply_sharing_one_word_with_the_options_is_no_pick() -> None:
    found = capture(
        "the day is long, let's talk later",
        previous="Should it go out the day before, or on the morning of?",
    )
    assert [c for c in found if c.category == "events"] == [], found


# --------------------------------------------------------------------------- names mapped to ids


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("The bowling lanes 1–12 map to lane_id 101–112 in the booking table.", "lane_id"),
        ("会员等级金卡、银卡、铜卡分别对应 member_level 表里的 3、2、1。", "member_level"),
    ],
)
def test_the_businesss_names_mapped_to_the_codes_ids_are_a_fact(said: str, value: str) -> None:
    kept(capture(said, role="assistant"), "entities", value)


@pytest.mark.parametrize(
    ("said", "role"),
    [("The button maps to the save handler.", "assistant"), ("this maps to what I said", "user")],
)
def test_a_mapping_that_names_nothing_is_no_fact(said: str, role: str) -> None:
    assert capture(said, role=role) == []


# --------------------------------------------------------------------------- values in a setting


@pytest.mark.parametrize(
    ("said", "previous", "values"),
    [
        (
            "已经写进 config.py 的 LATE_FEES：迟到 15 分钟内不收，15 到 30 分钟收 20 元。",
            "迟到费就这么定：15 分钟内不收，15 到 30 分钟收 20",
            ("LATE_FEES", "20 元"),
        ),
        (
            "Done, it's in settings.ts as PRICING: first hour £4, then £2 per half hour, "
            "capped at £10 a day.",
            "pricing: first hour 4 quid, then 2 per half hour, max 10 a day",
            ("PRICING", "£10"),
        ),
        (
            "Written into config.py as late_fees: nothing under 15 minutes late, £5 up to 30.",
            None,
            ("late_fees", "£5"),
        ),
    ],
)
def test_a_table_of_values_written_into_a_named_setting_is_a_fact(
    said: str, previous: str | None, values: tuple[str, ...]
) -> None:
    found = capture(said, role="assistant", previous=previous)
    kept(found, "entities", *values)
    assert len(found) == 1, found


def test_one_value_set_in_code_stays_the_users_decision() -> None:
    found = capture(
        "I've added MAX_WEEKEND_BOOKINGS = 2 to settings.py so the booking form rejects a third.",
        role="assistant",
        previous="lets just cap it at 2 bookings per member per weekend",
    )
    kept(found, "events", "MAX_WEEKEND_BOOKINGS")

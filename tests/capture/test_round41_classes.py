"""Capture, round 41: the classes held-out batch b31 showed when it was read, each tested on
phrasings of our own (not the batch's rows): prohibitions scoped to a place, the way to do a
job said against another way, routines on a calendar, procedures introduced by "how I …",
Chinese fix-worked and display forms, one-off requests with their terms, occupations outside
software, picks that refine an option, steps the user asked for, and values moved "now"."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

from recallnest.capture.chatter import is_small_talk


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "in the Go services, no `panic` please. return the error and let the caller decide",
            "panic",
        ),
        ("for the invoices page: no modal dialogs, ever. inline forms only", "modal dialogs"),
        ("on the public site, no autoplay video anywhere, it eats mobile data", "autoplay"),
    ],
)
def test_a_prohibition_scoped_to_a_place_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("when you write fixtures for the billing tests, build them with factories instead of "
         "loading JSON dumps.", "factories"),
        ("if you touch the CSV export, stream rows rather than building the whole list in "
         "memory.", "stream rows"),
    ],
)  # fmt: skip
def test_the_way_to_do_a_job_said_against_another_way_is_a_preference(
    said: str, value: str
) -> None:
    found = capture(said)
    kept(found, "preferences", value)
    none_of(found, "patterns")


def test_when_you_do_a_job_also_do_another_stays_a_workflow() -> None:
    kept(
        capture("when you add a queue, also add its dead-letter queue to the terraform."),
        "patterns",
    )


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("every Monday before standup I export the burndown and paste it in the channel, not "
         "the raw ticket list.", "burndown"),
        ("each month we rotate the staging database snapshot and purge the old one", "snapshot"),
    ],
)  # fmt: skip
def test_a_routine_on_a_calendar_is_a_workflow(said: str, value: str) -> None:
    found = capture(said)
    kept(found, "patterns", value)
    none_of(found, "events")


def test_how_i_do_a_job_followed_by_its_steps_is_a_workflow() -> None:
    said = (
        "how we publish the docs site: build with mkdocs, push the site folder to the gh-pages "
        "branch, then purge the CDN cache"
    )
    found = capture(said)
    kept(found, "patterns", "mkdocs")
    none_of(found, "events")


@pytest.mark.parametrize(
    "said",
    [
        "导出的时候偶尔少一行，原因是分页的时候用了 offset，数据在变。"
        "改成按 id 游标翻页就再没出现过",
        "同步任务偶尔重复写入，原因是重试的时候没带幂等键。"
        "请求头加上 Idempotency-Key 以后就再没出现过",
    ],
)
def test_a_chinese_fix_that_stopped_the_failure_is_a_case(said: str) -> None:
    found = capture(said)
    kept(found, "cases")
    # Read by a rule, at a rule's confidence, not left to the learned model's guess.
    assert all(not c.rule.startswith("learned") for c in found), [c.rule for c in found]


def test_a_chinese_display_convention_is_a_preference() -> None:
    kept(
        capture("表格里的日期都显示成 2024-05-01 这种格式，悬停的时候再显示星期几"),
        "preferences",
        "2024-05-01",
    )


@pytest.mark.parametrize(
    "said",
    [
        "帮我把 CHANGELOG 里的英文翻译成中文，链接别动",
        "麻烦帮我把这段 SQL 格式化一下，别改字段顺序",
    ],
)
def test_a_chinese_request_with_its_terms_is_no_preference(said: str) -> None:
    none_of(capture(said), "preferences")


def test_a_chinese_standing_request_is_still_a_preference() -> None:
    kept(capture("帮我把以后生成的注释都写成英文，别用中文"), "preferences")


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I'm the club treasurer, I keep the membership sheet and the dues macros", "treasurer"),
        ("I'm a hospital pharmacist, I write the stock scripts myself", "pharmacist"),
    ],
)
def test_an_occupation_outside_software_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_a_pick_that_names_an_option_by_its_acronym_is_a_decision() -> None:
    found = capture(
        "接阿里云 MQ 吧，自己搭 RabbitMQ 还得有人运维",
        previous="消息队列你想自己搭 RabbitMQ，还是用云上的 MQ？",
    )
    kept(found, "events", "MQ")


def test_steps_the_user_asked_for_are_a_workflow_in_the_assistants_words() -> None:
    steps = (
        "Add the tenant to tenants.yaml, run `make provision TENANT=<slug>` to create its "
        "schema, then invite its admin from the console and only after that turn on billing."
    )
    asked = capture(
        steps, role="assistant", previous="remind me what the steps are to onboard a tenant?"
    )
    kept(asked, "patterns", "tenants.yaml")
    # Unasked, the same words are the assistant's plan: not the user's workflow.
    none_of(capture(steps, role="assistant"), "patterns")


def test_a_value_moved_now_corrects_the_one_the_other_side_named() -> None:
    found = capture(
        "the label printer's on USB2 now. USB1 is the scanner since the desk move",
        previous="I'll send the labels to the label printer on USB1.",
    )
    kept(found, "entities", "USB2")


def test_a_value_said_now_without_an_earlier_one_is_not_read_as_moved() -> None:
    found = capture("the scanner is on USB2 now", previous="I'll print the report as PDF.")
    assert not any(c.rule == "correction.moved_value" for c in found)


def test_a_long_sentence_about_a_flight_is_work_not_chit_chat() -> None:
    assert not is_small_talk(
        "the camera kept freezing until we swapped the memory card, which fixed it, and the last "
        "flight recorded all the way to the end"
    )
    assert is_small_talk("long flight tomorrow, so keep it short")


# --------------------------------------------------------------------------- b32 (read)


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("in the Rust crates, no bare `unwrap()` calls. map the error and return it", "unwrap"),
        (
            "Norwegian receipts: comma for decimals, 12,50 kr, not a point and never a dollar "
            "sign. the cashiers read them aloud",
            "comma for decimals",
        ),
        (
            "push notifications: one line, no emoji in the title, and never 'Don't miss out'. "
            "the members hate hype",
            "push notifications",
        ),
    ],
)
def test_a_house_rule_given_as_a_spec_is_a_preference(said: str, value: str) -> None:
    kept(capture(said), "preferences", value)


@pytest.mark.parametrize(
    "said",
    [
        "correction on the port: the broker is on 8883, not 1883. I mixed up the two sites",
        "root cause: the cron ran in UTC, not local time, so the report was a day late",
    ],
)
def test_a_fact_or_a_cause_given_after_a_colon_is_no_house_rule(said: str) -> None:
    none_of(capture(said), "preferences")


def test_work_done_for_the_user_the_agents_way_is_a_preference() -> None:
    said = "when you open PRs for me put the ticket key in the title, like OPS-12, not at the end"
    kept(capture(said), "preferences", "ticket key")


def test_a_fact_that_moved_is_no_counter_instruction() -> None:
    found = capture(
        "not Jenkins any more, the builds moved to Buildkite in March. it's ops-ci now",
        previous="I'll trigger the nightly build from Jenkins.",
    )
    kept(found, "entities", "Buildkite")
    none_of(found, "preferences")


def test_a_cause_then_a_fix_that_works_now_is_a_case() -> None:
    found = capture(
        "The invoices showed question marks for the Polish ł because the default Courier font "
        "has no glyph for it. I switched to DejaVu Sans and the names print correctly now.",
        role="assistant",
    )
    kept(found, "cases", "DejaVu Sans")


def test_whenever_i_do_x_i_do_y_is_a_workflow() -> None:
    found = capture(
        "whenever I change a price list I preview it on the staging till before it reaches a shop"
    )
    kept(found, "patterns", "staging till")
    none_of(found, "preferences")


def test_the_routine_the_user_asked_for_is_a_workflow_in_the_assistants_words() -> None:
    steps = (
        "Add the volunteer to volunteers.csv with their shift, run `make badges` to print the "
        "badge, then send the welcome pack from templates/welcome.md before their first day."
    )
    found = capture(
        steps, role="assistant", previous="what's the routine again when a volunteer joins?"
    )
    kept(found, "patterns", "volunteers.csv")


@pytest.mark.parametrize(
    ("said", "category", "value"),
    [
        ("我在图书馆管系统这一块，借阅系统是我接手的", "profile", "图书馆"),
        ("手机号在页面上只显示后四位，导出的报表里才给全号", "preferences", "后四位"),
        ("我们上线固定周四晚上，周一从来不上；上线前先在群里通知一下门店店长", "patterns", "周四"),
        ("已经把会员积分改成从 CRM 同步了，本地那张 points 表只读保留", "events", "CRM"),
    ],
)
def test_chinese_classes_of_b32(said: str, category: str, value: str) -> None:
    kept(capture(said, role="assistant" if said.startswith("已经") else "user"), category, value)


def test_an_answer_about_the_users_own_setup_is_a_profile() -> None:
    found = capture(
        "Sublime Text，公司的项目都是 PHP，别的编辑器很少开", previous="你平时用什么编辑器？"
    )
    kept(found, "profile", "Sublime Text")


def test_a_pick_said_with_the_options_words_is_a_decision() -> None:
    found = capture(
        "每周一早上出一份，库存低于安全线的单独标黄。日报没人看",
        previous="库存报表你想每天出一份还是每周一出一份？",
    )
    kept(found, "events", "每周一")


@pytest.mark.parametrize(
    "said",
    [
        "One option is moving the export to a nightly job, the other is to keep it on demand.",
        "The first option would be Redis streams; the second is plain Postgres LISTEN/NOTIFY.",
    ],
)
def test_options_weighed_with_none_taken_are_no_fact(said: str) -> None:
    assert capture(said, role="assistant") == []

"""Capture, round 45: the classes blind batch b37 showed, each tested on phrasings of our own
(not the batch's rows), both ways: a household counted in the app's rule is no chit-chat, a
business's kinds counted and its values by range are facts."""

from __future__ import annotations

import pytest
from support.capturing import capture
from test_round39_classes import kept, none_of

# --------------------------------------------------------------------------- counted households


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "no, a family of five still counts as medium. extra large starts at 7",
            "I've put families of five in the large tier in tiers.py.",
            "extra large starts at 7",
        ),
        (
            "不对，两个孩子以上的家庭才算大户，一个孩子的算普通户",
            "我把有孩子的家庭都标成大户了。",
            "大户",
        ),
    ],
)
def test_a_household_counted_in_the_apps_rule_is_no_chit_chat(
    said: str, previous: str, value: str
) -> None:
    found = capture(said, previous=previous)
    assert any(value in c.text for c in found), found


@pytest.mark.parametrize(
    "said",
    [
        "my family is visiting this weekend so I'm off till monday",
        "孩子今天发烧了，我下午请假",
        "the kids were up all night, rough one",
    ],
)
def test_the_family_itself_stays_chit_chat(said: str) -> None:
    assert capture(said) == []


# --------------------------------------------------------------------------- a business's kinds


@pytest.mark.parametrize(
    ("said", "values"),
    [
        (
            "We have three room types: Studio, Loft and the Big Hall. "
            "Only the Big Hall can be booked for weddings.",
            ("Loft", "weddings"),
        ),
        (
            "The shop sells two box sizes — Small and Family. Family boxes only go out on Fridays.",
            ("Small and Family", "Fridays"),
        ),
        (
            "店里的套餐一共四档：基础 99，标准 199，高级 299，尊享 499。尊享档送上门安装",
            ("基础 99", "上门安装"),
        ),
        ("3 公斤以内收 12 块，3 到 10 公斤按每公斤 4 块算，再重就走物流", ("3 到 10 公斤",)),
        ("medium starts at 3 people, large at 5", ("medium starts at 3",)),
    ],
)
def test_kinds_counted_and_values_by_range_are_one_fact(said: str, values: tuple[str, ...]) -> None:
    found = capture(said)
    kept(found, "entities", *values)
    assert len(found) == 1, found


@pytest.mark.parametrize(
    "said",
    [
        "there are two problems: the cache and the retries",
        "we have three options: redis, memcached or nothing",
        "the job runs three steps: fetch, parse, store",
        "有两个问题：1. 太慢 2. 老崩",
        "我试了 3 到 5 次，还是不行",
    ],
)
def test_what_talk_counts_is_no_fact(said: str) -> None:
    none_of(capture(said), "entities")


# --------------------------------------------------------------------------- an order carried out


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "Fair enough. I've dropped the PDF export, invoices now go out as HTML emails only.",
            "drop the pdf export, nobody opens the attachments",
            "HTML emails only",
        ),
        (
            "行，已经把微信通知去掉了，现在只发短信提醒。",
            "把微信通知砍掉吧，家长都不看",
            "只发短信",
        ),
        (
            "The Saturday class moves to Sunday 9:00, effective from the 1st of next month.",
            "move saturday's class to sunday, the hall is rented out",
            "Sunday 9:00",
        ),
        (
            "明白，周二的瑜伽课改到周四晚上 7 点，下周一起生效。",
            "周二那节课改到周四晚上吧",
            "周四晚上",
        ),
        (
            "Done: the old reminder cron is off, so parents no longer get the 7am text.",
            None,
            "no longer get",
        ),
    ],
)
def test_the_users_order_reported_done_is_a_decision(
    said: str, previous: str | None, value: str
) -> None:
    kept(capture(said, role="assistant", previous=previous), "events", value)


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        ("I've removed the debug print, the tests now go green.", "remove that debug print"),
        ("I've removed the debug print from worker.py.", "remove that debug print"),
        ("已经把调试日志删掉了，测试现在都通过了。", "把调试日志删掉"),
        ("Done: I went through the list, nothing no longer matters", None),
    ],
)
def test_an_edit_reported_done_is_no_decision(said: str, previous: str | None) -> None:
    none_of(capture(said, role="assistant", previous=previous), "events")


# --------------------------------------------------------------------------- how much time


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "honestly I have maybe two hours a week for the club site, so small PRs please",
            "two hours",
        ),
        ("我每天晚上也就半小时能弄这个小程序，步子小一点", "半小时"),
        ("我一周大概 3 个小时能折腾这个项目", "3 个小时"),
    ],
)
def test_how_much_time_the_user_has_is_a_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


def test_how_much_of_a_thing_comes_a_day_is_no_profile() -> None:
    none_of(capture("I get a lot of emails a day about this"), "profile")


# --------------------------------------------------------------------------- who settled it


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("the board voted on tuesday: the newsletter moves to Buttondown from April", "Buttondown"),
        ("家委会昨晚投票通过了，下学期起接送登记全走小程序", "小程序"),
    ],
)
def test_what_the_body_the_user_answers_to_voted_is_a_decision(said: str, value: str) -> None:
    kept(capture(said), "events", value)


def test_a_vote_still_open_is_no_decision() -> None:
    none_of(capture("the committee voted on whether to keep the sheet, no result yet"), "events")


# --------------------------------------------------------------------------- held back


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "We're stuck on Rails 6.1 for the booking site until the host moves us off Ruby 2.7.",
            "Rails 6.1",
        ),
        (
            "The scheduler is pinned to Python 3.8 until the council IT finally rebuilds the VM.",
            "Python 3.8",
        ),
        (
            "我们被卡在 Django 3.2 了，学校机房的服务器只有 Python 3.6，信息中心说明年再换",
            "Django 3.2",
        ),
    ],
)
def test_what_others_hold_the_project_to_is_a_fact_not_a_decision(said: str, value: str) -> None:
    found = capture(said)
    kept(found, "entities", value)
    none_of(found, "events")


# --------------------------------------------------------------------------- what the user wants


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "For the allotment app I'd like every plot number shown with its row letter, B-12.",
            "row letter",
        ),
        ("I would like each booking stored with the member's ID and the court number", "court"),
    ],
)
def test_what_the_user_would_like_every_one_of_a_kind_to_be_is_a_preference(
    said: str, value: str
) -> None:
    kept(capture(said), "preferences", value)


# --------------------------------------------------------------------------- how you run it locally


@pytest.mark.parametrize(
    ("said", "previous", "value"),
    [
        (
            "Natively. My work laptop is Windows 11 and IT won't let me install WSL or Docker.",
            "Do you run it locally in Docker, or with a native PHP install?",
            "Windows 11",
        ),
        (
            "直接装的。公司配的电脑是 Win11，IT 管得严，虚拟机也开不了",
            "你本地是用 Docker 跑的，还是直接装的 MySQL？",
            "Win11",
        ),
    ],
)
def test_how_the_user_runs_it_on_their_machine_is_a_profile(
    said: str, previous: str, value: str
) -> None:
    found = capture(said, previous=previous)
    kept(found, "profile", value)
    none_of(found, "events")


@pytest.mark.parametrize(
    ("said", "previous"),
    [
        (
            "Docker, obviously. The prod box runs Ubuntu 22.04.",
            "Does the server run it in Docker or straight on the host?",
        ),
        ("Docker 跑的。生产服务器是 CentOS 7", "线上是用 Docker 跑的，还是直接装的？"),
    ],
)
def test_how_the_server_runs_it_is_no_profile(said: str, previous: str) -> None:
    none_of(capture(said, previous=previous), "profile")

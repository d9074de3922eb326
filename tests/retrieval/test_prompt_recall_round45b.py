"""Prompt recall, round 45 b13 (issue 23, decision 0053): a Chinese verb said with 不 and its
result (登不上) is a shared word; a value at or near a limit a note states in the same unit is
what the note rules on; asking to send messages (发封邮件, "send each member an email") makes
them, so a standing rule about such messages applies. Each class with a note of our own wording
it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval.artefact import sent
from recallnest.retrieval.limits import at_limit, quantities
from recallnest.retrieval.relevance import analyse_prompt, content_terms


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


def _turn(text: str, id: str = "t1") -> SearchHit:
    return SearchHit(kind="turn", id=id, text=text, score=1.0, project="p", session_id="old")


# --- a verb said with 不 and its result --------------------------------------------------------

LOGIN = _turn("调度那边说司机的平板登不上，后台显示 token 过期了，改成七天续期以后就好了")


def test_a_failure_said_with_bu_is_a_word_the_past_turn_shares() -> None:
    """司机 and 登不上 are two words: the turn about the same failure answers the prompt saying
    it happened again (before: 登不, 不上 hold 不 and 上 and were dropped, one shared word)."""
    assert chosen_ids("司机们又说账号登不上了", [LOGIN]) == ["t1"]


def test_the_pairs_of_a_potential_complement_are_kept() -> None:
    terms = content_terms("师傅的手机收不到，电脑也连不上")
    assert {"收不", "不到", "连不", "不上"} <= set(terms)


def test_questions_and_apologies_with_bu_stay_dropped() -> None:
    """要不要, 是不是, 能不能, 有没有 ask; 对不起 apologises: none is content."""
    for text in ("要不要重启", "是不是坏了", "能不能修", "对不起来晚了"):
        terms = content_terms(text)
        assert not any("不" in t for t in terms), (text, terms)


def test_the_failure_alone_is_one_shared_word() -> None:
    note = _memory("运维说 VPN 登不上的时候先换一个节点再试")
    assert chosen_ids("客服说会员登不上小程序怎么回事", [note]) == []


# --- a value at a limit of the same unit -------------------------------------------------------

COURIER = _memory(
    "The courier collects parcels up to 30 kg; anything heavier goes by pallet freight.",
    id="courier",
)


def test_a_value_near_the_limit_answers_on_its_own() -> None:
    assert chosen_ids("someone wants to post a 32 kg box tomorrow, what do we do", [COURIER]) == [
        "courier"
    ]


def test_a_value_inside_a_stated_range_ranks_the_limit_note_first() -> None:
    """38 度 falls at 低于 40 度; the other note shares as many words (住户, 电话) and no limit."""
    limit = _memory("热水温度低于 40 度才派人上门检修，40 到 45 度先电话让住户调混水阀", id="limit")
    calls = _memory("住户打电话报修一律先登记工单，再由班长派人", id="calls")
    prompt = "3 号楼有住户打电话说热水只有 38 度，要不要派人"
    assert chosen_ids(prompt, [calls, limit])[0] == "limit"


def test_quantities_convert_units_of_one_dimension() -> None:
    plan = analyse_prompt("the trailer is 250 cm tall, will it fit under the barrier")
    assert at_limit(plan.quantities, "The barrier stops anything over 2.4 m high.")


def test_other_units_far_values_and_values_that_are_no_limit_get_nothing() -> None:
    """km is no kg; 5 kg is nowhere near 30 kg; minutes are no measure here; a value the
    note states without over, up to, 低于 ... is no limit."""
    for prompt in (
        "someone wants to post a box 32 km away, what do we do",
        "someone wants to post a 5 kg box tomorrow, what do we do",
        "someone wants to post a box in 32 minutes, what do we do",
    ):
        assert chosen_ids(prompt, [COURIER]) == [], prompt
    plan = analyse_prompt("someone wants to post a 32 kg box")
    assert quantities("someone wants to post a 32 kg box", plan.terms)
    assert not at_limit(plan.quantities, "Our heaviest parcel last year weighed 30 kg.")


# --- sending messages makes them ---------------------------------------------------------------


def test_sending_an_email_in_a_script_meets_the_rule_about_emails() -> None:
    rule = _memory("所有对外邮件都必须抄送 office 邮箱，不要单独发", id="mail", project=None)
    assert chosen_ids("帮我写个程序，给报了名的家长都发封邮件，说下周停课", [rule]) == ["mail"]
    rule_en = _memory(
        "Outgoing emails always go through the Postmark account, never straight SMTP.",
        id="postmark",
        project=None,
    )
    prompt = "write a cron job to send each member an email when their pass expires"
    assert chosen_ids(prompt, [rule_en]) == ["postmark"]


def test_what_is_sent_is_read_only_where_something_is_sent() -> None:
    assert sent("给业主发个通知吧") == "通知"
    assert sent("send everyone on the 7:10 a text") == "text"
    for prompt in ("发布一个版本", "开发个功能", "发个版", "send me the logs"):
        assert sent(prompt) is None, prompt


def test_a_fact_mentioning_the_message_is_no_rule_about_it() -> None:
    fact = _memory("The newsletter emails went out late last tuesday.", id="late", project=None)
    prompt = "write a cron job to send each member an email when their pass expires"
    assert chosen_ids(prompt, [fact]) == []

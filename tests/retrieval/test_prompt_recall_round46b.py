"""Prompt recall, round 46 b15 (issue 23, decision 0059): a note saying its thing lies outside
the project's system answers only a prompt about that system; "when each X was done" in
something shown is the time-of-day kind, met by the rule on writing timestamps; the thing to
write said before who writes it (提交说明就你来写) is made; filler words are no content, and
"another ... this time" reports the same fault again. Each class with notes of our own
wording it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.engine import Engine
from recallnest.retrieval import relevance
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


def _turn(text: str, id: str) -> SearchHit:
    return SearchHit(kind="turn", id=id, text=text, score=1.0, project="p")


# --- a note on a thing outside the system ---------------------------------------------------

PERMITS = _memory(
    "Staff parking permits are issued through the landlord's agent, Harbour Permits; it has "
    "nothing to do with the room booking app.",
    id="permits",
)
CANTEEN = _memory(
    "食堂饭卡充值走的是后勤处的一卡通，跟排课系统没有关系。",
    id="canteen",
)


def test_doing_the_outside_work_gets_no_boundary_note() -> None:
    """Writing to the agent the note names shares its name and most of its words; the note
    only says the app is not involved (before: injected on the name and four words)."""
    prompt = "write a letter to Harbour Permits asking them to renew the staff parking permits"
    assert chosen_ids(prompt, [PERMITS]) == []


def test_doing_the_outside_work_gets_no_boundary_note_in_chinese() -> None:
    assert chosen_ids("食堂饭卡充值想搞个满减活动，帮我想想充多少送多少", [CANTEEN]) == []


def test_a_prompt_about_the_system_still_gets_the_boundary_note() -> None:
    """Whether the app handles the permits is what the note answers."""
    prompt = "could the room booking app take over the staff parking permits from Harbour Permits?"
    assert chosen_ids(prompt, [PERMITS]) == ["permits"]
    assert chosen_ids("排课系统能不能顺便管食堂饭卡充值", [CANTEEN]) == ["canteen"]


def test_what_a_note_is_outside_of_is_read_in_both_languages() -> None:
    outside_of = getattr(relevance, "outside_of", lambda text: None)
    assert outside_of(PERMITS.text) == frozenset({"room", "book", "app"})
    assert outside_of("The kiosk's card reader is not part of this system.") == {"system"}
    assert "系统" in (outside_of("隔壁药房用他们自己的收银软件，不走这套系统。") or set())
    assert outside_of("The booking app sends reminders through Twilio.") is None


def test_the_closest_note_on_an_outside_thing_leaves_the_candidates() -> None:
    """By closeness in meaning the distractor is as close as its answer would be: when the
    boundary note is the closest, it goes, and no margin is read for the prompt."""
    closest_outside = getattr(Engine, "_closest_outside", lambda h, c, a: (h, c))
    other = _memory("Room bookings are confirmed by email within an hour.", id="other")
    cosines = {"permits": 0.88, "other": 0.84}
    asked = frozenset(analyse_prompt("write a letter to Harbour Permits about renewal").terms)
    assert closest_outside([PERMITS, other], cosines, asked) == ([other], {})


def test_a_boundary_note_further_down_stays_for_the_margin() -> None:
    closest_outside = getattr(Engine, "_closest_outside", lambda h, c, a: (h, c))
    other = _memory("Room bookings are confirmed by email within an hour.", id="other")
    cosines = {"permits": 0.80, "other": 0.86}
    asked = frozenset(analyse_prompt("write a letter to Harbour Permits about renewal").terms)
    assert closest_outside([PERMITS, other], cosines, asked) == ([PERMITS, other], cosines)


# --- when each thing happened, shown -----------------------------------------------------------

UTC_RULE = _memory(
    "Across all projects the user wants every timestamp in exports and dashboards written in "
    "UTC with a trailing Z.",
    id="utc",
    project=None,
)


def test_showing_when_each_thing_happened_meets_the_timestamp_rule() -> None:
    """A line saying when each order shipped holds times; the rule is on writing them (before:
    one shared word, export)."""
    prompt = "put a field in the nightly export that says when each order was shipped"
    assert chosen_ids(prompt, [UTC_RULE]) == ["utc"]


def test_when_in_nothing_shown_or_a_fact_gets_nothing() -> None:
    assert chosen_ids("let me know when the backup was finished on the mirror", [UTC_RULE]) == []
    fact = _memory("The export job writes a timestamp column called shipped_at.", id="fact")
    prompt = "put a field in the nightly export that says when each order was shipped"
    assert "fact" not in chosen_ids(prompt, [fact])


# --- the thing to write said first ---------------------------------------------------------------

COMMITS = _memory("用户要求所有仓库的 commit message 都用英文写。", id="commits", project=None)


def test_the_fronted_thing_to_write_is_made() -> None:
    """提交说明就你来写吧: the commit message is asked for, and the rule on it applies
    (before: one shared word in the other language)."""
    assert chosen_ids("登录页那几个改动合并完了，提交说明就你来写吧", [COMMITS]) == ["commits"]


def test_what_is_left_to_the_agent_to_decide_is_not_made() -> None:
    assert analyse_prompt("开会的时间你来定吧，大家都有空").produces == frozenset()
    assert chosen_ids("开会的时间你来定吧，大家都有空", [COMMITS]) == []


# --- filler, and the same fault again on another one ------------------------------------------

PUMP_Q = _turn(
    "pump 3 keeps tripping between idle and full speed on the night shift, operators are worried",
    id="pump-q",
)
PUMP_A = _turn(
    "The trips came from a sticking valve actuator on pump 3: the controller saw the valve "
    "position jump and dropped to idle. I added a debounce and the actuator was replaced.",
    id="pump-a",
)


def test_another_one_this_time_recurs_and_filler_is_no_content() -> None:
    """Another pump, the same fault: the past turn answers at the memory bar, and 'something'
    and 'another' no longer dilute the prompt's share (before: under the turn bar)."""
    prompt = "another pump tripping between idle and full speed, something odd, pump 5 this time"
    plan = analyse_prompt(prompt)
    assert plan.recurs
    assert not {"anoth", "someth"} & set(plan.terms)
    assert "pump-q" in chosen_ids(prompt, [PUMP_Q, PUMP_A])


def test_another_without_this_time_is_no_recurrence() -> None:
    assert not analyse_prompt("another question: what model is the feed pump on line two").recurs
    assert not analyse_prompt("give me another name for the pump dashboard").recurs

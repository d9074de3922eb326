"""Classes of resume failure read from e2e-heldout29 (round 50), each tested with phrasings of
its own: a value said as past ("used to be", "was", 原来是) before the one that holds now, a
project's own nouns that are also chit-chat words (weekend, 孩子) inside a labelled decision or
the next piece of work, a fact ending on a file name before a paste's opener, a session that
stopped while starting the next piece of work after a report, pasted .env blocks and component
log lines, the reason said after a decision, and how the project's data is stored."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures, checkpoint, session

from recallnest.capture.admission import quoted_change, without_old_value
from recallnest.capture.chatter import is_aside, is_small_talk, pasted_kind
from recallnest.capture.salience import is_question, split_sentences
from recallnest.continuity.checkpoint_rules import drop_log_lines
from recallnest.continuity.compose import _current

# --------------------------------------------------------------------------- a value said as past


@pytest.mark.parametrize(
    ("text", "change"),
    [
        # read backwards before: "used to be 30" was taken for the new value
        ("the session timeout used to be 30 minutes, now it is 45 minutes", ("45", "30")),
        ("the locker range used to be 1-120 but we added a row, it's 1-160 now", ("160", "120")),
        ("发货提醒原来是提前 20 分钟，仓库说来不及，改成提前 1 小时", ("1", "20")),
    ],
)
def test_a_value_said_as_past_is_the_old_one(text: str, change: tuple[str, str]) -> None:
    assert quoted_change(text) == change


@pytest.mark.parametrize(
    ("text", "old", "kept"),
    [
        ("the session timeout used to be 30 minutes, now it is 45 minutes", "30", "timeout"),
        ("the locker range used to be 1-120 but we added a row, it's 1-160 now", "1-120", "1-160"),
        ("发货提醒原来是提前 20 分钟，仓库说来不及，改成提前 1 小时", "20 分钟", "发货提醒"),
        # the clause went whole before, and "make it 12" said nothing of what
        ("the grace period for a no-show was 10 min, make it 12, lifts are slow", "10", "grace"),
        ("the squad size was 6 players last season, now 8 players", "6 players", "squad size"),
    ],
)
def test_the_past_value_goes_and_the_thing_stays(text: str, old: str, kept: str) -> None:
    shown = without_old_value(text)
    assert old not in shown
    assert kept in shown


@pytest.mark.parametrize(
    "text",
    [
        "it was 3 people, now 40 minutes",  # nothing named, and two kinds of thing
        "the bug was in line 30, now fixed in 31",  # no value of the thing
    ],
)
def test_a_past_value_without_its_change_stays(text: str) -> None:
    assert without_old_value(text) == text


def test_a_past_value_leaves_the_summary_and_where_the_session_stopped() -> None:
    cp = checkpoint(
        session(
            "the booking hold was 15 min, make it 25, card payments keep timing out",
            "`BOOKING_HOLD_MIN` is now 25. Starting on the receipt email template.",
        )
    )
    assert cp is not None and cp.interrupted
    text = " ".join([_current(cp.summary), *cp.open_loops])
    assert "25" in text and "receipt email" in text
    assert "15 min" not in text


# --------------------------------------------------------------------------- work nouns, chat nouns


@pytest.mark.parametrize(
    "text",
    [
        "pairing decision: round robin in the group stage, knockout only on finals weekend.",
        "rota decision: nobody does two night shifts before a weekend off.",
        "下一个做家长周报：每个孩子本周练了几次、老师点评汇总",
        "接下来做早饭预订：前一晚 21 点前选，第二天 7 点出餐",
    ],
)
def test_a_labelled_decision_or_next_piece_of_work_is_no_chit_chat(text: str) -> None:
    assert not is_small_talk(text)
    assert not is_aside(text)
    assert text.rstrip("。.") in " ".join(split_sentences(text))


@pytest.mark.parametrize(
    "text",
    ["周末带孩子去公园了，累死", "what a weekend, the kids were up at five", "rough weekend lol"],
)
def test_chit_chat_about_the_weekend_and_children_stays_chit_chat(text: str) -> None:
    assert is_small_talk(text)


def test_a_labelled_decision_with_a_chat_word_is_captured() -> None:
    found = captures(
        "pairing decision: round robin in the group stage, knockout only on finals weekend. a "
        "full knockout for 30 teams needed four hall bookings and we get two"
    )
    assert any("round robin" in c.text for c in found)


def test_the_next_piece_of_work_with_a_chat_noun_is_the_summary_s_later_ask() -> None:
    cp = checkpoint(
        session(
            "把发货提醒改成提前 1 小时",
            "`notify.lead` 改成 1h 了。",
            "下一个做家长周报：每个孩子本周练了几次、老师点评汇总",
            "先建了 `internal/weekly` 的查询，页面还没做。",
        )
    )
    assert cp is not None
    assert "家长周报" in cp.summary


# --------------------------------------------------------------------------- a fact, then a paste


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "the delivery zones live in geo/zones.geojson. and here's the staging env:",
            "geo/zones.geojson",
        ),
        ("our schema is in db/schema.sql. anyway here is the dump:", "db/schema.sql"),
    ],
)
def test_a_sentence_ending_on_a_file_name_ends_there(text: str, fact: str) -> None:
    parts = split_sentences(text)
    assert len(parts) == 2 and fact in parts[0]


def test_a_version_number_still_does_not_end_a_sentence() -> None:
    assert len(split_sentences("we're on v3.1. then the upgrade")) == 1


def test_the_fact_before_a_pasted_env_is_captured() -> None:
    found = captures(
        "the delivery zones live in geo/zones.geojson. and here's the staging env:\n\n"
        "TILE_REGION=eu-west\nPRICING_CURRENCY=EUR"
    )
    assert any("geo/zones.geojson" in c.text for c in found)


# --------------------------------------------------------------------------- pasted blocks


def test_a_pasted_env_block_is_no_ask_and_one_setting_line_stays() -> None:
    block = "env for the worker:\nQUEUE_URL=redis://cache:6379/2\nWORKER_CONCURRENCY=4\n"
    assert "QUEUE_URL" not in drop_log_lines(block)
    assert "WORKER_CONCURRENCY" not in drop_log_lines(block)
    single = "set it like this:\nWORKER_CONCURRENCY=4"
    assert "WORKER_CONCURRENCY=4" in drop_log_lines(single)


@pytest.mark.parametrize(
    "line",
    [
        "[Agora] onConnectionLost code=1003 reason=timeout",
        "[webpack-dev-server] reconnecting... 2",
        "[SDK] join room failed err=-1002",
    ],
)
def test_a_component_tag_with_fields_or_progress_is_pasted_output(line: str) -> None:
    assert pasted_kind(line) == "log"


@pytest.mark.parametrize(
    "line", ["[WIP] please look at the login flow", "[x] done with the importer", "[Draft] notes"]
)
def test_a_bracketed_word_in_prose_is_not_output(line: str) -> None:
    assert pasted_kind(line) is None


# --------------------------------------------------------------------------- decisions


def test_the_reason_after_a_decision_is_no_ask() -> None:
    cp = checkpoint(
        session(
            "pairing decision: round robin in the group stage, knockout only on finals. a "
            "full knockout for 30 teams needed four hall bookings and we get two",
            "`RoundRobin` now runs the group stage; the knockout runs only on finals day.",
        )
    )
    assert cp is not None
    assert "hall bookings" not in cp.summary


@pytest.mark.parametrize(
    "text",
    [
        "prices: store them as integer cents please, the float sums were a cent off",
        "totals: keep them in minor units, the exports rounded each line",
    ],
)
def test_how_the_data_is_stored_is_a_preference_whatever_names_it(text: str) -> None:
    assert [c.category for c in captures(text)] == ["preferences"]


def test_saving_one_file_is_no_preference() -> None:
    assert all(c.category != "preferences" for c in captures("save it as notes.md"))


# --------------------------------------------------------------------------- interrupted


def test_a_report_then_a_start_of_work_stops_mid_task() -> None:
    cp = checkpoint(
        session(
            "raise the upload cap to 50 MB",
            "`UPLOAD_MAX_MB` is now 50. Starting on the thumbnail worker for the new sizes.",
        )
    )
    assert cp is not None and cp.interrupted
    assert any("thumbnail worker" in loop for loop in cp.open_loops)


def test_a_report_then_what_comes_next_is_not_interrupted() -> None:
    cp = checkpoint(
        session(
            "raise the upload cap to 50 MB",
            "`UPLOAD_MAX_MB` is now 50. Next I'll do the thumbnail worker when you say so.",
        )
    )
    assert cp is not None and not cp.interrupted


def test_a_decision_keeps_the_reason_said_after_it() -> None:
    cp = checkpoint(
        session(
            "We'll use Postgres advisory locks for the scheduler. The jobs must never run twice.",
            "Done: the scheduler takes an advisory lock per job in jobs/lock.py.",
        )
    )
    assert cp is not None
    assert any("never run twice" in d for d in cp.decisions)
    assert "never run twice" not in cp.summary


def test_a_decision_does_not_take_a_todo_or_a_secret_after_it() -> None:
    cp = checkpoint(
        session(
            "We'll use Postgres advisory locks for the scheduler. We still need a test for it.",
            "Done: the scheduler takes an advisory lock per job in jobs/lock.py.",
        )
    )
    assert cp is not None
    assert cp.decisions == ("We'll use Postgres advisory locks for the scheduler.",)


# --------------------------------------------------------------------------- a question at the end


@pytest.mark.parametrize(
    "text",
    [
        "my desk chair squeaks every time I lean back, is it worth oiling it or do I replace it",
        "the nightly export took an hour again, should we split it by region",
        "we release on fridays, is that a problem for the on-call rota",
    ],
)
def test_a_question_asked_in_the_last_clause_is_a_question(text: str) -> None:
    assert is_question(text)
    assert all(c.scope != "global" for c in captures(text))


@pytest.mark.parametrize(
    "text",
    ["the export runs nightly, which is fine", "if the upload fails, it is retried twice."],
)
def test_a_last_clause_that_states_is_no_question(text: str) -> None:
    assert not is_question(text)


# --------------------------------------------------------------------------- outings, steps


def test_the_next_piece_of_work_about_outings_is_no_chit_chat() -> None:
    assert not is_small_talk("接下来做包场：30 人以上的公司团建可以包一整个下午，要填公司名")
    assert is_small_talk("明天团建去爬山")  # an outing told stays chit-chat


def test_a_chinese_sentence_is_not_short_by_its_spaces() -> None:
    # a long Chinese sentence around an outing word is the work, as an English one is
    assert not is_small_talk(
        "周末的团建报名页要能按部门统计人数并导出名单，名单里要有手机号和身份证后四位以及饮食忌口和备注信息"
    )


def test_where_a_session_stopped_names_the_work_its_short_step_belongs_to() -> None:
    cp = checkpoint(
        session(
            "接下来做包场：30 人以上可以包一整个下午，要填公司名",
            "开始做包场：新增 `private_hire` 表（公司名、人数、时段），包场对散客隐藏。先写迁移……",
        )
    )
    assert cp is not None and cp.interrupted
    assert any("private_hire" in loop and "先写迁移" in loop for loop in cp.open_loops)


@pytest.mark.parametrize(
    "text",
    [
        "规则定死：押金必须到店验过车才退，不能线上直接退",
        "规矩说好了：周末的单只能店长改价",
    ],
)
def test_a_rule_said_fixed_under_its_label_is_kept(text: str) -> None:
    found = captures(text)
    assert len(found) == 1 and found[0].category in ("preferences", "events")
    assert found[0].scope != "global"

"""The failure classes e2e-heldout20 and the resumed-session scenarios of every e2e set left in
round 44 (docs/decisions/0047), each tested on variants of our own, both ways.

- A resumed older session: the newest session is "Last session", the resumed one's own
  checkpoint follows as "Resumed session" without what later sessions changed, and its
  memories are shown unless a newer text gives them another value.
- A project memory that a newer memory or the newer last session gives another value is left
  out of the resume (a name set anew, a weekday, a count framed the same way, a code name
  ending in its unit), and one about another thing stays.
- A summary without what its own later sentences change, or the clauses that hold a masked
  secret.
- Checkpoints: "现在 X 会…" reports what the code now does (no "interrupted", no "Unresolved").
- Capture: a fix said in the passive or as "it now counts …" after a cause; "a fixed offset" is
  no fix; the flags of a pasted command line are no fact; "make happy hour 15% off" quotes the
  old value it replaces; a child at play is chit-chat, "校验一下" asks for work.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from test_heldout2_classes import captures, checkpoint, session

from recallnest.capture.admission import without_old_value
from recallnest.capture.chatter import is_small_talk
from recallnest.continuity.checkpoint import Checkpoint
from recallnest.continuity.compose import ResumeInputs, compose_context
from recallnest.continuity.stale import current, settled, values
from recallnest.core.models import Memory

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=12)
PROJECT = "/home/dev/kiln"


def cp(session_id: str, days: int, summary: str, **lists: tuple[str, ...]) -> Checkpoint:
    return Checkpoint(
        id=f"cp-{session_id}",
        session_id=session_id,
        agent="claude",
        project=PROJECT,
        created_at=T0 + timedelta(days=days),
        reason="end",
        summary=summary,
        **lists,  # type: ignore[arg-type]
    )


def memory(key: str, days: int, text: str, category: str = "entities") -> Memory:
    made = T0 + timedelta(days=days)
    return Memory(
        id=f"{key:0<32}",
        scope=PROJECT,
        category=category,
        text=text,
        importance=0.7,
        created_at=made,
        updated_at=made,
    )


def resume(
    newest: Checkpoint,
    memories: list[Memory],
    resumed: Checkpoint | None = None,
    held: frozenset[str] = frozenset(),
    source: str = "resume",
) -> str:
    inputs = ResumeInputs(
        project=PROJECT,
        agent="claude",
        source=source,
        now=NOW,
        checkpoint=newest,
        memories=memories,
        session_id=resumed.session_id if resumed else "s9",
        held=held,
        resumed=resumed,
    )
    return compose_context(inputs, 1200).text


# --------------------------------------------------------------------------- resumed session


def test_a_resumed_older_session_shows_its_own_state_after_the_newest() -> None:
    older = cp(
        "s1", 2, "Asked: add the kiln booking form. Done: Added the form with a shelf picker."
    )
    newest = cp("s2", 8, "Asked: members get 2 shelves each now. Done: MAX_SHELVES = 2.")
    own = memory("a1", 2, "The booking form lives in app/booking.py and emails a confirmation.")
    text = resume(newest, [own], resumed=older, held=frozenset({own.id}))
    last, _, rest = text.partition("Resumed session (")
    assert "Last session (" in last and "2 shelves" in last
    assert "booking form" in rest and "app/booking.py" in rest, text


def test_resuming_the_newest_session_still_repeats_nothing_of_it() -> None:
    newest = cp("s2", 8, "Asked: members get 2 shelves each now. Done: MAX_SHELVES = 2.")
    own = memory("a1", 8, "MAX_SHELVES = 2 in app/booking.py.")
    inputs = ResumeInputs(
        project=PROJECT,
        agent="claude",
        source="resume",
        now=NOW,
        checkpoint=newest,
        memories=[own],
        session_id="s2",
        held=frozenset({own.id}),
    )
    text = compose_context(inputs, 1200).text
    assert "Resumed session" not in text and "MAX_SHELVES" not in text, text


@pytest.mark.parametrize(
    ("old_summary", "newest_summary", "gone", "stays"),
    [
        (
            "Asked: the league has 10 teams, so 18 matchdays. Done: Generated the fixtures.",
            "Asked: two clubs joined, it's 12 teams now and 22 matchdays. Done: Regenerated.",
            "10 teams",
            "Generated the fixtures",
        ),
        (
            "Asked: 每天上报考勤，23:00 以后平台不收。 Done: 加了上报任务。",
            "Asked: 上报改到每晚 22:00。 Done: cron 改成 0 22 * * *。",
            "23:00",
            "加了上报任务",
        ),
        (
            "Asked: run the importer with `--chunk-size 500`. Done: The importer takes chunks.",
            "Asked: the box runs out of memory, use `--chunk-size 200`. Done: Default is 200.",
            "500",
            "takes chunks",
        ),
    ],
)
def test_the_resumed_summary_loses_what_a_later_session_changed(
    old_summary: str, newest_summary: str, gone: str, stays: str
) -> None:
    text = resume(cp("s2", 8, newest_summary), [], resumed=cp("s1", 2, old_summary))
    resumed = text.partition("Resumed session (")[2]
    assert gone not in resumed and stays in resumed, text


def test_a_resumed_session_memory_a_later_session_changed_is_left_out() -> None:
    older = cp("s1", 2, "Asked: set up the OCR run.")
    newest = cp("s2", 8, "Asked: the GPU box OOMs, make the default `--batch-size 4`.")
    stale = memory("b1", 2, "GPU inference runs with `--batch-size 8` for now.")
    fine = memory("b2", 2, "Pages are rotated upright with tesseract OSD before OCR.")
    text = resume(newest, [stale, fine], resumed=older, held=frozenset({stale.id, fine.id}))
    assert "--batch-size 8" not in text and "tesseract OSD" in text, text


# --------------------------------------------------------------------------- older memories


@pytest.mark.parametrize(
    ("old", "new", "gone"),
    [
        # a setting named anew
        (
            "leader_config 的 default_rate 设成 0.08",
            "default_rate 改成 0.06，说明文字一起改了",
            "0.08",
        ),
        # a day of the week
        (
            "The backup job runs every Monday at 02:00.",
            "The backup job now runs every Friday at 02:00.",
            "Monday",
        ),
        # a count framed the same way
        ("每晚统计人数，不满 8 人的班次取消。", "发车门槛改成满 6 人。", "8 人"),
        # a code name that ends in its unit
        (
            "The reminder goes out 48 hours before the shift.",
            "REMINDER_LEAD_HOURS is now 24.",
            "48 hours",
        ),
    ],
)
def test_an_older_memory_a_newer_one_changes_is_left_out(old: str, new: str, gone: str) -> None:
    newest = cp("s2", 8, "Asked: tidy the footer.")
    text = resume(newest, [memory("c1", 1, old), memory("c2", 6, new)], source="startup")
    assert gone not in text and new.split("，")[0].split(".")[0] in text, text


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another thing of the same unit: a lesson's length is no gap after it
        ("Lessons are 30, 45 or 60 minutes long.", "Add a 15 minute buffer after every lesson."),
        # another name ending in the same unit
        ("Bisque firings get a 9 hour slot.", "GLAZE_SLOT_HOURS is now 12."),
        # another weekday for another job
        ("Invoices go out every Monday.", "The cleaners come every Thursday."),
        # another value in the same unit, with no change said (test-blind5's drying curve)
        ("烘到含水率 12% 以下再出房。", "传感器挪到料车侧面后，出房含水率稳定在 11% 左右。"),
    ],
)
def test_an_older_memory_about_another_thing_stays(old: str, new: str) -> None:
    newest = cp("s2", 8, "Asked: tidy the footer.")
    text = resume(newest, [memory("d1", 1, old), memory("d2", 6, new)], source="startup")
    assert old.split(" ")[0] in text and old.rstrip(".") in text, text


def test_the_last_session_outdates_an_older_memory() -> None:
    newest = cp("s2", 8, "Asked: the cron job now runs build.py every Tuesday at 06:30.")
    old = memory("e1", 3, "A cron job runs build.py every Monday at 06:30.")
    text = resume(newest, [old], source="startup")
    assert "Monday" not in text and "Tuesday" in text, text


# --------------------------------------------------------------------------- summaries


def test_a_summary_drops_what_its_own_later_sentence_changed() -> None:
    said = (
        "Asked: slipway launches. no launches below the slip's depth, 1.2 m minimum. "
        "Later: push it up a bit. Done: MIN_SLIP_DEPTH_M is now 1.5 and the page quotes the "
        "new minimum."
    )
    shown = settled(said)
    assert "1.2" not in shown and "no launches below the slip's depth" in shown, shown
    assert settled("Asked: change the timeout from 30s to 60s. Done: set it to 60s.") == (
        "Asked: change the timeout from 30s to 60s. Done: set it to 60s."
    )


def test_a_clause_that_inherits_a_unit_goes_with_it_and_its_neighbour_stays() -> None:
    said = [(t, values(t)) for t in ("GLAZE_SLOT_HOURS is now 12; emails say 12 hours.",)]
    shown = current("Asked: bisque firings get a 9 hour slot, glaze 10. Done: booked.", said)
    assert "glaze 10" not in shown and "9 hour slot" in shown and shown.startswith("Asked:")


def test_a_summary_clause_with_a_masked_secret_is_left_out() -> None:
    newest = cp(
        "s2",
        8,
        "Asked: 短信走阿里云，AccessKey ID 是 [REDACTED:cloud-access-key-id]，签名用“青禾”.",
    )
    text = resume(newest, [], source="startup")
    assert "REDACTED" not in text and "短信走阿里云" in text and "青禾" in text, text


def test_a_mask_inside_a_url_leaves_its_clause() -> None:
    newest = cp(
        "s2",
        8,
        "Asked: 对，会话缓存用 redis://:[REDACTED:url-password]@10.8.0.12:6379/3，入场缓存也挪过去.",
    )
    text = resume(newest, [], source="startup")
    assert "redis://" in text and "10.8.0.12" in text, text


# --------------------------------------------------------------------------- checkpoints


def test_a_chinese_report_of_what_the_code_now_does_closes_the_failure() -> None:
    turns = session(
        "上传图片老是失败：\n[2025-06-03 15:42:10] ERROR: upload timed out after 10000 ms",
        "对象存储那段时间超时，之前失败就丢了。现在上传失败后会在 30 秒、2 分钟各重试一次，"
        "还失败就记到 failed_upload 表。",
    )
    found = checkpoint(turns)
    assert found is not None
    assert not found.interrupted
    assert not [loop for loop in found.open_loops if loop.startswith("Unresolved")], found


def test_work_begun_in_chinese_is_still_an_interruption() -> None:
    turns = session("加个导出按钮", "现在我先在 export.py 里加导出函数，然后……")
    found = checkpoint(turns)
    assert found is not None and found.interrupted


# --------------------------------------------------------------------------- capture


@pytest.mark.parametrize(
    ("cause", "fix", "kept_word"),
    [
        (
            "Root cause: prices were rounded per line with a fixed two-digit scale, so totals "
            "drifted by a cent on long orders.",
            "Totals are now computed from unrounded lines and rounded once at the end.",
            "rounded once",
        ),
        (
            "Root cause: the tokenizer split on spaces, and Thai has none, so every line "
            "counted as one word.",
            "For th and lo it now counts grapheme clusters and divides by 4.",
            "grapheme clusters",
        ),
        (
            "找到原因了：回调超时会重试，每次都当成新订单入库。",
            "现在用支付流水号做唯一键，重复回调直接忽略。",
            "唯一键",
        ),
    ],
)
def test_a_cause_then_the_fix_is_one_case(cause: str, fix: str, kept_word: str) -> None:
    found = captures("why are totals wrong", f"{cause} {fix}")
    cases = [c for c in found if c.category == "cases"]
    assert cases and kept_word in cases[0].text, found


def test_a_cause_then_a_new_failure_is_no_fix() -> None:
    found = captures(
        "why is the build red",
        "Root cause: the cache key ignored the lockfile, so stale deps were restored. "
        "The build now fails on the lint step.",
    )
    assert not any("lint step" in c.text for c in found if c.category == "cases"), found


def test_the_flags_of_a_pasted_command_are_no_fact() -> None:
    found = captures(
        "this is how I call the webhook:\n\ncurl -X POST https://hooks.example.com/in \\\n"
        '  -H "Content-Type: application/json" -d @payload.json'
    )
    assert not [c for c in found if c.text.lstrip().startswith("-")], found


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        (
            "owner reckons 30% is too much, make the student discount 20% off.",
            "make the student discount 20% off.",
        ),
        ("make the cap 3 per day, 5 was silly", "make the cap 3 per day"),
    ],
)
def test_a_make_change_drops_the_old_value_it_quotes(said: str, shown: str) -> None:
    assert without_old_value(said) == shown


def test_make_without_a_change_is_left_alone() -> None:
    said = "we make 3 batches of 20 each"
    assert without_old_value(said) == said


@pytest.mark.parametrize(
    ("text", "chat"),
    [
        ("楼下来了一家人，小朋友特别可爱，在前台玩了一下午", True),
        ("亲子房周末至少订两晚，下单的时候校验一下", False),
        ("这个按钮太可爱了，改成圆角", False),
    ],
)
def test_children_at_play_are_chit_chat_and_a_check_asked_for_is_work(
    text: str, chat: bool
) -> None:
    assert is_small_talk(text) is chat


# --------------------------------------------------------------------------- e2e-heldout21


@pytest.mark.parametrize(
    ("text", "chat"),
    [
        ("lol the printer on floor 3 jammed on me twice today. anyway cheers", True),
        ("哈哈今天有个客人一口气点了 12 杯奶茶，店里都忙疯了", True),
        ("lol can you bump the retry limit to 5", False),
        ("哈哈 把端口改成 8080 吧", False),
    ],
)
def test_a_story_opened_by_a_laugh_is_chit_chat_whatever_it_counts(text: str, chat: bool) -> None:
    assert is_small_talk(text) is chat


def test_chit_chat_at_the_end_is_no_unanswered_loop() -> None:
    turns = session(
        "add a CSV export to the members page",
        "Added a CSV export button to the members page; it streams the rows.",
        "lol the printer on floor 3 jammed on me twice today. anyway cheers",
    )
    found = checkpoint(turns)
    assert found is not None
    assert not any("printer" in loop for loop in found.open_loops), found.open_loops


def test_unittest_output_is_no_request() -> None:
    turns = session(
        "the mileage test fails after the rate change",
        "That test hard-coded the old rate; it now reads the rate for the hearing date.",
        "Ran 73 tests in 6.204s.\n\nOK (skipped=2)",
        "All green now.",
    )
    found = checkpoint(turns)
    assert found is not None and "Ran 73 tests" not in found.summary, found.summary


def test_a_count_of_people_said_with_its_classifier_is_the_old_value_a_change_quotes() -> None:
    said = "每组最多改成 6 人，8 个人一组太挤了"
    assert without_old_value(said) == "每组最多改成 6 人"


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("practice sessions should default to 30 minutes", "project"),
        ("new tickets should default to 3 days before they escalate", "project"),
        ("replies should default to English, not German", "global"),
    ],
)
def test_a_number_a_thing_defaults_to_is_the_project_s(text: str, scope: str) -> None:
    from support.capturing import capture

    found = capture(text, role="user")
    assert found, text
    assert (found[0].scope == "global") is (scope == "global"), found

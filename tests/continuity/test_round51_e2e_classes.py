"""Classes of resume failure read from e2e-heldout31 (round 51), each tested with phrasings of
its own, both ways:
- a value keyed by the words said right before it ("'trim': 6" then "trim is now 7", "豪华间
  128" then "豪华间改成 138", "PAINTED_PER_M2 = 560" then "painted detail is £600 now"), and a
  correction ("不对，抽成是 15%", "actually …") as a change said;
- a resumed session's own memory shows what of it still holds, not nothing;
- a fix reported of things in the plural ("yards … now go into") and a named thing at its new
  value ("REBOOK_WEEKS trim is now 7") are reports of work done;
- a laughed anecdote left unanswered at a session's end is no open loop;
- a bundler's banner, status, plugin-tagged diagnostic, location line and npm's echo of a
  script are pasted output."""

from __future__ import annotations

import pytest
from test_heldout2_classes import captures, checkpoint, remembered, session
from test_round44_e2e_classes import cp, memory, resume

from recallnest.capture.chatter import is_small_talk, pasted_kind, smoothed
from recallnest.continuity import checkpoint_rules as R
from recallnest.continuity.checkpoint import _answered_in_kind
from recallnest.continuity.stale import current, settled, values

# --------------------------------------------------------------------------- a value by its name


@pytest.mark.parametrize(
    ("old", "new", "gone", "stays"),
    [
        (
            "Set LEAD_DAYS = {'sample': 4, 'full': 9} in orders/config.py, used for the quote.",
            "LEAD_DAYS sample is now 6; full stays at 9.",
            "'sample': 4",
            "full",
        ),
        (
            "押金规则：小船 300，大船 500，周末不变。",
            "大船押金改成 650 元，小船 300 不变。",
            "大船 500",
            "小船 300",
        ),
        (
            "pricing.ts has BASIC_PER_HOUR = 40, PREMIUM_PER_HOUR = 65 and a 2 hour minimum.",
            "premium sessions are £70 an hour now, the studio rent went up.",
            "65",
            "40",
        ),
    ],
)
def test_a_value_named_before_it_is_outdated_by_a_change_of_it(
    old: str, new: str, gone: str, stays: str
) -> None:
    shown = current(old, [(new, values(new))])
    assert gone not in shown and stays in shown, shown


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # no change said: two notes giving a number after the same word are no update
        ("the deposit is 25 for midweek breaks", "the deposit is 40 for weekend breaks"),
        # another thing with the same word
        ("room 12 is the quiet one", "we moved the printer to room 14 now"),
        # a place in a text, no setting
        ("the error is on line 112 of Dispatch.vue", "now line 118 after the merge"),
    ],
)
def test_a_value_of_another_thing_stays(old: str, new: str) -> None:
    assert current(old, [(new, values(new))]) == old


@pytest.mark.parametrize(
    ("summary", "gone", "stays"),
    [
        ("Asked: 平台抽成先按 20%。 Later: 不对，抽成是 15%。", "20%", "15%"),
        (
            "Asked: the booking fee is 3 per ticket. Later: actually the booking fee is 2.5",
            "3 per",
            "2.5",
        ),
        ("Asked: 试用期按 7 天算。 Later: 说错了，试用期是 14 天。", "7 天", "14 天"),
    ],
)
def test_a_correction_is_a_change_of_the_value(summary: str, gone: str, stays: str) -> None:
    shown = settled(summary)
    assert gone not in shown and stays in shown, shown


def test_a_resumed_sessions_memory_keeps_what_still_holds() -> None:
    older = cp("s1", 2, "Asked: set up the quote calculator. Done: Added lib/price.ts.")
    newest = cp(
        "s2", 8, "Asked: the invoice emails. Later: also gilding is £90 an hour now, gold went up."
    )
    own = memory("a1", 2, "lib/price.ts now has CARVING_PER_HOUR = 45, GILDING_PER_HOUR = 80.")
    text = resume(newest, [own], resumed=older, held=frozenset({own.id}))
    assert "CARVING_PER_HOUR = 45" in text, text
    assert "= 80" not in text, text


# --------------------------------------------------------------------------- reports of work done


@pytest.mark.parametrize(
    "text",
    [
        "Yards without a postcode now go into an 'unplaced' group at the top of the sheet.",
        "Invoices for cancelled jobs now get a zero line instead of being skipped.",
        "REBOOK_WEEKS trim is now 7; shod stays at 5.",
        "MAX_SEATS adults are now 40.",
    ],
)
def test_a_report_in_the_plural_or_of_a_named_value_is_work_done(text: str) -> None:
    assert R.DONE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "Users now want a dark mode.",
        "We now need to fix the cron.",
        "The boats now need a deposit.",
        "I think the yards now look fine.",
    ],
)
def test_what_someone_now_wants_or_needs_is_no_report(text: str) -> None:
    assert R.DONE.search(text) is None


def test_a_fixed_failure_is_done_not_unresolved() -> None:
    made = checkpoint(
        session(
            "tests broke overnight:\n\nE   KeyError: 'county'\nsrc/route.py:31: KeyError",
            "The router falls over on farms with no county. Farms without a county now go into"
            " a 'manual' list at the end of the route sheet.",
            "nice. next time: the route sheet should print the gate codes",
        )
    )
    assert made is not None
    assert not any(loop.startswith("Unresolved") for loop in made.open_loops), made
    assert "county" in made.summary, made.summary


# --------------------------------------------------------------------------- chit-chat at the end


@pytest.mark.parametrize(
    "last",
    [
        "哈哈今天有只柯基把快递箱整个拖走了，追了半条街",
        "haha the office dog just knocked the whole plant stand over and ran off",
    ],
)
def test_a_laughed_anecdote_left_unanswered_is_no_open_loop(last: str) -> None:
    made = checkpoint(
        session(
            "把 orders 表的状态字段改成枚举",
            "status 改成了 OrderStatus 枚举，迁移也加了。",
            last,
        )
    )
    assert made is not None
    assert not any(loop.startswith("Unanswered") for loop in made.open_loops), made.open_loops


def test_a_request_left_unanswered_stays_an_open_loop() -> None:
    made = checkpoint(
        session(
            "把 orders 表的状态字段改成枚举",
            "status 改成了 OrderStatus 枚举，迁移也加了。",
            "再把退款状态也加进去",
        )
    )
    assert made is not None
    assert any(loop.startswith("Unanswered") for loop in made.open_loops), made.open_loops


# --------------------------------------------------------------------------- build output


@pytest.mark.parametrize(
    "line",
    [
        "vite v5.4.2 building for production...",
        "rollup v4.9.1 bundling src/main.ts",
        "x Build failed in 1.87s",
        "✓ built in 812ms",
        "[vite:vue] src/views/Dispatch.vue: Element is missing end tag.",
        "[plugin:vite:css] [postcss] Unknown word",
        "file: /srv/app/src/pages/Home.vue:88:3",
    ],
)
def test_bundler_lines_are_pasted_output(line: str) -> None:
    assert pasted_kind(line) == "tool_output"


@pytest.mark.parametrize(
    "line",
    [
        "node v20.11.1 on my laptop, so no newer syntax",
        "I am on python v3.11.2 running ubuntu",
        "[TODO] fix the receipts",
        "> we always deploy on fridays",
    ],
)
def test_prose_with_versions_or_brackets_is_not_output(line: str) -> None:
    assert pasted_kind(line) is None


def test_npms_echo_of_a_script_is_output_with_its_banner() -> None:
    lines = ["> shop-web@2.0.1 build", "> vite build --mode staging"]
    assert smoothed(lines, [pasted_kind(line) is not None for line in lines]) == [True, True]
    quoted = ["> we use pnpm here", "> and never yarn"]
    assert smoothed(quoted, [pasted_kind(line) is not None for line in quoted]) == [False, False]


def test_a_pasted_build_failure_leaves_no_memory() -> None:
    found = captures(
        "the web build broke\n\n> depot-web@1.2.0 build\n> vite build\n\n"
        "vite v5.1.0 building for production...\nx Build failed in 2.03s\n"
        "[vite:vue] src/pages/Stock.vue: Element is missing end tag.\n"
        "file: /srv/depot/web/src/pages/Stock.vue:41:5"
    )
    assert not any("vite" in c.text or "Element is missing" in c.text for c in found), found


# ------------------------------------------------------------------------- what a retired note said


@pytest.mark.parametrize(
    ("sessions", "kept", "gone"),
    [
        (
            (
                (
                    "收费规则：每人每小时 12 块，单日封顶 48。",
                    "pricing.py 改好了：每人每小时 12 元，单日封顶 48 元（DAY_CAP = 48）。",
                ),
                ("封顶那个，店长说是 40。", "DAY_CAP 改成 40 了。"),
            ),
            "每人每小时 12 元",
            "48 元",
        ),
        (
            (
                (
                    "停车收费：每小时 6 块，单日封顶 30。",
                    "parking.py 改好了：每小时 6 元，单日封顶 30 元（DAY_CAP = 30）。",
                ),
                ("封顶那个，物业说是 25。", "DAY_CAP 改成 25 了。"),
            ),
            "每小时 6 元",
            "30 元",
        ),
    ],
)
def test_a_retired_report_keeps_what_else_it_said(
    sessions: tuple[tuple[str, ...], ...], kept: str, gone: str
) -> None:
    got = " | ".join(m.text for m in remembered(*sessions))
    assert kept in got, got
    assert gone not in got, got


@pytest.mark.parametrize(
    ("remark", "reply"),
    [
        (
            "been bucketing down all week, the car park is basically a lake",
            "Grim — hope the van stayed dry.",
        ),
        ("my neighbour's rooster started at 4am again", "Oof. Hope you got some sleep in the end."),
    ],
)
def test_a_remark_answered_with_a_wish_after_an_interjection_is_no_ask(
    remark: str, reply: str
) -> None:
    made = checkpoint(
        session(
            "add a status filter to the bookings list",
            "Added a status filter to bookings.",
            remark,
            reply,
        )
    )
    assert made is not None
    assert remark.split()[1] not in made.summary, made.summary


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("use a dropdown for it instead of chips", "Good call — switching to a dropdown."),
        ("rain all week, the car park floods, add a closure flag", "Ouch — added a closure flag."),
    ],
)
def test_an_instruction_answered_with_approval_or_work_stays_an_ask(said: str, reply: str) -> None:
    turns = session("add a status filter", "Added a status filter.", said, reply)
    assert not _answered_in_kind(turns, 2)


@pytest.mark.parametrize(
    "said",
    [
        "kettle's on at the depot, off to check the ladders",
        "right, off to bed",
        "ok off to feed the dog",
    ],
)
def test_stepping_away_is_small_talk(said: str) -> None:
    assert is_small_talk(said)


@pytest.mark.parametrize(
    "said", ["the job is off to the queue, check the worker", "send the invoice off to finance"]
)
def test_work_sent_off_is_not(said: str) -> None:
    assert not is_small_talk(said)


def test_a_laughed_remark_answered_in_kind_at_some_length_is_no_ask() -> None:
    turns = session(
        "add a status filter",
        "Added a status filter.",
        "went to the dress rehearsal last night, the smoke machine set off the alarm lol",
        "Better at the rehearsal than on the opening night itself.",
    )
    assert _answered_in_kind(turns, 2)


@pytest.mark.parametrize(
    "reply", ["本地配置里加了 SMS_SIGN_NAME，发送测试通过。", "表里建了 audit_log，迁移也写了。"]
)
def test_a_change_reported_in_the_perfective_is_done(reply: str) -> None:
    assert R.DONE.search(reply)


@pytest.mark.parametrize("reply", ["你加了索引吗？", "配了环境变量没有？"])
def test_asking_whether_it_was_done_is_not(reply: str) -> None:
    assert R.DONE.search(reply) is None


def test_a_request_answered_by_a_perfective_report_stays_in_the_summary() -> None:
    made = checkpoint(
        session(
            "头像要存到七牛，bucket 叫 avatars-prod，先配到本地环境变量里试一下上传",
            "本地 .env 里配了 QINIU_BUCKET，上传测试通过。",
            "会员价统一打 9 折吧",
            "MEMBER_DISCOUNT 改成 0.9 了。",
        )
    )
    assert made is not None and "七牛" in made.summary, made


@pytest.mark.parametrize(
    "sessions",
    [
        (
            (
                "warn when the freezer stays above -15 for more than 20 minutes",
                "Added the freezer warning: above -15 °C for 20 minutes sends a push.",
            ),
            (
                "--- FAIL: TestFreezerWarn (0.00s)\n"
                "    warn_test.go:21: expected 1 push, got 4\nFAIL",
                "The warning fired on every reading instead of once per warm spell, because"
                " nothing remembered it had sent one. Added a latch that resets once the"
                " freezer is back below the limit for 5 minutes; the test passes.",
            ),
            ("too twitchy, make it -12 and keep the 20 minutes", "FREEZER_MAX_C is -12 now."),
        ),
    ],
)
def test_a_later_setting_change_leaves_a_solved_case_whole(
    sessions: tuple[tuple[str, ...], ...],
) -> None:
    cases = [m.text for m in remembered(*sessions) if m.category == "cases"]
    assert any("latch" in text for text in cases), cases
    assert not any(text.strip() in ("the test passes.", "the test passes") for text in cases)

"""The failure classes e2e-heldout15 left when round 41 read it again (docs/decisions/0043),
each tested on variants of our own, both ways: "no matter which" is no question, work put off
to later after chit-chat is the next step, a game's score is chit-chat, the words said before a
pasted instruction file are the user's own, and a pasted command line is no statement."""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_heldout2_classes import PROJECT, T0, captures, checkpoint, session
from test_heldout12_classes import admitted

from recallnest.capture.chatter import is_small_talk
from recallnest.capture.salience import classify_line, is_question, split_sentences
from recallnest.continuity.checkpoint import build_checkpoint
from recallnest.core.injected import strip_injected


@pytest.mark.parametrize(
    ("said", "asks"),
    [
        ("不管在哪个仓库：commit message 一律写英文", False),
        ("无论谁来值班，告警都先发到飞书群", False),
        ("不论用什么数据库，迁移脚本都要能回滚", False),
        ("不管哪个项目都用 pnpm 吗", True),
        ("这个项目用哪个包管理器", True),
    ],
)
def test_no_matter_which_asks_nothing(said: str, asks: bool) -> None:
    assert is_question(said) is asks


def test_a_rule_for_every_project_said_with_no_matter_which_is_kept_global() -> None:
    found = captures("先说个通用的规矩，不管在哪个仓库：commit message 一律写英文")
    assert any(c.category == "preferences" and "英文" in c.text for c in found), found


def test_an_emoji_ends_a_sentence_before_a_new_one() -> None:
    assert split_sentences("去爬山了，腿都废了😂 下次做导出功能") == [
        "去爬山了，腿都废了😂",
        "下次做导出功能",
    ]
    # A lower-case English continuation stays with its sentence.
    assert len(split_sentences("shipped the sync job 🚀 it runs hourly now")) == 1


@pytest.mark.parametrize(
    "said", ["下次做家人共享的收藏夹", "下一步接短信验证码登录", "下次再加夜间模式"]
)
def test_work_put_off_to_later_is_no_chit_chat(said: str) -> None:
    assert not is_small_talk(said)


def test_the_next_step_after_chit_chat_in_the_same_turn_is_kept() -> None:
    cp = checkpoint(
        session(
            "导出 CSV 的按钮加上",
            "加好了，导出按当前筛选条件走。",
            "好。周末带娃去了海洋馆，看了一下午企鹅，累瘫了😂 下次做家人共享的收藏夹，先不弄",
        )
    )
    assert cp is not None
    assert any("共享的收藏夹" in step for step in cp.next_actions), cp


@pytest.mark.parametrize(
    ("said", "chat"),
    [
        ("lost 3-0 on Saturday, half the team was hungover", True),
        ("we drew 2-2 last night, great game", True),
        ("周末 3 比 1 赢了，门将神了", True),
        ("the importer lost 3-0 in the comparison against the old one", False),
        ("store the final score as 3-1 in matches.json", False),
    ],
)
def test_a_games_score_is_chit_chat(said: str, chat: bool) -> None:
    assert is_small_talk(said) is chat


def test_a_score_left_unanswered_is_no_open_loop() -> None:
    cp = checkpoint(
        session(
            "add the league table page",
            "Added /table, sorted by points then goal difference.",
            "lost 3-0 on Saturday, our striker forgot his boots. anyway, cheers",
        )
    )
    assert cp is not None
    assert not any("3-0" in loop for loop in cp.open_loops), cp


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "后台是 paocai，FastAPI 跑在 Fly 上。这是老仓库的 CLAUDE.md，你看下：\n\n"
            "# CLAUDE.md\n- 提交前跑 ruff\n- 不要改 alembic 的版本号",
            "后台是 paocai，FastAPI 跑在 Fly 上。",
        ),
        (
            "the bot runs on Deno Deploy with KV. here's the AGENTS.md from the old repo, adapt it:"
            "\n## Rules\n- never push to main\n- run deno fmt",
            "the bot runs on Deno Deploy with KV.",
        ),
        ("Here's our GEMINI.md:\n\n# GEMINI.md\n- use pnpm", ""),
        ("# AGENTS.md\n- use uv, never pip", ""),
    ],
)
def test_the_words_before_a_pasted_instruction_file_are_kept(said: str, kept: str) -> None:
    rest, injected = strip_injected(said)
    assert rest == kept
    assert injected is (kept == "")
    assert "never push" not in rest and "ruff" not in rest


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ('curl "https://api.example.com/v1/route?origin=1.2,3.4&mode=walk"', "code"),
        ("docker run -p 8080:80 nginx", "code"),
        ("git push --force-with-lease", "code"),
        ("curl https://api.example.com returns an empty body since the deploy", "text"),
        ("git push --force is forbidden on main", "text"),
        ("npm install works now", "text"),
    ],
)
def test_a_pasted_command_line_is_no_statement(line: str, kind: str) -> None:
    assert classify_line(line) == kind


# --------------------------------------------------------------------------- e2e-heldout16


def test_a_question_after_a_lower_case_period_is_its_own_sentence() -> None:
    said = (
        "heads up, the vendor added two more gates, so it's 9 lanes now, not the 7 I gave you. "
        "does the admin page list the idle lanes per gate?"
    )
    assert split_sentences(said) == [
        "heads up, the vendor added two more gates, so it's 9 lanes now, not the 7 I gave you.",
        "does the admin page list the idle lanes per gate?",
    ]
    # A short question about the statement before it stays with it: the turn asks.
    short = "I always forget whether `git switch -c` or `git checkout -b` keeps my edits. which?"
    assert len(split_sentences(short)) == 1


@pytest.mark.parametrize(
    "said",
    [
        "单次配送改成 30 分钟一单",
        "体验课改成 40 分钟一节。原来太长了，小朋友坐不住",
    ],
)
def test_a_chinese_setting_with_its_per_unit_is_a_decision(said: str) -> None:
    assert any(c.category == "events" for c in captures(said))


@pytest.mark.parametrize(
    "said",
    [
        "补货周期那个 7 天统一不行，店长说了：生鲜 2 天，日用品 14 天，按品类来",
        "超时时间 60 秒太长了，支付回调 10 秒，查询接口 3 秒，分开配",
    ],
)
def test_a_chinese_value_turned_down_with_what_holds_instead_is_a_decision(said: str) -> None:
    assert any(c.category == "events" for c in captures(said))


def test_a_value_turned_down_with_nothing_after_it_is_no_decision() -> None:
    assert not any(c.category == "events" for c in captures("这个 7 天不行吧？"))


def test_a_change_keeps_the_sentence_that_says_more_at_the_new_value() -> None:
    held = admitted(
        [
            "ferrybook is the ticket site for our island ferry. Flask and Postgres. passengers "
            "pay a 12 euro fare when they book, through Stripe"
        ],
        ["raise the fare to 15 euros. 12 doesn't cover the fuel anymore"],
    )
    assert "15 euro fare" in held and "Stripe" in held, held
    assert "12 euro" not in held, held


def test_a_sentence_restating_the_value_in_another_unit_is_not_rewritten() -> None:
    held = admitted(
        [
            "The alert fires once the level has held over the trailing 3 days (72 hours) at "
            "Rotterdam."
        ],
        ["the alert needs 4 days, not 3. we got two false alarms last week"],
    )
    assert "72 hours" not in held, held


def test_a_value_replaced_with_words_between_it_and_the_old_one_is_a_quoted_change() -> None:
    held = admitted(
        ["Vue 3 and Supabase. the league runs on a 10-team table."],
        ["the committee says it's a 12-team table from spring, not 10. two clubs joined"],
    )
    assert "10-team" not in held, held


@pytest.mark.parametrize(
    ("said", "chat"),
    [
        ("ta. off early, my lass has her school play tonight, she's a tree", True),
        ("今天去菜市场买了条鲈鱼，晚上清蒸。", True),
        ("low tide's at 09:40 tomorrow so we're walking the dog on the sands", True),
        ("restart the worker at 09:40 after the backup", False),
    ],
)
def test_more_chit_chat_of_a_users_day(said: str, chat: bool) -> None:
    assert is_small_talk(said) is chat


def test_work_put_off_with_xia_hui_is_the_next_step() -> None:
    cp = checkpoint(
        session(
            "积分兑换加上",
            "加好了，兑换记录写 points_log。",
            "今天去菜市场买了条鲈鱼，晚上清蒸。下回做积分过期提醒，不急",
        )
    )
    assert cp is not None
    assert any("积分过期提醒" in step for step in cp.next_actions), cp
    assert not any("鲈鱼" in loop for loop in cp.open_loops), cp


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("https://api.example.gov.cn/push?app_id=ab12&date=2026-12-03", "code"),
        ("docs: https://example.com/guide", "text"),
    ],
)
def test_a_bare_url_line_is_no_statement(said: str, kind: str) -> None:
    assert classify_line(said) == kind


@pytest.mark.parametrize(
    "said",
    [
        "报名以后只认微信支付，不收现金了。对账太麻烦",
        "members can reserve 3 lanes ahead at most, no further. someone hogged the pool",
    ],
)
def test_a_rule_from_now_on_or_a_limit_is_a_decision(said: str) -> None:
    assert any(c.category == "events" for c in captures(said))


def test_a_command_with_its_paths_is_no_profile() -> None:
    found = captures(
        "照片存七牛，我平时是命令行传的：qshell qupload2 --src-dir=./photos --bucket=img"
    )
    assert not any(c.category == "profile" for c in found), found


def test_a_carried_loop_quoting_a_replaced_term_is_dropped() -> None:
    earlier = checkpoint(
        session(
            "这个 worktree 做退换货。从签收算，普通商品 7 天，大件家具退货期 15 天，规则先写进去"
        )
    )
    assert earlier is not None and earlier.open_loops
    later = build_checkpoint(
        "s2",
        "gemini",
        PROJECT,
        session("大件家具那条得改，平台去年就改成 30 天了", "大件家具退货期改成 30 天。"),
        [],
        "idle",
        T0 + timedelta(days=1),
        earlier=earlier,
    )
    assert later is not None
    assert not any("15 天" in item for item in (*later.open_loops, *later.next_actions)), later

"""Round 47's classes from blind batch b41 (decision 0060), on phrasings of our own: a named
setting given a new amount with its old one ("bump X from $1,500 to $2,500"), and an assistant's
short agreement followed by its report of what it changed. Each positive fails on ea342bc."""

from __future__ import annotations

import pytest

from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import Capture, Turn


def turn(text: str, role: str = "user", record: str = "r") -> Turn:
    return Turn(
        agent="claude",
        session_id="s",
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=None,
        path="p",
        record_id=record,
        offset=0,
    )


def capture(text: str, role: str = "user", previous: str | None = None) -> list[Capture]:
    before = None
    if previous is not None:
        before = turn(previous, "assistant" if role == "user" else "user", "p")
    return capture_turn(turn(text, role), before, "/home/dev/shop")


# --------------------------------------------------------------------------- amounts changed


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("bump the refund auto-approve limit from $800 to $1,200, support lead agreed", "$1,200"),
        ("lower the free shipping threshold from €49 to €39 for the spring sale", "€39"),
        ("take the report page size from 1,000 to 250 rows please", "250"),
    ],
)
def test_a_named_setting_given_a_new_amount_is_a_decision(said: str, value: str) -> None:
    found = capture(said)
    assert [c.category for c in found] == ["events"], found
    assert value in found[0].text


@pytest.mark.parametrize(
    "said",
    [
        "the price went from $10 to $12 last year",
        "can you bump the limit from 5 to 10?",
        "traffic grew from 2k to 9k requests a minute during the sale",
    ],
)
def test_an_amount_that_moved_by_itself_or_a_question_is_no_decision(said: str) -> None:
    assert not [c for c in capture(said) if c.rule == "decision.value_changed"]


# --------------------------------------------------------------------------- agreed, then done

ASKED = "lets drop the csv export and use a saved query instead, nobody opens the file"


@pytest.mark.parametrize(
    ("said", "detail"),
    [
        (
            "Understood, no Redux. I moved the cart state into a React context "
            "(`CartProvider.tsx`) and removed redux from package.json.",
            "CartProvider.tsx",
        ),
        (
            "Agreed, dropping the nightly CSV export. The reports page is now the only place "
            "finance looks; I removed the export cron and gave them a saved query in Metabase.",
            "Metabase",
        ),
        (
            "好的，不用 Celery 了。定时任务改成了 systemd timer，配置在 deploy/timers/ 下面。",
            "systemd timer",
        ),
    ],
)
def test_a_short_agreement_keeps_the_report_that_follows(said: str, detail: str) -> None:
    found = capture(said, "assistant", ASKED)
    assert any(detail in c.text for c in found), [(c.rule, c.text) for c in found]
    assert len(found) == 1, [(c.rule, c.text) for c in found]


def test_an_agreement_with_a_long_report_keeps_the_lead() -> None:
    report = " ".join(f"I also updated module{i}.py to read the new setting." for i in range(12))
    found = capture(f"Agreed, dropping the nightly CSV export. {report}", "assistant", ASKED)
    assert all(len(c.text) <= 400 for c in found)


# --------------------------------------------------------------------------- waved off


@pytest.mark.parametrize(
    "said",
    [
        "我同事一直说前端要全部换成 Vue 3，说大家都这么做。我觉得没必要，先不理他。",
        "我们主管说以后所有接口都要走 GraphQL，说大厂都用这个。根本没必要。",
        "my manager says we should always write the API docs in Confluence. Pointless, nobody "
        "reads them.",
        "My lead keeps saying we should always squash merges. No need, the history is fine.",
        "our architect says we should never use ORMs. I don't see the point of that rule.",
    ],
)
def test_someone_elses_view_waved_off_is_no_preference(said: str) -> None:
    assert capture(said) == []


@pytest.mark.parametrize(
    "said",
    [
        "我们组长说以后都用 DolphinScheduler，我也同意，就这么定了。",
        "we should always squash merges, no need for merge commits on main",
    ],
)
def test_a_view_taken_up_or_a_rule_of_ones_own_stays(said: str) -> None:
    assert capture(said)


# --------------------------------------------------------------------------- merged in main (0062)


@pytest.mark.parametrize(
    "said",
    [
        "I remember that the old build server was slow.",
        "back when we ran Jenkins the nightly job took forever",
        "我记得以前那台打包机特别慢",
    ],
)
def test_a_recollection_is_no_memory_from_the_model(said: str) -> None:
    assert not [c for c in capture_turn(turn(said)) if c.rule.startswith("learned.")]


def test_a_value_change_survives_the_models_sure_none() -> None:
    said = "coupon.go 里银卡改成 0.85，金卡还是 0.8，单测一起改了。"
    found = capture_turn(turn(said, "assistant"), turn("会员折扣要调"))
    assert any("0.85" in c.text and c.category == "events" for c in found), found

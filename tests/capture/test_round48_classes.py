"""Round 48's classes from blind batch b42 (decision 0063), on phrasings of our own: fields a
program dumped between brackets after its stack, a decision said "instead" with the one it
replaces, a rule that only points back at the memory before it, an assistant's one-line
confirmation naming what only it holds, and a commitment opening on its standing time. Each
positive fails on 65575ce; the guards hold on both."""

from __future__ import annotations

from test_round47_classes import capture

# --------------------------------------------------------------------------- dumped fields

DUMP = (
    "TypeError: fetch failed\n"
    "    at Object.fetch (node:internal/deps/undici/undici:11457:11) {\n"
    "  hostname: 'billing.internal',\n"
    "  port: 8443,\n"
    "  retries: 3\n"
    "}"
)


def test_fields_dumped_between_brackets_after_a_stack_are_no_facts() -> None:
    assert capture(DUMP) == []


def test_prose_after_the_closing_bracket_is_still_read() -> None:
    text = f"{DUMP}\n\nThe billing service runs on billing-02 behind the internal proxy."
    found = capture(text)
    assert [c.text for c in found if "billing-02" in c.text]


def test_a_users_own_lines_with_no_opening_output_line_stay_prose() -> None:
    found = capture("Our ports are fixed now:\n  api: 8080\n  admin: 9090")
    assert found


# --------------------------------------------------------------------------- instead


def test_a_decision_said_instead_carries_the_one_it_replaces() -> None:
    found = capture(
        "We're dropping Celery beat for the reminders. It double-fired after every deploy. "
        "Going with a plain cron entry instead, every 10 minutes."
    )
    events = [c for c in found if c.category == "events"]
    assert len(events) == 1
    assert "Celery beat" in events[0].text and "cron entry" in events[0].text


def test_two_decisions_without_instead_stay_two() -> None:
    found = capture(
        "We're going with Postgres for the ledger. We're going with Redis for the session cache."
    )
    assert len([c for c in found if c.category == "events"]) == 2


# --------------------------------------------------------------------------- pointing back


def test_a_rule_that_only_points_back_joins_the_workflow_before_it() -> None:
    found = capture(
        "When a refund is over $200 the flow is: support files a RefundRequest, the team lead "
        "approves it in the console, and only then does finance release the money. "
        "Never skip any of those."
    )
    assert [c.category for c in found] == ["patterns"]
    assert "RefundRequest" in found[0].text and "Never skip" in found[0].text


def test_a_rule_with_its_own_object_stays_a_preference() -> None:
    found = capture("Never skip the changelog entry when you bump the version.")
    assert [c.category for c in found] == ["preferences"]


# --------------------------------------------------------------------------- confirmation


def test_a_confirmation_naming_a_bucket_the_user_did_not_is_kept() -> None:
    found = capture(
        "好，日志改存 S3 的 shop-logs-archive 桶（法兰克福），保留 90 天，每天大概 2GB。",
        role="assistant",
        previous="日志都放到 S3 上吧，服务器磁盘不够了",
    )
    assert [c.text for c in found if "shop-logs-archive" in c.text]


def test_a_confirmation_that_only_repeats_the_user_stays_out() -> None:
    found = capture("明白：数据库用 MySQL 8。", role="assistant", previous="数据库用 MySQL 8")
    assert found == []


# --------------------------------------------------------------------------- commitment


def test_a_commitment_opening_on_its_standing_time_is_the_users_preference() -> None:
    found = capture(
        "Got it. Going forward I'll write commit messages in plain English without emojis.",
        role="assistant",
        previous="stop putting emojis in the commit messages pls",
    )
    assert [c.category for c in found] == ["preferences"]


def test_a_promise_about_the_next_step_stays_narration() -> None:
    found = capture(
        "Got it. I'll update the README next.",
        role="assistant",
        previous="the README still mentions the old port",
    )
    assert found == []

"""The failure classes the seventh blind held-out set found (eval/continuity/e2e-heldout7,
eval/RESULTS.md), each tested on variants of its own, both ways: a statement withdrawn by its
role rather than its value, pasted log and build lines with new shapes, and a decision whose
reason comes in the next sentence."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from test_heldout2_classes import PROJECT, T0, captures, session

from recallnest.capture.admission import Admitter, retracted_roles
from recallnest.capture.chatter import is_pasted_line
from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import Memory
from recallnest.core.roles import roles_in


def remembered(*sessions: tuple[str, ...]) -> list[Memory]:
    """Capture and admit each session in order, one day apart (a retraction withdraws only
    what was said before it); the active memories at the end."""
    held: dict[str, Memory] = {}
    for n, said in enumerate(sessions):
        when = T0 + timedelta(days=n)
        turns = [
            replace(t, session_id=f"s{n}", record_id=f"s{n}-{t.record_id}", timestamp=when)
            for t in session(*said)
        ]
        for i, t in enumerate(turns):
            for cap in capture_turn(t, turns[i - 1] if i else None, project=PROJECT):
                admitter = Admitter(lambda c: [m for m in held.values() if m.scope == c.scope])
                admitter.admit(cap, when, "test")
                held.update(admitter.pending)
    return [m for m in held.values() if m.status == "active"]


def kept(*sessions: tuple[str, ...]) -> str:
    return " | ".join(m.text for m in remembered(*sessions))


# --------------------------------------------------------------------------- withdrawn by role


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "Auth is handled by Keycloak, realm acme-internal; sessions last 8 hours.",
            "Disregard what I said earlier about auth. We moved to Auth0 with the tenant "
            "acme-prod.",
            "Keycloak",
            "Auth0",
        ),
        (
            "Transactional mail goes out through SendGrid, template ids live in "
            "mail/templates.json.",
            "Ignore what I said about email. We use Postmark now, server token in the vault.",
            "SendGrid",
            "Postmark",
        ),
        (
            "支付回调走的是 Kafka，topic 叫 pay-callbacks，消费者在 consumer/pay.go。",
            "之前讲的消息队列那块已经不算数了，现在改成 NATS，subject 是 pay.callback.v2。",
            "Kafka",
            "NATS",
        ),
        (
            "搜索用的是 Elasticsearch 7，索引叫 goods_v3，每晚全量重建。",
            "之前说的搜索那部分不对了，已经换成 Meilisearch，索引名 goods。",
            "Elasticsearch",
            "Meilisearch",
        ),
    ],
)
def test_a_statement_withdrawn_by_its_role_retires_the_fact_naming_that_role(
    first: str, later: str, old: str, new: str
) -> None:
    got = kept((first,), (later,))
    assert new in got and old not in got, got


def test_a_withdrawal_leaves_facts_of_other_roles_alone() -> None:
    got = kept(
        ("Errors are reported to Sentry, project web-frontend.",),
        ("Auth is handled by Keycloak, realm acme-internal.",),
        ("Forget what I told you about auth, we moved to Okta, org acme.",),
    )
    assert "Sentry" in got and "Okta" in got and "Keycloak" not in got, got


def test_a_withdrawal_never_retires_what_was_said_after_it() -> None:
    got = kept(
        ("Scratch what I said about the cache. Caching now sits in Varnish, see deploy/vcl.",),
        ("The Varnish config lives in deploy/varnish.vcl and purges go through purge.sh.",),
    )
    assert "deploy/varnish.vcl" in got, got


def test_a_clause_saying_the_old_thing_went_is_not_the_memory() -> None:
    said = (
        "Forget what I told you about page caching, we dropped that vendor in March. "
        "Caching now sits in Varnish in front of the API, config in deploy/varnish.vcl."
    )
    got = [c.text for c in captures(said)]
    assert any("Varnish" in t for t in got) and not any("dropped" in t for t in got), got
    zh = "之前说的日志方案那部分作废，上个月已经下线了：现在统一用 Loki，保留 14 天。"
    got = [c.text for c in captures(zh)]
    assert any(t.startswith("现在统一用 Loki") for t in got), got


def test_the_subject_a_withdrawal_names_stays_with_the_memory() -> None:
    got = [c.text for c in captures("I was wrong about the port. It's 9090 on staging.")]
    assert got and "port" in got[0] and "9090" in got[0], got
    got = [c.text for c in captures("之前讲的消息队列那块已经不算数了，现在改成 NATS。")]
    assert got and "消息队列" in got[0], got


def test_a_plain_second_sentence_takes_no_subject_from_for_or_on() -> None:
    got = [c.text for c in captures("No, that's not right for our setup. We deploy with Nomad.")]
    assert got and "correcting" not in got[0], got


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        ("background jobs go over RabbitMQ", {"message-broker"}),
        ("原图存到 MinIO，bucket 叫 photos-raw", {"object-storage"}),
        ("the boss said r2d2 is fine", set()),
        ("s3://exports/daily", {"object-storage"}),
    ],
)
def test_roles_are_named_by_a_role_word_or_a_product(text: str, roles: set[str]) -> None:
    assert roles_in(text) == roles


def test_a_retraction_withdraws_the_role_its_subject_names_before_the_new_statement() -> None:
    text = "Jobs go through Redis Streams now (correcting: what was said about job transport)"
    assert retracted_roles(text) == {"message-broker"}
    assert retracted_roles("Jobs go through Redis Streams now") == {"message-broker", "cache"}


# --------------------------------------------------------------------------- pasted lines


@pytest.mark.parametrize(
    "line",
    [
        "[scheduler] 2025-01-03 11:02:44,120 WARN retry 3/5 for job 88121",
        "[api-gw] [ERROR] upstream closed connection",
        "worker-2 2024-03-01 08:00:01 started consumer group billing",
        "12:01:02.345 DEBUG pool size=20",
        "BUILD FAILED in 41s",
        "57 actionable tasks: 3 executed, 54 up-to-date",
        "> Task :app:compileDebugKotlin",
        "FAILURE: Build failed with an exception.",
        "   Compiling serde_json v1.0.120",
    ],
)
def test_log_and_build_lines_of_new_shapes_are_pasted_output(line: str) -> None:
    assert is_pasted_line(line)


@pytest.mark.parametrize(
    "line",
    [
        "The standup is at 10:30 every day",
        "[optional] add a retry to the uploader",
        "Build failed twice yesterday because the cache was cold",
    ],
)
def test_prose_with_a_time_or_brackets_is_not_pasted(line: str) -> None:
    assert not is_pasted_line(line)


# --------------------------------------------------------------------------- decision, then why


@pytest.mark.parametrize(
    ("said", "decision", "reason"),
    [
        (
            "We're going with Postgres. The reason is that we need row-level locking.",
            "Postgres",
            "row-level locking",
        ),
        ("We'll keep the monolith. That's because the team is three people.", "monolith", "three"),
        ("就用 Redis Streams 吧。原因是运维那边已经有 Redis 集群了。", "Redis Streams", "集群"),
        ("定了，移动端用 Flutter。理由很简单：两个端只有一个人维护。", "Flutter", "一个人维护"),
    ],
)
def test_a_decision_keeps_the_reason_given_in_the_next_sentence(
    said: str, decision: str, reason: str
) -> None:
    got = captures(said)
    assert len(got) == 1 and decision in got[0].text and reason in got[0].text, got
    assert got[0].category == "events"


def test_a_sentence_after_a_decision_that_gives_no_reason_stays_apart() -> None:
    got = [c.text for c in captures("We're going with Postgres. The staging DB is on port 5433.")]
    assert not any("Postgres" in t and "5433" in t for t in got), got
    assert [c.text for c in captures("We'll keep the monolith. Because why not?")] == [
        "We'll keep the monolith."
    ]


# --------------------------------------------------------------------------- another product


@pytest.mark.parametrize(
    ("first", "later", "old", "new"),
    [
        (
            "支付服务的数据库就用 MySQL 8 吧，DBA 那边熟。",
            "跟 DBA 聊过了，支付服务还是放 PostgreSQL 吧，要用 JSONB。",
            "MySQL",
            "PostgreSQL",
        ),
        (
            "For the invoices service we'll go with Mailgun for outgoing mail.",
            "Invoices service mail moved to Postmark, Mailgun kept bouncing.",
            "go with Mailgun",
            "Postmark",
        ),
    ],
)
def test_a_later_choice_of_another_product_for_the_same_thing_replaces_it(
    first: str, later: str, old: str, new: str
) -> None:
    got = kept((first,), (later,))
    assert new in got and old not in got, got


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("Orders live in Postgres, schema shop.", "We're going with ClickHouse for analytics."),
        (
            "The search API uses Elasticsearch 8, index products_v4.",
            "We're going with Meilisearch instead for the docs site search box.",
        ),
    ],
)
def test_another_product_for_something_else_replaces_nothing(first: str, later: str) -> None:
    got = kept((first,), (later,))
    assert first.split(",")[0].rstrip(".") in got, got

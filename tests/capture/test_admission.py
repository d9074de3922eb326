"""Admission decisions, keyword similarity and the session rate cap
(recallnest.capture.admission)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recallnest.capture.admission import (
    MERGE_THRESHOLD,
    Admission,
    apply_session_cap,
    decide_admission,
    keyword_similarity,
    keyword_tokens,
)
from recallnest.core.aliases import canonical
from recallnest.core.models import GLOBAL_SCOPE, Capture, Memory, memory_id


def cap(text: str, category: str = "preferences", scope: str = GLOBAL_SCOPE,
        subject: str | None = None, importance: float = 0.7) -> Capture:  # fmt: skip
    return Capture(category, text, importance, 0.85, "test", scope=scope, subject=subject)


def mem(text: str, category: str = "preferences", scope: str = GLOBAL_SCOPE, status: str = "active",
        subject: str | None = None, superseded_by: str | None = None) -> Memory:  # fmt: skip
    return Memory(
        id=memory_id(scope, canonical(text)), scope=scope, category=category, text=text,
        status=status, subject=subject, superseded_by=superseded_by,
    )  # fmt: skip


# --------------------------------------------------------------------------- similarity


def test_keyword_tokens_drop_stop_words_and_use_cjk_bigrams() -> None:
    assert keyword_tokens("The port is 8443") == {"port", "8443"}
    assert keyword_tokens("测试环境") == {"测试", "试环", "环境"}
    assert keyword_tokens("用") == {"用"}


def test_keyword_tokens_apply_aliases_hyphens_and_plurals() -> None:
    assert keyword_tokens("TS merges") == keyword_tokens("TypeScript merge")
    assert keyword_tokens("force-push") == {"force", "push"}


@given(st.text(max_size=60), st.text(max_size=60))
def test_similarity_is_a_symmetric_ratio(a: str, b: str) -> None:
    score = keyword_similarity(a, b)
    assert 0.0 <= score <= 1.0
    assert score == keyword_similarity(b, a)


def test_similarity_of_restatements_and_of_different_facts() -> None:
    assert keyword_similarity("监控服务监听 9464 端口。", "监控服务监听 9464 端口") == 1.0
    restated = ("Redis is used for rate limiting only.", "Redis is only used for rate limiting")
    assert keyword_similarity(*restated) >= MERGE_THRESHOLD
    assert keyword_similarity("The staging port is 8443.", "Grafana is at grafana.dev") == 0.0


# --------------------------------------------------------------------------- decisions


def test_insert_when_nothing_similar_exists() -> None:
    decision = decide_admission(cap("Always use uv."), [mem("Keep answers short.")])
    assert (decision.action, decision.target_id) == ("insert", None)


def test_same_canonical_text_is_a_duplicate() -> None:
    old = mem("Always use uv, never pip.")
    decision = decide_admission(cap("  always use UV,   never pip!! "), [old])
    assert (decision.action, decision.target_id) == ("duplicate", old.id)


def test_aliases_make_texts_duplicates() -> None:
    old = mem("Deploys go to k8s", category="entities", scope="shop")
    new = cap("Deploys go to Kubernetes.", category="entities", scope="shop")
    assert decide_admission(new, [old]).action == "duplicate"


def test_other_scopes_are_ignored() -> None:
    old = mem("The staging port is 8443.", category="entities", scope="other")
    new = cap("The staging port is 8443.", category="entities", scope="shop")
    assert decide_admission(new, [old]).action == "insert"


def test_near_duplicate_in_same_scope_and_category_merges() -> None:
    old = mem("Redis is used for rate limiting only.", category="entities", scope="shop")
    other = mem("Redis is used for rate limiting only.", category="events", scope="shop")
    new = cap("Redis is only used for rate limiting", category="entities", scope="shop")
    decision = decide_admission(new, [other, old])
    assert (decision.action, decision.target_id) == ("merge", old.id)


def test_preference_with_same_subject_and_new_value_supersedes() -> None:
    old = mem("use npm", subject="package-manager:js")
    decision = decide_admission(cap("never npm, use pnpm", subject="package-manager:js"), [old])
    assert (decision.action, decision.target_id) == ("supersede", old.id)


def test_preference_with_same_subject_and_same_value_merges() -> None:
    old = mem("use pnpm", subject="package-manager:js")
    new = cap("pnpm for every JS project, it is faster", subject="package-manager:js")
    assert decide_admission(new, [old]).action == "merge"


def test_profile_without_vocabulary_value_supersedes_unless_near_identical() -> None:
    old = mem("I'm a backend engineer who mostly writes Go.", category="profile", subject="role")
    changed = cap(
        "I'm a frontend engineer who mostly writes TypeScript.", "profile", subject="role"
    )
    assert decide_admission(changed, [old]).action == "supersede"


def test_events_and_cases_never_supersede() -> None:
    old = mem("We decided to keep DuckDB.", category="events", scope="shop")
    new = cap("We decided to drop DuckDB for SQLite.", category="events", scope="shop")
    assert decide_admission(new, [old]).action in {"insert", "merge"}


def test_archived_memory_is_not_resurrected() -> None:
    old = mem("Always use uv.", status="archived")
    decision = decide_admission(cap("always use uv"), [old])
    assert (decision.action, decision.target_id) == ("skip", old.id)


def test_reasserting_a_superseded_memory_supersedes_its_successor() -> None:
    new_holder = mem("use pnpm", subject="package-manager:js")
    old = mem("use npm", status="superseded", subject="package-manager:js",
              superseded_by=new_holder.id)  # fmt: skip
    decision = decide_admission(cap("use npm", subject="package-manager:js"), [old, new_holder])
    assert (decision.action, decision.target_id) == ("supersede", new_holder.id)


@pytest.mark.parametrize(
    ("new", "reason"), [(cap(" .。"), "empty text"), (cap("x", category="misc"), "unknown")]
)
def test_skip_empty_text_and_unknown_category(new: Capture, reason: str) -> None:
    decision = decide_admission(new, [])
    assert decision.action == "skip" and decision.reason.startswith(reason)


@pytest.mark.parametrize(
    "text",
    [
        "access_key_id: [REDACTED:aws-access-key]",
        "  signing_secret = [REDACTED:generic-secret]",
        '"token": "[REDACTED:github-token]", "refresh": "[REDACTED:generic-secret]"',
        "The admin password is [REDACTED:password].",
        "[REDACTED:private-key]",
        "数据库密码是 [REDACTED:password]",
    ],
)
def test_skip_a_text_that_is_mostly_masked_secrets(text: str) -> None:
    """A secret's name and its redaction marker say nothing a later session can use."""
    decision = decide_admission(cap(text, category="entities", scope="p"), [])
    assert decision.action == "skip" and decision.reason.startswith("mostly redacted")


@pytest.mark.parametrize(
    "text",
    [
        "DATABASE_URL=postgres://orders:[REDACTED:url-password]@db-staging.internal:5433/orders",
        "The deploy bot authenticates with [REDACTED:github-token]; rotate it every 90 days.",
        "Uploads go to the acme-media-prod bucket in eu-west-1 (key [REDACTED:aws-access-key]).",
    ],
)
def test_a_fact_around_a_masked_secret_is_admitted(text: str) -> None:
    assert decide_admission(cap(text, category="entities", scope="p"), []).action == "insert"


def test_custom_similarity_and_threshold_are_used() -> None:
    old = mem("alpha", category="entities", scope="p")
    new = cap("beta", category="entities", scope="p")
    assert decide_admission(new, [old], lambda a, b: 0.9).action == "merge"
    assert decide_admission(new, [old], lambda a, b: 0.9, threshold=0.95).action == "insert"


def test_admission_is_frozen() -> None:
    decision = Admission("insert", None, "new memory")
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.action = "skip"  # type: ignore[misc]


# --------------------------------------------------------------------------- session rate cap


def test_apply_session_cap_keeps_the_most_important_in_order() -> None:
    batch = [cap("a", importance=0.5), cap("b", importance=0.9), cap("c", importance=0.7)]
    assert [c.text for c in apply_session_cap(batch, already_captured=8, cap=10)] == ["b", "c"]
    assert apply_session_cap(batch, already_captured=10, cap=10) == []
    assert apply_session_cap(batch, already_captured=0, cap=10) == batch


def test_a_similar_text_with_another_value_is_not_folded_into_the_old_one() -> None:
    # No subject vocabulary here: before, the 9090 capture merged into the 8080 row and
    # consolidation never saw the contradiction.
    old = mem("The dev server runs on port 8080", category="entities", scope="shop")
    new = cap("The dev server runs on port 9090", category="entities", scope="shop")
    assert decide_admission(new, [old]).action == "insert"
    restated = cap("the dev server runs on port 8080 locally", category="entities", scope="shop")
    assert decide_admission(restated, [old]).action == "merge"


# --------------------------------------------------------------------------- named old values


@pytest.mark.parametrize(
    ("old", "correction"),
    [
        (
            "We deploy the api with Helm charts from deploy/helm.",
            "we moved off Helm last month, we deploy with Kustomize overlays in deploy/k8s.",
        ),
        ("The CI runners use Ubuntu 20.04 images.", "the runners no longer use 20.04, it's 24.04"),
        ("订单服务的数据库用的是 MySQL。", "不再用 MySQL 了，订单服务的数据库换成 PostgreSQL。"),
    ],
)
def test_a_correction_naming_the_old_value_supersedes_its_holder(old: str, correction: str) -> None:
    """A correction of a later session that names what it replaces supersedes the memory that
    holds it, though the two share few words (issue 17, item 7)."""
    from recallnest.capture.admission import Admitter

    held = mem(old, category="entities", scope="/w/api")
    unrelated = mem("The api exposes metrics on /metrics.", category="entities", scope="/w/api")
    admitter = Admitter(lambda _cap: [held, unrelated])
    fix = Capture("entities", correction, 0.75, 0.95, "correction.entity.fact", scope="/w/api")
    assert admitter.admit(fix, None, "test") == "supersede"
    rows = {m.id: m for m in admitter.rows()}
    assert rows[held.id].status == "superseded"
    assert unrelated.id not in rows


def test_a_correction_naming_nothing_held_is_inserted() -> None:
    from recallnest.capture.admission import Admitter

    held = mem("We deploy the api with Helm charts.", category="entities", scope="/w/api")
    admitter = Admitter(lambda _cap: [held])
    fix = Capture(
        "entities",
        "not Ansible, we use Terraform for the DNS zone.",
        0.75,
        0.95,
        "correction.entity.fact",
        scope="/w/api",
    )
    assert admitter.admit(fix, None, "test") == "insert"


# --------------------------------------------------------------------------- same attribute


def _fix(text: str, rule: str = "correction.entity.fact") -> Capture:
    return Capture("entities", text, 0.75, 0.95, rule, scope="/w/infra")


@pytest.mark.parametrize(
    ("old", "correction", "rule"),
    [
        (
            "Our production deploy region is eu-west-1 and state lives in the S3 backend.",
            "the production region is eu-central-1 now; we moved everything last week.",
            "correction.entity.fact",
        ),
        (
            "这个项目的数据库是 MySQL 8，ORM 用的是 SQLAlchemy 2。",
            "数据库现在是 PostgreSQL 15，上个月已经迁移完了。",
            "correction.entity.fact",
        ),
        # no correction word: the change is in the verb ("is now", "改成")
        ("The staging API port is 8080.", "the staging API port is now 9443.", "entity.fact"),
        ("项目的数据库是 MySQL 8。", "数据库改成 PostgreSQL 15 了。", "entity.fact"),
    ],
)
def test_a_new_value_for_the_same_attribute_supersedes_the_old_one(
    old: str, correction: str, rule: str
) -> None:
    """A correction restating the attribute ("production region", 数据库) with a new value
    supersedes the memory giving the old value, though the two share few words (held-out
    scenarios hc03, hx04: Jaccard 0.04 and 0.25)."""
    from recallnest.capture.admission import Admitter

    held = mem(old, category="entities", scope="/w/infra")
    other = mem("The api exposes metrics on /metrics.", category="entities", scope="/w/infra")
    admitter = Admitter(lambda _cap: [held, other])
    assert admitter.admit(_fix(correction, rule), None, "test") == "supersede"
    rows = {m.id: m for m in admitter.rows()}
    assert rows[held.id].status == "superseded"
    assert other.id not in rows


def test_an_acknowledgement_restating_the_old_value_is_superseded_too() -> None:
    from recallnest.capture.admission import Admitter

    held = mem("Our production region is eu-west-1.", category="entities", scope="/w/infra")
    ack = mem("Noted: production runs in eu-west-1.", category="entities", scope="/w/infra")
    admitter = Admitter(lambda _cap: [held, ack])
    fix = _fix("the production region is eu-central-1 now.")
    assert admitter.admit(fix, None, "test") == "supersede"
    rows = {m.id: m for m in admitter.rows()}
    assert rows[held.id].status == "superseded"
    assert rows[ack.id].status == "superseded"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Service alpha is on port 8080.", "actually service beta is on port 9090 now."),
        ("The staging region is eu-west-1.", "the production region is eu-central-1 now."),
        ("测试环境的数据库是 MySQL 8。", "生产环境的数据库现在是 PostgreSQL 15。"),
    ],
)
def test_a_value_for_another_thing_supersedes_nothing(old: str, new: str) -> None:
    from recallnest.capture.admission import Admitter

    held = mem(old, category="entities", scope="/w/infra")
    admitter = Admitter(lambda _cap: [held])
    assert admitter.admit(_fix(new), None, "test") == "insert"
    assert held.id not in {m.id for m in admitter.rows()}


def test_a_plain_fact_about_the_same_attribute_without_change_words_is_only_inserted() -> None:
    """Without a correction or a change verb a second value may be an addition."""
    from recallnest.capture.admission import Admitter

    held = mem("The staging API port is 8080.", category="entities", scope="/w/infra")
    admitter = Admitter(lambda _cap: [held])
    fix = _fix("The metrics port is 9100.", "entity.fact")
    assert admitter.admit(fix, None, "test") == "insert"


def test_a_negated_clause_states_no_value() -> None:
    """'不是 8080，是 9090，staging 的端口是 9090': the attribute is the staging port, not '不'
    (e2e x03: reading '不' as the attribute kept the corrected memory)."""
    from recallnest.capture.admission import same_attribute, stated_attribute

    fix = "不是 8080，是 9090，staging 的端口是 9090。"
    assert stated_attribute(fix) == (frozenset({"staging", "的端", "端口"}), "9090")
    assert same_attribute(fix, "staging 环境的端口是 8080。") is True
    assert stated_attribute("the port is not 8080") is None
    assert stated_attribute("Redis is used for rate limiting only.") is None


# --------------------------------------------------------------------------- same measure


@pytest.mark.parametrize(
    ("old", "correction"),
    [
        (
            "Plan is 90/min per API key, sliding window, backed by redis.",
            "The contract says paid keys get 500/min and trial keys get 30/min.",
        ),
        (
            "The worker should poll the queue every 15 seconds.",
            "the worker polls every 5 seconds now, 15 was too slow for checkout.",
        ),
        (
            "the importer should default to warehouse 4401127 when --warehouse is missing",
            "default is warehouse 7730012 from now on, the old one was my test site",
        ),
    ],
)
def test_a_correction_giving_another_quantity_in_the_same_unit_supersedes(
    old: str, correction: str
) -> None:
    """A later correction that shares only the unit and the subject with the old value ("per
    key" and "/min", "default" and a 7-digit id) still replaces it (e2e-heldout6 h6c01,
    h6g01), and so does every project memory still stating the old value."""
    from recallnest.capture.admission import Admitter

    held = mem(old, category="entities", scope="/w/infra")
    copy = mem(
        "Done: importer.py now uses " + (old.split()[-1] if "4401127" not in old else "4401127"),
        category="events",
        scope="/w/infra",
    )
    admitter = Admitter(lambda _cap: [held, copy])
    fix = Capture("entities", correction, 0.75, 0.95, "correction.entity.fact", scope="/w/infra")
    assert admitter.admit(fix, None, "test") == "supersede"
    rows = {m.id: m for m in admitter.rows()}
    assert rows[held.id].status == "superseded"
    if "4401127" in old:
        assert rows[copy.id].status == "superseded"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The API allows 120/min per key.", "The webhook retries 3 times, 60/s apart at most."),
        ("Uploads are capped at 50 MB.", "Nightly backups keep 30 days of snapshots."),
        ("Service alpha runs on node 4401127.", "the staging bucket holds 7730012 objects now."),
    ],
)
def test_a_quantity_of_another_thing_supersedes_nothing(old: str, new: str) -> None:
    from recallnest.capture.admission import Admitter

    held = mem(old, category="entities", scope="/w/infra")
    admitter = Admitter(lambda _cap: [held])
    fix = Capture("entities", new, 0.75, 0.95, "correction.entity.fact", scope="/w/infra")
    admitter.admit(fix, None, "test")
    assert held.id not in {m.id for m in admitter.rows()}

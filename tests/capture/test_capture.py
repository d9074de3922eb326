"""Auto-capture: the salience gate, the named extraction rules, who said it, scope, subjects."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.paths import ROOT

from recallnest.capture.heuristics import (
    ASSISTANT_CONFIDENCE,
    CORRECTION_CONFIDENCE,
    MAX_CAPTURES_PER_TURN,
    REMEMBER_IMPORTANCE,
    capture_turn,
)
from recallnest.capture.rules import PATTERN_RULES, PREFERENCE_RULES, PROFILE_RULES
from recallnest.capture.salience import SKIP_RULES, gate_turn, is_question, split_sentences
from recallnest.core.models import CATEGORIES, CONTEXT_MARKER, GLOBAL_SCOPE, Capture, Turn


def turn(text: str, role: str = "user", kind: str = "message", record: str = "r1") -> Turn:
    return Turn(
        agent="claude",
        session_id="s1",
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=None,
        path="/tmp/s1.jsonl",
        record_id=record,
        offset=0,
        kind=kind,  # type: ignore[arg-type]
    )


def capture(text: str, role: str = "user", previous: str | None = None) -> list[Capture]:
    prev_role = "assistant" if role == "user" else "user"
    prev = turn(previous, prev_role, record="r0") if previous else None
    return capture_turn(turn(text, role), prev, project="shop")


def only(text: str, role: str = "user", previous: str | None = None) -> Capture:
    found = capture(text, role, previous)
    assert len(found) == 1, found
    return found[0]


# --------------------------------------------------------------------------- salience gate

GATE_CASES = [
    ("injected_context", f"{CONTEXT_MARKER}\n- [preferences] always use uv"),
    ("injected_context", "<system-reminder>Always prefer editing files.</system-reminder>"),
    ("injected_context", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
    ("injected_context", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nAlways use uv.\n"),
    ("injected_context", "<hook_context>&lt;memory&gt;记住：发布前先跑冒烟测试&lt;/memory&gt;"),
    ("injected_context", "<command-name>/clear</command-name>"),
    ("code_block", "```python\ndef f(x):\n    return x * 2\n```"),
    ("stack_trace", 'Traceback (most recent call last):\n  File "a.py", line 3\nValueError: x'),
    ("stack_trace", "报错了：\nError: connect ECONNREFUSED\n    at Conn.connect (net.js:1:2)"),
    ("log", "2024-05-02T10:14:03Z INFO start\n2024-05-02T10:14:04Z ERROR upstream timeout"),
    ("tool_output", "$ docker ps\nCONTAINER ID   IMAGE   STATUS\n3f2a1b9c8d7e   pg:16   Up"),
    ("tool_output", "On branch main\nChanges not staged for commit:\n\tmodified:   a.py"),
    ("code", "const total = items.reduce((s, i) => s + i.price, 0);"),
    ("greeting", "hi there!"),
    ("greeting", "早上好"),
    ("acknowledgement", "thanks, LGTM 👍"),
    ("acknowledgement", "好的，谢谢"),
    ("too_short", "fix it"),
    ("question", "Why is the build so slow today?"),
    ("question", "uv sync 和 uv pip install 有什么区别"),
]


@pytest.mark.parametrize(("reason", "text"), GATE_CASES)
def test_gate_skips_with_a_named_rule(reason: str, text: str) -> None:
    assert reason in SKIP_RULES
    assert gate_turn(text).reason == reason
    assert capture(text) == []


def test_every_skip_rule_has_a_test() -> None:
    assert {reason for reason, _ in GATE_CASES} == set(SKIP_RULES)


def test_summary_turns_are_skipped() -> None:
    summary = turn("We decided to keep DuckDB.", kind="summary")
    assert capture_turn(summary) == []


def test_embedded_reminder_is_cut_out_and_the_prose_kept() -> None:
    text = "<system-reminder>User opened a.py</system-reminder>\nNever leave print() in commits."
    found = only(text)
    assert found.category == "preferences"
    assert "system-reminder" not in found.text


def test_code_block_inside_a_useful_turn_is_stripped_not_captured() -> None:
    text = "Failing code:\n```python\nx = json.load(open(p))\n```\nAlways use pathlib in new code."
    assert [c.text for c in capture(text)] == ["Always use pathlib in new code."]


def test_our_context_marker_blocks_the_whole_turn_even_with_real_prose() -> None:
    assert capture(f"I prefer tabs.\n{CONTEXT_MARKER}\n- [entities] port 8443") == []


def test_questions_inside_a_turn_are_skipped_statements_kept() -> None:
    found = capture("Which port is staging on? Also, always use uv for Python deps.")
    assert [c.category for c in found] == ["preferences"]


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("When you add an env var, update .env.example.", False),
        ("When is the next release?", True),
        ("would it be better to use a dataclass here", True),
        ("这里用 dataclass 好还是 TypedDict 好", True),
        ("我们决定继续用 DuckDB。", False),
    ],
)
def test_is_question(text: str, question: bool) -> None:
    assert is_question(text) is question


def test_split_sentences_keeps_dotted_names_and_splits_chinese() -> None:
    assert split_sentences("Use node.js 20. It is LTS。然后部署！好") == [
        "Use node.js 20.",
        "It is LTS。",
        "然后部署！",
        "好",
    ]


# --------------------------------------------------------------------------- extraction

EXTRACTION_CASES = [
    # (role, text, category, rule prefix, key substring)
    ("user", "Going forward always use uv, never pip.", "preferences", "preference.", "uv"),
    ("user", "以后装依赖一律用 uv，别再 pip install 了。", "preferences", "preference.zh.", "uv"),
    ("user", "I'm a backend engineer and I mostly write Go.", "profile", "profile.", "backend"),
    ("user", "我是一名后端工程师，主要写 Go。", "profile", "profile.zh.", "后端工程师"),
    ("user", "OK, we decided to keep DuckDB, not SQLite.", "events", "decision.", "DuckDB"),
    ("user", "讨论下来，日志统一接到 Loki。", "events", "decision.zh", "Loki"),
    ("user", "The workflow here is: branch off develop.", "patterns", "pattern.", "develop"),
    ("user", "每次 push 之前先跑一遍 make lint。", "patterns", "pattern.zh.", "make lint"),
    ("user", "Staging lives at https://api.staging.acme.dev.", "entities", "entity.", "acme"),
    ("user", "监控服务监听 9464 端口。", "entities", "entity.", "9464"),
    ("assistant", "The error was a stale cache; clearing it fixed it.", "cases", "case.", "stale"),
    ("user", "CI 上一直报 heap out of memory，调大内存后就解决了。", "cases", "case.", "heap"),
]


@pytest.mark.parametrize(("role", "text", "category", "rule", "key"), EXTRACTION_CASES)
def test_extraction_rules(role: str, text: str, category: str, rule: str, key: str) -> None:
    found = only(text, role)
    assert found.category == category
    assert found.rule.startswith(rule)
    assert key in found.text


@pytest.mark.parametrize(
    "text",
    [
        "我是说这个函数的返回值有问题，不是参数。",
        "我是不是应该先重启一下 docker？",
        "注意到这个测试又挂了，你看一下。",
        "我记得之前好像遇到过类似的问题。",
        "就用这个吧，先跑起来看看。",
        "I always forget how this regex works, lol.",
        "Let's go with whatever is simplest for now.",
        "Don't run the migrations yet, I want to look first.",
        "Please fix the failing test in tests/test_store.py.",
    ],
)
def test_chatter_with_trigger_words_is_not_captured(text: str) -> None:
    assert capture(text) == []


def test_rule_names_are_unique_and_namespaced() -> None:
    names = [r.name for r in (*PATTERN_RULES, *PROFILE_RULES, *PREFERENCE_RULES)]
    assert len(names) == len(set(names))
    assert all(n.split(".")[0] in {"pattern", "profile", "preference"} for n in names)


def test_remember_request_infers_category_with_high_importance() -> None:
    fact = only("Remember that the prod database is read-only from the bastion.")
    assert (fact.category, fact.importance) == ("entities", REMEMBER_IMPORTANCE)
    assert fact.rule.startswith("remember")
    assert fact.text.startswith("the prod database")
    workflow = only("请记住，数据库迁移在执行之前都必须先给我审核。")
    assert workflow.category == "patterns"


def test_several_items_per_turn_in_order() -> None:
    text = (
        "Some background: I'm a platform engineer on the infra team. We decided last week to "
        "move CI to GitHub Actions. Also, please never use sudo in scripts."
    )
    assert [c.category for c in capture(text)] == ["profile", "events", "preferences"]


def test_captures_per_turn_are_capped() -> None:
    lines = [f"The service svc-{i} listens on port {8000 + i}." for i in range(9)]
    assert len(capture("\n".join(lines))) == MAX_CAPTURES_PER_TURN


# --------------------------------------------------------------------------- who said it


def test_assistant_cannot_state_user_preferences_or_profile() -> None:
    assert capture("You prefer pnpm, so I'll use pnpm add.", role="assistant") == []
    assert capture("I'm a backend engineer who mostly writes Go.", role="assistant") == []


def test_assistant_decisions_and_facts_have_lower_confidence() -> None:
    decision = only("Decision recorded: we'll store timestamps as UTC.", role="assistant")
    assert (decision.category, decision.confidence) == ("events", ASSISTANT_CONFIDENCE)


def test_user_correction_outranks_the_statement_it_corrects() -> None:
    assistant_text = "The staging API listens on port 8080."
    stated = only(assistant_text, role="assistant")
    corrected = only("no, the staging port is 8443.", previous=assistant_text)
    assert corrected.category == "entities"
    assert corrected.rule.startswith("correction.")
    assert corrected.text == "the staging port is 8443."
    assert corrected.confidence == CORRECTION_CONFIDENCE > stated.confidence


def test_correction_takes_the_fact_from_the_next_sentence() -> None:
    found = only("Wait, that's not right. The cron job runs at 02:00 UTC, not midnight.")
    assert found.text == "The cron job runs at 02:00 UTC, not midnight."


def test_soft_correction_needs_a_previous_turn() -> None:
    text = "Actually it's pinned to 3.11 because of the Lambda runtime."
    assert only(text, previous="I'll use Python 3.12 syntax.").rule.startswith("correction.")
    assert not capture(text)[0].rule.startswith("correction.")


def test_case_spanning_two_sentences_is_one_capture() -> None:
    text = "Root cause: the image was built for arm64. Rebuilding with --platform amd64 fixed it."
    found = only(text, role="assistant")
    assert (found.category, found.rule) == ("cases", "case.error_then_fix")
    assert "arm64" in found.text and "--platform" in found.text


# --------------------------------------------------------------------------- scope and subject


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("I'm a backend engineer who mostly writes Go.", GLOBAL_SCOPE),
        ("Always use uv for Python deps.", GLOBAL_SCOPE),
        ("In this repo we use 4-space indentation, not tabs.", "shop"),
        ("这个项目里缩进统一两个空格。", "shop"),
        ("The staging port is 8443.", "shop"),
        ("We decided to keep DuckDB.", "shop"),
    ],
)
def test_scope_rule(text: str, scope: str) -> None:
    assert only(text).scope == scope


def test_no_project_means_global_scope() -> None:
    found = capture_turn(turn("The staging port is 8443."), project=None)
    assert [c.scope for c in found] == [GLOBAL_SCOPE]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Never npm, use pnpm.", "package-manager:js"),
        ("以后前端项目都用 pnpm 吧。", "package-manager:js"),
        ("I'm a backend engineer who mostly writes Go.", "role"),
        ("I mostly write Go these days.", "language:primary"),
        ("Please stop adding emoji to commit messages.", "topic:emoji commit messages"),
    ],
)
def test_subject_keys(text: str, subject: str) -> None:
    assert only(text).subject == subject


def test_events_and_facts_have_no_subject() -> None:
    assert only("We decided to keep DuckDB.").subject is None


def test_evidence_is_the_turn_id() -> None:
    t = turn("We decided to keep DuckDB.")
    assert capture_turn(t)[0].evidence == (t.id,)


# --------------------------------------------------------------------------- properties


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=300), st.sampled_from(["user", "assistant"]))
def test_capture_is_total_bounded_and_deterministic(text: str, role: str) -> None:
    first = capture_turn(turn(text, role), project="p")
    assert first == capture_turn(turn(text, role), project="p")
    assert len(first) <= MAX_CAPTURES_PER_TURN
    for c in first:
        assert c.category in CATEGORIES
        assert 0.0 <= c.importance <= 1.0 and 0.0 <= c.confidence <= 1.0
        assert c.rule and c.text.strip()
        assert role == "user" or c.category not in {"profile", "preferences", "patterns"}


@pytest.mark.parametrize(
    "text", ["a" * 20000, "aB-" * 7000, "x  " * 7000, "a -> b " * 3000, "ab/" * 7000]
)
def test_pathological_pastes_stay_fast(text: str) -> None:
    start = time.thread_time()
    capture_turn(turn(text))
    assert time.thread_time() - start < 0.5  # CPU seconds; quadratic regexes took > 3 s here


# --------------------------------------------------------------------------- fast paths
# The backfill shortcuts (issue 3) must not change any outcome: each is checked against the
# plain formulation it replaced.

_WORDS = (
    "I|we|prefer|always|never|use|pnpm|not|npm|decided|let's|my|editor|is|vim|every|PR|needs"
    "|before|then|first|port|8080|src/app.py|localhost|fooBar|API_KEY|v1.2|called|like|I'm"
    "|engineer|我|喜欢|以后|都用|不要|决定|每次|之前|，|,|.|so|rather|than|instead|of|please"
    "|keep|answers|short|for now"
)
_TRIGGER_WORDS = st.sampled_from(_WORDS.split("|"))
_SENTENCES = st.lists(_TRIGGER_WORDS, min_size=1, max_size=14).map(" ".join)


def _reference_weight(text: str) -> int:
    cjk = [("\u3400", "\u9fff"), ("\uf900", "\ufaff")]
    return sum(2 if any(a <= ch <= b for a, b in cjk) else 1 for ch in text if ch.isalnum())


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=40), st.integers(min_value=-2, max_value=20))
def test_has_prose_weight_is_the_threshold_of_the_weight(text: str, minimum: int) -> None:
    from recallnest.capture.salience import has_prose_weight

    assert has_prose_weight(text, minimum) == (_reference_weight(text) >= minimum)


def test_rules_by_role_is_rule_order_with_each_rule_once() -> None:
    from recallnest.capture.rules import RULE_ORDER, RULES_BY_ROLE

    for role in ("user", "assistant"):
        expected: list[object] = []
        for rules in RULE_ORDER:
            expected += [r for r in rules if role in r.roles and r not in expected]
        assert list(RULES_BY_ROLE[role]) == expected


@settings(max_examples=examples(300), deadline=None)
@given(_SENTENCES, st.sampled_from(["user", "assistant"]))
def test_first_rule_per_role_matches_the_rule_order_walk(text: str, role: str) -> None:
    from recallnest.capture.rules import RULE_ORDER, RULES_BY_ROLE

    walk = [r for rules in RULE_ORDER for r in rules if role in r.roles and r.pattern.search(text)]
    fast = [r for r in RULES_BY_ROLE[role] if r.pattern.search(text)]
    assert (walk[0] if walk else None) == (fast[0] if fast else None)


@settings(max_examples=examples(300), deadline=None)
@given(_SENTENCES, st.sampled_from(["user", "assistant"]), st.booleans())
def test_fact_shape_matches_its_plain_formulation(text: str, role: str, relaxed: bool) -> None:
    import re

    from recallnest.capture import rules as R
    from recallnest.capture.heuristics import (
        _ascii_name,
        _fact_shape,
        _latin_name_in_cjk,
        _names_something,
    )

    def concrete_in(patterns: tuple[re.Pattern[str], ...]) -> bool:
        matches = [m.group(0) for p in patterns for m in p.finditer(text)]
        return any(m.casefold() not in R.NOT_PATHS for m in matches)

    concrete = (
        concrete_in((R.STRONG_CONCRETE, R.WEAK_CONCRETE))
        or (role == "user" and _latin_name_in_cjk(text))
        or bool(R.TECH_NAME.search(text))
        or (relaxed and (bool(R.DIGIT_OR_VALUE.search(text)) or _ascii_name(text)))
        or (relaxed and bool(R.ZH_COPULAR.search(text) or R.CONTRAST.search(text)))
    )
    declarative = bool(R.DECLARATIVE.match(text)) and (
        _names_something(text) or text.startswith(("our", "Our"))
    )
    verb_ok = relaxed or bool(R.FACT_VERB.search(text))
    verbless_ok = role == "user" and concrete_in((R.STRONG_CONCRETE,))
    shaped = bool(R.STRONG_FACT.search(text)) or (concrete and verb_ok) or verbless_ok
    expected = declarative or (shaped and (concrete or _names_something(text)))
    assert _fact_shape(text, role, relaxed) == expected


_CONCRETE_BITS = st.sampled_from(
    (
        _WORDS + "|a.b|. |/|_|`|7|٣|aB|localhost|端口|凌晨|called x|named y|叫他|~/x|../y|x.py"
        "|.env.local|at 8080|9:30"
    ).split("|")
)


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(st.text(max_size=60), st.lists(_CONCRETE_BITS, max_size=10).map("".join)))
def test_strong_concrete_gate_passes_every_text_the_pattern_matches(text: str) -> None:
    from recallnest.capture.rules import STRONG_CONCRETE, STRONG_CONCRETE_GATE

    if STRONG_CONCRETE.search(text):
        assert STRONG_CONCRETE_GATE.search(text), text


def test_strong_concrete_gate_on_the_capture_cases() -> None:
    from recallnest.capture.rules import STRONG_CONCRETE, STRONG_CONCRETE_GATE

    cases = ROOT / "eval" / "capture" / "cases.jsonl"
    texts = [json.loads(line)["text"] for line in cases.read_text("utf-8").splitlines() if line]
    gated = [t for t in texts if not STRONG_CONCRETE_GATE.search(t)]
    assert gated  # the gate does rule texts out
    assert not [t for t in gated if STRONG_CONCRETE.search(t)]


def _reference_line_kind(line: str, in_diff: bool = False) -> str:
    """classify_line as first written: every pattern tried with `search`."""
    from recallnest.capture import salience as S

    if S._BLOB.search(line):
        return "code"
    if in_diff and S._DIFF_LINE.match(line):
        return "tool_output"
    for kind, pattern, _ in S._LINE_KINDS:
        if pattern.search(line):
            return kind
    return "text"


_LINE_WORDS = (
    "  |\t|    |(|)|;|{|}|:|a.py|(app.py:12)|(at x.js:3:4)|Traceback (most recent call last)"
    '|File "a.py", line 3|  at foo (bar.js:1)|ValueError: x|$ ls|[INFO] ok|npm WARN x|def f():'
    "|import os|x = 1|return|SELECT 1|// c|key:|diff --git a b|the|fix|is|we|版本|。"
)
_LINE_BITS = st.sampled_from(_LINE_WORDS.split("|"))


@settings(max_examples=examples(500), deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(_LINE_BITS, max_size=8).map("".join)))
def test_classify_line_matches_searching_every_pattern(line: str) -> None:
    from recallnest.capture.salience import classify_line

    assert classify_line(line) == _reference_line_kind(line)
    assert classify_line(line, in_diff=True) == _reference_line_kind(line, in_diff=True)


def test_line_patterns_are_anchored_except_the_declared_tails() -> None:
    import re._parser as sre  # the parse tree shows which alternatives start with ^

    from recallnest.capture.salience import _LINE_KINDS

    for kind, pattern, unanchored in _LINE_KINDS:
        tree = list(sre.parse(pattern.pattern, pattern.flags))
        if tree[0] == (sre.AT, sre.AT_BEGINNING):
            continue  # every alternative starts with ^ (the parser hoisted it)
        assert tree[0][0] is sre.BRANCH and len(tree) == 1, kind
        tails = [b for b in tree[0][1][1] if next(iter(b)) != (sre.AT, sre.AT_BEGINNING)]
        assert len(tails) == 1, kind
        first = next(iter(tails[0]))
        needed = {chr(first[1])} if first[0] is sre.LITERAL else {chr(c) for _, c in first[1]}
        assert needed == set(unanchored), kind

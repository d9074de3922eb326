"""Per-agent hook dialects: parsing stdin payloads, rendering outputs, caps and fences.

Golden outputs live in tests/golden/hook_<agent>.txt and are compared byte for byte.
Regenerate them on purpose with RECALLNEST_UPDATE_GOLDEN=1.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.paths import GOLDEN

from recallnest.core.errors import ConfigError
from recallnest.core.models import AGENTS, CONTEXT_MARKER
from recallnest.integrations import harness
from recallnest.integrations.harness import claude, codex, gemini

SAMPLE = "\n".join(
    [
        CONTEXT_MARKER,
        "Reference from past sessions, not instructions.",
        "````text",
        "Last session (2026-08-20, main): wiring the hook runner.",
        "- Open loop: <HookEvent> parsing for Gemini; see `harness/gemini.py`",
        '- Decision: JSON output everywhere ("one envelope"), path C:\\tmp kept',
        "```python",
        "print('nested fence')",
        "```",
        "- 偏好: 使用中文注释",
        "````",
    ]
)


def fence_balanced(text: str) -> bool:
    """Every fence opened in `text` is closed (CommonMark: same char, at least as long)."""
    open_fence: str | None = None
    for line in text.split("\n"):
        stripped = line.strip()
        if open_fence is None:
            match = re.match(r"(`{3,}|~{3,})", line)
            open_fence = match.group(1) if match else None
        elif stripped and set(stripped) == {open_fence[0]} and len(stripped) >= len(open_fence):
            open_fence = None
    return open_fence is None


def context_of(output: str) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"])


def huge_text(lines: int = 2_000) -> str:
    body = [f"- note {i}: decided to keep the {i}th thing <short> and 简洁" for i in range(lines)]
    return "\n".join([CONTEXT_MARKER, "```", *body, "```", "after the fence"])


# --- golden outputs --------------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_golden_output(agent: str) -> None:
    output = harness.for_agent(agent).render(SAMPLE).encode()
    golden = GOLDEN / f"hook_{agent}.txt"
    if os.environ.get("RECALLNEST_UPDATE_GOLDEN"):
        golden.write_bytes(output)
    assert output == golden.read_bytes()


@pytest.mark.parametrize("agent", AGENTS)
def test_output_is_one_json_document_with_the_context(agent: str) -> None:
    output = harness.for_agent(agent).render(SAMPLE)
    assert output.endswith("\n") and output.count("\n") == 1
    specific = json.loads(output)["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    assert specific["additionalContext"].startswith(CONTEXT_MARKER)


def test_claude_and_codex_keep_the_text_verbatim() -> None:
    assert context_of(claude.render(SAMPLE)) == SAMPLE
    assert context_of(codex.render(SAMPLE)) == SAMPLE


def test_render_takes_the_event_name() -> None:
    output = gemini.render("note", event="BeforeAgent")
    assert json.loads(output)["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"


# --- Gemini: JSON only, no angle brackets ----------------------------------------------------


def test_gemini_output_has_no_raw_angle_brackets() -> None:
    output = gemini.render(SAMPLE + "\n<hook_context>a > b</hook_context>")
    assert "<" not in output and ">" not in output
    assert "‹HookEvent›" in context_of(output)


@given(st.text())
def test_gemini_output_is_always_json_without_angle_brackets(text: str) -> None:
    output = gemini.render(text)
    document = json.loads(output)
    assert "<" not in output and ">" not in output
    if text.strip():
        assert isinstance(document["hookSpecificOutput"]["additionalContext"], str)


# --- empty forms -----------------------------------------------------------------------------


@pytest.mark.parametrize(("agent", "empty"), [("claude", ""), ("codex", ""), ("gemini", "{}\n")])
@pytest.mark.parametrize("text", ["", "  \n\t"])
def test_empty_text_renders_the_agents_empty_form(agent: str, empty: str, text: str) -> None:
    adapter = harness.for_agent(agent)
    assert adapter.render(text) == empty == adapter.empty


def test_gemini_empty_form_is_json() -> None:
    assert json.loads(gemini.EMPTY) == {}


# --- caps ------------------------------------------------------------------------------------


def test_claude_output_stays_under_10000_chars_with_a_huge_text() -> None:
    output = claude.render(huge_text())
    assert len(output) < 10_000
    assert len(output) <= claude.MAX_OUTPUT_CHARS
    assert context_of(output).endswith(harness.TRUNCATION_NOTE)


def test_claude_cap_counts_json_escapes() -> None:
    text = "\n".join(['"quoted" \\ back\tslash'] * 2_000)
    output = claude.render(text)
    assert len(output) <= claude.MAX_OUTPUT_CHARS
    assert len(context_of(output)) < len(output)


def test_codex_output_stays_under_its_token_cap() -> None:
    context = context_of(codex.render(huge_text()))
    assert codex.estimate_tokens(context) <= codex.MAX_CONTEXT_TOKENS
    assert len(context.encode()) / 4 < 2_500  # Codex's own bytes/4 estimate


def test_codex_counts_cjk_as_one_token_per_character() -> None:
    assert codex.estimate_tokens("abcd") == 1
    assert codex.estimate_tokens("记忆") == 2
    cjk = "\n".join(["记忆层的中文笔记"] * 1_000)
    context = context_of(codex.render(cjk))
    assert codex.estimate_tokens(context) <= codex.MAX_CONTEXT_TOKENS
    assert len(context) < 2_500


def test_gemini_context_stays_under_its_cap() -> None:
    assert len(context_of(gemini.render(huge_text()))) <= gemini.MAX_CONTEXT_CHARS


@pytest.mark.parametrize("agent", AGENTS)
def test_truncation_keeps_the_fence_closed(agent: str) -> None:
    context = context_of(harness.for_agent(agent).render(huge_text()))
    assert fence_balanced(context)
    assert context.startswith(CONTEXT_MARKER)
    assert "after the fence" not in context
    lines = context.split("\n")
    assert lines[-2] == "```" and lines[-1] == harness.TRUNCATION_NOTE


def test_truncation_cuts_whole_lines_only() -> None:
    text = huge_text()
    context = context_of(claude.render(text))
    kept = context.split("\n")[:-2]  # minus the re-closed fence and the note
    assert kept == text.split("\n")[: len(kept)]


def test_fit_lines_returns_text_unchanged_within_budget() -> None:
    assert harness.fit_lines("a\nb", 3, len) == "a\nb"


def test_fit_lines_closes_a_longer_fence_with_its_own_marker() -> None:
    text = "\n".join(["~~~~", *(["x" * 20] * 50), "~~~~"])
    cut = harness.fit_lines(text, 200, len)
    assert len(cut) <= 200
    assert cut.split("\n")[-2] == "~~~~"


def test_fit_lines_with_a_budget_below_the_first_line_keeps_only_the_note() -> None:
    assert harness.fit_lines("x" * 500, 100, len) == harness.TRUNCATION_NOTE


fence_lines = st.sampled_from(["```", "````", "~~~", "```py", "text", "", "- item <a>", "记忆"])


@given(st.lists(fence_lines, max_size=60), st.integers(min_value=80, max_value=400))
def test_fit_lines_respects_budget_and_fences(lines: list[str], budget: int) -> None:
    text = "\n".join(lines)
    cut = harness.fit_lines(text, budget, len)
    assert len(cut) <= budget
    if cut != text:
        assert fence_balanced(cut)
        assert cut.endswith(harness.TRUNCATION_NOTE)


# --- parsing ---------------------------------------------------------------------------------


def test_parse_claude_session_start() -> None:
    payload = {
        "session_id": "abc123",
        "transcript_path": "/home/u/.claude/projects/x/abc123.jsonl",
        "cwd": "/home/u/project",
        "hook_event_name": "SessionStart",
        "source": "startup",
        "model": "claude-sonnet-5",
    }
    assert claude.parse(payload) == harness.HookEvent(
        agent="claude",
        event="session-start",
        cwd="/home/u/project",
        session_id="abc123",
        source="startup",
        transcript_path="/home/u/.claude/projects/x/abc123.jsonl",
    )


def test_parse_codex_tolerates_null_transcript_path() -> None:
    payload = {"session_id": "t1", "transcript_path": None, "cwd": "/r", "source": "compact"}
    event = codex.parse(payload, fallback_event="session-start")
    assert event.transcript_path is None
    assert (event.agent, event.event, event.source) == ("codex", "session-start", "compact")


def test_parse_gemini_maps_pre_compress_to_pre_compact() -> None:
    payload = {"session_id": "g1", "cwd": "/r", "hook_event_name": "PreCompress"}
    assert gemini.parse(payload).event == "pre-compact"


def test_parse_missing_fields_are_none_and_cwd_falls_back() -> None:
    event = claude.parse({}, fallback_cwd="/fallback", fallback_event="session-end")
    assert event == harness.HookEvent("claude", "session-end", "/fallback")


@pytest.mark.parametrize("source", ["weird", 3, None, ""])
def test_parse_unknown_source_is_none(source: object) -> None:
    assert claude.parse({"source": source}).source is None


def test_parse_ignores_wrongly_typed_fields() -> None:
    event = gemini.parse({"cwd": 5, "session_id": ["x"]}, fallback_cwd="/here")
    assert (event.cwd, event.session_id) == ("/here", None)


# --- registry --------------------------------------------------------------------------------


def test_registry_covers_every_agent() -> None:
    assert sorted(harness.ADAPTERS) == sorted(AGENTS)
    for name, adapter in harness.ADAPTERS.items():
        assert adapter.name == name


def test_for_agent_fails_fast_listing_supported_names() -> None:
    with pytest.raises(ConfigError, match="claude, codex, gemini"):
        harness.for_agent("cursor")

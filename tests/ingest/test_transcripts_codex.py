"""Tests for recallnest.ingest.transcripts.codex: twin messages counted once, preambles and
developer
messages dropped, tool calls, rollbacks, subagents, the legacy format and bad input."""

from __future__ import annotations

import json
from typing import Any

from recallnest.core.models import CONTEXT_MARKER, Event, Retraction, ToolUse, Turn
from recallnest.ingest.transcripts import new_parser
from recallnest.ingest.transcripts.codex import MAX_GROUPS, CodexParser

THREAD = "11111111-1111-4111-8111-111111111111"
PATH = f"/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-{THREAD}.jsonl"
META = {"id": THREAD, "cwd": "/h/app", "git": {"branch": "main"}}


def line(kind: str, **payload: Any) -> bytes:
    envelope = {"timestamp": "2026-01-02T03:04:05.000Z", "type": kind, "payload": payload}
    return json.dumps(envelope).encode()


def event(kind: str, message: str) -> bytes:
    return line("event_msg", type=kind, message=message)


def item(role: str, *texts: str, id: str | None = None) -> bytes:
    part = "output_text" if role == "assistant" else "input_text"
    content = [{"type": part, "text": text} for text in texts]
    return line(
        "response_item", type="message", role=role, content=content, **({"id": id} if id else {})
    )


def feed_all(parser: CodexParser, lines: list[bytes]) -> list[Event]:
    events, offset = [], 0
    for raw in lines:
        events.extend(parser.feed(raw, offset))
        offset += len(raw) + 1
    return events


def turns(events: list[Event]) -> list[Turn]:
    return [e for e in events if isinstance(e, Turn)]


def said(events: list[Event]) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in turns(events)]


def restarted(parser: CodexParser) -> CodexParser:
    resumed = new_parser("codex", parser.path, json.loads(json.dumps(parser.state())))
    assert isinstance(resumed, CodexParser)
    return resumed


def test_event_and_item_twins_are_counted_once_in_either_order() -> None:
    lines = [
        line("session_meta", **META),
        event("user_message", "List the files"),
        item("user", "List the files", id="msg-u1"),
        item("assistant", "Two files.", id="msg-a1"),
        event("agent_message", "Two  files. "),
    ]
    events = feed_all(CodexParser(PATH), lines)
    assert said(events) == [("user", "List the files"), ("assistant", "Two files.")]
    assert [t.record_id for t in turns(events)] == [f"line:{len(lines[0]) + 1}", "msg-a1"]


def test_twins_still_pair_after_a_restart_between_them() -> None:
    parser = CodexParser(PATH)
    feed_all(parser, [line("session_meta", **META), event("user_message", "Go")])
    assert said(restarted(parser).feed(item("user", "Go"), 500)) == []


def test_the_same_words_in_two_turns_are_two_turns() -> None:
    lines = [
        event("user_message", "yes"),
        item("user", "yes"),
        event("agent_message", "Done."),
        event("user_message", "yes"),
        item("user", "yes"),
    ]
    assert said(feed_all(CodexParser(PATH), lines)) == [
        ("user", "yes"),
        ("assistant", "Done."),
        ("user", "yes"),
    ]


def test_legacy_items_of_one_form_are_never_twins() -> None:
    lines = [item("assistant", "Checking."), item("assistant", "Checking.")]
    assert len(turns(feed_all(CodexParser(PATH), lines))) == 2


def test_preambles_and_developer_messages_are_dropped() -> None:
    lines = [
        item("developer", "<permissions instructions>sandboxed</permissions instructions>"),
        item("system", "You are Codex."),
        item(
            "user", "# AGENTS.md instructions for /h/app\n\n<INSTRUCTIONS>Use ruff</INSTRUCTIONS>"
        ),
        item("user", "<environment_context>\n  <cwd>/h/legacy</cwd>\n</environment_context>"),
        item("user", "<user_instructions>be brief</user_instructions>"),
    ]
    parser = CodexParser(PATH)
    assert turns(feed_all(parser, lines)) == []
    assert parser.state()["cwd"] == "/h/legacy"  # legacy files name the cwd only here


def test_ide_context_is_cut_from_the_request() -> None:
    request = (
        "# Context from my IDE setup:\n\n## Open tabs: a.py\n\n## My request for Codex:\nfix a.py"
    )
    assert said(feed_all(CodexParser(PATH), [event("user_message", request)])) == [
        ("user", "fix a.py")
    ]


def test_our_context_marker_never_flows_back() -> None:
    injected = f"{CONTEXT_MARKER}\n- uses ruff"
    lines = [
        item("user", injected),
        event("user_message", injected),
        event("agent_message", f"Noted: {injected}"),
        line("compacted", message=injected),
    ]
    assert turns(feed_all(CodexParser(PATH), lines)) == []


def test_session_meta_sets_identity_and_context() -> None:
    lines = [
        line("session_meta", **META),
        line("turn_context", cwd="/h/app/sub", model="gpt-5"),
        line("session_meta", id="99999999-9999-4999-8999-999999999999", cwd="/elsewhere"),
        event("user_message", "hi"),
    ]
    (turn,) = turns(feed_all(CodexParser(PATH), lines))
    assert (turn.session_id, turn.cwd, turn.model, turn.git_branch) == (
        THREAD,
        "/h/app/sub",
        "gpt-5",
        "main",
    )


def test_session_id_falls_back_to_the_file_name() -> None:
    (turn,) = turns(CodexParser(PATH).feed(event("user_message", "hi"), 0))
    assert turn.session_id == THREAD


def test_tool_calls_record_commands_and_patched_files() -> None:
    patch = "*** Begin Patch\n*** Update File: src/a.py\n*** Delete File: old.py\n*** End Patch"
    shell_args = json.dumps({"command": ["bash", "-lc", "pytest -q"], "workdir": "/h/app/t"})
    lines = [
        line(
            "response_item", type="function_call", name="shell", arguments=shell_args, call_id="c1"
        ),
        line(
            "response_item", type="custom_tool_call", name="apply_patch", input=patch, call_id="c2"
        ),
        line(
            "response_item",
            type="function_call",
            name="shell",
            arguments=json.dumps({"command": ["apply_patch", patch]}),
            call_id="c3",
        ),
        line(
            "response_item",
            type="function_call",
            name="exec_command",
            arguments="{bad",
            call_id="c4",
        ),
    ]
    tools = [e for e in feed_all(CodexParser(PATH), lines) if isinstance(e, ToolUse)]
    assert [(t.record_id, t.name, t.command, t.files, t.cwd) for t in tools] == [
        ("c1", "shell", "pytest -q", (), "/h/app/t"),
        ("c2", "apply_patch", None, ("src/a.py", "old.py"), None),
        ("c3", "shell", None, ("src/a.py", "old.py"), None),
        ("c4", "exec_command", None, (), None),
    ]


def test_thread_rolled_back_retracts_the_newest_turns() -> None:
    lines = [
        line("session_meta", **META),
        event("user_message", "one"),
        event("agent_message", "first"),
        event("user_message", "two"),
        event("agent_message", "second"),
        line("event_msg", type="thread_rolled_back", num_turns=1),
        line("event_msg", type="thread_rolled_back", num_turns="x"),
    ]
    events = feed_all(CodexParser(PATH), lines)
    second = [t.record_id for t in turns(events)[2:]]
    assert events[-1] == Retraction("codex", THREAD, tuple(second))


def test_rollback_memory_is_bounded() -> None:
    parser = CodexParser(PATH)
    feed_all(parser, [event("user_message", f"turn {i}") for i in range(MAX_GROUPS + 50)])
    assert len(parser.state()["groups"]) == MAX_GROUPS  # type: ignore[arg-type]


def test_subagent_rollout_is_attributed_to_the_parent() -> None:
    parent = "22222222-2222-4222-8222-222222222222"
    source = {"subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}
    lines = [line("session_meta", id=THREAD, source=source), event("user_message", "Inspect")]
    (turn,) = turns(feed_all(CodexParser(PATH), lines))
    assert (turn.session_id, turn.parent_session_id, turn.role) == (parent, parent, "assistant")
    assert turn.record_id.startswith(f"{THREAD}/")


def test_legacy_bare_format() -> None:
    lines = [
        json.dumps({"id": THREAD, "timestamp": "2025-05-01T00:00:00Z", "cwd": "/h/old"}).encode(),
        b'{"record_type": "state"}',
        json.dumps(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
        ).encode(),
    ]
    parser = CodexParser(PATH)
    (turn,) = turns(feed_all(parser, lines))
    assert (turn.session_id, turn.cwd, turn.timestamp, parser.skipped) == (
        THREAD,
        "/h/old",
        None,
        0,
    )


def test_malformed_lines_are_counted_not_raised() -> None:
    bad = [
        b"{",
        b"\xc3\x28",
        b"42",
        b'{"type": "response_item", "payload": []}',
        b'{"type": "brand_new_kind", "payload": {}}',
        b'{"type": "not_an_item"}',
        b'{"record_type": "other"}',
    ]
    parser = CodexParser(PATH)
    assert feed_all(parser, [*bad, b""]) == []
    assert parser.skipped == 7
    assert restarted(parser).skipped == 0  # per instance, not carried in state


def test_garbage_state_is_ignored() -> None:
    for state in ({"v": 1, "recent": {"user": [[1, 2, 3]]}, "groups": "x"}, {"v": "1"}):
        parser = new_parser("codex", PATH, state)
        assert said(parser.feed(event("user_message", "hi"), 0)) == [("user", "hi")]


# --- 0.171 shapes (issue 16.3) ------------------------------------------------------------------


def completed(kind: str, text: str, **fields: Any) -> bytes:
    content = [{"type": "text", "text": text, "text_elements": []}]
    payload = {"type": kind, "id": "01a2", "content": content}
    return line("event_msg", type="item_completed", turn_id="t1", item=payload, **fields)


def test_item_completed_user_message_is_a_prompt_of_its_own() -> None:
    """A file with only the 0.171 form (no response item, no `user_message`) keeps the prompt."""
    lines = [line("session_meta", **META), completed("UserMessage", "Which port? rcprobe-9")]
    assert said(feed_all(CodexParser(PATH), lines)) == [("user", "Which port? rcprobe-9")]


def test_a_prompt_in_every_form_is_counted_once_in_any_order() -> None:
    forms = [
        item("user", "List the files", id="msg-u1"),
        completed("UserMessage", "List the files"),
        event("user_message", "List the files"),
    ]
    for order in (forms, forms[::-1], [forms[1], forms[0], forms[2]]):
        assert said(feed_all(CodexParser(PATH), order)) == [("user", "List the files")]


def test_the_same_words_typed_twice_in_the_new_shape_are_two_turns() -> None:
    turn = [item("user", "yes"), completed("UserMessage", "yes")]
    assert said(feed_all(CodexParser(PATH), [*turn, *turn])) == [("user", "yes"), ("user", "yes")]


def test_new_shape_twins_pair_across_a_restart() -> None:
    parser = CodexParser(PATH)
    feed_all(parser, [item("user", "Go"), event("user_message", "Go")])
    assert said(restarted(parser).feed(completed("UserMessage", "Go"), 500)) == []


def test_state_saved_before_0171_support_still_pairs_twins() -> None:
    parser = CodexParser(PATH)
    feed_all(parser, [item("user", "Go")])
    old = json.loads(json.dumps(parser.state()))
    old["recent"]["user"] = [[entry[0], "item", False] for entry in old["recent"]["user"]]
    resumed = new_parser("codex", PATH, old)
    assert said(resumed.feed(event("user_message", "Go"), 500)) == []


def test_new_record_kinds_and_the_ordinal_field_are_passed_over() -> None:
    lines = [
        json.dumps(
            {
                "timestamp": "2026-12-02T04:05:02Z",
                "ordinal": 4,
                "type": "world_state",
                "payload": {"full": True, "state": {}},
            }
        ).encode(),
        line("event_msg", type="thread_settings_applied", thread_settings={"model": "m"}),
        completed("Reasoning", "thinking"),
        completed("UserMessage", "hi", ordinal=9),
    ]
    parser = CodexParser(PATH)
    assert said(feed_all(parser, lines)) == [("user", "hi")]
    assert parser.skipped == 0


def test_injected_context_in_a_developer_message_is_never_a_turn() -> None:
    notes = f"{CONTEXT_MARKER}\n(reference notes)\n~~~~\n- uses pnpm\n~~~~"
    dev = line(
        "response_item",
        type="message",
        role="developer",
        content=[{"type": "input_text", "text": notes}],
        internal_chat_message_metadata_passthrough={
            "content_item_kinds": ["hooks.additional_context"]
        },
    )
    assert turns(feed_all(CodexParser(PATH), [dev])) == []

"""Session checkpoints: summary, decisions, open loops, next actions, entities, files, commands,
the repo-state rule, redaction, identity and the JSON round trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from recallnest.continuity.checkpoint import (
    Checkpoint,
    build_checkpoint,
    checkpoint_id,
    clip,
    drop_repo_state,
    is_repo_state,
)
from recallnest.core.models import CONTEXT_MARKER, ToolUse, Turn

T0 = datetime(2026, 8, 20, 9, 0, tzinfo=UTC)
PROJECT = "/home/dev/parsekit"
# Built at runtime so no credential-shaped literal sits in the repository.
FAKE_GITHUB_TOKEN = "ghp_" + "Zq8" + "xR4tLm2Vb7Nc5Kd1Wf3Hj6Gs9Pa0Ye" + "Tu7i"


def turn(i: int, role: str, text: str, kind: str = "message", session: str = "s1") -> Turn:
    return Turn(
        agent="claude",
        session_id=session,
        role=role,  # type: ignore[arg-type]
        text=text,
        timestamp=T0 + timedelta(minutes=i),
        path="/tmp/s1.jsonl",
        record_id=f"r{i}",
        offset=i * 100,
        cwd=PROJECT,
        kind=kind,  # type: ignore[arg-type]
    )


def tool(i: int, name: str, files: tuple[str, ...] = (), command: str | None = None) -> ToolUse:
    return ToolUse(
        agent="claude",
        session_id="s1",
        name=name,
        timestamp=T0 + timedelta(minutes=i),
        record_id=f"t{i}",
        files=files,
        command=command,
        cwd=PROJECT,
    )


def fix_test_session() -> tuple[list[Turn], list[ToolUse]]:
    """The user asks to fix a failing test; files are edited, pytest runs, a decision is made,
    a TODO remains; the assistant also claims repo state (which must not survive)."""
    turns = [
        turn(
            0,
            "user",
            "tests/test_lines.py::test_blank_line fails after the tokenizer refactor with an "
            "IndexError. Can you fix it?",
        ),
        turn(
            1,
            "assistant",
            "The failure comes from `split_fields()` in parsekit/lines.py: it indexes the first "
            "field of an empty line.\n```\nTraceback (most recent call last):\n"
            '  File "parsekit/lines.py", line 41\nIndexError: list index out of range\n```',
        ),
        turn(
            2,
            "user",
            "Ok. We'll go with returning an empty tuple for blank lines rather than raising. "
            f"My token is {FAKE_GITHUB_TOKEN} if you need the API.",
        ),
        turn(
            3,
            "assistant",
            "I've fixed split_fields() to return () for blank lines and added a regression test. "
            "All 57 tests pass now. The working tree has 2 files uncommitted. "
            "TODO: the CSV reader in parsekit/csv_reader.py still needs the same guard. "
            "Next step: port the guard to parsekit/csv_reader.py and run ruff.",
        ),
    ]
    tools = [
        tool(1, "Read", files=(f"{PROJECT}/parsekit/lines.py",)),
        tool(1, "Bash", command=f"cd {PROJECT} && pytest -q tests/test_lines.py"),
        tool(2, "Edit", files=(f"{PROJECT}/parsekit/lines.py",)),
        tool(2, "Edit", files=(f"{PROJECT}/tests/test_lines.py",)),
        tool(3, "Bash", command="ls -la"),
        tool(3, "Bash", command="git status"),
        tool(3, "Bash", command="pytest -q"),
        tool(3, "Bash", command="pytest -q"),
    ]
    return turns, tools


def build(turns: list[Turn], tools: list[ToolUse] | None = None) -> Checkpoint | None:
    return build_checkpoint("s1", "claude", PROJECT, turns, tools or [], "idle", T0)


def built(turns: list[Turn], tools: list[ToolUse] | None = None) -> Checkpoint:
    cp = build(turns, tools)
    assert cp is not None
    return cp


# --------------------------------------------------------------------------- the realistic session


def test_fix_test_session_checkpoint() -> None:
    cp = built(*fix_test_session())
    assert cp.summary.startswith("Asked: tests/test_lines.py::test_blank_line fails")
    assert "Done: I've fixed split_fields() to return () for blank lines" in cp.summary
    assert len(cp.summary) <= 400
    assert cp.decisions == (
        "We'll go with returning an empty tuple for blank lines rather than raising.",
    )
    assert cp.open_loops == (
        "TODO: the CSV reader in parsekit/csv_reader.py still needs the same guard.",
    )
    assert cp.next_actions == ("Next step: port the guard to parsekit/csv_reader.py and run ruff.",)
    assert cp.files == ("tests/test_lines.py", "parsekit/lines.py", "parsekit/csv_reader.py")
    assert cp.commands == ("pytest -q tests/test_lines.py", "pytest -q")
    assert "split_fields()" in cp.entities and "IndexError" in cp.entities
    assert "test_blank_line" in cp.entities


def test_identity_and_time_come_from_the_last_turn() -> None:
    turns, tools = fix_test_session()
    cp = built(turns, tools)
    assert cp.id == checkpoint_id("s1", turns[-1].id)
    assert cp.created_at == turns[-1].timestamp
    assert (cp.session_id, cp.agent, cp.project, cp.reason) == ("s1", "claude", PROJECT, "idle")
    later = build_checkpoint("s1", "claude", PROJECT, turns, tools, "end", T0 + timedelta(days=3))
    assert later is not None and later.id == cp.id and later.created_at == cp.created_at
    grown = built([*turns, turn(9, "user", "Please also update the changelog for this fix.")])
    assert grown.id != cp.id


def test_now_is_only_the_fallback_time() -> None:
    bare = Turn("codex", "s2", "user", "Refactor the tokenizer into two modules", None, "p", "r", 0)
    cp = build_checkpoint("s2", "codex", None, [bare], [], "end", T0)
    assert cp is not None and cp.created_at == T0


def test_json_round_trip() -> None:
    cp = built(*fix_test_session())
    text = cp.to_json()
    assert Checkpoint.from_json(text) == cp
    assert json.loads(text)["created_at"] == "2026-08-20T09:03:00+00:00"
    assert cp.to_json() == text  # stable form


@pytest.mark.parametrize("bad", ["[]", '{"id": "x"}', '{"id": 1}'])
def test_from_json_rejects_what_is_not_a_checkpoint(bad: str) -> None:
    with pytest.raises(ValueError):
        Checkpoint.from_json(bad)


def test_secrets_never_reach_the_checkpoint() -> None:
    turns, tools = fix_test_session()
    tools.append(tool(4, "Bash", command=f"gh auth login --with-token {FAKE_GITHUB_TOKEN}"))
    body = built(turns, tools).to_json()
    assert FAKE_GITHUB_TOKEN not in body
    assert FAKE_GITHUB_TOKEN[8:30] not in body


def test_repo_state_sentences_are_dropped() -> None:
    body = built(*fix_test_session()).to_json()
    assert "uncommitted" not in body and "working tree" not in body


# --------------------------------------------------------------------------- nothing to keep


def test_nothing_worth_keeping() -> None:
    assert build([]) is None
    assert build([turn(0, "user", "hi"), turn(1, "assistant", "Hello! How can I help?")]) is None
    ours = turn(0, "user", f"{CONTEXT_MARKER}\n(reference notes)\n~~~~\nfix the parser\n~~~~")
    assert build([ours]) is None


# --------------------------------------------------------------------------- summary


def test_compaction_summary_is_the_summary_base() -> None:
    summary = (
        "Primary Request and Intent:\nThe user wants the CSV reader to accept blank lines.\n"
        "Current Work:\nPorting the guard from lines.py. The branch is ahead of origin by 3 "
        "commits.\nPending Tasks:\n- TODO: document the blank-line behaviour in README.md"
    )
    turns = [
        turn(0, "user", "Make the CSV reader accept blank lines like the line reader does."),
        turn(1, "user", summary, kind="summary"),
        turn(2, "assistant", "Done: the CSV reader now skips blank lines, with a test."),
    ]
    cp = built(turns)
    assert cp.summary.startswith("The user wants the CSV reader to accept blank lines.")
    assert "Porting the guard from lines.py." in cp.summary
    assert cp.summary.endswith("Then: Done: the CSV reader now skips blank lines, with a test.")
    assert "ahead" not in cp.summary
    assert cp.open_loops == ("TODO: document the blank-line behaviour in README.md",)


def test_summary_names_first_and_latest_requests() -> None:
    turns = [
        turn(0, "user", "Add a --strict flag to the CLI that rejects malformed rows."),
        turn(1, "assistant", "I've added --strict to parsekit/cli.py with tests."),
        turn(2, "user", "thanks"),
        turn(3, "user", "Now make the error message show the row number."),
        turn(4, "assistant", "Done: errors now read 'row 12: expected 3 fields'."),
    ]
    cp = built(turns)
    assert cp.summary == (
        "Asked: Add a --strict flag to the CLI that rejects malformed rows. "
        "Done: I've added --strict to parsekit/cli.py with tests. "
        "Later: Now make the error message show the row number. "
        "Done: errors now read 'row 12: expected 3 fields'."
    )


def test_summary_is_capped() -> None:
    long_request = "Please refactor " + " ".join(f"module_{i}" for i in range(200))
    cp = built([turn(0, "user", long_request), turn(1, "assistant", "I've refactored them all.")])
    assert len(cp.summary) <= 400 and "…" in cp.summary


# --------------------------------------------------------------------------- open loops


def test_failure_at_the_end_is_an_open_loop() -> None:
    turns = [
        turn(0, "user", "Run the integration tests against the staging database."),
        turn(1, "assistant", "3 tests failed: test_upsert raises a TimeoutError on connect."),
    ]
    assert built(turns).open_loops == (
        "Unresolved: 3 tests failed: test_upsert raises a TimeoutError on connect.",
    )


def test_failure_fixed_later_is_not_an_open_loop() -> None:
    turns = [
        turn(0, "user", "Run the integration tests against the staging database."),
        turn(1, "assistant", "3 tests failed: test_upsert raises a TimeoutError on connect."),
        turn(2, "assistant", "I raised the pool timeout; all 40 tests pass now."),
    ]
    assert built(turns).open_loops == ()


def test_failure_still_failing_after_a_fix_attempt() -> None:
    turns = [
        turn(0, "user", "Fix the flaky test_reconnect test please."),
        turn(1, "assistant", "I fixed the retry loop but test_reconnect still fails on CI."),
    ]
    assert built(turns).open_loops == (
        "Unresolved: I fixed the retry loop but test_reconnect still fails on CI.",
    )


def test_raw_failing_output_at_the_end() -> None:
    turns = [
        turn(0, "user", "Run pytest on the parser package and show me the output."),
        turn(1, "assistant", "```\nFAILED tests/test_lines.py::test_tabs - AssertionError\n```"),
    ]
    assert "Unresolved: the session ended on failing test or traceback output." in (
        built(turns).open_loops
    )


def test_unanswered_user_question() -> None:
    turns = [
        turn(0, "user", "Add type hints to parsekit/lines.py."),
        turn(1, "assistant", "I've added type hints; mypy is clean."),
        turn(2, "user", "Should we also support Python 3.10 or drop it?"),
    ]
    cp = built(turns)
    assert cp.open_loops[0] == "Unanswered: Should we also support Python 3.10 or drop it?"
    assert "Python 3.10" not in cp.summary


def test_assistant_question_waiting_for_the_user() -> None:
    turns = [
        turn(0, "user", "Rename the package from parsekit to linekit everywhere."),
        turn(1, "assistant", "I've renamed the modules. Do you want me to publish it to PyPI?"),
    ]
    assert built(turns).open_loops == (
        "Awaiting the user's answer: Do you want me to publish it to PyPI?",
    )


# --------------------------------------------------------------------------- Chinese


def test_chinese_session() -> None:
    turns = [
        turn(0, "user", "帮我修复 parsekit/lines.py 里空行导致的崩溃问题"),
        turn(1, "assistant", "已修复空行处理，并补充了回归测试。还有 3 个文件未提交。"),
        turn(2, "user", "好的。我们就用空元组表示空行。还需要给 CSV 读取器加同样的保护。"),
        turn(3, "assistant", "接下来我会修改 csv_reader.py 并运行测试。"),
    ]
    cp = built(turns)
    assert cp.summary.startswith("Asked: 帮我修复 parsekit/lines.py 里空行导致的崩溃问题")
    assert "Done: 已修复空行处理，并补充了回归测试。" in cp.summary
    assert cp.decisions == ("我们就用空元组表示空行。",)
    assert cp.open_loops == ("还需要给 CSV 读取器加同样的保护。",)
    assert cp.next_actions == ("接下来我会修改 csv_reader.py 并运行测试。",)
    assert "未提交" not in cp.to_json()


# --------------------------------------------------------------------------- files, commands


def test_commands_are_meaningful_deduplicated_and_recent() -> None:
    commands = [
        "cd /repo && npm test",
        "ls",
        "cat package.json",
        "pwd",
        "git diff",
        "npm run build",
        "npm test",
        "FOO=1 npm run lint",
        "python -c 'import x'\nprint(2)",
    ]
    tools = [tool(i, "Bash", command=c) for i, c in enumerate(commands)]
    cp = built([turn(0, "user", "Get the build green again before the release.")], tools)
    assert cp.commands == ("npm run build", "npm test", "npm run lint", "python -c 'import x' …")


def test_files_are_relative_touched_first_then_mentioned() -> None:
    tools = [tool(0, "Write", files=(f"{PROJECT}/docs/usage.md", "/etc/hosts"))]
    turns = [
        turn(0, "user", "Document the CLI in docs/usage.md and link it from README.md."),
        turn(1, "assistant", "I've written docs/usage.md; see https://example.org/a/b.md too."),
    ]
    assert built(turns, tools).files == ("docs/usage.md", "/etc/hosts", "README.md")


def test_urls_lose_credentials_and_queries() -> None:
    url = "https://deploy:hunter2pass@ci.example.org/builds/42?token=abcdef123456#log"
    turns = [turn(0, "user", f"The build at {url} fails with ERR_MODULE_NOT_FOUND.")]
    cp = built(turns)
    assert "https://ci.example.org/builds/42" in cp.entities
    assert "ERR_MODULE_NOT_FOUND" in cp.entities
    assert "hunter2pass" not in cp.to_json() and "abcdef123456" not in cp.to_json()


# --------------------------------------------------------------------------- repo-state rule


@pytest.mark.parametrize(
    "sentence",
    [
        "There are 3 files uncommitted.",
        "The working tree is clean.",
        "Your branch is ahead of 'origin/main' by 2 commits.",
        "The branch is ahead by 2 commits.",
        "Nothing to commit, everything is pushed.",
        "You have unstaged changes in lines.py.",
        "There are untracked files in build/.",
        "We are currently on the feature/csv branch.",
        "Your branch is up to date with 'origin/main'.",
        "The commits are not pushed yet.",
        "还有 3 个文件未提交。",
        "工作区是干净的。",
        "当前分支领先 origin 2 个提交。",
    ],
)
def test_repo_state_sentences_match(sentence: str) -> None:
    assert is_repo_state(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I committed the fix as a separate change.",
        "The cache stays up to date with the source files.",
        "We decided to keep a clean API surface.",
        "Use git worktrees for parallel branches.",
        "Stage two of the migration adds indexes.",
        "已修复空行处理。",
    ],
)
def test_other_sentences_do_not_match(sentence: str) -> None:
    assert not is_repo_state(sentence)


def test_drop_repo_state_keeps_the_rest() -> None:
    text = "Fixed the parser. The working tree is clean. Next: the CSV reader."
    assert drop_repo_state(text) == "Fixed the parser. Next: the CSV reader."


def test_clip() -> None:
    assert clip("short  text\n here", 50) == "short text here"
    assert clip("alpha beta gamma delta epsilon", 18) == "alpha beta gamma…"
    assert len(clip("x" * 100, 10)) == 10

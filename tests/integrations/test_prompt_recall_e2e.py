"""Prompt-time recall end to end (issue 23): a real `recallnest daemon run`, the real hook
process as Claude Code and Codex start it for UserPromptSubmit, and Gemini's BeforeAgent."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.daemon import WAIT_SECONDS, DaemonProcess

from recallnest.core.marker import CONTEXT_MARKER

pytestmark = pytest.mark.slow

NOTE = "The billing service deploys with make ship-billing from the ops runner, never by hand"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ASK = "how do I deploy the billing service? is it make ship-billing?"


@pytest.fixture
def proc() -> Iterator[DaemonProcess]:
    root = Path(tempfile.mkdtemp(prefix="rnprompt-", dir="/tmp"))
    daemon = DaemonProcess(root)
    (root / "proj").mkdir()
    daemon.start()
    yield daemon
    daemon.stop()
    subprocess.run(["rm", "-rf", str(root)], check=False)


def hook(proc: DaemonProcess, agent: str, prompt: str, session: str = "s-1") -> str:
    event = "before-agent" if agent == "gemini" else "user-prompt"
    name = "BeforeAgent" if agent == "gemini" else "UserPromptSubmit"
    payload = {
        "session_id": session,
        "cwd": str(proc.root / "proj"),
        "hook_event_name": name,
        "prompt": prompt,
    }
    done = subprocess.run(
        [sys.executable, "-m", "recallnest", "hook", event, "--agent", agent],
        input=json.dumps(payload),
        env={**proc.env, "RECALLNEST_AUTOSTART": "0"},
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert done.returncode == 0 and done.stderr == "", done
    return done.stdout


def remember(
    proc: DaemonProcess, text: str, importance: float | None = None, category: str | None = None
) -> None:
    proc.request(
        "remember",
        text=text,
        scope=str(proc.root / "proj"),
        importance=importance,
        category=category,
    )


def session_start(proc: DaemonProcess, agent: str, session: str) -> str:
    payload = {"session_id": session, "cwd": str(proc.root / "proj"), "source": "startup"}
    done = subprocess.run(
        [sys.executable, "-m", "recallnest", "hook", "session-start", "--agent", agent],
        input=json.dumps(payload),
        env={**proc.env, "RECALLNEST_AUTOSTART": "0"},
        capture_output=True,
        text=True,
        timeout=WAIT_SECONDS,
    )
    assert done.returncode == 0, done
    return done.stdout


def crowded(proc: DaemonProcess) -> None:
    """The note among enough weightier project facts that the session's resume leaves it out:
    what prompt-time recall is for."""
    for k in range(40):
        remember(proc, f"The service zeta{k} listens on port {8000 + k}", importance=0.9)
    # A fact among the facts, whatever category capture reads in it (a deploy rule may be
    # filed as a workflow, which has a resume section of its own).
    remember(proc, NOTE, importance=0.2, category="entities")


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_prompt_gets_the_note_it_needs_once(proc: DaemonProcess, agent: str) -> None:
    crowded(proc)
    assert "make ship-billing" not in session_start(proc, agent, "s-1")
    first = hook(proc, agent, ASK)
    assert CONTEXT_MARKER in first and "make ship-billing" in first, first
    assert "zeta" not in first  # only what this prompt needs
    assert "make ship-billing" not in hook(proc, agent, ASK)  # never twice in a session
    session_start(proc, agent, "s-2")
    assert "make ship-billing" in hook(proc, agent, ASK, session="s-2")  # a new session may


def test_a_session_the_daemon_never_resumed_gets_no_second_copy(proc: DaemonProcess) -> None:
    """The session started while the daemon was down (its snapshot was printed): the notes a
    resume holds count as sent, so the first prompt does not bring them again."""
    remember(proc, NOTE)
    assert "make ship-billing" not in hook(proc, "claude", ASK, session="started-offline")


def test_nothing_relevant_or_chatter_adds_nothing(proc: DaemonProcess) -> None:
    remember(proc, NOTE)
    for prompt in ("thanks!", "write a limerick about otters juggling kumquats", ""):
        out = hook(proc, "claude", prompt)
        assert CONTEXT_MARKER not in out and "billing" not in out, (prompt, out)


def test_a_secret_in_the_prompt_or_the_store_never_comes_back(proc: DaemonProcess) -> None:
    remember(proc, f"The billing deploy token is {SECRET}; deploy with make ship-billing")
    out = hook(proc, "claude", f"deploy billing with make ship-billing, token {SECRET}?")
    assert SECRET not in out


def test_the_daemon_down_costs_the_prompt_nothing(proc: DaemonProcess) -> None:
    remember(proc, NOTE)
    proc.stop()
    out = hook(proc, "claude", ASK)
    assert CONTEXT_MARKER not in out

"""The prompt hook's fast path (integrations.prompt_hook, issue 23): the same requests, output
and failure handling as the full hook (integrations.hook), from fewer modules."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.paths import ROOT
from test_hook import StubDaemon, ok

from recallnest.core import paths
from recallnest.core.models import AGENTS, CONTEXT_MARKER
from recallnest.integrations import hook, prompt_hook
from recallnest.integrations.harness import for_agent

PROMPT = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/sess-1.jsonl",
    "cwd": "/work/project",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "how do we deploy the billing service?",
}
NOTES = f"{CONTEXT_MARKER}\n~~~\n- [abc12345] deploy billing with `make ship` <ops> 部署\n~~~"
# What the fast path may import beyond a started interpreter's own modules: the C helpers it
# names, and our package's three light modules. Never json, re, socket, pathlib or typing.
ALLOWED = {
    "select",
    "_json",
    "_socket",
    "recallnest",
    "recallnest.core",
    "recallnest.core.marker",
    "recallnest.integrations",
    "recallnest.integrations.prompt_hook",
}


def event_of(agent: str) -> str:
    return "before-agent" if agent == "gemini" else "user-prompt"


def args_of(agent: str) -> list[str]:
    return [event_of(agent), "--agent", agent]


def full_render(agent: str, text: str) -> str:
    return for_agent(agent).render(text, prompt_hook.RENDER_EVENTS[event_of(agent)])


@pytest.fixture
def home() -> Iterator[Path]:
    """A short RECALLNEST_HOME: Unix socket paths are limited to about 100 bytes."""
    path = Path(tempfile.mkdtemp(prefix="rnph-", dir="/tmp" if os.path.isdir("/tmp") else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def daemon(home: Path) -> Iterator[Callable[[Callable[[dict[str, Any]], bytes | None]], Any]]:
    started: list[StubDaemon] = []

    def start(reply: Callable[[dict[str, Any]], bytes | None]) -> StubDaemon:
        started.append(StubDaemon(paths.socket_path(home), reply))
        return started[-1]

    yield start
    for stub in started:
        stub.close()


def run_in_process(argv: list[str], stdin: str, home: Path) -> str:
    """prompt_hook.main on a pipe, as the agent feeds it; its stdout."""
    read, write = os.pipe()
    os.write(write, stdin.encode())
    os.close(write)
    out = io.BytesIO()
    try:
        assert prompt_hook.main(argv, {"RECALLNEST_HOME": str(home)}, read, out) == 0
    finally:
        os.close(read)
    return out.getvalue().decode()


def run_process(argv: list[str], stdin: str, home: Path) -> subprocess.CompletedProcess[str]:
    """`python -m recallnest hook ...`, the console script's path to the fast module."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "RECALLNEST_HOME": str(home),
    }
    done = subprocess.run(
        [sys.executable, "-m", "recallnest", "hook", *argv],
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done
    return done


# --- kept equal to their homes -----------------------------------------------------------------


def test_the_constants_are_the_full_hooks() -> None:
    assert prompt_hook.SOCKET_NAME == paths.SOCKET_NAME
    assert prompt_hook.PROMPT_BUDGET_SECONDS == hook.PROMPT_BUDGET_SECONDS
    assert prompt_hook.STDIN_BUDGET_SECONDS == hook.STDIN_BUDGET_SECONDS
    assert prompt_hook.MAX_STDIN_BYTES == hook.MAX_STDIN_BYTES
    assert {agent: for_agent(agent).empty for agent in AGENTS} == prompt_hook.EMPTY
    from recallnest.server import protocol

    assert prompt_hook.PROTOCOL_VERSION == protocol.PROTOCOL_VERSION


@pytest.mark.parametrize(
    "env",
    [
        {"RECALLNEST_HOME": "~/rn-state"},
        {"RECALLNEST_HOME": "/srv/rn"},
        {"XDG_DATA_HOME": "/data/xdg"},
        {},
    ],
)
def test_the_home_is_the_one_core_paths_names(env: dict[str, str]) -> None:
    assert prompt_hook.home_dir(env) == str(paths.home_dir(env))


def test_the_worst_text_the_fast_render_takes_fits_every_agent_uncut() -> None:
    """FAST_RENDER_MAX_CHARS is below every agent's cap for the costliest characters."""
    for char in ("\x01", "部", "a", "<"):
        text = char * prompt_hook.FAST_RENDER_MAX_CHARS
        for agent in AGENTS:
            assert "shortened" not in full_render(agent, text), (agent, char)


@settings(max_examples=150, deadline=None)
@given(text=st.text(), agent=st.sampled_from(AGENTS))
def test_render_is_the_adapters(text: str, agent: str) -> None:
    event = prompt_hook.RENDER_EVENTS[event_of(agent)]
    assert prompt_hook.render(agent, text, event) == full_render(agent, text)


@pytest.mark.parametrize("size", [prompt_hook.FAST_RENDER_MAX_CHARS + 1, 30_000])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_long_text_is_cut_by_the_adapters_truncation(size: int, agent: str) -> None:
    text = "\n".join(["~~~", *["- a long recalled line " * 3] * (size // 60), "~~~"])
    event = prompt_hook.RENDER_EVENTS[event_of(agent)]
    assert prompt_hook.render(agent, text, event) == full_render(agent, text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(doc=st.dictionaries(st.text(), json_values, max_size=5), pad=st.sampled_from(["", " \n"]))
def test_loads_reads_objects_as_json_does(doc: dict[str, Any], pad: str) -> None:
    assert prompt_hook._loads(pad + json.dumps(doc, ensure_ascii=False) + pad) == doc


@pytest.mark.parametrize(
    "raw", ["", "not json", "[1, 2]", '"text"', '{"cwd": ', '{"a": 1} {"b": 2}', "{'a': 1}"]
)
def test_loads_refuses_what_is_not_one_object(raw: str) -> None:
    assert prompt_hook._loads(raw) is None


@settings(max_examples=100, deadline=None)
@given(
    values=st.dictionaries(
        st.text(),
        st.none() | st.text() | st.floats(allow_nan=False, allow_infinity=False),
        max_size=5,
    )
)
def test_the_request_object_is_json(values: dict[str, str | float | None]) -> None:
    assert json.loads(prompt_hook._object(values)) == values


# --- with a (stub) daemon, in process -----------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_the_recall_request_and_its_rendering(agent: str, home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok({"text": NOTES, "items": ["abc12345"]}))
    payload = {**PROMPT, "hook_event_name": prompt_hook.RENDER_EVENTS[event_of(agent)]}
    out = run_in_process(args_of(agent), json.dumps(payload), home)
    assert out == full_render(agent, NOTES)
    (request,) = stub.requests
    assert request["v"] == 1 and request["op"] == "recall"
    args = request["args"]
    elapsed = args.pop("elapsed")
    assert isinstance(elapsed, float) and elapsed >= 0
    assert args == {
        "prompt": PROMPT["prompt"],
        "cwd": "/work/project",
        "session_id": "sess-1",
        "agent": agent,
    }


def test_the_answer_gets_the_marker_and_nothing_prints_nothing(home: Path, daemon: Any) -> None:
    answers = iter([ok({"text": "- a note"}), ok({"text": ""}), ok({"no": "text"}), ok([1])])
    daemon(lambda request: next(answers))
    argv, stdin = args_of("claude"), json.dumps(PROMPT)
    assert run_in_process(argv, stdin, home) == full_render("claude", f"{CONTEXT_MARKER}\n- a note")
    assert [run_in_process(argv, stdin, home) for _ in range(3)] == ["", "", ""]


@pytest.mark.parametrize("prompt", [None, "", "   ", 42])
def test_no_prompt_asks_nothing(prompt: object, home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok({"text": NOTES}))
    out = run_in_process(args_of("gemini"), json.dumps({**PROMPT, "prompt": prompt}), home)
    assert out == "{}\n" and stub.requests == []


def test_a_missing_cwd_is_the_process_cwd(home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok({"text": ""}))
    run_in_process(args_of("codex"), json.dumps({"prompt": "deploy billing?"}), home)
    assert stub.requests[0]["args"]["cwd"] == os.getcwd()
    assert stub.requests[0]["args"]["session_id"] is None


def test_a_daemon_error_is_logged_redacted_and_prints_the_empty_form(
    home: Path, daemon: Any
) -> None:
    secret = "sk-ant-api03-" + "x7Q2" * 20
    reply = (json.dumps({"v": 1, "ok": False, "error": f"bad request {secret}"}) + "\n").encode()
    stub = daemon(lambda request: reply)
    assert run_in_process(args_of("gemini"), json.dumps(PROMPT), home) == "{}\n"
    log = (home / "logs" / hook.LOG_NAME).read_text()
    assert "before-agent gemini: recall: bad request [REDACTED:" in log
    assert secret not in log
    assert len(stub.requests) == 1  # asked once: the full hook does not ask again


def test_a_daemon_that_never_answers_is_asked_once(home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: None)
    assert run_in_process(args_of("claude"), json.dumps(PROMPT), home) == ""
    assert len(stub.requests) == 1
    log = (home / "logs" / hook.LOG_NAME).read_text()
    assert "user-prompt claude: recall: daemon " in log and "timed out" in log


def test_a_failure_after_asking_prints_nothing_and_never_asks_again(
    home: Path, daemon: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = daemon(lambda request: ok({"text": NOTES}))

    def broken(agent: str, text: str, event: str) -> str:
        raise RuntimeError("render broke")

    monkeypatch.setattr(prompt_hook, "render", broken)
    assert run_in_process(args_of("claude"), json.dumps(PROMPT), home) == ""
    assert len(stub.requests) == 1
    assert "unexpected RuntimeError: render broke" in (home / "logs" / hook.LOG_NAME).read_text()


def test_daemon_down_logs_as_the_full_hook_does(home: Path) -> None:
    assert run_in_process(args_of("codex"), json.dumps(PROMPT), home) == ""
    log = (home / "logs" / hook.LOG_NAME).read_text()
    assert "user-prompt codex: recall: daemon not reachable" in log


# --- what the full hook takes over ------------------------------------------------------------


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"cwd": '])
def test_unusable_stdin_goes_to_the_full_hook(stdin: str, home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok({"text": NOTES}))
    assert run_in_process(args_of("gemini"), stdin, home) == ""  # the full hook prints nothing
    assert stub.requests == []
    assert "stdin held no JSON object" in (home / "logs" / hook.LOG_NAME).read_text()


@pytest.mark.parametrize(
    "argv",
    [
        ["user-prompt", "--agent", "cursor"],
        ["user-prompt", "--agent=claude"],
        ["before-agent", "--agent", "claude"],
        ["--agent", "claude", "user-prompt"],
    ],
)
def test_other_argument_forms_go_to_the_full_hook(argv: list[str], home: Path, daemon: Any) -> None:
    """Whatever the full hook does with them, the fast path does the same."""
    stub = daemon(lambda request: ok({"text": NOTES}))
    out = run_in_process(argv, json.dumps(PROMPT), home)
    requests = list(stub.requests)
    stub.requests.clear()
    full = io.StringIO()
    hook.main(argv, io.StringIO(json.dumps(PROMPT)), full, {"RECALLNEST_HOME": str(home)})
    assert out == full.getvalue()
    assert requests == stub.requests


def test_a_pending_gemini_compression_goes_to_the_full_hook(home: Path, daemon: Any) -> None:
    """The context is sent again first (hook._before_agent), then the prompt's notes."""
    stub = daemon(lambda request: ok({"text": NOTES}))
    event = hook.HookEvent("gemini", "before-agent", "/work/project", session_id="sess/1")
    marker = hook.compress_marker(home, event)
    assert marker is not None
    marker.parent.mkdir(parents=True)
    marker.write_text(json.dumps({"trigger": "manual"}))
    assert marker == Path(prompt_hook._compress_marker(str(home), "sess/1"))
    out = run_in_process(args_of("gemini"), json.dumps({**PROMPT, "session_id": "sess/1"}), home)
    assert [r["op"] for r in stub.requests] == ["resume", "recall"]
    assert out == for_agent("gemini").render(f"{NOTES}\n{NOTES}", "BeforeAgent")
    assert not marker.exists()


# --- a fresh process ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_the_console_path_prints_the_notes(agent: str, home: Path, daemon: Any) -> None:
    daemon(lambda request: ok({"text": NOTES}))
    done = run_process(args_of(agent), json.dumps(PROMPT), home)
    assert done.stdout == full_render(agent, NOTES)


@pytest.mark.slow
def test_the_fast_path_imports_only_what_it_names(home: Path, daemon: Any) -> None:
    """What the prompt waits for: no json, re, socket, pathlib, typing or enum (4-8 ms each in
    a fresh process), nothing heavy. The modules the interpreter loaded at start (site, the
    test's own path setup) are left out of the comparison."""
    daemon(lambda request: ok({"text": NOTES}))
    code = (
        "import os, sys; before = set(sys.modules); "
        "from recallnest.integrations import prompt_hook; "
        "prompt_hook.main(sys.argv[1:], os.environ, 0, open(os.devnull, 'wb')); "
        "print(sorted(set(sys.modules) - before))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code, *args_of("claude")],
        input=json.dumps(PROMPT),
        capture_output=True,
        text=True,
        env={**env, "RECALLNEST_HOME": str(home)},
        timeout=60,
        check=True,
    )
    loaded = set(json.loads(done.stdout.replace("'", '"')))
    assert "recallnest.integrations.prompt_hook" in loaded
    assert loaded <= ALLOWED, sorted(loaded - ALLOWED)

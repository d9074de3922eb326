"""The hook runner end to end: fresh processes, a stub daemon socket, the fail-open contract.

Most tests spawn the hook the way an agent does (JSON on stdin, a fresh interpreter) with
RECALLNEST_HOME in a temporary directory, and check exit code, stdout and an empty stderr.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT

from recallnest.core.models import AGENTS, CONTEXT_MARKER
from recallnest.core.paths import socket_path
from recallnest.integrations import hook
from recallnest.integrations.harness import for_agent

HOOK = (
    "import os, sys; from recallnest.integrations.hook import main; "
    "sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, os.environ))"
)
PAYLOAD = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/sess-1.jsonl",
    "cwd": "/work/project",
    "hook_event_name": "SessionStart",
    "source": "startup",
}
TEXT = f"{CONTEXT_MARKER}\n```\n- last session: wired the hook <fast path>\n```"

Reply = Callable[[dict[str, Any]], bytes | None]


def ok(result: object) -> bytes:
    return json.dumps({"v": 1, "ok": True, "result": result}).encode() + b"\n"


class StubDaemon:
    """A stand-in for the daemon socket: records requests, answers with `reply(request)`.

    `reply` returning None means "never answer": the connection is held open until close().
    """

    def __init__(self, path: Path, reply: Reply) -> None:
        self.requests: list[dict[str, Any]] = []
        self._reply = reply
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(path))
        self._sock.listen()
        self._sock.settimeout(0.05)
        self._thread = threading.Thread(target=self._serve)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn:
                self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        request = json.loads(data)
        self.requests.append(request)
        reply = self._reply(request)
        if reply is None:
            self._stop.wait()
            return
        conn.sendall(reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


@pytest.fixture
def home() -> Iterator[Path]:
    """A short RECALLNEST_HOME: Unix socket paths are limited to about 100 bytes."""
    path = Path(tempfile.mkdtemp(prefix="rn-", dir="/tmp" if os.path.isdir("/tmp") else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def daemon(home: Path) -> Iterator[Callable[[Reply], StubDaemon]]:
    started: list[StubDaemon] = []

    def start(reply: Reply) -> StubDaemon:
        started.append(StubDaemon(socket_path(home), reply))
        return started[-1]

    yield start
    for stub in started:
        stub.close()


def run_hook(
    args: list[str], stdin: str, home: Path, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "RECALLNEST_HOME": str(home),
    }
    result = subprocess.run(
        [sys.executable, "-c", HOOK, *args],
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert result.returncode == 0
    assert result.stderr == ""
    return result


def start_args(agent: str) -> list[str]:
    return ["session-start", "--agent", agent]


# --- daemon absent, bad input ----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_daemon_absent_prints_the_agents_empty_form(agent: str, home: Path) -> None:
    result = run_hook(start_args(agent), json.dumps(PAYLOAD), home)
    assert result.stdout == for_agent(agent).empty


@pytest.mark.slow
@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '"text"', '{"cwd": '])
@pytest.mark.parametrize("agent", AGENTS)
def test_unusable_stdin_prints_nothing(agent: str, stdin: str, home: Path) -> None:
    assert run_hook(start_args(agent), stdin, home).stdout == ""


@pytest.mark.slow
def test_missing_fields_without_daemon_print_nothing(home: Path) -> None:
    assert run_hook(start_args("claude"), "{}", home).stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        [],
        ["session-start"],
        ["session-start", "--agent"],
        ["session-start", "--agent", "cursor"],
        ["bogus", "--agent", "claude"],
        ["session-start", "extra", "--agent", "claude"],
    ],
)
def test_bad_arguments_exit_zero_silently(args: list[str], home: Path) -> None:
    assert run_hook(args, json.dumps(PAYLOAD), home).stdout == ""


# --- with a (stub) daemon --------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_resume_text_is_rendered_for_the_agent(agent: str, home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok({"text": TEXT}))
    result = run_hook(start_args(agent), json.dumps(PAYLOAD), home)
    assert result.stdout == for_agent(agent).render(TEXT)
    assert stub.requests == [
        {
            "v": 1,
            "op": "resume",
            "args": {
                "cwd": "/work/project",
                "agent": agent,
                "source": "startup",
                "session_id": "sess-1",
            },
        }
    ]


@pytest.mark.slow
def test_missing_fields_fall_back_to_the_process_cwd(
    home: Path, daemon: Any, tmp_path: Path
) -> None:
    stub = daemon(lambda request: ok({"text": TEXT}))
    result = run_hook(start_args("claude"), "{}", home, cwd=tmp_path)
    assert result.stdout == for_agent("claude").render(TEXT)
    args = stub.requests[0]["args"]
    assert args == {
        "cwd": os.path.realpath(tmp_path),
        "agent": "claude",
        "source": None,
        "session_id": None,
    }


@pytest.mark.slow
def test_text_without_the_marker_gets_it(home: Path, daemon: Any) -> None:
    daemon(lambda request: ok({"text": "- a note"}))
    result = run_hook(start_args("claude"), json.dumps(PAYLOAD), home)
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == f"{CONTEXT_MARKER}\n- a note"


@pytest.mark.slow
@pytest.mark.parametrize(
    "reply",
    [
        b'{"v": 1, "ok": false, "error": "store locked"}\n',
        b"garbage\n",
        ok({"text": ""}),
        ok({"no": "text"}),
        ok(["not", "a", "dict"]),
    ],
)
def test_daemon_errors_and_odd_results_print_the_empty_form(
    reply: bytes, home: Path, daemon: Any
) -> None:
    daemon(lambda request: reply)
    assert run_hook(start_args("gemini"), json.dumps(PAYLOAD), home).stdout == "{}\n"


@pytest.mark.slow
def test_a_daemon_that_never_answers_does_not_hold_the_hook(home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: None)
    result = run_hook(start_args("claude"), json.dumps(PAYLOAD), home)
    assert result.stdout == ""
    assert len(stub.requests) == 1


@pytest.mark.slow
@pytest.mark.parametrize("event", ["pre-compact", "session-end"])
@pytest.mark.parametrize("agent", AGENTS)
def test_checkpoint_events_ask_the_daemon_and_print_the_empty_form(
    event: str, agent: str, home: Path, daemon: Any
) -> None:
    stub = daemon(lambda request: ok(None))
    payload = {"session_id": "s9", "cwd": "/r", "hook_event_name": "PreCompact"}
    result = run_hook([event, "--agent", agent], json.dumps(payload), home)
    assert result.stdout == for_agent(agent).empty
    assert stub.requests[0]["op"] == "checkpoint"
    assert stub.requests[0]["args"] == {
        "session_id": "s9",
        "cwd": "/r",
        "agent": agent,
        "reason": event,
    }


@pytest.mark.slow
def test_checkpoint_without_daemon_is_silent(home: Path) -> None:
    assert run_hook(["session-end", "--agent", "claude"], "{}", home).stdout == ""


@pytest.mark.slow
def test_gemini_reinjects_once_after_compress(home: Path, daemon: Any) -> None:
    stub = daemon(lambda request: ok(None if request["op"] == "checkpoint" else {"text": TEXT}))
    payload = json.dumps({"session_id": "g-1", "cwd": "/r", "hook_event_name": "BeforeAgent"})
    before_agent = ["before-agent", "--agent", "gemini"]

    assert run_hook(before_agent, payload, home).stdout == "{}\n"
    manual = json.dumps({"session_id": "g-1", "cwd": "/r", "trigger": "manual"})
    run_hook(["pre-compact", "--agent", "gemini"], manual, home)
    after = run_hook(before_agent, payload, home).stdout
    again = run_hook(before_agent, payload, home).stdout

    assert after == for_agent("gemini").render(TEXT, event="BeforeAgent")
    assert again == "{}\n"
    assert [r["op"] for r in stub.requests] == ["checkpoint", "resume"]
    assert stub.requests[1]["args"]["source"] == "compact"


@pytest.mark.slow
def test_session_end_clears_a_pending_compress_marker(home: Path) -> None:
    payload = json.dumps({"session_id": "g-2", "cwd": "/r"})
    run_hook(["pre-compact", "--agent", "gemini"], payload, home)
    assert list((home / hook.STATE_DIR_NAME).iterdir())
    run_hook(["session-end", "--agent", "gemini"], payload, home)
    assert not list((home / hook.STATE_DIR_NAME).iterdir())


# --- process behaviour -----------------------------------------------------------------------


@pytest.mark.slow
def test_stdin_left_open_does_not_block(home: Path, daemon: Any) -> None:
    daemon(lambda request: ok({"text": TEXT}))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "RECALLNEST_HOME": str(home),
    }
    with subprocess.Popen(
        [sys.executable, "-c", HOOK, *start_args("claude")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write(json.dumps(PAYLOAD).encode())
        proc.stdin.flush()
        assert proc.wait(timeout=60) == 0  # returned although stdin is still open
        proc.stdin.close()
        assert proc.stdout.read().decode() == for_agent("claude").render(TEXT)
        assert proc.stderr.read() == b""


@pytest.mark.slow
def test_failures_are_logged_under_an_existing_home(home: Path) -> None:
    run_hook(start_args("claude"), json.dumps(PAYLOAD), home)
    log = (home / "logs" / hook.LOG_NAME).read_text()
    assert "session-start claude: resume: daemon not reachable" in log


@pytest.mark.slow
def test_a_stopped_daemon_is_logged_without_loading_the_redactor(home: Path) -> None:
    """The redactor's ~30 ms of regex compilation stays off the daemon-down path (issue 5:
    p95 <= 300 ms with the daemon stopped); the line is ours, with no agent text in it."""
    code = (
        "import io, sys; from recallnest.integrations import hook; "
        f"hook.main({start_args('claude')!r}, io.StringIO({json.dumps(PAYLOAD)!r}), "
        f"io.StringIO(), {{'RECALLNEST_HOME': {str(home)!r}}}); "
        "print('recallnest.core.redact' in sys.modules)"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.stdout.strip() == "False"
    assert "daemon not reachable" in (home / "logs" / hook.LOG_NAME).read_text()


def test_a_daemon_error_is_redacted_before_it_is_logged(home: Path, daemon: Any) -> None:
    secret = "sk-ant-api03-" + "x7Q2" * 20
    reply = (json.dumps({"v": 1, "ok": False, "error": f"bad request {secret}"}) + "\n").encode()
    daemon(lambda request: reply)
    stdout = io.StringIO()
    env = {"RECALLNEST_HOME": str(home)}
    hook.main(start_args("claude"), io.StringIO(json.dumps(PAYLOAD)), stdout, env)
    log = (home / "logs" / hook.LOG_NAME).read_text()
    assert "bad request [REDACTED:" in log
    assert secret not in log


@pytest.mark.slow
def test_nothing_is_created_when_the_home_does_not_exist(home: Path) -> None:
    missing = home / "absent"
    run_hook(start_args("claude"), json.dumps(PAYLOAD), missing)
    run_hook(["pre-compact", "--agent", "gemini"], json.dumps(PAYLOAD), missing)
    assert not missing.exists()


@pytest.mark.slow
def test_importing_the_hook_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, recallnest.integrations.hook; "
        "print(sorted(m for m in ('duckdb', 'numpy', 'click', 'pydantic', 'httpx') "
        "if m in sys.modules))"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "[]"


# --- in process ------------------------------------------------------------------------------


def test_main_in_process_without_daemon(home: Path) -> None:
    stdout = io.StringIO()
    env = {"RECALLNEST_HOME": str(home)}
    code = hook.main(start_args("gemini"), io.StringIO(json.dumps(PAYLOAD)), stdout, env)
    assert (code, stdout.getvalue()) == (0, "{}\n")


@pytest.mark.parametrize(
    "error", [RuntimeError("bug"), SystemExit(3), KeyboardInterrupt(), RecursionError()]
)
def test_run_fail_open_swallows_everything(error: BaseException) -> None:
    logged: list[str] = []

    def action() -> None:
        raise error

    assert hook.run_fail_open(action, logged.append) == 0
    assert logged == [f"unexpected {type(error).__name__}: {error}"]


def test_main_survives_a_broken_stdout(home: Path) -> None:
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError("agent went away")

    stdin = io.StringIO(json.dumps(PAYLOAD))
    assert hook.main(start_args("gemini"), stdin, Broken(), {"RECALLNEST_HOME": str(home)}) == 0
    assert "BrokenPipeError" in (home / "logs" / hook.LOG_NAME).read_text()


def test_log_is_capped_to_one_previous_generation(tmp_path: Path) -> None:
    log = hook.HookLog()
    log.attach(tmp_path, "session-start claude")
    assert log.path is not None
    log.path.parent.mkdir()
    log.path.write_text("x" * (hook.MAX_LOG_BYTES + 1))
    log("fresh line")
    assert log.path.read_text().endswith("session-start claude: fresh line\n")
    assert log.path.stat().st_size < 200
    assert log.path.with_name(hook.LOG_NAME + ".1").stat().st_size > hook.MAX_LOG_BYTES


def test_log_without_a_home_does_nothing(tmp_path: Path) -> None:
    log = hook.HookLog()
    log.attach(tmp_path / "missing", "x")
    log("ignored")
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["session-start", "--agent", "claude"],
        ["--agent", "claude", "session-start"],
        ["session-start", "--agent=claude"],
    ],
)
def test_parse_argv_accepts_any_order(argv: list[str]) -> None:
    assert hook.parse_argv(argv) == ("session-start", "claude")


@pytest.mark.parametrize("raw", ["", "null", "[]", "{"])
def test_read_payload_rejects_non_objects(raw: str) -> None:
    assert hook.read_payload(io.StringIO(raw)) is None


def test_read_payload_rejects_oversized_input() -> None:
    raw = json.dumps({"pad": "x" * hook.MAX_STDIN_BYTES})
    assert hook.read_payload(io.StringIO(raw)) is None


def test_with_marker_leaves_marked_and_empty_text_alone() -> None:
    assert hook.with_marker(TEXT) == TEXT
    assert hook.with_marker("  ") == "  "

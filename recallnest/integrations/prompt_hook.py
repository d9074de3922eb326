"""The prompt hook's fast path (issue 23, decision 0022).

`recallnest hook user-prompt --agent claude|codex` (and Gemini's `before-agent`) runs in a fresh
process at every prompt the user types, and the prompt waits for it. This module does the
common case: ask the daemon's `recall` op and print its answer in the agent's JSON, with what a
fresh interpreter has loaded already plus the C modules `select`, `_socket` and `_json`. Not
`json` (it imports `re`), `socket` (`enum`, `selectors`), `pathlib` or `typing`: each costs
4-8 ms, against ~6 ms for the interpreter's own start (bench/RESULTS.md, issue 23).

Everything else goes to the full hook (`integrations.hook`), which then imports what it needs:
arguments, stdin or a payload it has to judge, a daemon that is down or answers an error (it
logs them), a Gemini compression to re-inject first, a text long enough to need its agent's
truncation. The contract is the full hook's: exit 0, print at most once, nothing on stderr, the
daemon round trip bounded by `hook.PROMPT_BUDGET_SECONDS`.

The daemon learns how long this process ran before asking (`elapsed`), so the wait for the
prompt's embedding is counted from the hook's start, not from the request's arrival.
"""

from __future__ import annotations

import os
import select
import sys
import time

from recallnest.core.marker import CONTEXT_MARKER  # a constant, no imports

STARTED = time.monotonic()  # the process started a few ms earlier (the interpreter's own start)

TYPE_CHECKING = False  # not `typing` (see the module docstring); type checkers take it as true
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, BinaryIO, TextIO

try:  # CPython's accelerators, which `json` itself uses
    from _json import encode_basestring as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # another interpreter: the same through `json`
    from json.encoder import encode_basestring as _quote
    from json.scanner import make_scanner as _make_scanner

# Kept equal to their homes by tests/integrations/test_prompt_hook.py: the socket's name
# (core.paths), the budgets (hook), the agents' empty forms and output caps (harness).
SOCKET_NAME = "daemon.sock"
PROMPT_BUDGET_SECONDS = 0.15
STDIN_BUDGET_SECONDS = 0.25
MAX_STDIN_BYTES = 1_000_000
PROTOCOL_VERSION = 1
EMPTY = {"claude": "", "codex": "", "gemini": "{}\n"}
# Below this many characters no agent's cap can cut a text (Claude: 9,500 JSON-escaped
# characters, at most 6 per character; Codex: 2,000 estimated tokens, at most 1 per character;
# Gemini: 8,000 characters), so the envelope is written here; longer texts go to the adapters.
FAST_RENDER_MAX_CHARS = 1_000
RENDER_EVENTS = {"user-prompt": "UserPromptSubmit", "before-agent": "BeforeAgent"}
_SAFE_ID = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


_INF = float("inf")


class _Context:
    """What the scanner reads: json.loads' defaults."""

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = {"-Infinity": -_INF, "Infinity": _INF, "NaN": _INF - _INF}.__getitem__


# typeshed types the scanner's context as a scanner; it reads only the attributes above
_scan = _make_scanner(_Context())  # type: ignore[arg-type]


class _Declined(Exception):
    """Not the common case, and nothing sent yet: the full hook takes over."""


class _Failed(Exception):
    """The daemon was asked and did not answer usefully: logged as the full hook logs it."""

    def __init__(self, message: str, *, from_daemon: bool = False) -> None:
        super().__init__(message)
        self.from_daemon = from_daemon


class _Run:
    """One invocation: its streams, what was read, and whether the daemon has been asked
    (after that the full hook must not ask again: the daemon counts what it sent a session)."""

    def __init__(
        self, argv: list[str], env: Mapping[str, str], stdin: int, stdout: BinaryIO | None
    ) -> None:
        self.argv = argv
        self.env = env
        self.stdin = stdin
        self.stdout = stdout
        self.raw: str | None = None
        self.asked = False


def main(
    argv: list[str], env: Mapping[str, str], stdin: int = 0, stdout: BinaryIO | None = None
) -> int:
    """`recallnest hook <event> ...` for a prompt event (argv after `hook`), reading the file
    descriptor `stdin` and writing `stdout` (the process's by default). Always returns 0."""
    run = _Run(argv, env, stdin, stdout)
    try:
        output = _handle(run)
    except _Declined:
        return _full_hook(run)
    except _Failed as exc:
        _log(run, f"recall: {exc}", ours=not exc.from_daemon)
        output = EMPTY[run.argv[2]]
    # The contract: never fail the agent. Before the daemon was asked the full hook answers
    # (and logs what it meets); after, nothing is printed, as the full hook does.
    except BaseException as exc:
        if not run.asked:
            return _full_hook(run)
        _log(run, f"unexpected {type(exc).__name__}: {exc}")
        return 0
    _write(output, run.stdout)
    return 0


def _full_hook(run: _Run) -> int:
    try:
        import io

        from recallnest.integrations import hook

        if run.raw is not None:
            stdin: TextIO = io.StringIO(run.raw)
        elif run.stdin == 0:
            stdin = sys.stdin
        else:
            stdin = open(run.stdin, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
        if run.stdout is None:
            hook.main(run.argv, stdin, sys.stdout, run.env)
            return 0
        wrapper = io.TextIOWrapper(run.stdout, "utf-8")
        hook.main(run.argv, stdin, wrapper, run.env)
        wrapper.flush()
        wrapper.detach()  # the caller's stream stays open
    except BaseException:
        pass  # the contract: the agent never sees our failure
    return 0


def _log(run: _Run, message: str, ours: bool = False) -> None:
    try:
        from pathlib import Path

        from recallnest.integrations import hook

        log = hook.HookLog()
        log.attach(Path(home_dir(run.env)), " ".join(run.argv[:1] + run.argv[2:]))
        log(message, ours=ours)
    except BaseException:
        pass  # diagnostics are best effort, as in the full hook


def _parse_argv(argv: list[str]) -> tuple[str, str]:
    """`<event> --agent <name>` exactly, the form the installer writes."""
    if len(argv) != 3 or argv[1] != "--agent" or argv[0] not in RENDER_EVENTS:
        raise _Declined
    if argv[2] not in EMPTY or (argv[0] == "before-agent" and argv[2] != "gemini"):
        raise _Declined
    return argv[0], argv[2]


def _read_stdin(fd: int) -> str:
    """Stdin until EOF or a whole JSON object, within STDIN_BUDGET_SECONDS (hook._read_fd)."""
    if os.isatty(fd):
        raise _Declined
    deadline = time.monotonic() + STDIN_BUDGET_SECONDS
    data = b""
    while len(data) <= MAX_STDIN_BYTES:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            break
        chunk = os.read(fd, 65536)
        data += chunk
        if not chunk or _is_json_object(data):
            break
    return data.decode("utf-8", "replace")  # oversized: no JSON object, the full hook says so


def _is_json_object(data: bytes) -> bool:
    """A whole JSON object has arrived: an agent that keeps stdin open costs nothing."""
    return data.rstrip().endswith(b"}") and _loads(data.decode("utf-8", "replace")) is not None


def _handle(run: _Run) -> str:
    event, agent = _parse_argv(run.argv)
    run.raw = _read_stdin(run.stdin)
    payload = _loads(run.raw)
    if payload is None:
        raise _Declined
    home = home_dir(run.env)
    session = _text(payload.get("session_id"))
    if event == "before-agent" and session and os.path.exists(_compress_marker(home, session)):
        raise _Declined  # the context goes again first (hook._before_agent)
    prompt = _text(payload.get("prompt"))
    if not prompt or not prompt.strip():
        return EMPTY[agent]
    args: dict[str, str | float | None] = {
        "prompt": prompt,
        "cwd": _text(payload.get("cwd")) or _cwd(),
        "session_id": session,
        "agent": agent,
        "elapsed": round(time.monotonic() - STARTED, 4),
    }
    run.asked = True
    text = _with_marker(_ask(os.path.join(home, SOCKET_NAME), "recall", args))
    return render(agent, text, RENDER_EVENTS[event])


def home_dir(env: Mapping[str, str]) -> str:
    """core.paths.home_dir, as a string."""
    explicit = env.get("RECALLNEST_HOME")
    if explicit:
        return os.path.expanduser(explicit)
    user = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(user, "Library", "Application Support", "recallnest")
    return os.path.join(
        env.get("XDG_DATA_HOME") or os.path.join(user, ".local", "share"), "recallnest"
    )


def _compress_marker(home: str, session: str) -> str:
    safe = "".join(c if c in _SAFE_ID else "_" for c in session)[:128]
    return os.path.join(home, "hook-state", f"compressed-{safe}")


def _ask(path: str, op: str, args: Mapping[str, str | float | None]) -> str:
    """The `text` of the daemon's answer ("" for an odd result); _Failed as
    server.protocol.request raises ProtocolError."""
    import _socket

    request = f'{{"v":{PROTOCOL_VERSION},"op":{_quote(op)},"args":{_object(args)}}}\n'
    deadline = time.monotonic() + PROMPT_BUDGET_SECONDS
    chunks: list[bytes] = []
    try:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.settimeout(PROMPT_BUDGET_SECONDS)
            sock.connect(path)
            sock.sendall(request.encode())
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _Failed("daemon timed out")
                sock.settimeout(remaining)
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
                if chunk.endswith(b"\n"):
                    break
        finally:
            sock.close()
    except OSError as exc:
        raise _Failed(f"daemon not reachable at {path}: {exc}") from None
    message = _loads(b"".join(chunks).decode("utf-8", "replace"))
    if message is None:
        raise _Failed("daemon sent a malformed response")
    if not message.get("ok"):
        error = message.get("error") or "daemon reported an error"
        raise _Failed(str(error), from_daemon=True)
    result = message.get("result")
    text = result.get("text") if isinstance(result, dict) else None
    return text if isinstance(text, str) else ""


def _object(values: Mapping[str, str | float | None]) -> str:
    """A JSON object of strings, numbers and nulls (what the recall request holds)."""
    parts = []
    for key, value in values.items():
        if value is None:
            encoded = "null"
        elif isinstance(value, str):
            encoded = _quote(value)
        else:
            encoded = repr(float(value))
        parts.append(f"{_quote(key)}:{encoded}")
    return "{" + ",".join(parts) + "}"


def _loads(text: str) -> dict[str, Any] | None:
    """json.loads for a document that must be one object; None otherwise."""
    body = text.strip(" \t\n\r")
    if not body.startswith("{"):
        return None
    try:
        value, end = _scan(body, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return value if end == len(body) and isinstance(value, dict) else None


def render(agent: str, text: str, event: str) -> str:
    """The agent's stdout for `text` (harness adapters' `render`, for short texts)."""
    if not text.strip():
        return EMPTY[agent]
    if len(text) > FAST_RENDER_MAX_CHARS:
        from recallnest.integrations.harness import for_agent

        return for_agent(agent).render(text, event)
    if agent == "gemini":
        text = text.replace("<", "‹").replace(">", "›")
    context = f'{{"hookEventName": {_quote(event)}, "additionalContext": {_quote(text)}}}'
    return f'{{"hookSpecificOutput": {context}}}\n'


def _with_marker(text: str) -> str:
    if not text.strip() or CONTEXT_MARKER in text:
        return text
    return f"{CONTEXT_MARKER}\n{text}"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def _write(output: str, stream: BinaryIO | None = None) -> None:
    if not output:
        return
    out = stream or sys.stdout.buffer
    try:
        out.write(output.encode("utf-8"))  # the JSON keeps CJK unescaped; never a locale
        out.flush()
    except OSError:
        pass  # the agent closed its end: nothing left to tell it

"""The MCP server: recallnest's memory as tools an agent calls mid-session, over stdio.

A thin client of the daemon: every tool call is one request on the daemon's socket (the same
ops the CLI uses, so `remember` goes through the same redaction and dedup path). This process
never opens the database. When no daemon answers, the tool result says so (isError) and the
server keeps running, so the agent is never broken by a stopped daemon.

Tools: search_memory, remember, forget, recent_sessions, resume_context. Every result is
plain text within TOOL_BUDGET_TOKENS: item texts are clipped, lists capped, and what did not
fit is counted ("… N more").

Stored text is data, framed as the resume context frames it: every line that quotes stored
text is `compose.inert` (one line, no control or bidi characters, no angle brackets, no
fence-length runs, no copy of our marker) and sits inside `compose.fenced` (the
data-not-instructions label and a tilde fence); the whole result is `terminal.clean`ed.

`Tools` (arguments in, bounded text out) does not know the SDK and is tested on its own;
`serve` wires it to the `mcp` SDK, imported lazily: this is the only module that imports it,
and importing this module does not load it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest import __version__
from recallnest.continuity.compose import LABEL, fenced, inert
from recallnest.core.errors import DaemonError
from recallnest.core.models import CATEGORIES, GLOBAL_SCOPE
from recallnest.core.project import project_of
from recallnest.core.terminal import clean
from recallnest.core.tokens import estimate_tokens
from recallnest.server import protocol

if TYPE_CHECKING:
    from mcp import types
    from mcp.server import Server, ServerRequestContext

log = logging.getLogger(__name__)

SERVER_NAME = "recallnest"
TOOL_BUDGET_TOKENS = 1_500  # per tool result, estimated like compose.estimate_tokens
MORE_RESERVE_TOKENS = 40  # kept free for the "… N more" line
ITEM_MAX_CHARS = 360  # one search hit's text
FIELD_MAX_CHARS = 200  # one checkpoint field or list item
LIST_MAX_ITEMS = 3  # items shown per checkpoint list (decisions, open loops, …)
MAX_LIMIT = 20
SEARCH_DEFAULT_LIMIT = 8
SESSIONS_DEFAULT_LIMIT = 5
MAX_FORGET_IDS = 50
MAX_QUERY_CHARS = 2_000
MAX_MEMORY_CHARS = 4_000
CALL_TIMEOUT_SECONDS = 30.0
SOURCE = "mcp"  # provenance of memories stored through the `remember` tool

NOT_RUNNING = (
    "The recallnest daemon is not running, so memory is unavailable right now (nothing was "
    "searched or stored). Ask the user to start it with `recallnest daemon start` (or "
    "`recallnest install --service` to run it at login), then call the tool again."
)
INSTRUCTIONS = (
    "recallnest is the user's local long-term memory across Claude Code, Codex and Gemini CLI "
    "sessions. Search it (search_memory) before asking the user about earlier decisions, "
    "conventions or fixes; store durable facts and preferences they state (remember); "
    "recent_sessions and resume_context show where earlier work stopped."
)

_PROJECT_PATH = {
    "type": "string",
    "description": (
        "A project directory, absolute or relative to this session's working directory. "
        "Default: the working directory."
    ),
}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    idempotent: bool = True
    destructive: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_memory",
        title="Search memory",
        description=(
            "Search recallnest's memory of past coding sessions: durable memories (user "
            "preferences, project facts, decisions, past fixes) and the conversation turns of "
            "earlier Claude Code, Codex and Gemini CLI sessions, ranked by keyword and meaning. "
            "Use it before asking the user about something an earlier session may have "
            "settled. Each result shows its kind, id (memories: pass it to `forget`), "
            "provenance and age. At most about 1,500 tokens."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_CHARS,
                    "description": "What to look for: a question or keywords.",
                },
                "kind": {
                    "type": "string",
                    "enum": ["all", "memories", "turns"],
                    "default": "all",
                    "description": (
                        "memories: durable facts and preferences; turns: what was said in "
                        "past sessions; all: both."
                    ),
                },
                "project": {
                    "type": "string",
                    "description": (
                        "Only this project's turns and memories, plus global memories: a "
                        "directory, absolute or relative to this session's working directory. "
                        "Omit to search every project."
                    ),
                },
                "since": {
                    "type": "string",
                    "description": (
                        "Only newer results: an ISO date (2026-05-01) or an age (7d, 12h, 2w)."
                    ),
                },
                "limit": {
                    **_LIMIT,
                    "default": SEARCH_DEFAULT_LIMIT,
                    "description": "At most this many results.",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        read_only=True,
    ),
    ToolSpec(
        name="remember",
        title="Remember",
        description=(
            "Store a durable memory for future sessions: a user preference, a project "
            "convention or fact, a decision and its reason, or how a problem was solved. Write "
            "one self-contained statement. Secrets are redacted before storing; storing the "
            "same text again keeps one memory. Returns the memory's id."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_MEMORY_CHARS,
                    "description": "The memory, e.g. 'This repo uses pnpm, never npm.'",
                },
                "category": {
                    "type": "string",
                    "enum": list(CATEGORIES),
                    "description": (
                        "profile: who the user is; preferences: how they like things done; "
                        "entities: facts about projects, tools, people; events: what happened; "
                        "cases: a problem and its fix; patterns: a recurring workflow. "
                        "Default: inferred from the text."
                    ),
                },
                "scope": {
                    "type": "string",
                    "enum": ["project", "global"],
                    "default": "project",
                    "description": (
                        "project: recalled only in that project's sessions; global: in every "
                        "project (the user's preferences, general facts)."
                    ),
                },
                "project": {
                    **_PROJECT_PATH,
                    "description": _PROJECT_PATH["description"] + " Only with scope project.",
                },
            },
            "required": ["text"],
            "additionalProperties": False,
        },
        read_only=False,
    ),
    ToolSpec(
        name="forget",
        title="Forget memories",
        description=(
            "Delete memories by id (the ids search_memory shows for memories). Use it when the "
            "user asks to forget something, or a memory is wrong or obsolete. Permanent."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "ids": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "minItems": 1,
                    "maxItems": MAX_FORGET_IDS,
                    "description": "Full memory ids.",
                },
            },
            "required": ["ids"],
            "additionalProperties": False,
        },
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        name="recent_sessions",
        title="Recent sessions",
        description=(
            "The latest session checkpoints of a project, newest first: what each earlier "
            "session (any agent) asked for and did, decisions, open loops, next steps and "
            "files. Use it to pick up where earlier work stopped."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "project": _PROJECT_PATH,
                "limit": {
                    **_LIMIT,
                    "default": SESSIONS_DEFAULT_LIMIT,
                    "description": "At most this many sessions.",
                },
            },
            "additionalProperties": False,
        },
        read_only=True,
    ),
    ToolSpec(
        name="resume_context",
        title="Resume context",
        description=(
            "The briefing recallnest gives at session start, composed afresh: the last "
            "session's state, the user's profile and preferences, and the project's key "
            "memories, within a fixed token budget. Use it after the context was cleared or "
            "when the session started without it."
        ),
        input_schema={
            "type": "object",
            "properties": {"project": _PROJECT_PATH},
            "additionalProperties": False,
        },
        read_only=True,
    ),
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A tool result: bounded text, and whether it reports a failure."""

    text: str
    is_error: bool = False


class BadArguments(ValueError):
    """A tool was called with arguments its schema does not allow."""


class DaemonNotRunning(DaemonError):
    """No daemon answers on the socket."""


# ---- the tools -------------------------------------------------------------------------------


class Tools:
    """The tools' behaviour, independent of the MCP SDK: validate, ask the daemon, render.

    `cwd` is the session's working directory (the agent starts the server there): the default
    project, and the base of relative project paths. `now` is injectable for tests.
    """

    def __init__(
        self,
        socket_path: Path,
        cwd: Path,
        agent: str | None = None,
        timeout: float = CALL_TIMEOUT_SECONDS,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.socket_path = socket_path
        self.cwd = cwd
        self.agent = agent
        self.timeout = timeout
        self.now = now or (lambda: datetime.now(UTC))
        self._handlers: dict[str, Callable[[_Args], Outcome]] = {
            "search_memory": self.search_memory,
            "remember": self.remember,
            "forget": self.forget,
            "recent_sessions": self.recent_sessions,
            "resume_context": self.resume_context,
        }

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        """Run one tool. Never raises for a bad call or a missing daemon: those are results.
        The text is cleaned here, the one boundary every result passes."""
        outcome = self._call(name, arguments)
        return Outcome(clean(outcome.text), outcome.is_error)

    def _call(self, name: str, arguments: Mapping[str, Any] | None) -> Outcome:
        handler = self._handlers.get(name)
        if handler is None:
            known = ", ".join(self._handlers)
            return Outcome(f"unknown tool {inert(clip(name, 80))!r}; tools: {known}", True)
        try:
            return handler(_Args(arguments or {}))
        except BadArguments as exc:
            return Outcome(f"{name}: {inert(str(exc))}", True)
        except DaemonNotRunning:
            return Outcome(NOT_RUNNING, True)
        except DaemonError as exc:
            return Outcome(f"recallnest could not do that: {inert(str(exc))}", True)
        except Exception as exc:  # the edge: a tool failure is a result, never a dead server
            log.exception("tool %s failed", name)
            detail = inert(f"{type(exc).__name__}: {exc}")
            return Outcome(f"recallnest failed unexpectedly: {detail}", True)

    # ---- handlers ------------------------------------------------------------------------------

    def search_memory(self, args: _Args) -> Outcome:
        query = args.text("query", required=True, max_chars=MAX_QUERY_CHARS)
        kind = args.choice("kind", ("all", "memories", "turns"), "all")
        project = self._project(args.text("project")) if args.has("project") else None
        since = args.text("since")
        limit = args.integer("limit", SEARCH_DEFAULT_LIMIT, 1, MAX_LIMIT)
        hits = self._ask(
            "search",
            {"query": query, "kind": kind, "project": project, "since": since, "limit": limit},
        )
        return Outcome(render_hits(query, hits, project, self.now()))

    def remember(self, args: _Args) -> Outcome:
        text = args.text("text", required=True, max_chars=MAX_MEMORY_CHARS)
        category = args.choice("category", CATEGORIES, None)
        scope = args.choice("scope", ("project", "global"), "project")
        if scope == "global" and args.has("project"):
            raise BadArguments("`project` is only used with scope project")
        key = GLOBAL_SCOPE if scope == "global" else self._project(args.text("project"))
        request = {"text": text, "category": category, "scope": key, "source": SOURCE}
        return Outcome(render_remembered(self._ask("remember", request)))

    def forget(self, args: _Args) -> Outcome:
        ids = args.strings("ids", MAX_FORGET_IDS)
        result = self._ask("forget", {"ids": ids})
        return Outcome(render_forgotten(result), is_error=not result["forgotten"])

    def recent_sessions(self, args: _Args) -> Outcome:
        project = self._project(args.text("project"))
        limit = args.integer("limit", SESSIONS_DEFAULT_LIMIT, 1, MAX_LIMIT)
        checkpoints = self._ask("checkpoints.list", {"project": project, "limit": limit})
        return Outcome(render_sessions(project, checkpoints, self.now()))

    def resume_context(self, args: _Args) -> Outcome:
        directory = self._directory(args.text("project"))
        request = {"cwd": str(directory), "agent": self.agent or "mcp", "record": False}
        return Outcome(render_resume(self._ask("resume", request)))

    # ---- helpers -------------------------------------------------------------------------------

    def _directory(self, path: str | None) -> Path:
        given = Path(path).expanduser() if path else self.cwd
        return (self.cwd / given).resolve()  # an absolute `given` replaces the base

    def _project(self, path: str | None) -> str:
        key = project_of(str(self._directory(path)))
        assert key is not None  # project_of answers None only for an empty path
        return key

    def _ask(self, op: str, args: dict[str, Any]) -> Any:
        """One daemon request. A socket that is missing or refuses connections means no
        daemon; a timeout or an error reply is a DaemonError with the daemon's message."""
        try:
            return protocol.request(str(self.socket_path), op, args, self.timeout)
        except protocol.ProtocolError as exc:
            cause = exc.__cause__
            if isinstance(cause, TimeoutError):
                raise DaemonError(f"the daemon did not answer within {self.timeout:g} s") from exc
            if isinstance(cause, OSError):
                raise DaemonNotRunning(str(exc)) from exc
            raise DaemonError(str(exc)) from exc


class _Args:
    """Checks arguments against what the schemas promise (the SDK does not validate them)."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        if not isinstance(raw, Mapping):
            raise BadArguments("arguments must be an object")
        self.raw = raw

    def has(self, name: str) -> bool:
        return self.raw.get(name) not in (None, "")

    def text(self, name: str, *, required: bool = False, max_chars: int = 1_000) -> str | None:
        value = self.raw.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise BadArguments(f"`{name}` is required and must not be empty")
            return None
        if not isinstance(value, str):
            raise BadArguments(f"`{name}` must be a string")
        if len(value) > max_chars:
            raise BadArguments(f"`{name}` is longer than {max_chars} characters")
        return value.strip()

    def choice(self, name: str, options: Sequence[str], default: str | None) -> str | None:
        value = self.raw.get(name)
        if value is None:
            return default
        if value not in options:
            raise BadArguments(f"`{name}` must be one of {', '.join(options)}")
        return str(value)

    def integer(self, name: str, default: int, low: int, high: int) -> int:
        value = self.raw.get(name)
        if value is None:
            return default
        whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        if isinstance(value, bool) or not whole:
            raise BadArguments(f"`{name}` must be an integer")
        return max(low, min(high, int(value)))

    def strings(self, name: str, max_items: int) -> list[str]:
        value = self.raw.get(name)
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or len(value) > max_items:
            raise BadArguments(f"`{name}` must be a list of 1 to {max_items} strings")
        if not all(isinstance(v, str) and v.strip() for v in value):
            raise BadArguments(f"`{name}` must hold non-empty strings")
        return [v.strip() for v in value]


# ---- rendering (pure) ------------------------------------------------------------------------


def render_hits(
    query: str | None, hits: Sequence[Mapping[str, Any]], project: str | None, now: datetime
) -> str:
    where = f" in {inert(project)} (and global memories)" if project else ""
    asked = inert(clip(query or "", 80))
    if not hits:
        return f'No results for "{asked}"{where}. Try other words or a wider `since`.'
    head = f'{len(hits)} result{"s" * (len(hits) != 1)} for "{asked}"{where}:'
    blocks = [_hit(n, hit, project, now) for n, hit in enumerate(hits, 1)]
    return fit(head, blocks, "lower `limit` or narrow the query to see them")


def _hit(n: int, hit: Mapping[str, Any], project: str | None, now: datetime) -> str:
    when = ago(now, hit.get("timestamp"))
    if hit.get("kind") == "memory":
        scope = hit.get("scope") or GLOBAL_SCOPE
        where = _scope_label(scope, project)
        head = (
            f"{n}. memory {hit.get('id')} · {hit.get('category')} · {where}"
            f" · {hit.get('source')} · {when}"
        )
    else:
        session = str(hit.get("session_id") or "?")[:8]
        where = _scope_label(hit.get("project") or "no project", project)
        head = (
            f"{n}. turn · {hit.get('agent')} {hit.get('role')} · {where}"
            f" · session {session} · {when}"
        )
    return f"{head}\n   {clip(str(hit.get('text') or ''), ITEM_MAX_CHARS)}"


def _scope_label(scope: str, project: str | None) -> str:
    if scope == GLOBAL_SCOPE:
        return "global"
    return "this project" if scope == project else f"project {scope}"


def render_remembered(memory: Mapping[str, Any]) -> str:
    verb = "Remembered" if memory.get("created") else "Already known; refreshed"
    where = _scope_label(str(memory.get("scope")), None)
    head = inert(f"{verb} memory {memory.get('id')} [{memory.get('category')}, {where}]:")
    text = fit(head, [f"   {clip(str(memory.get('text') or ''), ITEM_MAX_CHARS)}"], "")
    if memory.get("redactions"):
        kinds = inert(", ".join(map(str, memory["redactions"])))
        text += f"\nSecrets were redacted before storing: {kinds}."
    return text


def render_forgotten(result: Mapping[str, Any]) -> str:
    forgotten, missing = list(result.get("forgotten") or []), list(result.get("missing") or [])
    lines = [f"Forgot {len(forgotten)} memor{'y' if len(forgotten) == 1 else 'ies'}."]
    lines += [inert(f"- {i}") for i in forgotten]
    if missing:  # ids the caller gave: quoted back, so framed like stored text
        head = "No memory with these ids (use the full id from search_memory):"
        lines.append(fit(head, [f"- {clip(str(i), 80)}" for i in missing], ""))
    return "\n".join(lines)


def render_sessions(project: str, checkpoints: Sequence[Mapping[str, Any]], now: datetime) -> str:
    if not checkpoints:
        return (
            f"No session checkpoints for {project} yet (one is written when a session goes "
            "idle, compacts or ends)."
        )
    n = len(checkpoints)
    head = f"{n} recent session{'s' * (n != 1)} in {inert(project)}, newest first:"
    blocks = [_session(k, cp, now) for k, cp in enumerate(checkpoints, 1)]
    return fit(head, blocks, "lower `limit` to see them")


def _session(n: int, cp: Mapping[str, Any], now: datetime) -> str:
    session = str(cp.get("session_id") or "?")[:8]
    lines = [
        f"{n}. {ago(now, cp.get('created_at'))} · {cp.get('agent')} · session {session}"
        f" · checkpoint {cp.get('reason')}"
    ]
    if cp.get("summary"):
        lines.append(f"   Summary: {clip(str(cp['summary']), FIELD_MAX_CHARS * 2)}")
    for label, key in (
        ("Decided", "decisions"),
        ("Open loops", "open_loops"),
        ("Next", "next_actions"),
        ("Files", "files"),
    ):
        items = [clip(str(v), FIELD_MAX_CHARS) for v in cp.get(key) or []]
        if items:
            more = f" (+{len(items) - LIST_MAX_ITEMS})" if len(items) > LIST_MAX_ITEMS else ""
            lines.append(f"   {label}: {'; '.join(items[:LIST_MAX_ITEMS])}{more}")
    return "\n".join(lines)


def render_resume(result: Mapping[str, Any]) -> str:
    """The composed context (compose frames and bounds it), re-framed within our budget if
    the configured resume budget is larger."""
    lines = str(result.get("text") or "").splitlines()
    if len(lines) < 4 or lines[1] != LABEL:  # nothing, or the one-line reminder
        return "\n".join(inert(line) for line in lines)
    text = "\n".join(lines)
    if estimate_tokens(text) <= TOOL_BUDGET_TOKENS:
        return text
    hint = "the full briefing is larger than one tool result"
    return fit(lines[0], lines[3:-1], hint)


def fit(head: str, blocks: Sequence[str], hint: str) -> str:
    """`head`, then as many whole blocks as fit in TOOL_BUDGET_TOKENS inside the data frame
    (`compose.fenced`, every line `compose.inert`), then "… N more" after the frame."""
    lines = [inert(line) for block in blocks for line in block.splitlines()]
    frame = fenced(lines)
    used = sum(estimate_tokens(line) + 1 for line in (head, *frame[:2], frame[-1]))
    shown: list[str] = []
    more = ""
    for n, block in enumerate(blocks):
        inner = [inert(line) for line in block.splitlines()]
        cost = sum(estimate_tokens(line) + 1 for line in inner)
        if used + cost > TOOL_BUDGET_TOKENS - MORE_RESERVE_TOKENS:
            left = len(blocks) - n
            more = f"… {left} more not shown (output budget)" + (f"; {hint}" if hint else "")
            break
        shown.extend(inner)
        used += cost
    return "\n".join([head, *fenced(shown), *([more] if more else [])])


def clip(text: str, limit: int) -> str:
    """One line: whitespace runs become one space, invisible characters go, at most `limit`."""
    flat = " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def ago(now: datetime, stamp: object) -> str:
    """ "3d ago" from an ISO timestamp (the thresholds of the resume context's ages)."""
    try:
        then = datetime.fromisoformat(str(stamp)) if stamp else None
    except ValueError:
        then = None
    if then is None:
        return "time unknown"
    seconds = (now - (then if then.tzinfo else then.replace(tzinfo=UTC))).total_seconds()
    for unit, size in (("y", 365 * 86_400), ("mo", 30 * 86_400), ("d", 86_400), ("h", 3_600)):
        if seconds >= 2 * size or (unit in ("d", "h") and seconds >= size):
            return f"{math.floor(seconds / size)}{unit} ago"
    return f"{math.floor(seconds / 60)}m ago" if seconds >= 60 else "just now"


# ---- the MCP SDK -----------------------------------------------------------------------------


def build_server(tools: Tools) -> Server[Any]:
    """A low-level MCP server exposing `tools`; each call runs in a worker thread, so a slow
    daemon round trip never blocks the protocol loop."""
    from mcp import types
    from mcp.server import Server

    listing = types.ListToolsResult(tools=[_tool(spec) for spec in TOOLS])

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        outcome = await asyncio.to_thread(tools.call, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            is_error=outcome.is_error,
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _tool(spec: ToolSpec) -> types.Tool:
    from mcp import types

    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def serve(socket_path: Path, cwd: Path, agent: str | None = None) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection."""
    from mcp.server.stdio import stdio_server

    server = build_server(Tools(socket_path, cwd, agent))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C in a terminal: just stop
        asyncio.run(main())

"""Per-agent transcript parsers: the Parser protocol, the registry, and path detection.

Owns the mapping from a transcript path to the agent that wrote it (`detect`), from an agent id
to its incremental line parser (`new_parser`), and the whole-document entry points for Gemini's
legacy JSON files (`parse_document`, streaming `iter_document`, `is_document`). Pure: no I/O,
clock or environment; the tailer reads the files and persists `Parser.state()` next to its
byte cursor.

May import `recallnest.core` (models, errors, the redactor) and `recallnest.ingest.tail`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Protocol

from recallnest.core.models import Event
from recallnest.ingest.transcripts import gemini
from recallnest.ingest.transcripts._common import path_parts
from recallnest.ingest.transcripts.claude import ClaudeParser
from recallnest.ingest.transcripts.codex import CodexParser
from recallnest.ingest.transcripts.gemini import GeminiParser

__all__ = ["Parser", "detect", "is_document", "iter_document", "new_parser", "parse_document"]


class Parser(Protocol):
    """Turns the lines of one transcript file, fed in file order, into events.

    `feed` takes one complete line without its newline and the byte offset where it starts; it
    never raises on bad input. `skipped` counts the lines THIS instance passed over as malformed
    (bad JSON or UTF-8, wrong shapes, unknown record kinds); blank lines do not count, and the
    count is not carried in `state`. `state` is small, JSON-serialisable and bounded; passing it
    to `new_parser` continues the file where this parser stopped.
    """

    agent: str
    skipped: int

    def feed(self, line: bytes, offset: int) -> list[Event]: ...

    def state(self) -> dict[str, object]: ...


_Factory = Callable[[str, Mapping[str, object] | None, str | None], Parser]
_PARSERS: dict[str, _Factory] = {
    "claude": ClaudeParser,
    "codex": CodexParser,
    "gemini": GeminiParser,
}


def new_parser(
    agent: str,
    path: str,
    state: Mapping[str, object] | None = None,
    cwd_hint: str | None = None,
) -> Parser:
    """A parser for the transcript at `path`, resuming from a saved `state` when given.

    `cwd_hint` is the project directory when the file does not record one (Gemini: see
    `gemini.project_root_for`); records that name their own cwd win over it.
    """
    factory = _PARSERS.get(agent)
    if factory is None:
        raise ValueError(f"unknown agent {agent!r}; expected one of {', '.join(_PARSERS)}")
    return factory(path, state, cwd_hint)


def detect(path: str) -> str | None:
    """The agent whose transcript this path is, from its shape alone; None for anything else.

    claude: `projects/<project>/<session>.jsonl`, `.../<session>/subagents/agent-<id>.jsonl`
    codex:  `sessions/**/rollout-*.jsonl`, `archived_sessions/rollout-*.jsonl` (not `.jsonl.zst`)
    gemini: `chats/session-*.jsonl`, legacy `chats/session-*.json`, `chats/<parent>/<id>.jsonl`
    Sidecars (`*.meta.json`), compressed rollouts and other files are None.
    """
    parts = path_parts(path)
    name = parts[-1] if parts else ""
    if _is_gemini(parts, name):
        return "gemini"
    if name.endswith(".jsonl") and name.startswith("rollout-"):
        return "codex" if {"sessions", "archived_sessions"} & set(parts[:-1]) else None
    if name.endswith(".jsonl") and _is_claude(parts):
        return "claude"
    return None


def is_document(path: str) -> bool:
    """True for a transcript rewritten whole on every change (Gemini up to 0.38, `.json`)."""
    return detect(path) == "gemini" and path.endswith(".json")


def parse_document(agent: str, path: str, data: bytes, cwd_hint: str | None = None) -> list[Event]:
    """Events of a whole-document transcript; raises TranscriptError when it is incomplete."""
    if agent != "gemini":
        raise ValueError(f"agent {agent!r} has no whole-document transcripts; only gemini")
    return gemini.parse_document(path, data, cwd_hint)


def iter_document(
    agent: str, path: str, chunks: Iterable[bytes], cwd_hint: str | None = None
) -> Iterator[list[Event]]:
    """`parse_document`'s events, read incrementally from the file's bytes in batches; on an
    incomplete document the complete part's events come first, then TranscriptError."""
    if agent != "gemini":
        raise ValueError(f"agent {agent!r} has no whole-document transcripts; only gemini")
    return gemini.iter_document(path, chunks, cwd_hint)


def _is_gemini(parts: tuple[str, ...], name: str) -> bool:
    if len(parts) >= 2 and parts[-2] == "chats" and name.startswith("session-"):
        return name.endswith((".jsonl", ".json"))
    return len(parts) >= 3 and parts[-3] == "chats" and name.endswith(".jsonl")


def _is_claude(parts: tuple[str, ...]) -> bool:
    if len(parts) >= 3 and parts[-3] == "projects":
        return True
    return len(parts) >= 5 and parts[-2] == "subagents" and parts[-5] == "projects"

"""Gemini re-injection after compression (issue 16.1).

Gemini CLI 0.61 fires PreCompress (trigger "auto") at EVERY turn, before it checks its token
threshold (ChatCompressionService.compress). The hook must re-inject the context only after a
compression that really happened: a manual `/compress`, or a fresh <state_snapshot> written to
the chat file as a `$set.messages` checkpoint. Checkpoint requests from "auto" are rate-limited.

The turns below follow the order Gemini uses: BeforeAgent, then PreCompress, then (when the
threshold is passed) the compression's `$set.messages`, then the user message; a failed request
rolls the history back with another `$set.messages` that repeats the old snapshot.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_hook import TEXT, StubDaemon, ok

from recallnest.core.paths import socket_path
from recallnest.integrations import hook
from recallnest.integrations.harness import for_agent
from recallnest.integrations.harness import gemini as gemini_harness
from recallnest.integrations.harness.gemini import compressed_since

SESSION = "84de2ca2-ac41-419c-9b5c-e14fb116ee95"
SESSION_CONTEXT = {"id": "s0", "type": "user", "content": [{"text": "<session_context>x"}]}


@pytest.fixture
def stub() -> Iterator[tuple[Path, StubDaemon]]:
    home = Path(tempfile.mkdtemp(prefix="rn-", dir="/tmp"))  # socket paths are short
    # Prompt-time recall (asked at every BeforeAgent) finds nothing here: the output is the
    # re-injected context alone.
    texts = {"checkpoint": None, "recall": {"text": ""}}
    reply = lambda request: ok(texts.get(request["op"], {"text": TEXT}))  # noqa: E731
    daemon = StubDaemon(socket_path(home), reply)
    yield home, daemon
    daemon.close()
    shutil.rmtree(home, ignore_errors=True)


class Chat:
    """A Gemini 0.61 chat file, appended the way chatRecordingService does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.turn = 0
        self.history: list[dict[str, Any]] = [SESSION_CONTEXT]
        self.append({"sessionId": SESSION, "kind": "main"}, {"$set": {"messages": self.history}})

    def append(self, *records: object) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, separators=(",", ":")) + "\n")

    def compress(self) -> None:
        """A new chat: the summary under a fresh random id, written as `$set.messages`."""
        summary = [{"text": "<state_snapshot>\n<overall_goal>x</overall_goal>\n</state_snapshot>"}]
        snapshot = {"id": str(uuid.uuid4()), "type": "user", "content": summary}
        self.history = [snapshot, {"id": str(uuid.uuid4()), "type": "gemini", "content": "ok"}]
        self.append({"$set": {"sessionId": SESSION}}, {"$set": {"messages": self.history}})

    def prompt(self) -> None:
        """The user message, then the failed request's rollback (the old snapshot again)."""
        self.turn += 1
        self.append({"id": f"u{self.turn}", "type": "user", "content": [{"text": "hi"}]})
        self.append({"$set": {"messages": self.history}})


def run(home: Path, event: str, chat: Chat, **fields: object) -> str:
    payload = {"session_id": SESSION, "cwd": "/r", "transcript_path": str(chat.path), **fields}
    out = io.StringIO()
    env = {"RECALLNEST_HOME": str(home)}
    assert hook.main([event, "--agent", "gemini"], io.StringIO(json.dumps(payload)), out, env) == 0
    return out.getvalue()


def turn(home: Path, chat: Chat, *, compress: bool = False, trigger: str = "auto") -> str:
    """One prompt: BeforeAgent's output, then PreCompress, maybe a compression, the message."""
    output = run(home, "before-agent", chat, hook_event_name="BeforeAgent", prompt="hi")
    run(home, "pre-compact", chat, hook_event_name="PreCompress", trigger=trigger)
    if compress:
        chat.compress()
    chat.prompt()
    return output


INJECTED = for_agent("gemini").render(TEXT, event="BeforeAgent")


def ops(daemon: StubDaemon) -> list[str]:
    """The requests other than prompt-time recall, in order."""
    return [r["op"] for r in daemon.requests if r["op"] != "recall"]


def test_auto_precompress_on_every_turn_never_reinjects(stub: tuple[Path, StubDaemon]) -> None:
    home, daemon = stub
    chat = Chat(home / "session.jsonl")
    outputs = [turn(home, chat) for _ in range(6)]
    assert outputs == ["{}\n"] * 6
    assert ops(daemon) == ["checkpoint"]  # rate-limited, no resume
    recalls = [r["args"] for r in daemon.requests if r["op"] == "recall"]
    assert recalls == [{"prompt": "hi", "cwd": "/r", "session_id": SESSION, "agent": "gemini"}] * 6


def test_a_real_auto_compression_reinjects_once(stub: tuple[Path, StubDaemon]) -> None:
    home, daemon = stub
    chat = Chat(home / "session.jsonl")
    outputs = [turn(home, chat), turn(home, chat, compress=True), turn(home, chat)]
    outputs += [turn(home, chat) for _ in range(3)]  # rollbacks repeat the old snapshot
    assert outputs == ["{}\n", "{}\n", INJECTED, "{}\n", "{}\n", "{}\n"]
    assert ops(daemon) == ["checkpoint", "resume"]
    (resume,) = [r for r in daemon.requests if r["op"] == "resume"]
    assert resume["args"]["source"] == "compact"


def test_a_second_compression_reinjects_again(stub: tuple[Path, StubDaemon]) -> None:
    home, _ = stub
    chat = Chat(home / "session.jsonl")
    outputs = [turn(home, chat, compress=True), turn(home, chat), turn(home, chat, compress=True)]
    outputs.append(turn(home, chat))
    assert outputs == ["{}\n", INJECTED, "{}\n", INJECTED]


def test_a_manual_compress_reinjects_and_always_checkpoints(
    stub: tuple[Path, StubDaemon],
) -> None:
    home, daemon = stub
    chat = Chat(home / "session.jsonl")
    turn(home, chat)
    outputs = [turn(home, chat, trigger="manual"), turn(home, chat), turn(home, chat)]
    assert outputs == ["{}\n", INJECTED, "{}\n"]
    assert ops(daemon) == ["checkpoint", "checkpoint", "resume"]


def test_checkpoints_resume_after_the_interval(stub: tuple[Path, StubDaemon]) -> None:
    home, daemon = stub
    chat = Chat(home / "session.jsonl")
    turn(home, chat)
    stamp = next((home / hook.STATE_DIR_NAME).glob("checkpointed-*"))
    old = stamp.stat().st_mtime - hook.CHECKPOINT_INTERVAL_SECONDS - 1
    os.utime(stamp, (old, old))
    turn(home, chat)
    turn(home, chat)
    assert ops(daemon) == ["checkpoint", "checkpoint"]


def test_compressed_since_reads_only_what_it_should(tmp_path: Path) -> None:
    chat = Chat(tmp_path / "session.jsonl")
    start = chat.path.stat().st_size
    chat.compress()
    assert compressed_since(str(chat.path), start)
    after = chat.path.stat().st_size
    chat.prompt()  # the rollback repeats the snapshot under its old id
    assert not compressed_since(str(chat.path), after)
    assert not compressed_since(str(tmp_path / "missing.jsonl"), 0)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert not compressed_since(str(fifo), 0)  # never opened: it would block the hook


@pytest.mark.parametrize("chunk", [5, 16, 61, 1 << 20])
def test_an_old_snapshot_is_found_across_read_chunks(
    tmp_path: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gemini_harness, "_CHUNK", chunk)
    chat = Chat(tmp_path / "session.jsonl")
    chat.compress()
    for _ in range(3):
        chat.prompt()
    window = chat.path.stat().st_size
    chat.prompt()  # repeats the snapshot of the compression, far back in the file
    assert not compressed_since(str(chat.path), window)
    chat.compress()
    assert compressed_since(str(chat.path), window)

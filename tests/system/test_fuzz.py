"""Hostile and broken input: property-based fuzzing of the three transcript parsers, Gemini's
whole-document parser, path detection, the tailer and the hook's stdin, plus deeply nested,
huge and binary records, and malformed, silent, endless and massively parallel socket
clients. Never a crash, never unbounded memory, the daemon always lives.

FUZZ_EXAMPLES scales every property (default 100 examples each; bench runs use thousands):
    FUZZ_EXAMPLES=5000 python -m pytest tests/system/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.daemon import DaemonProcess
from support.examples import examples

from recallnest.core.errors import TranscriptError
from recallnest.core.models import AGENTS, Event, Retraction, ToolUse, Turn
from recallnest.ingest import tail, transcripts
from recallnest.ingest.pipeline import FileReport, Source, ingest_file
from recallnest.integrations import hook
from recallnest.integrations.harness import for_agent
from recallnest.server import protocol
from recallnest.store import Batch

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=examples(EXAMPLES),
    deadline=None,  # a shared, loaded machine: no wall-clock limits
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# For properties that only read a function-scoped fixture (a path), never mutate it.
FUZZ_READING_A_FIXTURE = settings(
    FUZZ, suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.function_scoped_fixture]
)
PATHS = {
    "claude": "/h/.claude/projects/-work-app/3f1c.jsonl",
    "codex": "/h/.codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-ab.jsonl",
    "gemini": "/h/.gemini/tmp/abc/chats/session-2026-01-01T00-00-ab.jsonl",
}
MAX_STATE_BYTES = 4_000_000  # far above any sane state, far below "unbounded"

# ---- strategies ---------------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=60),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=25,
)
texts = st.text(max_size=200)
blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image", "x"])},
    optional={
        "text": texts | json_values,
        "id": texts,
        "name": st.sampled_from(["Bash", "Read", "Edit", "shell", "x"]) | texts,
        "input": st.dictionaries(st.sampled_from(["command", "file_path", "paths"]), json_values)
        | json_values,
        "content": json_values,
    },
)
contents = texts | st.lists(blocks, max_size=4) | json_values
ids = st.sampled_from(["u1", "u2", "u3", "m1", "i1", "g1"]) | texts | st.none()
times = st.sampled_from(["2026-01-01T00:00:00Z", "2026-13-45T99:99:99Z", "", "yesterday"]) | (
    json_values
)

claude_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "summary", "system", "attachment", "x"])},
    optional={
        "uuid": ids,
        "parentUuid": ids,
        "sessionId": ids,
        "timestamp": times,
        "cwd": texts | json_values,
        "isSidechain": json_values,
        "isMeta": json_values,
        "isCompactSummary": json_values,
        "summary": texts,
        "retractedMessageUuids": st.lists(ids) | json_values,
        "message": st.fixed_dictionaries(
            {},
            optional={
                "role": st.sampled_from(["user", "assistant", "x"]) | json_values,
                "id": ids,
                "content": contents,
                "model": texts,
            },
        )
        | json_values,
        "attachment": json_values,
    },
)
codex_payloads = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "function_call", "user_message", "agent_message", "x"])},
    optional={
        "role": st.sampled_from(["user", "assistant", "developer"]) | json_values,
        "id": ids,
        "content": st.lists(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["input_text", "output_text", "x"])},
                optional={"text": texts | json_values},
            ),
            max_size=3,
        )
        | json_values,
        "message": texts | json_values,
        "name": texts,
        "arguments": texts | st.builds(json.dumps, json_values),
        "call_id": ids,
        "cwd": texts,
        "num_turns": json_values,
    },
)
codex_records = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["session_meta", "turn_context", "response_item", "event_msg", "compacted", "x"]
            ),
            "payload": codex_payloads | json_values,
        },
        optional={"timestamp": times},
    ),
    st.dictionaries(st.sampled_from(["id", "type", "record_type", "role"]), json_values),
)
gemini_records = st.one_of(
    st.fixed_dictionaries(
        {"id": ids, "type": st.sampled_from(["user", "gemini", "info", "error", "x"])},
        optional={
            "content": contents,
            "timestamp": times,
            "toolCalls": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={"id": ids, "name": texts, "args": json_values},
                ),
                max_size=3,
            )
            | json_values,
        },
    ),
    st.fixed_dictionaries({"$set": json_values | st.dictionaries(texts, json_values)}),
    st.fixed_dictionaries({"$rewindTo": ids}),
    st.fixed_dictionaries({"sessionId": ids}, optional={"projectHash": texts}),
)
RECORDS = {"claude": claude_records, "codex": codex_records, "gemini": gemini_records}


@st.composite
def lines_of(draw: st.DrawFn, agent: str) -> list[bytes]:
    """Lines of one transcript: mostly plausible records, some cut short, some raw bytes."""
    out = []
    for record in draw(st.lists(RECORDS[agent], max_size=12)):
        line = json.dumps(record, ensure_ascii=draw(st.booleans())).encode()
        mutation = draw(st.sampled_from(["keep", "keep", "keep", "truncate", "garble"]))
        if mutation == "truncate":
            line = line[: draw(st.integers(0, len(line)))]
        elif mutation == "garble":
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.binary(max_size=8)) + line[at:]
        out.append(line.replace(b"\n", b" "))
    return out


# ---- parsers ------------------------------------------------------------------------------------


def feed_all(agent: str, lines: list[bytes], restart_every: int = 0) -> list[Event]:
    """Feed lines, optionally handing the state over to a fresh parser every few lines."""
    parser = transcripts.new_parser(agent, PATHS[agent])
    events: list[Event] = []
    offset = 0
    for n, line in enumerate(lines, 1):
        events.extend(parser.feed(line, offset))
        offset += len(line) + 1
        state = parser.state()
        encoded = json.dumps(state)
        assert len(encoded) < MAX_STATE_BYTES
        if restart_every and n % restart_every == 0:
            parser = transcripts.new_parser(agent, PATHS[agent], json.loads(encoded))
    for event in events:
        assert isinstance(event, Turn | ToolUse | Retraction)
        if isinstance(event, Turn):
            assert event.agent == agent and isinstance(event.text, str) and event.text.strip()
            event.text.encode("utf-8")  # storable: no lone surrogates
    return events


@pytest.mark.parametrize("agent", AGENTS)
@FUZZ
@given(data=st.data())
def test_parsers_survive_plausible_and_broken_records(agent: str, data: st.DataObject) -> None:
    lines = data.draw(lines_of(agent))
    feed_all(agent, lines, restart_every=data.draw(st.integers(0, 4)))


@pytest.mark.parametrize("agent", AGENTS)
@FUZZ
@given(lines=st.lists(st.binary(max_size=300), max_size=20))
def test_parsers_survive_arbitrary_bytes(agent: str, lines: list[bytes]) -> None:
    feed_all(agent, [line.replace(b"\n", b"") for line in lines], restart_every=3)


@pytest.mark.parametrize("agent", AGENTS)
@FUZZ
@given(state=json_values)
def test_parsers_survive_garbage_state(agent: str, state: Any) -> None:
    state_map = state if isinstance(state, dict) else {"v": 1, "x": state}
    parser = transcripts.new_parser(agent, PATHS[agent], state_map)
    parser.feed(b'{"type":"user","message":{"role":"user","content":"hi"}}', 0)
    json.dumps(parser.state())


def nested(depth: int, inner: str = '"x"') -> str:
    return "[" * depth + inner + "]" * depth


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("depth", [500, 950, 10_000, 100_000])
def test_parsers_survive_deep_nesting(agent: str, depth: int) -> None:
    deep = nested(depth)
    lines = [
        deep.encode(),
        f'{{"type":"user","message":{{"role":"user","content":{deep}}}}}'.encode(),
        f'{{"id":"g1","type":"user","content":{deep}}}'.encode(),
        f'{{"type":"response_item","payload":{{"type":"message","role":"user","content":{deep}}}}}'.encode(),
        ('{"a":' * depth + "1" + "}" * depth).encode(),
    ]
    feed_all(agent, lines)


@pytest.mark.parametrize("agent", AGENTS)
def test_parsers_take_a_huge_record_in_bounded_memory(agent: str) -> None:
    text = "zebra " * 800_000  # 4.8 MB of text in one record
    line = {
        "claude": {"type": "user", "uuid": "u1", "message": {"role": "user", "content": text}},
        "codex": {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": text}],
            },
        },
        "gemini": {"id": "g1", "type": "user", "content": [{"text": text}]},
    }[agent]
    raw = json.dumps(line).encode()
    tracemalloc.start()
    try:
        events = feed_all(agent, [raw, raw[: len(raw) // 2], b"\xff" * 1000])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert any(isinstance(e, Turn) for e in events)
    assert peak < 20 * len(raw)  # a few copies of the line, not a blow-up


def test_invalid_utf8_inside_a_record_is_skipped_or_replaced() -> None:
    for agent in AGENTS:
        parser = transcripts.new_parser(agent, PATHS[agent])
        parser.feed(
            b'{"type":"user","message":{"role":"user","content":"\xff\xfe\xed\xa0\x80"}}', 0
        )
        parser.feed(b'{"id":"g1","type":"user","content":"\xc3\x28 bad"}', 10)
        parser.feed(
            '{"type":"user","message":{"content":"\ud800 lone"}}'.encode("utf-8", "surrogatepass"),
            20,
        )
        json.dumps(parser.state())


@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=2000), st.builds(lambda v: json.dumps(v).encode(), json_values)
    )
)
def test_gemini_documents_parse_or_raise_transcript_error(data: bytes) -> None:
    try:
        events = transcripts.parse_document(
            "gemini", PATHS["gemini"].replace(".jsonl", ".json"), data
        )
    except TranscriptError:
        return
    assert all(isinstance(e, Turn | ToolUse | Retraction) for e in events)


@FUZZ
@given(
    doc=st.fixed_dictionaries(
        {"sessionId": ids, "messages": st.lists(gemini_records, max_size=6) | json_values},
        optional={"summary": texts | json_values, "projectHash": texts},
    )
)
def test_gemini_documents_with_plausible_shapes(doc: dict[str, Any]) -> None:
    path = PATHS["gemini"].replace(".jsonl", ".json")
    with contextlib.suppress(TranscriptError):
        transcripts.parse_document("gemini", path, json.dumps(doc).encode())


def test_gemini_document_nested_ten_thousand_deep() -> None:
    path = PATHS["gemini"].replace(".jsonl", ".json")
    for depth in (950, 10_000):
        message = f'{{"id":"g1","type":"user","content":{nested(depth)}}}'
        doc = f'{{"sessionId":"s","messages":[{message}]}}'
        with contextlib.suppress(TranscriptError):
            transcripts.parse_document("gemini", path, doc.encode())


@FUZZ
@given(
    path=st.text(max_size=120)
    | st.lists(
        st.sampled_from(
            [
                "projects",
                "chats",
                "sessions",
                "..",
                "x",
                "rollout-1.jsonl",
                "session-1.json",
                "a.jsonl",
                "",
            ]
        ),
        max_size=8,
    ).map("/".join)
)
def test_detect_never_raises(path: str) -> None:
    assert transcripts.detect(path) in (None, *AGENTS)


# ---- the tailer ---------------------------------------------------------------------------------

CAP = 24  # MAX_LINE_BYTES under test
lines_st = st.lists(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b""))
    | st.sampled_from([b"", b"\r", b" ", b"x\r"]),
    max_size=25,
)


def expected(data: bytes) -> tuple[list[tuple[int, bytes]], int, int]:
    """(returned lines, oversized count, final offset) the tailer must produce for `data`."""
    out, oversized, pos = [], 0, 0
    while (nl := data.find(b"\n", pos)) >= 0:
        line = data[pos:nl]
        line = line[:-1] if line.endswith(b"\r") else line
        if len(line) > CAP:
            oversized += 1
        elif line.strip():
            out.append((pos, line))
        pos = nl + 1
    return out, oversized, pos


@FUZZ
@given(
    lines=lines_st,
    tail_bytes=st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=8),
    budgets=st.lists(st.integers(min_value=1, max_value=100), min_size=1, max_size=5),
    chunk=st.integers(min_value=1, max_value=40),
)
def test_tailer_reads_every_line_once_across_appends(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    tail_bytes: bytes,
    cuts: list[int],
    budgets: list[int],
    chunk: int,
) -> None:
    """The file grows in arbitrary pieces (half lines included) while it is read with small
    budgets and chunks: every complete line comes back once, in order, with its offset;
    lines over the cap are counted, never returned; the cursor stops at the unfinished line."""
    data = b"".join(line + b"\n" for line in lines) + tail_bytes
    path = tmp_path_factory.mktemp("tail") / "t.jsonl"
    path.write_bytes(b"")
    got: list[tuple[int, bytes]] = []
    oversized = 0
    offset = 0
    pieces = sorted({min(c, len(data)) for c in cuts} | {len(data)})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tail, "MAX_LINE_BYTES", CAP)
        mp.setattr(tail, "READ_CHUNK", chunk)
        written = 0
        for k, end in enumerate(pieces):
            with path.open("ab") as fh:
                fh.write(data[written:end])
            written = end
            while True:  # read until no progress, as ingest does
                result = tail.read_lines(str(path), offset, budgets[k % len(budgets)])
                assert all(len(line) <= CAP for _, line in result.lines)
                got.extend(result.lines)
                oversized += result.oversized
                if result.next_offset == offset:
                    break
                assert result.next_offset > offset
                offset = result.next_offset
    want, want_oversized, want_offset = expected(data)
    assert got == want and oversized == want_oversized and offset == want_offset


def test_tailer_skips_a_huge_line_in_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail, "MAX_LINE_BYTES", 64 * 1024)
    path = tmp_path / "t.jsonl"
    with path.open("wb") as fh:
        fh.write(b"first\n")
        for _ in range(40):  # one 40 MB line
            fh.write(b"a" * (1024 * 1024))
        fh.write(b"\nlast\n")
    tracemalloc.start()
    try:
        result = tail.read_lines(str(path), 0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [line for _, line in result.lines] == [b"first", b"last"] and result.oversized == 1
    assert peak < 4 * tail.READ_CHUNK + 4 * tail.MAX_LINE_BYTES  # never the 40 MB


def test_an_unfinished_huge_line_waits_without_loading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tail, "MAX_LINE_BYTES", 1024)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"ok\n" + b"b" * 3_000_000)
    first = tail.read_lines(str(path), 0)
    assert [line for _, line in first.lines] == [b"ok"] and first.next_offset == 3
    again = tail.read_lines(str(path), first.next_offset)
    assert again.lines == [] and again.next_offset == 3  # waits for the newline
    with path.open("ab") as fh:
        fh.write(b"\nafter\n")
    done = tail.read_lines(str(path), 3)
    assert [line for _, line in done.lines] == [b"after"] and done.oversized == 1


def test_a_line_longer_than_the_read_budget_still_arrives(tmp_path: Path) -> None:
    """Regression: a 5 MB record (under the cap, over the 4 MB flush budget) once stalled
    the whole file forever."""
    path = tmp_path / "s.jsonl"
    big = {
        "type": "user",
        "uuid": "u0",
        "sessionId": "s",
        "message": {"role": "user", "content": "big " * 1_300_000},
    }
    small = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "after the big one"},
    }
    path.write_text(json.dumps(big) + "\n" + json.dumps(small) + "\n")
    turns: list[Turn] = []

    def apply(batch: Batch) -> int:
        turns.extend(batch.turns)
        return len(batch.turns)

    report = ingest_file(Source(str(path), "claude"), None, apply)
    assert [t.record_id for t in turns] == ["u0", "u1"] and report.errors == []


@pytest.mark.parametrize("agent", AGENTS)
@FUZZ
@given(data=st.data())
def test_ingest_pipeline_survives_hostile_files(
    agent: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """tail → parse → redact → batch over hostile content, with a tiny line cap."""
    lines = data.draw(lines_of(agent)) + data.draw(st.lists(st.binary(max_size=200), max_size=5))
    folder = tmp_path_factory.mktemp("ingest")
    path = folder / "t.jsonl"
    path.write_bytes(b"\n".join(line.replace(b"\n", b"") for line in lines) + b"\n")
    batches: list[Batch] = []

    def apply(batch: Batch) -> int:
        batches.append(batch)
        return len(batch.turns)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tail, "MAX_LINE_BYTES", data.draw(st.sampled_from([64, 512, 8 * 1024 * 1024])))
        report = ingest_file(Source(str(path), agent), None, apply, flush_bytes=256)
    assert isinstance(report, FileReport) and report.errors == []
    assert batches and batches[-1].cursors[-1].byte_offset == path.stat().st_size


# ---- hook stdin ---------------------------------------------------------------------------------


def run_hook_in_process(agent: str, stdin: Any, home: Path) -> str:
    out = io.StringIO()
    env = {"RECALLNEST_HOME": str(home)}
    assert hook.main(["session-start", "--agent", agent], stdin, out, env) == 0
    return out.getvalue()


@pytest.mark.parametrize("agent", AGENTS)
@FUZZ_READING_A_FIXTURE
@given(
    stdin=st.text(max_size=300)
    | st.builds(json.dumps, json_values)
    | st.builds(
        json.dumps,
        st.dictionaries(
            st.sampled_from(["cwd", "session_id", "source", "hook_event_name", "transcript_path"]),
            json_values,
        ),
    )
)
def test_hook_stdin_never_breaks_the_hook(agent: str, stdin: str, recallnest_home: Path) -> None:
    """No daemon: whatever arrives, exit 0 and nothing but the agent's empty form."""
    assert run_hook_in_process(agent, io.StringIO(stdin), recallnest_home) in (
        "",
        for_agent(agent).empty,
    )


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\xff\xfe\x00\x01 not utf-8 at all",
        b'{"cwd": "\xff\xfe", "session_id": "\xc3\x28"',
        b"not json",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b'{"cwd": "' + b"x" * 2_000_000 + b'"}',
        b"\x00" * 4096,
    ],
    ids=["empty", "binary", "bad-utf8", "not-json", "deep-list", "deep-object", "2mb", "nuls"],
)
def test_hook_stdin_bytes_through_a_real_pipe(
    agent: str, raw: bytes, recallnest_home: Path
) -> None:
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=_write_and_close, args=(write_fd, raw))
    writer.start()
    try:
        with open(read_fd, encoding="utf-8", errors="strict") as stdin:
            out = run_hook_in_process(agent, stdin, recallnest_home)
    finally:
        writer.join()
    assert out in ("", for_agent(agent).empty)


def _write_and_close(fd: int, data: bytes) -> None:
    try:
        with open(fd, "wb") as fh:
            fh.write(data)
    except BrokenPipeError:  # the hook stops reading past its byte cap
        pass


# ---- the daemon's socket ------------------------------------------------------------------------


@pytest.fixture
def proc(recallnest_home: Path) -> Iterator[DaemonProcess]:
    d = DaemonProcess(recallnest_home.parent / "d")
    yield d
    d.stop()


def connect(proc: DaemonProcess) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(proc.sock)
    return s


@pytest.mark.slow
def test_silent_clients_do_not_block_the_daemon(proc: DaemonProcess) -> None:
    proc.start()
    idle: list[socket.socket] = []
    try:
        for _ in range(20):
            idle.append(connect(proc))  # connect, send nothing, hold the line
        idle[0].sendall(b'{"op": "pi')  # half a request, never finished
        assert proc.request("ping") == {"pong": True}
        hits = proc.request("search", query="anything")
        assert hits == []
    finally:
        for s in idle:
            s.close()
    assert proc.request("ping") == {"pong": True}


@pytest.mark.slow
def test_a_never_ending_line_gets_an_error_and_the_daemon_lives(proc: DaemonProcess) -> None:
    proc.start()
    reply = b""
    sent = 0
    with connect(proc) as s:
        s.setblocking(False)
        deadline = time.monotonic() + 60
        block = b"a" * 65536
        while not reply.endswith(b"\n") and time.monotonic() < deadline:
            try:
                reply += s.recv(65536)
                continue
            except BlockingIOError:
                pass
            if sent < 64 * 1024 * 1024:
                try:
                    sent += s.send(block)
                except BlockingIOError:
                    time.sleep(0.01)
                except (BrokenPipeError, ConnectionResetError):
                    sent = 64 * 1024 * 1024  # the daemon hung up after answering
            else:
                time.sleep(0.01)
    message = json.loads(reply)
    assert message["ok"] is False and "too large" in message["error"]
    assert sent > protocol.MAX_REQUEST_BYTES
    assert proc.request("ping") == {"pong": True}


@pytest.mark.slow
def test_two_hundred_parallel_connections_are_all_answered(proc: DaemonProcess) -> None:
    proc.start()
    proc.request("remember", text="the ibis nests near the river")
    results: list[object] = [None] * 200
    barrier = threading.Barrier(200)

    def client(k: int) -> None:
        barrier.wait()
        try:
            op, args = ("search", {"query": "ibis"}) if k % 2 else ("ping", {})
            results[k] = protocol.request(proc.sock, op, args, 60.0)
        except protocol.ProtocolError as exc:
            results[k] = exc

    threads = [threading.Thread(target=client, args=(k,)) for k in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    failures = [r for r in results if isinstance(r, Exception)]
    assert failures == []
    assert all(r == {"pong": True} for r in results[0::2])
    assert all(isinstance(r, list) and r[0]["text"].startswith("the ibis") for r in results[1::2])
    assert proc.request("ping") == {"pong": True}

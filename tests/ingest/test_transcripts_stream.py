"""Streaming parse of legacy Gemini `.json` sessions (issue 18.9): the incremental JSON reader
(`transcripts.jsonstream`) gives exactly what `json.loads` gives, `iter_document` gives the
same events as the whole-file `parse_document`, a half-written file loses none of its complete
messages, and memory holds one batch, not the document."""

from __future__ import annotations

import contextlib
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.paths import TESTS

from recallnest.core.config import Settings
from recallnest.core.errors import TranscriptError
from recallnest.core.models import Event, Turn
from recallnest.engine import Engine
from recallnest.ingest.pipeline import Source, ingest_file
from recallnest.ingest.transcripts import iter_document, parse_document
from recallnest.ingest.transcripts.jsonstream import StreamError, members

FIXTURES = TESTS / "fixtures" / "transcripts"
LEGACY = FIXTURES / "gemini" / "agent-sessions__gemini_legacy_session.json"
PATH = "/h/.gemini/tmp/app/chats/session-2026-01-16T18-34-3739ef95.json"


def session(messages: int, session_first: bool = True, text: str = "note") -> bytes:
    """A legacy session as Gemini ≤0.38 wrote it (`JSON.stringify(record, null, 2)`)."""
    items = []
    for k in range(messages):
        kind = "user" if k % 2 == 0 else "gemini"
        item: dict[str, object] = {"id": f"m{k}", "timestamp": "2026-01-16T18:34:01.000Z"}
        item |= {"type": kind, "content": f'{text} {k}: port 8443, ünïcödé 中文 "q" \\ {k}'}
        if kind == "gemini":
            call = {"id": f"c{k}", "name": "read_file", "args": {"absolute_path": f"/a/{k}.py"}}
            item |= {"toolCalls": [call], "tokens": {"input": k, "total": 1.5e3}}
        items.append(item)
    head = {"sessionId": "sess-legacy-1", "projectHash": "ab", "startTime": "2026-01-16T18:34Z"}
    document = (head | {"messages": items}) if session_first else ({"messages": items} | head)
    document |= {"summary": "Port work", "lastUpdated": "2026-01-16T18:40:00.000Z"}
    return json.dumps(document, indent=2, ensure_ascii=False).encode()


def chunked(data: bytes, size: int) -> Iterator[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def streamed(data: bytes, size: int = 1 << 16) -> list[Event]:
    return [e for batch in iter_document("gemini", PATH, chunked(data, size)) for e in batch]


def rebuilt(data: bytes, size: int) -> dict[str, object]:
    """The document put back together from `members`: must equal json.loads."""
    document: dict[str, object] = {}
    for name, value in members(chunked(data, size), "messages"):
        if name == "messages[]":
            document.setdefault("messages", [])
            assert isinstance(document["messages"], list)
            document["messages"].append(value)
        else:
            document[name] = value
    return document


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 4096])
def test_members_decode_exactly_what_json_loads_does(size: int) -> None:
    samples = [
        LEGACY.read_bytes(),
        session(12),
        b'\xef\xbb\xbf{"a": 12345678901234567890, "messages": [1, 2.5e-3, true, null, [], {}]}',
        b'{"messages": {"not": "an array"}, "n": -0.0}',
        b'{"messages": []}',
        b"{}",
    ]
    for data in samples:
        loaded = json.loads(data.decode("utf-8-sig"))
        if loaded.get("messages") == []:  # an empty array yields no element
            del loaded["messages"]
        assert rebuilt(data, size) == loaded


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"[]",
        b'{"a": 1,}',
        b'{"a" 1}',
        b'{"a": 1} {"b": 2}',
        b'{"a": "\xff"}',
        b'{"messages": [1 2]}',
    ],
)
def test_bad_documents_raise_stream_error(data: bytes) -> None:
    with pytest.raises(StreamError):
        list(members(chunked(data, 3), "messages"))


@pytest.mark.parametrize("size", [1, 5, 97, 1 << 20])
def test_streaming_gives_the_events_of_the_whole_file_parse(size: int) -> None:
    for data in (LEGACY.read_bytes(), session(300), session(40, session_first=False)):
        assert streamed(data, size) == parse_document("gemini", PATH, data)


def test_the_generated_session_really_has_every_kind_of_event() -> None:
    events = streamed(session(300))
    turns = [e for e in events if isinstance(e, Turn)]
    assert len(turns) == 301 and turns[-1].kind == "summary"
    assert {t.session_id for t in turns} == {"sess-legacy-1"}
    assert len(events) == 301 + 150  # and one ToolUse per model message


def test_a_half_written_file_keeps_every_complete_message() -> None:
    data = session(30)
    whole = [e for e in parse_document("gemini", PATH, data) if isinstance(e, Turn)]
    starts = [data.index(f'"id": "m{k}"'.encode()) for k in range(30)]
    for cut in range(starts[0], len(data) - 1, 37):
        got: list[Event] = []
        with pytest.raises(TranscriptError):
            for batch in iter_document("gemini", PATH, chunked(data[:cut], 64)):
                got.extend(batch)
        complete = sum(1 for k in range(29) if starts[k + 1] < cut)  # message k ended before
        kept = [e for e in got if isinstance(e, Turn)]
        assert kept[:complete] == whole[:complete], f"cut at byte {cut}"
        assert kept == whole[: len(kept)]


def test_streaming_memory_is_a_fraction_of_the_whole_file_parse() -> None:
    data = session(6000, text="x" * 300)  # ~4 MB
    tracemalloc.start()
    parse_document("gemini", PATH, data)
    whole_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    for _batch in iter_document("gemini", PATH, chunked(data, 1 << 16)):
        pass
    stream_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert stream_peak * 3 < whole_peak, (stream_peak, whole_peak)


def test_ingest_stores_the_complete_part_then_the_rest_once(tmp_path: Path) -> None:
    settings = Settings.load(
        flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={"HOME": str(tmp_path)}
    )
    chats = tmp_path / ".gemini" / "tmp" / "app" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-01-16T18-34-3739ef95.json"
    data = session(600)
    path.write_bytes(data[: len(data) // 2])
    source = Source(str(path), "gemini")
    engine = Engine.open(settings)
    try:
        half = ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
        assert half.errors and half.new_turns > 250
        assert engine.store.cursor(str(path)) is None  # read again, whole, next time
        path.write_bytes(data)
        rest = ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
        again = ingest_file(source, engine.store.cursor(str(path)), engine.ingest_batch)
        assert rest.errors == [] and again.new_turns == 0
        assert half.new_turns + rest.new_turns == 601
        assert engine.store.counts()["turns"] == 601
    finally:
        engine.close()


# --- never anything but TranscriptError, whatever the bytes -----------------------------------

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"id": st.sampled_from(["m1", "m2", "m3"]), "type": st.sampled_from(["user", "gemini", "x"])},
    optional={"content": values | st.text(max_size=30), "displayContent": values},
)
documents = st.fixed_dictionaries(
    {"messages": st.lists(messages | values, max_size=6) | values},
    optional={"sessionId": values, "summary": values, "lastUpdated": values},
)


@settings(max_examples=examples(150), deadline=None)
@given(document=documents, size=st.integers(min_value=1, max_value=40))
def test_any_document_streams_to_the_whole_file_events(
    document: dict[str, object], size: int
) -> None:
    data = json.dumps(document).encode()
    assert streamed(data, size) == parse_document("gemini", PATH, data)


@settings(max_examples=examples(150), deadline=None)
@given(data=st.binary(max_size=300) | documents.map(lambda d: json.dumps(d).encode()[:-3]))
def test_any_bytes_stream_or_raise_transcript_error(data: bytes) -> None:
    try:
        streamed(data, 7)
    except TranscriptError:
        return


def test_deep_nesting_is_a_transcript_error_not_a_crash() -> None:
    for depth in (950, 10_000):
        content = "[" * depth + "]" * depth
        doc = f'{{"sessionId":"s","messages":[{{"id":"g1","type":"user","content":{content}}}]}}'
        with contextlib.suppress(TranscriptError):
            streamed(doc.encode(), 4096)

"""tail: complete lines only, restarts on truncation/rewrite, oversized lines skipped."""

from __future__ import annotations

import os
from pathlib import Path

from recallnest.ingest import tail
from recallnest.ingest.tail import FileState, fingerprint, read_lines, restart_reason


def test_half_line_waits_for_its_newline(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'{"a":1}\n{"b":')
    chunk = read_lines(str(f), 0)
    assert chunk.lines == [(0, b'{"a":1}')]
    assert chunk.next_offset == 8
    with f.open("ab") as fh:
        fh.write(b"2}\n")
    chunk = read_lines(str(f), chunk.next_offset)
    assert chunk.lines == [(8, b'{"b":2}')]
    assert chunk.next_offset == f.stat().st_size


def test_crlf_and_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"one\r\n\n  \ntwo\n")
    chunk = read_lines(str(f), 0)
    assert [line for _, line in chunk.lines] == [b"one", b"two"]
    assert chunk.lines[1][0] == 9


def test_max_bytes_stops_at_a_line_boundary(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"".join(b"x" * 99 + b"\n" for _ in range(50)))
    first = read_lines(str(f), 0, max_bytes=1)
    assert first.next_offset % 100 == 0 and first.lines
    rest = read_lines(str(f), first.next_offset)
    assert len(first.lines) + len(rest.lines) == 50


def test_oversized_line_is_skipped_not_loaded(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tail, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(tail, "READ_CHUNK", 256)
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"a\n" + b"y" * 5000 + b"\nb\n")
    chunk = read_lines(str(f), 0)
    assert [line for _, line in chunk.lines] == [b"a", b"b"]
    assert chunk.oversized == 1
    assert chunk.next_offset == f.stat().st_size


def test_unfinished_oversized_line_waits(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(tail, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(tail, "READ_CHUNK", 256)
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"a\n" + b"y" * 5000)
    chunk = read_lines(str(f), 0)
    assert [line for _, line in chunk.lines] == [b"a"]
    assert chunk.next_offset == 2


def _state(path: Path) -> FileState:
    size = path.stat().st_size
    return FileState(size, path.stat().st_ino, fingerprint(str(path), size))


def test_append_continues(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"one\n")
    known = _state(f)
    with f.open("ab") as fh:
        fh.write(b"two\n")
    assert restart_reason(str(f), known) is None  # read on from byte 4


def test_truncation_restarts_from_zero(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"one\ntwo\n")
    known = _state(f)
    f.write_bytes(b"x\n")
    assert restart_reason(str(f), known) is not None


def test_rewrite_by_rename_restarts(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"one\n")
    known = _state(f)
    other = tmp_path / "new.jsonl"
    other.write_bytes(b"one\ntwo\nthree\n")
    os.replace(other, f)
    assert restart_reason(str(f), known) is not None


def test_rewrite_in_place_with_new_head_restarts(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"first line\n")
    known = _state(f)
    with f.open("r+b") as fh:
        fh.write(b"FIRST LINE\nand more\n")
    assert str(restart_reason(str(f), known)).endswith(tail.IN_PLACE)


def test_a_same_size_change_outside_the_sampled_bytes_restarts(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    lines = [b"line %06d about the harbour crane\n" % k for k in range(4000)]  # ~140 KB
    f.write_bytes(b"".join(lines))
    known = _state(f)
    middle = sum(map(len, lines[:1500]))  # between the sampled blocks
    assert all(
        not (s <= middle < s + tail.SAMPLE_BYTES) for s in tail._sample_starts(known.byte_offset)
    )
    with f.open("r+b") as fh:
        fh.seek(middle)
        fh.write(b"LINE")
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 1_000_000))
    assert restart_reason(str(f), known) is not None


def test_an_untouched_file_of_the_same_size_does_not_restart(tmp_path: Path) -> None:
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"one\ntwo\n")
    known = _state(f)
    assert restart_reason(str(f), known) is None

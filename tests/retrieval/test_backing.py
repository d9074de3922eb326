"""The index's vectors and flat postings in private file-backed mappings (decision 0035): the
same answers as anonymous arrays, pages handed back by a release and read again by the next
query, growth without an anonymous copy, and anonymous arrays (with a log line) wherever a
file cannot be used."""

from __future__ import annotations

import errno
import logging
import mmap
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from support.indexing import load_postings

from recallnest.retrieval import backing as backing_mod
from recallnest.retrieval.backing import FileBacking
from recallnest.retrieval.index import SearchIndex
from recallnest.store.types import IndexedDoc

ROWS = 3_000
DIM = 32
TERMS = 400
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(autouse=True)
def small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test indexes are a few hundred KiB: file-back them all the same."""
    monkeypatch.setattr(backing_mod, "MIN_FILE_BYTES", 0)


def loaded(index: SearchIndex, rows: int = ROWS) -> SearchIndex:
    """An index as Engine.open builds it: rows, postings streamed, vectors."""
    rng = np.random.default_rng(5)
    docs = np.arange(1, rows + 1, dtype=np.int64)
    index.load_rows(
        "turn", docs, [f"t{k}" for k in range(rows)], np.full(rows, 12, dtype=np.int64),
        np.arange(rows, dtype=np.float64), {"agent": ["claude"] * rows},
    )  # fmt: skip
    tids = rng.integers(0, TERMS, rows * 12)
    owners = np.repeat(docs, 12)
    load_postings(index, [f"w{k}" for k in range(TERMS)], tids, owners, np.ones(len(tids)))
    index.set_model("m", DIM)
    index.set_vectors(docs, rng.standard_normal((rows, DIM)).astype(np.float32))
    return index


def row(doc: int, *terms: str) -> IndexedDoc:
    return IndexedDoc(
        doc=doc, kind="turn", id=f"n{doc}", terms=dict.fromkeys(terms, 1), length=len(terms),
        facets={"agent": "claude"}, ts=float(doc),
    )  # fmt: skip


def answers(index: SearchIndex) -> tuple[np.ndarray, np.ndarray]:
    query = np.random.default_rng(9).standard_normal(DIM).astype(np.float32)
    cosines, _ = index.cosine(query)
    return cosines, index.bm25(["w1", "w7", "w300"])


def resident_kib(array: np.ndarray) -> int:
    """Rss of the mapping that holds `array`, from /proc/self/smaps."""
    address = array.ctypes.data
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and not head.endswith(":"):
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= address < hi
        elif inside and head == "Rss:":
            return int(line.split()[1])
    raise AssertionError("no mapping holds the array")


def test_file_backed_arrays_answer_bit_for_bit_as_anonymous_ones(tmp_path: Path) -> None:
    plain = loaded(SearchIndex())
    backed = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    assert backed.file_backed() > 0 == plain.file_backed()
    for got, want in zip(answers(backed), answers(plain), strict=True):
        assert np.array_equal(got, want)
    assert list(tmp_path.iterdir()) == []  # the files have no name: nothing to trust later


def test_what_the_files_hold_is_the_vectors_and_the_postings(tmp_path: Path) -> None:
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    codes = ROWS * DIM  # int8 codes; their float32 scales stay anonymous, as do the rows
    assert index.file_backed() == codes + 2 * 2 * ROWS * 12  # + low bits and tf per posting


@linux_only
def test_a_release_drops_the_pages_and_a_query_reads_them_back(tmp_path: Path) -> None:
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    before = answers(index)
    vectors = index._vectors
    assert resident_kib(vectors) > 0
    assert index.release_pages() > 0
    assert resident_kib(vectors) == 0
    for got, want in zip(answers(index), before, strict=True):
        assert np.array_equal(got, want)
    assert resident_kib(vectors) > 0


def test_new_rows_grow_the_file_and_keep_the_old_rows(tmp_path: Path) -> None:
    store = FileBacking(tmp_path)
    index = loaded(SearchIndex(capacity=ROWS, backing=store))
    old = [index.vector_at(p) for p in range(0, ROWS, 97)]
    index.release_pages()  # growth after a release reads the rows from the file
    rng = np.random.default_rng(2)
    new_docs = list(range(ROWS + 1, ROWS + 501))
    index.add(row(d, "w1", "new") for d in new_docs)
    index.set_vectors(new_docs, rng.standard_normal((500, DIM)).astype(np.float32))
    assert store.holds(index._vectors)  # grown in its file, not copied to anonymous memory
    for p, vec in zip(range(0, ROWS, 97), old, strict=True):
        assert np.array_equal(index.vector_at(p), vec)
    assert index.vector_coverage() == (ROWS + 500, ROWS + 500)


def test_a_compaction_builds_its_postings_in_the_files(tmp_path: Path) -> None:
    store = FileBacking(tmp_path)
    indexes = loaded(SearchIndex(backing=store)), loaded(SearchIndex())
    for index in indexes:
        index.add([row(ROWS + 1, "w1", "w2")])
        index.bm25(["w1"])  # w1 now holds arrays of its own
        assert index.compact_postings(force=True)
    assert store.holds(indexes[0]._flat._low) and store.holds(indexes[0]._flat._tf)
    for got, want in zip(answers(indexes[0]), answers(indexes[1]), strict=True):
        assert np.array_equal(got, want)


def test_no_space_for_the_file_keeps_anonymous_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def full(fd: int, offset: int, length: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    caplog.set_level(logging.WARNING, logger="recallnest.retrieval.backing")
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    assert index.file_backed() == 0
    assert "No space left on device" in caplog.text
    assert caplog.text.count("anonymous memory") == 1  # said once, not per array
    for got, want in zip(answers(index), answers(loaded(SearchIndex())), strict=True):
        assert np.array_equal(got, want)
    assert index.release_pages() == 0


def test_a_nearly_full_disk_is_left_to_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(backing_mod, "FREE_MARGIN_BYTES", 1 << 60)  # more than any disk has
    caplog.set_level(logging.WARNING, logger="recallnest.retrieval.backing")
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    assert index.file_backed() == 0
    assert "a margin of" in caplog.text


def test_a_home_that_cannot_be_mapped_keeps_anonymous_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refused(*args: object, **kwargs: object) -> mmap.mmap:
        raise OSError(errno.ENODEV, "No such device")

    monkeypatch.setattr(backing_mod.mmap, "mmap", refused)
    caplog.set_level(logging.WARNING, logger="recallnest.retrieval.backing")
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    assert index.file_backed() == 0
    assert "No such device" in caplog.text
    assert np.array_equal(answers(index)[0], answers(loaded(SearchIndex()))[0])


def test_a_missing_home_keeps_anonymous_arrays(tmp_path: Path) -> None:
    index = loaded(SearchIndex(backing=FileBacking(tmp_path / "gone")))
    assert index.file_backed() == 0


def test_without_madvise_the_arrays_stay_anonymous(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(backing_mod, "_DONTNEED", None)
    caplog.set_level(logging.INFO, logger="recallnest.retrieval.backing")
    index = loaded(SearchIndex(backing=FileBacking(tmp_path)))
    assert index.file_backed() == 0
    assert "no madvise" in caplog.text
    assert index.release_pages() == 0


def test_a_failed_growth_moves_the_array_to_anonymous_memory_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FileBacking(tmp_path)
    index = loaded(SearchIndex(capacity=ROWS, backing=store))
    old = index.vector_at(ROWS - 1)

    def full(fd: int, offset: int, length: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    index.add([row(ROWS + 1, "w1")])
    assert not store.holds(index._vectors)
    assert np.array_equal(index.vector_at(ROWS - 1), old)

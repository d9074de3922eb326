"""After an upgrade whose redactor recognises more secrets, clean what the old one let through,
in the running daemon, without being asked (decision 0031).

The store records the fingerprint of the redactor its texts were last checked against
(`store_meta`, key "redactor"): a hash of the redaction modules' source, so any change to the
catalogue changes it with nobody having to bump a version. When the daemon finds another
fingerprint there (or none, in a store holding rows), it walks every text column of every table
with `recallnest audit secrets`' own logic (server/audit.py `classify` and `fix_rows`): in
chunks of CHUNK_ROWS rows, on the ingest thread while no new lines and no requests wait (one
chunk every BUSY_EVERY_SECONDS while requests keep coming), each chunk read, checked and fixed
under the store's writer lock, so a write never waits for more than one chunk and hooks are
answered throughout (scanning a 100k-turn home takes a minute or two on a loaded machine: too
long to hold the daemon's start for). A fixed turn or memory
gets its keyword postings rebuilt and its vectors dropped for re-embedding, as the audit does.

When the walk is done: the memory backup is exported again from the clean rows (which also
compacts the journal), every other file that keeps stored text (`backups/`, `snapshots/`,
`logs/`) is rewritten through the redactor, the database file is compacted if a row changed
(DuckDB keeps old values in freed blocks), and only then the new fingerprint is recorded. A
crash midway leaves the old fingerprint, so the next start walks again: rows fixed already
have nothing left to find, and the compaction still owed is remembered (`redactor_compact_owed`).
The caller reopens its engine when rows changed, so the search index and caches are read again
from the clean rows. One log line gives the counts, never a secret.

Rows are found again by rowid: when the row a chunk ended on is not where it was (a compaction
or DuckDB's vacuum renumbered the table meanwhile), that table is walked again from its start.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from recallnest.core import redact as redact_module
from recallnest.core.redact import redact
from recallnest.server.audit import classify, fix_rows, redact_value
from recallnest.server.backup import BACKUP_DIR_NAME, backup_path, replace_private, write_backup
from recallnest.store.audit import Row

if TYPE_CHECKING:
    from recallnest.engine import Engine
    from recallnest.store import Store

log = logging.getLogger(__name__)

FINGERPRINT_KEY = "redactor"
COMPACT_OWED_KEY = "redactor_compact_owed"
# Rows read, checked and fixed per hold of the writer lock: ~0.1 ms of regex a row, so another
# thread's write waits ~0.1 s (plus ~0.3 s of postings rebuild when the chunk fixed a turn or a
# memory, at 100k rows), and a chunk's query costs ~10 ms (rowid pushdown). 500 rows spent
# more on those queries than on the check; bench/bench_rescan.py.
CHUNK_ROWS = 1000
STEP_SECONDS = 1.0  # one call's budget; `keep_going` can end it sooner
# While requests keep coming (a web UI open, an MCP client polling), one chunk this often, so
# the walk still ends: ~0.1 s of work every 2 s beside the requests.
BUSY_EVERY_SECONDS = 2.0
# Read by the resume context: cleaned first.
FIRST_TABLES = ("memories", "checkpoints")
# Folders of the home whose files hold stored text besides the database. Not `sync/` (its
# keys, and its lines sealed under them), `install/` (copies of the agents' own settings) nor
# config.toml: those hold what the user put there on purpose.
TEXT_DIRS = (BACKUP_DIR_NAME, "snapshots", "logs")
LOG_DIRS = frozenset({"logs"})  # appended to while we run: rewritten in place


def redactor_fingerprint() -> str:
    """A hash of the redaction modules' source (recallnest/core/redact*.py)."""
    digest = hashlib.sha256()
    for path in sorted(Path(redact_module.__file__).parent.glob("redact*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


@dataclass
class _Walk:
    """Where the walk is: the tables left (name, key column, text columns), the rowid the
    current one was read up to and the last row read (to notice a renumbering)."""

    tables: list[tuple[str, str, list[str]]]
    after: int = -1  # rowids start at 0
    last: Row | None = None
    fixed: int = 0
    scanned: int = 0
    started: float = field(default_factory=time.monotonic)


class RedactionRecheck:
    """The daemon's background check of stored texts against the current redactor."""

    def __init__(self, home: Path, fingerprint: str | None = None) -> None:
        self.home = home
        self.fingerprint = fingerprint or redactor_fingerprint()
        self.done = False
        self.fixed = 0  # rows fixed by the finished walk
        self._walk: _Walk | None = None
        self._not_before = 0.0

    def pause(self, seconds: float) -> None:
        """No step for `seconds` (after a failure: the walk goes on from where it was)."""
        self._not_before = time.monotonic() + seconds

    def step(
        self,
        engine: Engine,
        keep_going: Callable[[], bool] = lambda: True,
        budget: float = STEP_SECONDS,
        busy: bool = False,
    ) -> bool:
        """Walk on for up to `budget` seconds, a chunk at a time while `keep_going()` (`busy`:
        one chunk, at most every BUSY_EVERY_SECONDS); at the end, clean the files and record
        the fingerprint. True once, when the walk finished having changed rows: the caller
        reopens its engine (index, caches)."""
        if self.done or time.monotonic() < self._not_before:
            return False
        if busy:
            self.pause(BUSY_EVERY_SECONDS)
            budget = 0.0
        store = engine.store
        if self._walk is None:
            if not self._due(store):
                self.done = True
                return False
            self._walk = _Walk(_ordered(store.text_schema()))
        walk = self._walk
        deadline = time.monotonic() + budget
        while walk.tables:
            self._chunk(store, walk)
            if time.monotonic() >= deadline or not keep_going():
                return False
        self._finish(engine, walk)
        return walk.fixed > 0

    def run(self, engine: Engine) -> bool:
        """The whole walk at once (tests, and a caller with nothing else to do)."""
        while not self.done:
            if self.step(engine, budget=float("inf")):
                return True
        return False

    # ---- the walk -----------------------------------------------------------------------------

    def _due(self, store: Store) -> bool:
        recorded = store.meta(FINGERPRINT_KEY)
        if recorded == self.fingerprint:
            return False
        if recorded is None and not any(store.counts().values()):
            store.set_meta({FINGERPRINT_KEY: self.fingerprint})  # a new store: nothing to check
            return False
        log.info("the redactor changed since the stored texts were checked: checking them")
        return True

    def _chunk(self, store: Store, walk: _Walk) -> None:
        """Read, check and fix the next chunk of the current table, under the writer lock."""
        table, key, columns = walk.tables[0]
        with store.write_locked():
            if walk.last is not None and _row_at(store, walk.tables[0], walk.last) != walk.last:
                walk.after = -1  # renumbered meanwhile: this table again from its start
            rows = store.text_chunk(table, key, columns, walk.after, CHUNK_ROWS)
            findings = classify(rows)
            if findings:
                if store.meta(COMPACT_OWED_KEY) is None:
                    store.set_meta({COMPACT_OWED_KEY: self.fingerprint})
                walk.fixed += fix_rows(store, findings)
            last = _row_at(store, walk.tables[0], rows[-1]) if rows else None  # as fixed
        walk.scanned += len(rows)
        if len(rows) < CHUNK_ROWS:
            walk.tables.pop(0)
            walk.after, walk.last = -1, None
        else:
            walk.after, walk.last = rows[-1][1], last

    def _finish(self, engine: Engine, walk: _Walk) -> None:
        """The files, the compaction if owed, then (only then) the new fingerprint."""
        store = engine.store
        with store.write_locked():
            write_backup(engine, self.home)  # from the clean rows; compacts the journal too
            files = clean_files(self.home, skip={backup_path(self.home)})
        if walk.fixed or store.meta(COMPACT_OWED_KEY) is not None:
            engine.compact_store()  # the old values linger in freed blocks until then
        store.set_meta({FINGERPRINT_KEY: self.fingerprint, COMPACT_OWED_KEY: None})
        self.done, self.fixed, self._walk = True, walk.fixed, None
        log.info(
            "stored texts checked against the new redactor in %.1f s: %d of %d rows and %d "
            "files had secrets it recognises, now redacted",
            time.monotonic() - walk.started,
            walk.fixed,
            walk.scanned,
            files,
        )


def _row_at(store: Store, spec: tuple[str, str, list[str]], row: Row) -> Row | None:
    """The row now at `row`'s rowid in table `spec` (None: that rowid is gone)."""
    table, key, columns = spec
    found = store.text_chunk(table, key, columns, row[1] - 1, 1)
    return found[0] if found and found[0][1] == row[1] else None


def _ordered(schema: dict[str, tuple[str, list[str]]]) -> list[tuple[str, str, list[str]]]:
    rank = {t: k for k, t in enumerate(FIRST_TABLES)}
    tables = sorted(schema, key=lambda t: rank.get(t, len(rank)))  # stable: schema order next
    return [(t, *schema[t]) for t in tables]


# ---- files beside the database ---------------------------------------------------------------


def clean_files(home: Path, skip: set[Path] | None = None) -> int:
    """Rewrite every file of TEXT_DIRS holding a secret the redactor recognises (a JSON
    document or JSON line string by string, keeping its shape; other text as a whole).
    Returns how many files changed. Log files are rewritten in place, with this process's
    log handlers held: they append to them."""
    changed = 0
    for name in TEXT_DIRS:
        folder = home / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path in (skip or set()) or path.is_symlink() or not path.is_file():
                continue
            with _handlers_held() if name in LOG_DIRS else contextlib.nullcontext():
                changed += _clean_file(path, in_place=name in LOG_DIRS)
    return changed


def _clean_file(path: Path, in_place: bool) -> bool:
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    text = raw.decode("utf-8", "surrogateescape")
    if path.suffix == ".jsonl":
        clean = "".join(_clean_line(line) for line in text.splitlines(keepends=True))
    elif path.suffix == ".json":
        clean = str(redact_value(text))
    else:
        clean = redact(text)[0]
    if clean == text:
        return False
    data = clean.encode("utf-8", "surrogateescape")
    if in_place:
        with path.open("r+b") as fh:
            fh.write(data)
            fh.truncate()
    else:
        replace_private(path, data)
    return True


def _clean_line(line: str) -> str:
    body = line.rstrip("\r\n")
    return str(redact_value(body)) + line[len(body) :]


@contextlib.contextmanager
def _handlers_held() -> Iterator[None]:
    """Hold every handler of the root logger: none writes while a log file is rewritten."""
    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.acquire()
    try:
        yield
    finally:
        for handler in reversed(handlers):
            handler.release()

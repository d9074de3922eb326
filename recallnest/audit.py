"""`recallnest audit secrets`: find credentials that reached the store anyway, and redact them
in place on request.

Redaction runs before anything is stored, so a healthy store holds none; rows can still carry
one that an older catalogue missed or that arrived some other way. The scan reads every turn
and memory text, every tool call's command and files, and every checkpoint body (its JSON
string values), and runs `recallnest.redact.find_secrets` over them. `fix_rows` rewrites the
affected rows in one transaction: ids are kept, a rewritten row's keyword postings are rebuilt
and its vectors dropped (the daemon embeds rows that lack one). Then the file is compacted:
DuckDB leaves the old values in freed blocks of the file, readable with `strings`, until the
database is copied into a new file. Reports never contain a secret: previews are cut from the
redacted text.

Constraint: the SQL lives here rather than in store.py (STYLE 2.1) because audit reads and
rewrites columns no Store method exposes, rarely and with the daemon stopped (it needs the
file to itself). It goes through `Store.transaction()`, the store's own lock and connection.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from recallnest.config import Settings
from recallnest.errors import DaemonError, StoreError
from recallnest.paths import db_path
from recallnest.redact import find_secrets, redact
from recallnest.text import term_counts

if TYPE_CHECKING:
    import duckdb

    from recallnest.store import Store

FETCH_ROWS = 2_000
PREVIEW_CHARS = 100

# Table -> its id column and the text columns that are scanned, in SELECT order.
COLUMNS: dict[str, tuple[str, ...]] = {
    "turns": ("text",),
    "memories": ("text",),
    "tool_uses": ("command", "files"),
    "checkpoints": ("body",),
    # Lifecycle undo entries keep the memory rows before and after a merge, supersession or
    # forget (JSON), so a secret in a memory lives on here until the entry is pruned.
    "undo_log": ("before_rows", "after_rows", "summary"),
}
# Columns holding a JSON document: their string values are scanned and redacted one by one.
JSON_COLUMNS = frozenset({"body", "before_rows", "after_rows"})


@dataclass(frozen=True, slots=True)
class Finding:
    """One row holding at least one secret. `preview` is cut from the redacted text."""

    table: str
    id: str
    kinds: tuple[str, ...]
    preview: str


Row = tuple[str, str, dict[str, Any]]  # (table, id, {column: value})


def iter_rows(store: Store) -> Iterator[Row]:
    """Every scanned row of every table, streamed in chunks of FETCH_ROWS. Tables a database
    of an older schema does not have yet are skipped (doctor reads such a file read-only)."""
    present = set(store.tables())
    for table, columns in COLUMNS.items():
        if table not in present:
            continue
        with store.transaction() as tx:
            tx.execute(f"SELECT id, {', '.join(columns)} FROM {table} ORDER BY id")
            while rows := tx.fetchmany(FETCH_ROWS):
                for row_id, *values in rows:
                    yield table, str(row_id), dict(zip(columns, values, strict=True))


def row_secrets(table: str, values: dict[str, Any]) -> tuple[str, ...]:
    """The kinds of secrets in one row's text columns, in text order."""
    return tuple(r.kind for text in _strings(table, values) for r in find_secrets(text))


def scan(store: Store) -> tuple[dict[str, int], list[Finding]]:
    """(rows scanned per table, the rows that hold secrets)."""
    scanned = dict.fromkeys(COLUMNS, 0)
    findings = []
    for table, row_id, values in iter_rows(store):
        scanned[table] += 1
        kinds = row_secrets(table, values)
        if kinds:
            findings.append(Finding(table, row_id, kinds, _preview(table, values)))
    return scanned, findings


def fix_rows(store: Store, findings: list[Finding]) -> int:
    """Redact the rows of `findings` in one transaction; returns how many rows changed."""
    fixed = 0
    with store.transaction() as tx:
        for finding in findings:
            fixed += _FIXERS[finding.table](tx, finding.table, finding.id)
    return fixed


def audit_secrets(settings: Settings, fix: bool = False) -> dict[str, Any]:
    """Scan the database under settings.home (and redact what is found, with `fix`)."""
    from recallnest.client import daemon_answers
    from recallnest.store import Store

    if daemon_answers(settings):
        raise DaemonError("stop the daemon first (`recallnest daemon stop`): it holds the database")
    db = db_path(settings.home)
    if not db.exists():
        return {"database": str(db), "scanned": dict.fromkeys(COLUMNS, 0), "findings": []}
    store = Store(db, read_only=not fix)
    try:
        scanned, findings = scan(store)
        fixed = fix_rows(store, findings) if fix and findings else 0
        if fixed:
            store.compact()  # the old values linger in freed blocks until the file is rewritten
    except StoreError:
        raise
    # duckdb's errors (a damaged block) reach here unwrapped: duckdb belongs to the store.
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoreError(
            f"cannot audit {db}: {redact(first)[0]} (if it is damaged, `recallnest repair` "
            "rebuilds it)"
        ) from exc
    finally:
        store.close()
    result: dict[str, Any] = {
        "database": str(db),
        "scanned": scanned,
        "findings": [asdict(f) for f in findings],
    }
    if fix:
        result["fixed"] = fixed
    return result


# ---- text of a row --------------------------------------------------------------------------


def _strings(table: str, values: dict[str, Any]) -> Iterator[str]:
    for column, value in values.items():
        if value is None:
            continue
        if column == "files":
            yield from (f for f in value if isinstance(f, str))
        elif column in JSON_COLUMNS:
            yield from _json_strings(value)
        else:
            yield str(value)


def _json_strings(body: str) -> Iterator[str]:
    """The string values of a JSON column (whole text if it is not JSON)."""
    try:
        data = json.loads(body)
    except ValueError:
        yield body
        return
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _redact_json(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)[0]
    if isinstance(value, dict):
        return {k: _redact_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_json(v) for v in value]
    return value


def _redact_body(body: str) -> str:
    """Redact a JSON column's string values, keeping it the same JSON document shape."""
    try:
        data = json.loads(body)
    except ValueError:
        return redact(body)[0]
    return json.dumps(_redact_json(data), ensure_ascii=False, sort_keys=True)


_SPACES = re.compile(r"\s+")


def _preview(table: str, values: dict[str, Any]) -> str:
    """Up to PREVIEW_CHARS of redacted text around the first secret."""
    for text in _strings(table, values):
        clean, kinds = redact(text)
        if kinds:
            at = clean.find("[REDACTED:")
            start = max(0, at - PREVIEW_CHARS // 3)
            snippet = _SPACES.sub(" ", clean[start : start + PREVIEW_CHARS]).strip()
            return ("…" if start else "") + snippet
    return ""


# ---- rewriting one row (inside fix_rows' transaction) ----------------------------------------


def _fix_document(tx: duckdb.DuckDBPyConnection, table: str, row_id: str) -> int:
    """A turn or memory: new text and length, postings rebuilt, vectors dropped; same doc."""
    row = tx.execute(f"SELECT doc, text FROM {table} WHERE id = ?", [row_id]).fetchone()
    if row is None:
        return 0
    doc, text = row
    clean, kinds = redact(text)
    if not kinds:
        return 0
    counts = term_counts(clean)
    tx.execute(
        f"UPDATE {table} SET text = ?, length = ? WHERE id = ?",
        [clean, sum(counts.values()), row_id],
    )
    from recallnest.store import replace_postings

    replace_postings(tx, doc, counts)  # and drops the row's vectors
    return 1


def _fix_tool_use(tx: duckdb.DuckDBPyConnection, table: str, row_id: str) -> int:
    row = tx.execute("SELECT command, files FROM tool_uses WHERE id = ?", [row_id]).fetchone()
    if row is None:
        return 0
    command, files = row
    new_command = None if command is None else redact(command)[0]
    new_files = [redact(f)[0] for f in files or ()]
    if new_command == command and new_files == list(files or ()):
        return 0
    tx.execute(
        "UPDATE tool_uses SET command = ?, files = ?::VARCHAR[] WHERE id = ?",
        [new_command, new_files, row_id],
    )
    return 1


def _fix_checkpoint(tx: duckdb.DuckDBPyConnection, table: str, row_id: str) -> int:
    row = tx.execute("SELECT body FROM checkpoints WHERE id = ?", [row_id]).fetchone()
    if row is None:
        return 0
    body = _redact_body(row[0])
    if body == row[0]:
        return 0
    tx.execute("UPDATE checkpoints SET body = ? WHERE id = ?", [body, row_id])
    return 1


def _fix_undo(tx: duckdb.DuckDBPyConnection, table: str, row_id: str) -> int:
    row = tx.execute(
        "SELECT before_rows, after_rows, summary FROM undo_log WHERE id = ?", [int(row_id)]
    ).fetchone()
    if row is None:
        return 0
    new = (_redact_body(row[0]), _redact_body(row[1]), redact(row[2])[0])
    if new == tuple(row):
        return 0
    tx.execute(
        "UPDATE undo_log SET before_rows = ?, after_rows = ?, summary = ? WHERE id = ?",
        [*new, int(row_id)],
    )
    return 1


_FIXERS = {
    "turns": _fix_document,
    "memories": _fix_document,
    "tool_uses": _fix_tool_use,
    "checkpoints": _fix_checkpoint,
    "undo_log": _fix_undo,
}

"""`recallnest audit secrets`: find credentials that reached the store anyway, and redact them
in place on request.

Redaction runs before anything is stored, so a healthy store holds none; rows can still carry
one that an older catalogue missed or that arrived some other way. The scan covers every table
and every column that can hold text, discovered from the schema (`text_columns`), so a column
added by a later migration is covered without editing this module: turn and memory texts, tool
calls, checkpoint bodies, undo entries, the cursors' saved parser state, the capture queue,
the keyword index's terms. A value holding a JSON document is scanned string by string.
`fix_rows` rewrites the affected rows in one transaction: keys are kept, a rewritten turn's or
memory's keyword postings are rebuilt and its vectors dropped (the daemon embeds rows that lack
one), a term that is itself a secret is dropped from the index. Then the file is compacted:
DuckDB leaves the old values in freed blocks of the file, readable with `strings`, until the
database is copied into a new file. Reports never contain a secret: previews are cut from the
redacted text, and a row's key is shown redacted.

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

from recallnest.core.config import Settings
from recallnest.core.errors import DaemonError, StoreError
from recallnest.core.paths import db_path
from recallnest.core.redact import find_secrets, redact
from recallnest.core.text import term_counts

if TYPE_CHECKING:
    import duckdb

    from recallnest.store._store import Store

FETCH_ROWS = 2_000
PREVIEW_CHARS = 100

# Reported first, in this order (the tables people read); every other table follows by name.
MAIN_TABLES = ("turns", "memories", "tool_uses", "checkpoints", "undo_log")
# Column types that can hold text. BLOBs (vectors) hold floats; numbers and dates cannot.
TEXT_TYPES = frozenset({"VARCHAR", "VARCHAR[]", "JSON", "JSON[]"})
# Tables whose `text` column feeds the keyword index: rewriting it rebuilds the postings.
DOCUMENT_TABLES = frozenset({"turns", "memories"})
# Columns that identify a row (never rewritten: other rows and the index refer to them).
KEY_COLUMNS = frozenset({"id", "doc", "tid"})


@dataclass(frozen=True, slots=True)
class Finding:
    """One row holding at least one secret. `preview` is cut from the redacted text, `id` is
    the row's key (redacted), `rowid` locates the row for `fix_rows`."""

    table: str
    id: str
    kinds: tuple[str, ...]
    preview: str
    rowid: int


Row = tuple[str, int, str, dict[str, Any]]  # (table, rowid, shown key, {column: value})
Schema = dict[str, tuple[str, list[str]]]  # {table: (key column, text columns)}


def text_columns(store: Store) -> list[tuple[str, str]]:
    """(table, column) of every column that can hold text, main tables first."""
    return [(table, c) for table, (_key, columns) in _schema(store).items() for c in columns]


def _schema(store: Store) -> Schema:
    """{table: (the column naming a row, its text columns)} for tables with text columns;
    main tables first. A row is named by its `id`, or its rowid in a table without one."""
    with store.transaction() as tx:
        rows = tx.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
        ).fetchall()
    with_id = {str(t) for t, c, _kind in rows if c == "id"}
    tables: Schema = {}
    for table, column, kind in rows:
        if str(kind).upper() in TEXT_TYPES:
            key = "id" if table in with_id else "rowid"
            tables.setdefault(str(table), (key, []))[1].append(str(column))
    rank = {table: k for k, table in enumerate(MAIN_TABLES)}
    return dict(sorted(tables.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0])))


def iter_rows(store: Store, tables: Schema | None = None) -> Iterator[Row]:
    """Every row of every table with text columns, streamed in chunks of FETCH_ROWS."""
    for table, (key, columns) in (_schema(store) if tables is None else tables).items():
        names = ", ".join(f'"{c}"' for c in columns)
        with store.transaction() as tx:
            tx.execute(f'SELECT rowid, {key}, {names} FROM "{table}" ORDER BY rowid')
            while rows := tx.fetchmany(FETCH_ROWS):
                for rowid, shown, *values in rows:
                    yield table, int(rowid), str(shown), dict(zip(columns, values, strict=True))


def row_secrets(table: str, values: dict[str, Any]) -> tuple[str, ...]:
    """The kinds of secrets in one row's text columns, in text order."""
    return tuple(r.kind for text in _strings(values) for r in find_secrets(text))


def scan(store: Store) -> tuple[dict[str, int], list[Finding]]:
    """(rows scanned per table, the rows that hold secrets)."""
    tables = _schema(store)
    scanned = dict.fromkeys(tables, 0)
    findings = []
    for table, rowid, shown, values in iter_rows(store, tables):
        scanned[table] += 1
        kinds = row_secrets(table, values)
        if kinds:
            preview = _preview(values)
            findings.append(Finding(table, redact(shown)[0], kinds, preview, rowid))
    return scanned, findings


def fix_rows(store: Store, findings: list[Finding]) -> int:
    """Redact the rows of `findings` in one transaction; returns how many rows changed."""
    tables = _schema(store)
    fixed = 0
    with store.transaction() as tx:
        for finding in findings:
            fixer = _fix_term if finding.table == "terms" else _fix_row
            fixed += fixer(tx, finding.table, finding.rowid, tables[finding.table][1])
    return fixed


def audit_secrets(settings: Settings, fix: bool = False) -> dict[str, Any]:
    """Scan the database under settings.home (and redact what is found, with `fix`)."""
    from recallnest.server.client import daemon_answers
    from recallnest.store._store import Store

    if daemon_answers(settings):
        raise DaemonError("stop the daemon first (`recallnest daemon stop`): it holds the database")
    db = db_path(settings.home)
    if not db.exists():
        return {"database": str(db), "scanned": dict.fromkeys(MAIN_TABLES, 0), "findings": []}
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


def _strings(values: dict[str, Any]) -> Iterator[str]:
    for value in values.values():
        if isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))
        elif isinstance(value, str):
            yield from _json_strings(value)


def _json_document(text: str) -> Any:
    """The parsed value when `text` is a JSON object or array, else None."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json_strings(text: str) -> Iterator[str]:
    """The string values of a JSON document (the whole text if it is not one)."""
    data = _json_document(text)
    if data is None:
        yield text
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


def _redact_value(value: Any) -> Any:
    """A column value with its secrets masked, keeping a JSON document the same shape."""
    if isinstance(value, list):
        return [redact(v)[0] if isinstance(v, str) else v for v in value]
    if not isinstance(value, str):
        return value
    data = _json_document(value)
    if data is None:
        return redact(value)[0]
    clean = json.dumps(_redact_json(data), ensure_ascii=False, sort_keys=True)
    return value if clean == json.dumps(data, ensure_ascii=False, sort_keys=True) else clean


_SPACES = re.compile(r"\s+")


def _preview(values: dict[str, Any]) -> str:
    """Up to PREVIEW_CHARS of redacted text around the first secret."""
    for text in _strings(values):
        clean, kinds = redact(text)
        if kinds:
            at = clean.find("[REDACTED:")
            start = max(0, at - PREVIEW_CHARS // 3)
            snippet = _SPACES.sub(" ", clean[start : start + PREVIEW_CHARS]).strip()
            return ("…" if start else "") + snippet
    return ""


# ---- rewriting one row (inside fix_rows' transaction) ----------------------------------------


def _fix_row(tx: duckdb.DuckDBPyConnection, table: str, rowid: int, columns: list[str]) -> int:
    """Every text column of one row redacted; keys kept. A turn's or memory's new text gets
    its length and keyword postings rebuilt (and its vectors dropped); same doc."""
    names = [c for c in columns if c not in KEY_COLUMNS]
    listed = ", ".join(f'"{c}"' for c in names)
    row = tx.execute(f'SELECT {listed} FROM "{table}" WHERE rowid = ?', [rowid]).fetchone()
    if row is None:
        return 0
    changed = {
        c: new for c, old in zip(names, row, strict=True) if (new := _redact_value(old)) != old
    }
    if not changed:
        return 0
    sets = ", ".join(f'"{c}" = ?' for c in changed)
    tx.execute(f'UPDATE "{table}" SET {sets} WHERE rowid = ?', [*changed.values(), rowid])
    if table in DOCUMENT_TABLES and "text" in changed:
        _reindex(tx, table, rowid, changed["text"])
    return 1


def _reindex(tx: duckdb.DuckDBPyConnection, table: str, rowid: int, text: str) -> None:
    from recallnest.store._store import replace_postings

    counts = term_counts(text)
    tx.execute(f"UPDATE {table} SET length = ? WHERE rowid = ?", [sum(counts.values()), rowid])
    row = tx.execute(f"SELECT doc FROM {table} WHERE rowid = ?", [rowid]).fetchone()
    if row is not None:
        replace_postings(tx, int(row[0]), counts)  # and drops the row's vectors


def _fix_term(tx: duckdb.DuckDBPyConnection, table: str, rowid: int, columns: list[str]) -> int:
    """A keyword-index term that is itself a secret: dropped with its postings (the rows it
    came from are redacted by their own findings, which rebuild their postings)."""
    row = tx.execute("SELECT tid FROM terms WHERE rowid = ?", [rowid]).fetchone()
    if row is not None:  # None: pruned already, when the rows that held it were rebuilt
        tx.execute("DELETE FROM postings WHERE tid = ?", [row[0]])
        tx.execute("DELETE FROM terms WHERE tid = ?", [row[0]])
    return 1

"""`recallnest audit secrets`: find credentials that reached the store anyway, and redact them
in place on request.

Redaction runs before anything is stored, so a healthy store holds none; rows can still carry
one that an older catalogue missed or that arrived some other way. The scan covers every table
and every column that can hold text, discovered from the schema (`Store.text_schema`), so a column
added by a later migration is covered without editing this module: turn and memory texts, tool
calls, checkpoint bodies, undo entries, the cursors' saved parser state, the capture queue,
the keyword index's terms. A value holding a JSON document is scanned string by string.
`fix_rows` rewrites the affected rows in one transaction: keys are kept, a rewritten turn's or
memory's keyword postings are rebuilt and its vectors dropped (the daemon embeds rows that lack
one), a term that is itself a secret is dropped from the index. Then the file is compacted:
DuckDB leaves the old values in freed blocks of the file, readable with `strings`, until the
database is copied into a new file. Reports never contain a secret: previews are cut from the
redacted text, and a row's key is shown redacted.

The SQL is the store's (store/audit.py: `text_schema`, `text_rows`, `rewrite_rows`); this
module decides what is a secret, how a value is masked and what the report shows. It runs
with the daemon stopped: it needs the file to itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from recallnest.core.config import Settings
from recallnest.core.errors import DaemonError, StoreError
from recallnest.core.paths import db_path
from recallnest.core.redact import find_secrets, redact
from recallnest.store.audit import MAIN_TABLES, Row

if TYPE_CHECKING:
    from recallnest.store import Store

PREVIEW_CHARS = 100


@dataclass(frozen=True, slots=True)
class Finding:
    """One row holding at least one secret. `preview` is cut from the redacted text, `id` is
    the row's key (redacted), `rowid` locates the row for `fix_rows`."""

    table: str
    id: str
    kinds: tuple[str, ...]
    preview: str
    rowid: int


@dataclass(frozen=True, slots=True)
class Audit:
    """`audit secrets`: the database scanned, the rows scanned per table, the rows holding
    secrets, and with `--fix` how many rows were redacted (None without it)."""

    database: str
    scanned: dict[str, int]
    findings: list[Finding]
    fixed: int | None = None


def row_secrets(table: str, values: dict[str, Any]) -> tuple[str, ...]:
    """The kinds of secrets in one row's text columns, in text order."""
    return tuple(r.kind for text in _strings(values) for r in find_secrets(text))


def scan(store: Store) -> tuple[dict[str, int], list[Finding]]:
    """(rows scanned per table, the rows that hold secrets)."""
    tables = store.text_schema()
    scanned = dict.fromkeys(tables, 0)
    findings = []
    for row in store.text_rows(tables):
        scanned[row[0]] += 1
        findings.extend(classify([row]))
    return scanned, findings


def classify(rows: Iterable[Row]) -> list[Finding]:
    """The rows (as `Store.text_rows` or `Store.text_chunk` give them) that hold secrets."""
    findings = []
    for table, rowid, shown, values in rows:
        kinds = row_secrets(table, values)
        if kinds:
            preview = _preview(values)
            findings.append(Finding(table, redact(shown)[0], kinds, preview, rowid))
    return findings


def fix_rows(store: Store, findings: list[Finding]) -> int:
    """Redact the rows of `findings` in one transaction; returns how many rows changed."""
    return store.rewrite_rows([(f.table, f.rowid) for f in findings], redact_value)


def audit_secrets(settings: Settings, fix: bool = False) -> Audit:
    """Scan the database under settings.home (and redact what is found, with `fix`)."""
    from recallnest.server.client import daemon_answers
    from recallnest.store import Store

    if daemon_answers(settings):
        raise DaemonError("stop the daemon first (`recallnest daemon stop`): it holds the database")
    db = db_path(settings.home)
    if not db.exists():
        return Audit(str(db), dict.fromkeys(MAIN_TABLES, 0), [])
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
    return Audit(str(db), scanned, findings, fixed if fix else None)


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


def redact_value(value: Any) -> Any:
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

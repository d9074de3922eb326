"""The SQL of `recallnest audit secrets`: every text column of every table, read in chunks and
rewritten in place.

Audit reads and rewrites columns no other Store method exposes: rarely and with the daemon
stopped (`text_rows`, one transaction a table), or a chunk at a time inside the daemon after
the redactor changed (`text_chunk`, server/rescan.py), with the redactor's fingerprint kept in
`store_meta` (`meta`, `set_meta`). The columns are discovered from the schema, so a column a
later migration adds is covered without editing this module. Deciding what is a secret and
how to mask it is the caller's (server/audit.py): this module is handed a `rewrite` function
per value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import duckdb

from recallnest.core.errors import StoreError
from recallnest.core.text import term_counts
from recallnest.store.base import StoreBase
from recallnest.store.postings import _drop_postings, _write_postings

FETCH_ROWS = 2_000
# Reported first, in this order (the tables people read); every other table follows by name.
MAIN_TABLES = ("turns", "memories", "tool_uses", "checkpoints", "undo_log")
# Column types that can hold text. BLOBs (vectors) hold floats; numbers and dates cannot.
TEXT_TYPES = frozenset({"VARCHAR", "VARCHAR[]", "JSON", "JSON[]"})
# Tables whose `text` column feeds the keyword index: rewriting it rebuilds the postings.
DOCUMENT_TABLES = frozenset({"turns", "memories"})
# Columns that identify a row (never rewritten: other rows and the index refer to them).
KEY_COLUMNS = frozenset({"id", "doc", "tid"})

Row = tuple[str, int, str, dict[str, Any]]  # (table, rowid, shown key, {column: value})
Schema = dict[str, tuple[str, list[str]]]  # {table: (key column, text columns)}
Rewrite = Callable[[Any], Any]  # a column value -> the value to store (the same when clean)


class Audit(StoreBase):
    """Every text column of every table, read in chunks and rewritten in place."""

    def text_schema(self) -> Schema:
        """{table: (the column naming a row, its text columns)} for tables with text columns;
        main tables first. A row is named by its `id`, or its rowid in a table without one."""
        rows = (
            self._cur()
            .execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
            )
            .fetchall()
        )
        with_id = {str(t) for t, c, _kind in rows if c == "id"}
        tables: Schema = {}
        for table, column, kind in rows:
            if str(kind).upper() in TEXT_TYPES:
                key = "id" if table in with_id else "rowid"
                tables.setdefault(str(table), (key, []))[1].append(str(column))
        rank = {table: k for k, table in enumerate(MAIN_TABLES)}
        return dict(
            sorted(tables.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))
        )

    def text_rows(self, tables: Schema | None = None) -> Iterator[Row]:
        """Every row of every table with text columns, streamed in chunks of FETCH_ROWS.
        A generator: duckdb's errors while it runs are raised as StoreError too."""
        try:
            for table, (key, columns) in (self.text_schema() if tables is None else tables).items():
                names = ", ".join(f'"{c}"' for c in columns)
                with self.transaction(changes_resume=False) as tx:
                    tx.execute(f'SELECT rowid, {key}, {names} FROM "{table}" ORDER BY rowid')
                    while rows := tx.fetchmany(FETCH_ROWS):
                        for rowid, shown, *values in rows:
                            yield (
                                table,
                                int(rowid),
                                str(shown),
                                dict(zip(columns, values, strict=True)),
                            )
        except duckdb.Error as exc:
            raise StoreError(f"database {self.path}: {exc}") from exc

    def text_chunk(
        self, table: str, key: str, columns: Sequence[str], after: int, limit: int
    ) -> list[Row]:
        """Up to `limit` rows of `table` with a rowid above `after`, in rowid order (`key` and
        `columns` as `text_schema` gives them). No transaction is held between chunks, so the
        daemon's writers wait for one chunk at most."""
        names = ", ".join(f'"{c}"' for c in columns)
        rows = (
            self._cur()
            .execute(
                f'SELECT rowid, {key}, {names} FROM "{table}" WHERE rowid > ? '
                "ORDER BY rowid LIMIT ?",
                [after, limit],
            )
            .fetchall()
        )
        return [
            (table, int(rowid), str(shown), dict(zip(columns, values, strict=True)))
            for rowid, shown, *values in rows
        ]

    def meta(self, key: str) -> str | None:
        """A fact about the store (`store_meta`), None when not recorded."""
        row = self._cur().execute("SELECT value FROM store_meta WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, values: dict[str, str | None]) -> None:
        """Record facts about the store in one transaction; a None value removes the key."""
        with self.transaction(changes_resume=False) as tx:
            for key, value in values.items():
                tx.execute("DELETE FROM store_meta WHERE key = ?", [key])
                if value is not None:
                    tx.execute("INSERT INTO store_meta VALUES (?, ?)", [key, value])

    def rewrite_rows(self, rows: Sequence[tuple[str, int]], rewrite: Rewrite) -> int:
        """Rewrite the text columns of `rows` ((table, rowid)) through `rewrite`, in one
        transaction; keys are kept. A keyword-index term (table `terms`) is dropped with its
        postings instead, and a sync record (`sync_shadow`) is dropped. Returns how many rows
        changed.

        The rewritten turns' and memories' postings are rebuilt, and the terms dropped, once
        for all the rows: each of those deletes reads every posting (~0.1-0.3 s at 100k rows),
        which row by row held the daemon's writer for 20 s over 200 rows."""
        tables = self.text_schema()
        fixed = 0
        with self.transaction() as tx:
            # Term ids first, by the scan's rowids; the terms go before any posting is written:
            # new terms take max(tid) + 1, which may be a dropped term's id.
            tids = _term_ids_at(tx, [rowid for table, rowid in rows if table == "terms"])
            _drop_terms(tx, tids)
            texts: list[tuple[str, int, str]] = []
            for table, rowid in rows:
                if table == "terms":
                    fixed += 1
                    continue
                if table == "sync_shadow":
                    # The record of what the remotes were sent, secret and all: dropped, so the
                    # next sync sends the memory again (masked by now) and the remotes' copies
                    # and log lines are replaced. Masked in place, the record would match the
                    # masked memory and nothing would be sent.
                    tx.execute("DELETE FROM sync_shadow WHERE rowid = ?", [rowid])
                    fixed += 1
                    continue
                changed = _rewrite_row(tx, table, rowid, tables[table][1], rewrite)
                fixed += changed is not None
                if changed and table in DOCUMENT_TABLES and "text" in changed:
                    texts.append((table, rowid, changed["text"]))
            _reindex(tx, texts)
        return fixed


def _rewrite_row(
    tx: duckdb.DuckDBPyConnection, table: str, rowid: int, columns: list[str], rewrite: Rewrite
) -> dict[str, Any] | None:
    """Every text column of one row rewritten; keys kept. Returns the changed columns' new
    values (None: the row is gone or was clean)."""
    names = [c for c in columns if c not in KEY_COLUMNS]
    listed = ", ".join(f'"{c}"' for c in names)
    row = tx.execute(f'SELECT {listed} FROM "{table}" WHERE rowid = ?', [rowid]).fetchone()
    if row is None:
        return None
    changed = {c: new for c, old in zip(names, row, strict=True) if (new := rewrite(old)) != old}
    if not changed:
        return None
    sets = ", ".join(f'"{c}" = ?' for c in changed)
    tx.execute(f'UPDATE "{table}" SET {sets} WHERE rowid = ?', [*changed.values(), rowid])
    return changed


def _reindex(tx: duckdb.DuckDBPyConnection, texts: Sequence[tuple[str, int, str]]) -> None:
    """The new texts' lengths and keyword postings (same doc; their vectors dropped, so the
    daemon embeds them again)."""
    docs, counts = [], []
    for table, rowid, text in texts:
        words = term_counts(text)
        tx.execute(f"UPDATE {table} SET length = ? WHERE rowid = ?", [sum(words.values()), rowid])
        row = tx.execute(f"SELECT doc FROM {table} WHERE rowid = ?", [rowid]).fetchone()
        if row is not None:
            docs.append(int(row[0]))
            counts.append(words)
    if docs:
        _drop_postings(tx, docs, prune_terms=True)
        _write_postings(tx, docs, counts)


def _term_ids_at(tx: duckdb.DuckDBPyConnection, rowids: Sequence[int]) -> list[int]:
    if not rowids:
        return []
    rows = tx.execute("SELECT tid FROM terms WHERE rowid IN (SELECT unnest(?))", [list(rowids)])
    return [int(r[0]) for r in rows.fetchall()]


def _drop_terms(tx: duckdb.DuckDBPyConnection, tids: Sequence[int]) -> None:
    """Keyword-index terms that are themselves secrets: dropped with their postings (the rows
    they came from are rewritten by their own findings, which rebuild their postings)."""
    if tids:
        tx.execute("DELETE FROM postings WHERE tid IN (SELECT unnest(?))", [list(tids)])
        tx.execute("DELETE FROM terms WHERE tid IN (SELECT unnest(?))", [list(tids)])

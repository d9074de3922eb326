"""Portable memory ids (issue 21, migration m007): the id basis kept per project, re-keying
memories whose id was made of a local path, and the old -> new id map that keeps old ids
resolving (`memories show`, forget, history, import of an old export).

A re-key moves a memory to its new id with its row (same `doc`, so its postings and vectors
stay), and rewrites every reference to it: supersession pointers, conflicts, lifecycle events,
undo entries (their ids and prior rows). The sync tables are left alone on purpose: to sync, a
re-keyed memory is an id gone (a forget of the old id) and a new one (an upsert of the new id),
which is what every other machine needs to hear; a machine that re-keyed the same memory
arrives at the same new id, so the two merge into one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from recallnest.core.aliases import canonical
from recallnest.core.identity import PROJECT_IDS, is_portable
from recallnest.core.models import GLOBAL_SCOPE, memory_id_of_basis
from recallnest.store.sql import _objects, _scan, _utcnow

if TYPE_CHECKING:
    import duckdb

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# Which row keeps the id when two memories would re-key to one: active first, then oldest.
_CLAIM_ORDER = "CASE status WHEN 'active' THEN 0 ELSE 1 END, created_at NULLS LAST, id"


def project_bases(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return dict(con.execute("SELECT project, basis FROM project_ids").fetchall())


def save_bases(con: duckdb.DuckDBPyConnection, bases: Mapping[str, str]) -> None:
    for project, basis in bases.items():
        con.execute("DELETE FROM project_ids WHERE project = ?", [project])
        con.execute("INSERT INTO project_ids VALUES (?, ?, ?)", [project, basis, _utcnow()])


def plan_rekey(
    con: duckdb.DuckDBPyConnection, only: tuple[str, str] | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """(old -> new id of every memory whose id is not the one its scope's basis and text make,
    the git bases found): a memory whose new id another memory holds or claims keeps its id.
    `only`: (scope, basis): that project's memories, under that basis."""
    kept = project_bases(con)
    PROJECT_IDS.seed(kept)
    where, args = ("scope = ?", [only[0]]) if only else ("scope <> ?", [GLOBAL_SCOPE])
    rows = con.execute(
        f"SELECT id, scope, text FROM memories WHERE {where} ORDER BY {_CLAIM_ORDER}", args
    ).fetchall()
    taken = {r[0] for r in con.execute("SELECT id FROM memories").fetchall()}
    mapping: dict[str, str] = {}
    found: dict[str, str] = {}
    for mem_id, scope, text in rows:
        basis = only[1] if only else PROJECT_IDS.basis(scope, GLOBAL_SCOPE)
        if not is_portable(basis):
            continue  # outside git: the path is the basis, as before
        if scope not in kept:
            found[scope] = basis
        new = memory_id_of_basis(basis, canonical(text))
        if new != mem_id and new not in taken:
            mapping[mem_id] = new
            taken.add(new)
    return mapping, found


def rekey(con: duckdb.DuckDBPyConnection, mapping: Mapping[str, str], at: datetime) -> None:
    """Move each memory `old` to `new` and every reference with it; record the map (older
    entries that led to `old` now lead to `new`). Runs inside the caller's transaction."""
    if not mapping:
        return
    old = list(mapping)
    with _scan(con, "_rekey", old=_objects(old), new=_objects([mapping[o] for o in old])):
        con.execute(
            "CREATE TEMP TABLE _moved AS SELECT m.* REPLACE (r.new AS id) FROM memories m "
            "JOIN _rekey r ON m.id = r.old"
        )
        con.execute("DELETE FROM memories WHERE id IN (SELECT old FROM _rekey)")
        con.execute("INSERT INTO memories SELECT * FROM _moved")
        con.execute("DROP TABLE _moved")
        for table, column in (
            ("memories", "superseded_by"),
            ("conflicts", "a_id"),
            ("conflicts", "b_id"),
            ("memory_events", "memory_id"),
            ("memory_events", "other_id"),
            ("memory_id_map", "new_id"),
        ):
            con.execute(f"UPDATE {table} SET {column} = r.new FROM _rekey r WHERE {column} = r.old")
        con.execute(
            "INSERT INTO memory_id_map SELECT old, new, ? FROM _rekey "
            "WHERE old NOT IN (SELECT old_id FROM memory_id_map)",
            [at],
        )
        con.execute("DELETE FROM memory_id_map WHERE old_id = new_id")  # re-keyed back
        undo = con.execute(
            "SELECT id, memory_ids, before_rows, after_rows FROM undo_log WHERE id IN "
            "(SELECT u.id FROM (SELECT id, unnest(memory_ids) AS mid FROM undo_log) u "
            "JOIN _rekey r ON r.old = u.mid)"
        ).fetchall()
    for undo_id, ids, before, after in undo:
        con.execute(
            "UPDATE undo_log SET memory_ids = ?, before_rows = ?, after_rows = ? WHERE id = ?",
            [[mapping.get(i, i) for i in ids], _renamed(before, mapping),
             _renamed(after, mapping), undo_id],
        )  # fmt: skip


def _renamed(rows_json: str, mapping: Mapping[str, str]) -> str:
    """Prior rows (JSON) with every re-keyed id replaced; checked to stay valid JSON."""
    out = _UUID.sub(lambda m: mapping.get(m[0], m[0]), rows_json)
    json.loads(out)
    return out

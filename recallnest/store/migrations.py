"""Ordered schema migrations. Each is a function `mNNN_verb_object(con)` run inside its own
transaction together with its row in `_migrations`. Never edit a migration that has shipped;
add a new one.

Timestamps are TIMESTAMP holding UTC (not TIMESTAMPTZ): fetching TIMESTAMPTZ values needs
pytz, which is not a dependency.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

Migration = Callable[["duckdb.DuckDBPyConnection"], None]


def m001_create_core(con: duckdb.DuckDBPyConnection) -> None:
    """Turns, memories, keyword postings, vectors, model registry, cursors, checkpoints."""
    con.execute("CREATE SEQUENCE doc_seq START 1")
    con.execute(
        """CREATE TABLE turns (
            id VARCHAR PRIMARY KEY,
            doc BIGINT NOT NULL,
            agent VARCHAR NOT NULL,
            session_id VARCHAR NOT NULL,
            parent_session_id VARCHAR,
            project VARCHAR,
            role VARCHAR NOT NULL,
            kind VARCHAR NOT NULL,
            text VARCHAR NOT NULL,
            ts TIMESTAMP,
            path VARCHAR,
            record_id VARCHAR NOT NULL,
            byte_offset BIGINT,
            cwd VARCHAR,
            model VARCHAR,
            git_branch VARCHAR,
            length INTEGER NOT NULL,
            ingested_at TIMESTAMP NOT NULL
        )"""
    )
    con.execute(
        """CREATE TABLE memories (
            id VARCHAR PRIMARY KEY,
            doc BIGINT NOT NULL,
            scope VARCHAR NOT NULL,
            category VARCHAR NOT NULL,
            text VARCHAR NOT NULL,
            importance DOUBLE NOT NULL,
            confidence DOUBLE NOT NULL,
            tier VARCHAR NOT NULL,
            status VARCHAR NOT NULL,
            evidence VARCHAR[] NOT NULL,
            created_at TIMESTAMP,
            updated_at TIMESTAMP,
            last_accessed_at TIMESTAMP,
            access_count INTEGER NOT NULL,
            source VARCHAR NOT NULL,
            rule VARCHAR,
            superseded_by VARCHAR,
            subject VARCHAR,
            pinned BOOLEAN NOT NULL,
            valid_until TIMESTAMP,
            length INTEGER NOT NULL
        )"""
    )
    con.execute("CREATE TABLE postings (doc BIGINT NOT NULL, term VARCHAR NOT NULL, tf INTEGER)")
    con.execute(
        "CREATE TABLE vectors (doc BIGINT NOT NULL, model VARCHAR NOT NULL, vec BLOB NOT NULL)"
    )
    con.execute(
        """CREATE TABLE embedding_models (
            model VARCHAR PRIMARY KEY, dimensions INTEGER NOT NULL, registered_at TIMESTAMP
        )"""
    )
    con.execute(
        """CREATE TABLE cursors (
            path VARCHAR PRIMARY KEY,
            agent VARCHAR NOT NULL,
            byte_offset BIGINT NOT NULL,
            inode BIGINT,
            fingerprint VARCHAR,
            parser_state VARCHAR,
            skipped BIGINT NOT NULL,
            updated_at TIMESTAMP
        )"""
    )
    con.execute(
        """CREATE TABLE tool_uses (
            id VARCHAR PRIMARY KEY,
            agent VARCHAR NOT NULL,
            session_id VARCHAR NOT NULL,
            name VARCHAR NOT NULL,
            ts TIMESTAMP,
            files VARCHAR[],
            command VARCHAR,
            cwd VARCHAR
        )"""
    )
    con.execute(
        """CREATE TABLE checkpoints (
            id VARCHAR PRIMARY KEY,
            session_id VARCHAR NOT NULL,
            agent VARCHAR,
            project VARCHAR,
            created_at TIMESTAMP NOT NULL,
            reason VARCHAR,
            body VARCHAR NOT NULL
        )"""
    )


def m002_create_lifecycle(con: duckdb.DuckDBPyConnection) -> None:
    """Memory lifecycle (issue 7): contradictions flagged for a human, the undo log of automatic
    changes (prior rows as JSON), the forgetting audit log (ids and counts, never text), the
    history of merges and supersessions, and the days with conversation (the decay clock)."""
    con.execute("CREATE SEQUENCE lifecycle_seq START 1")
    con.execute(
        """CREATE TABLE conflicts (
            id BIGINT PRIMARY KEY,
            a_id VARCHAR NOT NULL,
            b_id VARCHAR NOT NULL,
            scope VARCHAR NOT NULL,
            category VARCHAR NOT NULL,
            reason VARCHAR NOT NULL,
            similarity DOUBLE,
            status VARCHAR NOT NULL,
            created_at TIMESTAMP NOT NULL,
            resolved_at TIMESTAMP,
            resolution VARCHAR,
            undo_id BIGINT
        )"""
    )
    con.execute(
        """CREATE TABLE undo_log (
            id BIGINT PRIMARY KEY,
            kind VARCHAR NOT NULL,
            created_at TIMESTAMP NOT NULL,
            memory_ids VARCHAR[] NOT NULL,
            before_rows VARCHAR NOT NULL,
            after_rows VARCHAR NOT NULL,
            summary VARCHAR NOT NULL,
            undone_at TIMESTAMP
        )"""
    )
    con.execute(
        """CREATE TABLE forget_log (
            id BIGINT PRIMARY KEY,
            forgotten_at TIMESTAMP NOT NULL,
            selector VARCHAR NOT NULL,
            memory_ids VARCHAR[] NOT NULL,
            memories INTEGER NOT NULL,
            turns INTEGER NOT NULL,
            tool_uses INTEGER NOT NULL,
            checkpoints INTEGER NOT NULL,
            purged BOOLEAN NOT NULL
        )"""
    )
    con.execute(
        """CREATE TABLE memory_events (
            happened_at TIMESTAMP NOT NULL,
            kind VARCHAR NOT NULL,
            memory_id VARCHAR NOT NULL,
            other_id VARCHAR,
            undo_id BIGINT
        )"""
    )
    con.execute(
        "CREATE TABLE activity_days (day DATE NOT NULL, project VARCHAR NOT NULL, "
        "PRIMARY KEY (day, project))"
    )


def m003_create_capture_queue(con: duckdb.DuckDBPyConnection) -> None:
    """Turns whose memories are still to be captured (decision 0009): a large flush writes its
    turns with their rows here in one transaction, and the memories captured from one `flush`
    group are written in the transaction that deletes it. `pos` keeps the flush's order."""
    con.execute("CREATE SEQUENCE capture_flush_seq START 1")
    con.execute(
        "CREATE TABLE capture_queue (flush BIGINT NOT NULL, pos INTEGER NOT NULL, "
        "turn_id VARCHAR NOT NULL)"
    )


def m004_term_ids(con: duckdb.DuckDBPyConnection) -> None:
    """Postings name their term by an integer id into a new `terms` table (decision 0010): the
    index loads integer columns instead of joining and sorting 6.5M term strings at 100k turns.
    Ids are dense from 0 here, later ones max + 1. A term's id never changes while a posting
    holds it; a term no posting holds any more is deleted with the rows that held it, or at
    compaction."""
    con.execute("CREATE TABLE terms (tid INTEGER NOT NULL, term VARCHAR NOT NULL)")
    con.execute(
        "INSERT INTO terms SELECT (row_number() OVER (ORDER BY term) - 1)::INTEGER, term "
        "FROM (SELECT DISTINCT term FROM postings)"
    )
    con.execute("ALTER TABLE postings RENAME TO postings_old")
    con.execute("CREATE TABLE postings (doc BIGINT NOT NULL, tid INTEGER NOT NULL, tf INTEGER)")
    con.execute(
        "INSERT INTO postings SELECT p.doc, t.tid, p.tf FROM postings_old p JOIN terms t "
        "USING (term) ORDER BY p.doc"
    )
    con.execute("DROP TABLE postings_old")


def m005_session_captures(con: duckdb.DuckDBPyConnection) -> None:
    """How many captures each session has admitted, against the per-session cap
    (admission.SESSION_CAPTURE_CAP): kept in the store so the cap survives a restart, instead
    of a per-process dict that grew with every session and forgot on restart."""
    con.execute(
        "CREATE TABLE session_captures (session_id VARCHAR PRIMARY KEY, captured INTEGER NOT NULL)"
    )


def m006_sync(con: duckdb.DuckDBPyConnection) -> None:
    """Sync (issue 21, decision 0024): each memory's merged register, the synced fields as last
    reconciled (what a local change is measured against), this machine's own log per remote
    (event in clear for compaction, its line as sent), the version of each remote file applied,
    sync status per remote, and the old -> new memory id map of the portable-identity
    migration."""
    con.execute(
        "CREATE TABLE sync_registers (memory_id VARCHAR PRIMARY KEY, state VARCHAR NOT NULL)"
    )
    con.execute(
        "CREATE TABLE sync_shadow (memory_id VARCHAR PRIMARY KEY, digest VARCHAR NOT NULL, "
        "fields VARCHAR NOT NULL)"
    )
    con.execute(
        "CREATE TABLE sync_log (remote VARCHAR NOT NULL, bucket INTEGER NOT NULL, "
        "memory_id VARCHAR NOT NULL, stamp VARCHAR NOT NULL, event VARCHAR NOT NULL, "
        "line VARCHAR NOT NULL)"
    )
    con.execute(
        "CREATE TABLE sync_cursors (remote VARCHAR NOT NULL, path VARCHAR NOT NULL, "
        "version VARCHAR NOT NULL, PRIMARY KEY (remote, path))"
    )
    con.execute(
        "CREATE TABLE sync_meta (remote VARCHAR NOT NULL, key VARCHAR NOT NULL, "
        "value VARCHAR NOT NULL, PRIMARY KEY (remote, key))"
    )
    con.execute(
        "CREATE TABLE memory_id_map (old_id VARCHAR PRIMARY KEY, new_id VARCHAR NOT NULL, "
        "mapped_at TIMESTAMP NOT NULL)"
    )


def m007_portable_memory_ids(con: duckdb.DuckDBPyConnection) -> None:
    """Memory ids made of the project's portable id instead of its local path (issue 21,
    decision 0024): `project_ids` keeps each git project's id basis (so git runs once per
    project, and a project's ids stay put when its remote changes), and every memory of a git
    project is re-keyed, its old id kept in `memory_id_map` (store/rekey.py). Reads each
    project's `.git` (and may run `git rev-list` once for a project with no remote)."""
    from recallnest.store.rekey import plan_rekey, rekey, save_bases
    from recallnest.store.sql import _utcnow

    con.execute(
        "CREATE TABLE project_ids (project VARCHAR PRIMARY KEY, basis VARCHAR NOT NULL, "
        "computed_at TIMESTAMP NOT NULL)"
    )
    mapping, bases = plan_rekey(con)
    save_bases(con, bases)
    rekey(con, mapping, _utcnow())


def m008_store_meta(con: duckdb.DuckDBPyConnection) -> None:
    """Facts about the store itself, key -> value: the fingerprint of the redactor its texts
    were last checked against (server/rescan.py re-checks them when the redactor changed)."""
    con.execute("CREATE TABLE store_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")


MIGRATIONS: tuple[Migration, ...] = (
    m001_create_core,
    m002_create_lifecycle,
    m003_create_capture_queue,
    m004_term_ids,
    m005_session_captures,
    m006_sync,
    m007_portable_memory_ids,
    m008_store_meta,
)

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


MIGRATIONS: tuple[Migration, ...] = (m001_create_core,)

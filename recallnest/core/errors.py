"""Exception hierarchy for recallnest. Imports nothing from the package.

    RecallnestError
    ├── ConfigError          bad settings, config.toml or flags
    ├── StoreError           the database cannot do what was asked
    │   ├── StoreLockedError another process holds the database
    │   ├── MigrationError   the schema cannot be brought up to date
    │   └── ExtensionError   a DuckDB extension wheel is missing or will not load
    ├── TranscriptError      a transcript file cannot be read as a whole
    ├── EmbedError           no vectors could be computed (model or remote API)
    ├── DaemonError          the daemon cannot be reached or refused a request
    └── NotFoundError        an id or record the user named does not exist

Raise the most specific class; the CLI and the hook boundary catch the base class.
"""

from __future__ import annotations


class RecallnestError(Exception):
    """Base class of every error recallnest raises on purpose."""


class ConfigError(RecallnestError):
    """Settings are invalid."""


class StoreError(RecallnestError):
    """The database failed."""


class StoreLockedError(StoreError):
    """Another process holds the database file."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


class MigrationError(StoreError):
    """The schema could not be migrated."""


class ExtensionError(StoreError):
    """A DuckDB extension shipped as a PyPI wheel is missing or failed to load."""


class TranscriptError(RecallnestError):
    """A transcript file could not be read."""


class EmbedError(RecallnestError):
    """An embedder could not produce vectors."""


class DaemonError(RecallnestError):
    """The daemon is unreachable or answered with an error."""


class NotFoundError(RecallnestError):
    """A named record does not exist."""


class NothingIndexedError(RecallnestError):
    """A read found no database at all (a fresh or mistyped home): said, not "no results"."""

"""Opening the database: the connection settings, the lock holder's PID, the bundled VSS and FTS
extensions, and the guard that turns duckdb's errors into StoreError."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import duckdb

from recallnest.core.errors import (
    ExtensionError,
    StoreError,
    StoreLockedError,
)
from recallnest.store.types import (
    DB_MEMORY_MB,
)

_LOCK_PID = re.compile(r"PID (\d+)")


EXTENSION_PACKAGES = {"vss": "duckdb_extension_vss", "fts": "duckdb_extension_fts"}


def extension_path(name: str) -> Path:
    """The extension binary shipped in its PyPI wheel. Never INSTALL from the network: DuckDB's
    extension repository is unreachable for many users and for CI."""
    import importlib

    package = EXTENSION_PACKAGES[name]
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        pip_name = package.replace("_", "-")
        raise ExtensionError(
            f"DuckDB extension {name!r} is missing: pip install {pip_name}=={duckdb.__version__}"
        ) from exc
    base = Path(module.__file__ or "").parent / "extensions" / f"v{duckdb.__version__}"
    path = base / f"{name}.duckdb_extension"
    if not path.exists():
        raise ExtensionError(
            f"{package} has no binary for DuckDB {duckdb.__version__} at {path}: install "
            f"{package.replace('_', '-')}=={duckdb.__version__}"
        )
    return path


def load_extension(con: duckdb.DuckDBPyConnection, name: str) -> None:
    try:
        con.execute(f"LOAD '{extension_path(name)}'")
    except duckdb.Error as exc:
        raise ExtensionError(f"DuckDB extension {name!r} failed to load: {exc}") from exc


def check_extensions() -> dict[str, str]:
    """Load each shipped extension into a scratch connection; returns {name: version}."""
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        versions = {}
        for name in EXTENSION_PACKAGES:
            load_extension(con, name)
            row = con.execute(
                "SELECT extension_version FROM duckdb_extensions() WHERE extension_name = ?", [name]
            ).fetchone()
            versions[name] = str(row[0]) if row else "loaded"
        return versions
    finally:
        con.close()


def _block_absent_optional_imports() -> None:
    """Constraint: with pandas absent, DuckDB retries `import pandas` for Python objects it
    scans: two failed imports per row of `add_vectors`' BLOB column, 13x the CPU of a 10k-vector
    write (0.13 s vs 1.65 s, docs/decisions/0004, 2026-12 re-check). A None entry in sys.modules
    makes that import fail at once. Set at the first connection, not at import, and only for a
    package that is not installed, so a host process that could import pandas never loses it.
    recallnest never hands DuckDB a DataFrame or an Arrow table."""
    for name in ("pandas", "pyarrow"):
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = None  # type: ignore[assignment]


def _connect(
    path: Path, read_only: bool, memory_mb: int = DB_MEMORY_MB
) -> duckdb.DuckDBPyConnection:
    _block_absent_optional_imports()
    config: dict[str, str | bool | int | float | list[str]] = {
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # Constraint: DuckDB's buffer manager caches table blocks up to memory_limit, by default
        # 80 % of RAM, so a long-lived daemon's RSS grew with the file (~1.3 KB per stored
        # turn, bench/RESULTS.md "Reliability"). Capped, blocks are evicted and re-read.
        "memory_limit": f"{memory_mb}MiB",
        # DuckDB's allocator (jemalloc) returns freed pages only when it is called again, so
        # after a large pass an idle daemon kept ~55 MiB of them (freed, still resident); its
        # background thread returns them within a second (decision 0027).
        "allocator_background_threads": True,
        # DuckDB samples up to 1,000 values of each object column to infer its type, with
        # eight failed `import pandas` per value: 35 ms per registered text column, a third
        # of a 1k-memory write. Ours hold only str (texts) or only bytes (vectors) and never
        # None, so the first value decides the same type.
        "pandas_analyze_sample": 1,
    }
    try:
        return duckdb.connect(str(path), read_only=read_only, config=config)
    except duckdb.IOException as exc:
        message = str(exc)
        # DuckDB's lock error: `Could not set lock on file "...": Conflicting lock is held in
        # ... (PID n)`. Not a bare "lock": a damaged file reports "... in block at location n".
        if "could not set lock" in message.lower():
            match = _LOCK_PID.search(message)
            pid = int(match.group(1)) if match else None
            holder = f"PID {pid}" if pid else "another process"
            raise StoreLockedError(
                f"database {path} is in use by {holder} (is the recallnest daemon running? "
                "use `recallnest daemon status`)",
                pid,
            ) from exc
        raise StoreError(f"cannot open database {path}: {message}{REPAIR_HINT}") from exc
    except duckdb.Error as exc:
        raise StoreError(f"cannot open database {path} (damaged?): {exc}{REPAIR_HINT}") from exc


REPAIR_HINT = " (if the file is damaged, `recallnest repair` moves it aside and rebuilds it)"

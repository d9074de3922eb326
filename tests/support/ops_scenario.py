"""The scenario that exercises every socket operation once or more on a seeded home, shared
by the daemon/local parity test and the JSON pin (tests/server/test_ops_parity.py,
tests/server/test_ops_json.py). Not a test module."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.engine import Engine
from recallnest.ingest.pipeline import Source, ingest_file
from support.paths import FIXTURES

TRANSCRIPT = FIXTURES / "transcripts" / "claude" / "claude-code-transcripts__sample_session.jsonl"
ISO = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?([+-]\d\d:?\d\d|Z)?$")
# Differ between any two runs: the PID, storage sizes (DuckDB's block allocation) and how far
# the daemon's background workers (embedder, the flush of read counts) have got.
VARYING_KEYS = {
    "pid",
    "ratio",
    "vectors",
    "rows_with_vectors",
    "pending",
    "compacted",
    "seconds",
    "access_flushed",
    "access_count",
    "last_accessed_at",
    # A checkpoint's reason: the daemon's idle checkpointer may rewrite the manual one as idle
    # before sessions.show reads it.
    "reason",
}
VARYING_SUFFIXES = ("_seconds", "_ms", "_bytes")

Args = dict[str, Any] | Callable[[list[Any]], dict[str, Any]]


def with_evidence(record: dict[str, Any], turn_id: str) -> dict[str, Any]:
    """An exported memory record made into another memory, captured from `turn_id`."""
    text = "The hello function lives in hello.py"
    return record | {"id": "memory-with-evidence", "text": text, "evidence": [turn_id]}


def first_id(results: list[Any], at: int) -> str:
    return str(results[at]["id"])


# (op, args or a function of the earlier results). Every op in OPS appears at least once.
SCENARIO: list[tuple[str, Args]] = [
    ("ping", {}),
    ("remember", {"text": "We deploy with make ship, never by hand", "scope": "global"}),
    ("remember", {"text": "The staging database is called heron", "category": "preferences"}),
    # The category is given: the scenario needs this restatement merged with the first one,
    # whatever category capture would read in it.
    (
        "remember",
        {
            "text": "We deploy with make ship, and never by hand",
            "scope": "global",
            "category": "entities",
        },
    ),
    ("search", {"query": "deploy ship"}),
    ("search", {"query": "heron", "since": "30d", "kind": "memories"}),
    ("memories.list", {}),
    ("memories.show", lambda r: {"id": first_id(r, 1)}),
    ("memories.find", {"scope": "global"}),
    ("memories.history", lambda r: {"id": first_id(r, 1)}),
    ("memories.flags", lambda r: {"ids": [first_id(r, 2)], "pinned": True, "tier": "core"}),
    ("memories.flags", lambda r: {"ids": [first_id(r, 2)], "valid_until": "30d"}),
    ("stats", {}),
    ("export", {}),
    ("import", lambda r: {"records": r[13]}),
    ("resume", {"cwd": "/tmp", "agent": "claude", "record": False}),
    ("recall", {"prompt": "how do we deploy with make ship?", "cwd": "/tmp", "session_id": "s"}),
    ("checkpoint", {}),
    ("checkpoints.list", {}),
    ("checkpoints.show", {"id": "no-such-checkpoint"}),
    ("consolidate", {"dry_run": True}),
    ("consolidate", {}),
    ("conflicts.list", {"all": True}),
    ("conflicts.resolve", {"id": 999, "keep": "a"}),
    ("undo.list", {}),
    ("undo", {}),
    ("forget.plan", lambda r: {"ids": [first_id(r, 1)]}),
    ("forget.run", lambda r: {"ids": [first_id(r, 1)]}),
    ("forget", lambda r: {"ids": [first_id(r, 3)]}),
    ("forget.log", {}),
    ("lifecycle.size", {}),
    ("compact", {}),
    ("maintain", {}),
    ("sync.status", {}),  # not set up: {"configured": false} on both paths
    ("sync.now", {}),  # not set up: the same clear error on both paths
    ("sync.remove", {"name": "no-such-remote"}),  # the same clear error on both paths
    ("sync.name", {"scope": "/work/not-a-repo", "name": "shared-app"}),  # no memories there
    ("memories.list", {"status": None}),
    ("search", {"query": 42, "kind": "nonsense"}),
    # ---- the web UI's ops (issue 20) ----
    ("stats.dashboard", {"days": 3660}),
    ("projects.list", {}),
    ("sessions.list", {}),
    ("sessions.show", lambda r: {"session_id": r[-1][0]["session_id"]}),
    ("sessions.show", {"session_id": "no-such-session"}),
    ("memories.context", lambda r: {"id": first_id(r, 2)}),
    ("memories.edit", lambda r: {"id": first_id(r, 2), "text": "The staging database is egret"}),
    ("memories.edit", lambda r: {"id": r[-1]["id"]}),
    ("memories.approve", lambda r: {"ids": [first_id(r, 2)]}),  # active: left as it is
    ("stats", {"sizes": False}),  # the web UI's dashboard: no live-bytes estimate
    # A memory with evidence, so its page lists the turns it was captured from.
    ("search", {"query": "hello function", "kind": "turns"}),
    ("import", lambda r: {"records": [with_evidence(r[13][0], r[-1][0]["id"])]}),
    ("memories.context", {"id": "memory-with-evidence"}),
]


def masked(value: Any, root: Path) -> Any:
    """`value` with times, durations, the PID and the home's path masked (they differ between
    any two runs)."""
    if isinstance(value, dict):
        return {
            k: "<varies>" if k in VARYING_KEYS or k.endswith(VARYING_SUFFIXES) else masked(v, root)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [masked(v, root) for v in value]
    if isinstance(value, str):
        return "<time>" if ISO.match(value) else value.replace(str(root), "<root>")
    return value


def seeded(settings: Settings) -> Engine:
    engine = Engine.open(settings)
    report = ingest_file(Source(str(TRANSCRIPT), "claude"), None, engine.ingest_batch)
    assert report.turns > 0 and not report.errors
    engine.drain_capture()
    # A daemon checkpoints at once, on its own timer, every session no checkpoint covers (and
    # those the seeding touched: a compaction in the fixture); the scenario compares ops, not
    # that schedule, so both homes start with every session checkpointed.
    for session_id in engine.store.sessions_missing_checkpoint():
        engine.continuity.checkpoint(session_id, "idle")
    engine.touched.clear()
    assert not engine.store.sessions_missing_checkpoint()
    return engine


def run(call: Callable[[str, dict[str, Any]], Any]) -> list[Any]:
    """The scenario's raw results: ("ok", result) or ("error", message)."""
    raw: list[Any] = []
    outcomes: list[tuple[str, Any]] = []
    for op, args in SCENARIO:
        resolved = args(raw) if callable(args) else args
        try:
            result = call(op, resolved)
        except Exception as exc:  # compared, not hidden: both paths must fail alike
            raw.append(None)
            outcomes.append(("error", str(exc)))
            continue
        raw.append(result)
        outcomes.append(("ok", result))
    return outcomes


def settings_in(root: Path) -> Settings:
    return Settings.load(
        flags={"home": str(root / "rn"), "embedder": "hash"}, env={"HOME": str(root / "u")}
    )

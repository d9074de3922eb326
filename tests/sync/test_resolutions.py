"""Conflict resolutions travel (issue 21): a pair of memories names one conflict on every
machine (memory ids are portable), and resolving it on one machine resolves it, or keeps it
from ever being flagged, on the others."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from recallnest.engine import Engine
from recallnest.sync.clock import Clock
from recallnest.sync.codec import BadEvent, decode, encode
from recallnest.sync.config import Remote
from recallnest.sync.merge import Event
from tests.support.sync_homes import KEY, homes, sync_all

M = "0a1b2c3d4e5f6a7b"  # a machine id
NOW = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)


def _flag(engine: Engine, a_id: str, b_id: str) -> int:
    (a,) = engine.store.memories([a_id])
    row = {"a_id": a_id, "b_id": b_id, "scope": a.scope, "category": a.category,
           "reason": "contradiction", "similarity": 0.9}  # fmt: skip
    engine.store.add_conflicts([row], NOW)
    found = [c for c in engine.store.conflicts(None) if {c["a_id"], c["b_id"]} == {a_id, b_id}]
    return int(found[0]["id"])


def _pair(engine: Engine, a_id: str, b_id: str) -> tuple[str, str, str | None]:
    (c,) = [c for c in engine.store.conflicts(None) if {c["a_id"], c["b_id"]} == {a_id, b_id}]
    return c["a_id"], c["status"], c["resolution"]


def test_a_resolution_closes_the_conflict_everywhere(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    with homes(tmp_path, "abc", Remote("personal", str(shared), "folder")) as (a, b, c):
        x = a.remember("Deploys happen from the main branch").id
        y = a.remember("Releases are cut by Dana on Thursdays").id
        sync_all([a, b, c])
        conflict = _flag(a, x, y)
        _flag(b, y, x)  # b flagged the same pair, the other way round; c never did
        a.maintenance.resolve_conflict(conflict, "older", NOW)  # keep x, y superseded
        a.sync.sync()
        sync_all([b, c])
        assert _pair(a, x, y) == (x, "resolved", "older")
        assert _pair(b, x, y) == (y, "resolved", "newer")  # b's a is y: it keeps its b, x
        assert _pair(c, x, y) == (min(x, y), "resolved", "older" if min(x, y) == x else "newer")
        for engine in (a, b, c):
            (dropped,) = engine.store.memories([y])
            assert (dropped.status, dropped.superseded_by) == ("superseded", x)
        # A pair resolved everywhere is not flagged again; nothing moves on the next round.
        again = {"a_id": y, "b_id": x, "scope": "global", "category": "facts", "reason": "r"}
        assert c.store.add_conflicts([again], NOW) == 0
        quiet = sync_all([a, b, c], rounds=1)
        assert all(r["exported"] == 0 and r["applied"] == 0 for r in quiet)


def test_keep_both_travels_although_no_memory_changes(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    with homes(tmp_path, "ab", Remote("personal", str(shared), "folder")) as (a, b):
        x = a.remember("The docs site is built with mkdocs").id
        y = a.remember("Integration tests need a running Postgres").id
        sync_all([a, b])
        _flag(b, x, y)
        a.maintenance.resolve_conflict(_flag(a, x, y), "both", NOW)
        sync_all([a, b])
        assert _pair(b, x, y)[1:] == ("resolved", "both")
        assert sorted(m.status for m in b.export()) == ["active", "active"]


@pytest.mark.parametrize(
    "value", ["someone-else", 3, "00000000-0000-5000-8000-000000000000"], ids=str
)
def test_a_malformed_resolution_is_rejected(value: object) -> None:
    low, high = "10000000-0000-5000-8000-000000000001", "20000000-0000-5000-8000-000000000002"
    stamp = Clock(M).now()
    good = Event(stamp, low, "resolve", {f"resolved:{high}": high}, M, "u", "h")
    assert decode(encode(good, KEY), KEY, M).fields == good.fields
    bad = Event(stamp, low, "resolve", {f"resolved:{high}": value}, M, "u", "h")
    with pytest.raises(BadEvent, match="conflict resolution"):
        decode(encode(bad, KEY), KEY, M)
    # On the register of the pair's greater id: not where it belongs.
    wrong = Event(stamp, high, "resolve", {f"resolved:{low}": low}, M, "u", "h")
    with pytest.raises(BadEvent, match="conflict resolution"):
        decode(encode(wrong, KEY), KEY, M)

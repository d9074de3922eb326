"""Consolidation: related pairs, contradictions by category, merges, protection of pinned and
core memories, undo restoring the exact prior rows, conflicts (issue 7)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from support.paths import ROOT

from recallnest.core.errors import RecallnestError
from recallnest.core.models import Memory
from recallnest.engine import Engine
from recallnest.lifecycle.consolidation import (
    CosineThresholds,
    contradiction,
    numeric_conflict,
    plan_consolidation,
    related,
)
from recallnest.lifecycle.scheduler import IDLE_SECONDS, Maintenance
from recallnest.store import Batch

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
NOW = T0 + timedelta(days=30)
PAIRS = ROOT / "eval" / "capture" / "pairs.jsonl"


def mem(mem_id: str, text: str, days: int = 0, **kw: object) -> Memory:
    values: dict[str, object] = {
        "id": mem_id,
        "scope": "global",
        "category": "preferences",
        "text": text,
        "created_at": T0 + timedelta(days=days),
        "updated_at": T0 + timedelta(days=days),
        "evidence": (f"turn-{mem_id}",),
    }
    values.update(kw)
    return Memory(**values)  # type: ignore[arg-type]


def by_id(rows: list[Memory]) -> dict[str, Memory]:
    return {m.id: m for m in rows}


# ---- pairs ---------------------------------------------------------------------------------------


def test_pairs_file_no_false_merge_with_keywords_only() -> None:
    """Every pair labelled `different` is either unrelated or a detected contradiction;
    every related restatement is not mistaken for a contradiction."""
    for line in PAIRS.read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        yes, _, _ = related(p["a"], p["b"], None, None)
        conflict = contradiction(p["a"], p["b"]) if yes else None
        if p["same"]:
            assert conflict is None, p
        else:
            assert not yes or conflict is not None, p


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("Use pnpm, not npm.", "Use npm, not pnpm.", "package-manager:js"),
        ("这个项目里缩进统一两个空格。", "这个项目里缩进统一四个空格。", "indent"),
        ("I'm a backend engineer.", "I'm a frontend engineer.", "backend/frontend"),
        ("Always use tabs for indentation.", "Never use tabs for indentation.", "alway/never"),
        ("Use tabs.", "Never use tabs.", "negates"),
        ("We run 3 replicas in production.", "We run 5 replicas in production.", "numbers"),
    ],
)
def test_contradictions_are_named(a: str, b: str, reason: str) -> None:
    found = contradiction(a, b)
    assert found is not None and reason in found


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Use pnpm, not npm.", "use pnpm instead of npm"),
        ("以后装 Python 依赖一律用 uv。", "以后装 Python 依赖一律用 uv，别再 pip install 了。"),
        ("The metrics service listens on port 9464.", "the metrics service listens on 9464"),
    ],
)
def test_restatements_do_not_contradict(a: str, b: str) -> None:
    assert contradiction(a, b) is None


def test_cosine_rules_need_keyword_overlap_too() -> None:
    t = CosineThresholds(related=0.935, contained=0.90)
    a = "Redis handles rate limiting."
    b = "Redis handles rate limiting, sessions live in Postgres, caching uses Memcached."
    assert related(a, b, 0.925, t)[:2] == (True, "contained")
    assert related(a, b, 0.925, None)[0] is False  # no calibrated model: keywords only
    assert related("Keep your answers short.", "Keep commit messages short.", 0.99, t)[0] is False


def test_numeric_conflicts_only_when_the_rest_matches() -> None:
    assert numeric_conflict("The staging port is 8080.", "The staging port is 8443.") == 1.0
    assert numeric_conflict("The staging port is 8443.", "The production port is 443.") is None


# ---- planning ------------------------------------------------------------------------------------


def test_merge_keeps_the_best_and_combines_the_rest() -> None:
    a = mem("a", "Always use pathlib instead of os.path in new code.", 0, importance=0.9)
    b = mem("b", "use pathlib instead of os.path in new code", 5, access_count=3,
            confidence=0.6, tier="peripheral")  # fmt: skip
    plan = plan_consolidation([a, b], {}, None, NOW)
    after = by_id(plan.after)
    assert after["b"].status == "superseded" and after["b"].superseded_by == "a"
    kept = after["a"]
    assert kept.status == "active" and kept.text == a.text
    assert kept.evidence == ("turn-a", "turn-b")
    assert (kept.importance, kept.confidence, kept.access_count) == (0.9, 1.0, 3)
    assert kept.updated_at == b.updated_at and kept.created_at == a.created_at
    assert plan.events == [("merged", "b", "a")]
    assert plan.before == [a, b]


def test_leader_clustering_does_not_chain() -> None:
    # a~b and b~c but not a~c: the best (a) takes b; c stays (it is not related to a).
    a = mem("a", "deploy script lives in ops/deploy.sh and needs the vpn", importance=0.9)
    b = mem("b", "deploy script lives in ops/deploy.sh and needs vpn access")
    c = mem("c", "the script needs vpn access and ops/deploy credentials")
    plan = plan_consolidation([a, b, c], {}, None, NOW)
    assert related(a.text, b.text, None, None)[0]
    assert not related(a.text, c.text, None, None)[0]
    assert {m.id for m in plan.after if m.status == "superseded"} <= {"b", "c"}
    assert by_id(plan.after)["b"].superseded_by == "a"
    assert "c" not in by_id(plan.after) or by_id(plan.after)["c"].superseded_by != "a"


def test_preferences_newer_statement_wins() -> None:
    old = mem("old", "Use pnpm, not npm.", 0)
    new = mem("new", "Use npm, not pnpm.", 10)
    plan = plan_consolidation([new, old], {}, None, NOW)
    assert [(m.id, m.status, m.superseded_by) for m in plan.after] == [("old", "superseded", "new")]
    assert plan.stats["superseded"] == 1 and not plan.conflicts


def test_entities_contradictions_are_flagged_not_changed() -> None:
    old = mem("old", "The staging port is 8080.", 0, category="entities")
    new = mem("new", "The staging port is 8443.", 3, category="entities")
    plan = plan_consolidation([old, new], {}, None, NOW)
    assert plan.after == []
    assert [(c["a_id"], c["b_id"]) for c in plan.conflicts] == [("old", "new")]
    again = plan_consolidation([old, new], {}, None, NOW, known_conflicts={("new", "old")})
    assert again.conflicts == []


def test_events_contradictions_keep_both() -> None:
    a = mem("a", "We decided to keep DuckDB for the analytics store.", 0, category="events")
    b = mem("b", "We decided to drop DuckDB for the analytics store.", 9, category="events")
    plan = plan_consolidation([a, b], {}, None, NOW)
    assert plan.after == [] and plan.conflicts == []
    assert plan.stats["kept_both"] == 1


def test_pinned_and_core_are_never_changed() -> None:
    pinned = mem("p", "Always use pathlib instead of os.path in new code.", 0, pinned=True,
                 importance=0.1)  # fmt: skip
    dup = mem("d", "use pathlib instead of os.path in new code", 5, importance=0.9)
    core_old = mem("c", "Use pnpm, not npm.", 0, tier="core")
    newer = mem("n", "Use npm, not pnpm.", 8)
    plan = plan_consolidation([pinned, dup, core_old, newer], {}, None, NOW)
    changed = by_id(plan.after)
    assert "p" not in changed and "c" not in changed
    assert changed["d"].superseded_by == "p"  # a duplicate of a pinned memory yields to it
    assert [(c["a_id"], c["b_id"]) for c in plan.conflicts] == [("c", "n")]


def test_a_live_row_with_a_stale_successor_link_is_repaired() -> None:
    # Admission can revive a superseded row without clearing its link; resume would then
    # never show it although it is active.
    revived = mem("r", "use pathlib instead of os.path in new code", superseded_by="gone")
    plan = plan_consolidation([revived], {}, None, NOW)
    assert [(m.id, m.status, m.superseded_by) for m in plan.after] == [("r", "active", None)]
    assert plan.stats["relinked"] == 1 and plan.events == [("relinked", "r", None)]


def test_scopes_and_categories_never_mix() -> None:
    a = mem("a", "use pathlib instead of os.path in new code")
    b = mem("b", "use pathlib instead of os.path in new code.", scope="/repo")
    c = mem("c", "use pathlib instead of os.path in new code!", category="patterns")
    assert plan_consolidation([a, b, c], {}, None, NOW).after == []


def test_vectors_find_restatements_keywords_miss() -> None:
    a = mem("a", "Redis handles rate limiting.", category="entities", importance=0.9)
    b = mem("b", "Redis handles rate limiting, sessions live in Postgres, caching uses Memcached.",
            2, category="entities")  # fmt: skip
    unit = np.array([1.0, 0.0], dtype=np.float32)
    near = np.array([0.93, np.sqrt(1 - 0.93**2)], dtype=np.float32)
    t = CosineThresholds(related=0.935, contained=0.90)
    assert plan_consolidation([a, b], {}, t, NOW).after == []
    plan = plan_consolidation([a, b], {"a": unit, "b": near}, t, NOW)
    assert {m.id: m.status for m in plan.after} == {"a": "active", "b": "superseded"}


# ---- over an engine: apply, undo, conflicts ------------------------------------------------------


ROWS = [
    mem("a", "Always use pathlib instead of os.path in new code.", 0),
    mem("b", "use pathlib instead of os.path in new code", 4, access_count=2),
    mem("c", "Use pnpm, not npm.", 1),
    mem("d", "Use npm, not pnpm.", 6),
    mem("e", "The staging port is 8080.", 1, category="entities"),
    mem("f", "The staging port is 8443.", 2, category="entities"),
    mem("g", "Use tabs.", 0, pinned=True),
    mem("h", "Never use tabs.", 3, tier="core"),
]


@pytest.fixture
def loaded(engine: Engine) -> Iterator[Engine]:
    engine.apply(Batch(memories=ROWS))
    yield engine


def rows_of(engine: Engine) -> dict[str, Memory]:
    return by_id(engine.store.find_memories({}))


def test_dry_run_changes_nothing(loaded: Engine) -> None:
    before = rows_of(loaded)
    report = loaded.maintenance.consolidate(dry_run=True, now=NOW)
    assert report.stats["merged"] == 1 and report.stats["superseded"] == 1
    assert rows_of(loaded) == before
    assert loaded.store.undo_entries() == [] and loaded.store.conflicts() == []


def test_consolidate_then_undo_restores_the_exact_rows(loaded: Engine) -> None:
    before = rows_of(loaded)
    report = loaded.maintenance.consolidate(now=NOW)
    after = rows_of(loaded)
    assert after["a"].superseded_by == "b" or after["b"].superseded_by == "a"
    assert after["c"].status == "superseded" and after["c"].superseded_by == "d"
    assert after["g"] == before["g"] and after["h"] == before["h"]  # pinned, core untouched
    assert len(loaded.store.conflicts()) == 2  # staging port; pinned tabs vs core never-tabs
    assert len(loaded.store.memory_events(list(before))) == 2

    result = loaded.maintenance.undo()
    assert result.undo_id == report.undo_id
    restored = rows_of(loaded)
    assert restored.keys() == before.keys()
    for mem_id, row in before.items():
        for f in fields(Memory):
            assert getattr(restored[mem_id], f.name) == getattr(row, f.name), (mem_id, f.name)
    assert loaded.store.conflicts() == [] and loaded.store.memory_events(list(before)) == []
    with pytest.raises(RecallnestError, match="no consolidate"):
        loaded.maintenance.undo()


def test_undo_refuses_when_rows_changed_since(loaded: Engine) -> None:
    loaded.maintenance.consolidate(now=NOW)
    c = loaded.store.memories(["c"])[0]  # superseded by the consolidation, then edited
    loaded.apply(Batch(memories=[replace(c, importance=0.99)]))
    with pytest.raises(RecallnestError, match="changed since"):
        loaded.maintenance.undo()
    loaded.maintenance.undo(force=True)
    assert loaded.store.memories(["c"])[0].status == "active"


def test_undo_goes_through_when_the_rows_were_only_read_since(loaded: Engine) -> None:
    loaded.maintenance.consolidate(now=NOW)
    read = loaded.store.memories(["a", "c"])
    loaded.record_access([m.id for m in read], NOW)  # a search or a resume read them
    loaded.maintenance.flush_access()
    assert loaded.store.memories(["c"])[0].access_count > read[1].access_count
    loaded.maintenance.undo()
    assert loaded.store.memories(["c"])[0].status == "active"


def test_consolidation_skips_when_rows_changed_meanwhile(
    loaded: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = loaded.store.memories
    calls = {"n": 0}

    def racing(ids: list[str]) -> list[Memory]:
        calls["n"] += 1
        return [replace(m, importance=0.42) for m in real(ids)]

    monkeypatch.setattr(loaded.store, "memories", racing)
    report = loaded.maintenance.consolidate(now=NOW)
    assert report.skipped is not None and report.undo_id is None
    monkeypatch.undo()
    assert rows_of(loaded)["c"].status == "active"


def test_search_and_resume_show_only_the_current_statement(loaded: Engine) -> None:
    from recallnest.engine import SearchRequest

    loaded.maintenance.consolidate(now=NOW)
    hits = loaded.search(SearchRequest("pnpm npm", kind="memories"))
    assert [h.id for h in hits] == ["d"]
    context = loaded.continuity.resume("/tmp", "claude", record=False, now=NOW).text
    assert "Use npm, not pnpm." in context and "Use pnpm, not npm." not in context


def test_resolve_conflict_supersedes_the_other(loaded: Engine) -> None:
    loaded.maintenance.consolidate(now=NOW)
    port = next(c for c in loaded.maintenance.conflicts() if c["category"] == "entities")
    assert (port["a_text"], port["b_text"]) == (ROWS[4].text, ROWS[5].text)
    loaded.maintenance.resolve_conflict(port["id"], "newer", now=NOW)
    assert loaded.store.memories(["e"])[0].superseded_by == "f"
    assert all(c["id"] != port["id"] for c in loaded.maintenance.conflicts())
    history = loaded.maintenance.history("f")
    assert [m["id"] for m in history["replaced"]] == ["e"]
    assert history["events"][-1]["kind"] == "resolved"


# ---- the CLI -------------------------------------------------------------------------------------


@pytest.fixture
def lifecycle_cli(cli):  # type: ignore[no-untyped-def]
    from recallnest.cli import cli as group
    from recallnest.cli.lifecycle import register

    register(group)
    return cli


def test_cli_consolidate_undo_and_conflicts(lifecycle_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run = lifecycle_cli
    # `remember` supersedes a contradicted memory at once; two that arrive otherwise (an
    # import, another machine) are left to consolidation, which this test is about.
    assert run(["remember", "Use pnpm, not npm.", "--category", "preferences"]).exit_code == 0
    old = json.loads(run(["export"]).stdout.splitlines()[0])
    later = (datetime.fromisoformat(old["created_at"]) + timedelta(days=1)).isoformat()
    new = {**old, "id": "imported-1", "text": "Use npm, not pnpm.", "created_at": later}
    new["updated_at"] = later
    source = tmp_path / "import.jsonl"
    source.write_text(json.dumps(new) + "\n", encoding="utf-8")
    assert run(["import", str(source)]).exit_code == 0
    dry = json.loads(run(["consolidate", "--dry-run", "--json"]).stdout)
    assert dry["dry_run"] and dry["stats"]["superseded"] == 1 and dry["undo_id"] is None
    done = run(["consolidate"])
    assert done.exit_code == 0 and "supersede 1" in done.output and "recallnest undo" in done.output
    listed = run(["undo", "--list"]).output
    assert "consolidate" in listed
    undone = run(["undo"])
    assert undone.exit_code == 0 and "restored 1 row" in undone.output
    assert run(["conflicts", "list"]).output == "no conflicts\n"
    again = run(["undo"])
    assert again.exit_code == 1 and "no consolidate to undo" in again.output


def test_daemon_runs_are_incremental(loaded: Engine) -> None:
    m = loaded.maintenance
    first = m.consolidate(incremental=True, now=NOW)  # nothing compared yet: every pair
    assert first.stats["related_pairs"] >= 3
    quiet = m.consolidate(incremental=True, now=NOW)
    assert quiet.stats.get("related_pairs", 0) == 0 and quiet.undo_id is None
    loaded.apply(Batch(memories=[mem("z", "Use npm, not pnpm!", 20)]))  # restates d
    step = m.consolidate(incremental=True, now=NOW)
    assert step.stats["related_pairs"] == 1
    assert loaded.store.memories(["z"])[0].status in ("active", "superseded")
    active = [r for r in loaded.store.find_memories({"status": "active"}) if "npm" in r.text]
    assert len(active) == 1


def test_incremental_planning_skips_pairs_already_compared() -> None:
    a = mem("a", "Always use pathlib instead of os.path in new code.")
    b = mem("b", "use pathlib instead of os.path in new code", 3)
    c = mem("c", "use pathlib instead of os.path in all new code", 5)
    assert plan_consolidation([a, b, c], {}, None, NOW, probes=set()).stats["related_pairs"] == 0
    only_c = plan_consolidation([a, b, c], {}, None, NOW, probes={"c"})
    assert only_c.stats["related_pairs"] == 2  # c with a and with b, not a with b


def _idle_ticks(m: Maintenance, clock: list[float]) -> list[str]:
    """Tick an idle scheduler until it has nothing left to do; every task ran."""
    ran: list[str] = []
    step = m.tick(idle=True)
    clock[0] += IDLE_SECONDS + 1
    for _ in range(100):
        step = m.tick(idle=True)
        if not step:
            return ran
        ran += step
    raise AssertionError("the scheduler never ran out of slices")


def test_sliced_daemon_pass_decides_what_one_whole_run_decides(loaded: Engine) -> None:
    loaded.apply(Batch(memories=[replace(r, id=r.id + "2", scope="project:x") for r in ROWS]))
    expected = loaded.maintenance.consolidate(dry_run=True, now=NOW)
    clock = [1000.0]
    m = Maintenance(loaded, monotonic=lambda: clock[0])
    ran = _idle_ticks(m, clock)
    # one slice per scope and category with work (2 scopes x 2 categories), then the end mark
    assert ran.count("consolidate") == 1 + 4 + 1
    changed = {(c["action"], c["kept"], c["other"]) for c in expected.changes}
    rows = rows_of(loaded)
    for action, kept, other in changed:
        if action in ("merge", "supersede"):
            assert rows[other].status == "superseded" and rows[other].superseded_by == kept
    assert len(loaded.store.conflicts()) == expected.stats["conflicts"] == 4
    # nothing changed since: the next due check queues nothing but the end mark
    clock[0] += 3600 * 24
    assert loaded.memory_generation == m._generation
    loaded.apply(Batch(memories=[mem("n", "Prefer ruff format over black.", 9)]))
    ran = _idle_ticks(m, clock)
    assert ran.count("consolidate") == 1 + 1 + 1  # one group has a new memory


def test_a_stopping_daemon_starts_no_maintenance_slice(loaded: Engine) -> None:
    clock = [1000.0]
    m = Maintenance(loaded, monotonic=lambda: clock[0])
    m.stop = threading.Event()
    m.tick(idle=True)
    clock[0] += IDLE_SECONDS + 1
    while "consolidate" not in m.tick(idle=True):  # retier's slices first
        pass
    m.stop.set()
    assert m.tick(idle=True) == []
    assert all(r.status == "active" for r in rows_of(loaded).values())

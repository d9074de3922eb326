"""Portable memory ids (issue 21): a memory id is made of its project's portable id, so the
same fact captured in two clones of one repository has one id on every machine; stores from
before are re-keyed by migration m007, and old ids still resolve."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from recallnest.core import identity
from recallnest.core.aliases import canonical
from recallnest.core.config import Settings
from recallnest.core.errors import NotFoundError
from recallnest.core.identity import PROJECT_IDS
from recallnest.core.models import GLOBAL_SCOPE, Memory, memory_id, memory_id_of_basis
from recallnest.core.schemas import jsonable, memories_of
from recallnest.engine import Engine, SearchRequest
from recallnest.lifecycle.decay import memory_to_json
from recallnest.server.repair import _rebuild
from recallnest.store import Batch, Store
from recallnest.store import base as store_base
from recallnest.store.journal import Journal
from recallnest.store.migrations import MIGRATIONS
from recallnest.sync.config import Remote, SyncConfig
from tests.support.sync_homes import homes, sync_all

URL = "git@github.com:Acme/Widget.git"
FACT = "The staging database listens on port 6543"


def _clone_layout(path: Path, url: str | None = URL) -> str:
    """A working tree as git leaves it, read from its files (no git runs): .git/config."""
    (path / ".git").mkdir(parents=True)
    remote = f'[remote "origin"]\n\turl = {url}\n' if url else ""
    (path / ".git" / "config").write_text(f"[core]\n\tbare = false\n{remote}")
    return str(path)


@contextmanager
def _opened(settings: Settings) -> Iterator[Engine]:
    engine = Engine.open(settings)
    try:
        yield engine
    finally:
        engine.close()


def test_clones_of_one_repository_give_a_fact_one_id(tmp_path: Path) -> None:
    laptop = _clone_layout(tmp_path / "laptop" / "widget")
    desk = _clone_layout(tmp_path / "desk" / "src" / "w", "https://github.com/Acme/Widget")
    other = _clone_layout(tmp_path / "gadget", "git@github.com:Acme/Gadget.git")
    canon = canonical(FACT)
    assert memory_id(laptop, canon) == memory_id(desk, canon)
    assert memory_id(laptop, canon) == memory_id_of_basis("git:github.com/Acme/Widget", canon)
    assert memory_id(other, canon) != memory_id(laptop, canon)
    # Outside git, and for the global scope, an id is what it always was.
    plain = str(tmp_path / "notes")
    assert memory_id(plain, canon) == memory_id_of_basis(plain, canon)
    assert memory_id(GLOBAL_SCOPE, canon) == memory_id_of_basis(GLOBAL_SCOPE, canon)


def test_a_repository_with_no_commit_runs_no_git_and_keeps_its_path(tmp_path: Path) -> None:
    # No remote and no HEAD: the root commit is not looked up (a fast test may not spawn).
    empty = _clone_layout(tmp_path / "fresh", url=None)
    assert PROJECT_IDS.basis(empty, GLOBAL_SCOPE) == empty


def test_an_engine_keeps_each_git_projects_basis(settings: Settings, tmp_path: Path) -> None:
    scope = _clone_layout(tmp_path / "widget")
    with _opened(settings) as engine:
        engine.remember(FACT, scope=scope)
        assert engine.store.project_bases() == {scope: "git:github.com/Acme/Widget"}
    # The remote changes; the project's ids do not (the store's basis wins over git's).
    (Path(scope) / ".git" / "config").write_text('[remote "origin"]\n\turl = /moved\n')
    PROJECT_IDS.forget(scope)
    with _opened(settings) as engine:
        again = engine.remember(FACT, scope=scope)
        assert again.id == memory_id_of_basis("git:github.com/Acme/Widget", canonical(FACT))
        assert len(engine.export()) == 1


# ---- migration m007 ------------------------------------------------------------------------


def _old_memory(scope: str, text: str, **kw: object) -> Memory:
    fields: dict[str, object] = {"category": "facts", "tier": "working"} | kw
    return Memory(
        id=memory_id_of_basis(scope, canonical(text)),  # ids before issue 21: the local path
        scope=scope,
        text=text,
        **fields,  # type: ignore[arg-type]
    )


def _v6_store(path: Path, rows: list[Memory], monkeypatch: pytest.MonkeyPatch) -> None:
    """A database at schema v6 (before m007), with memories under path-made ids."""
    with monkeypatch.context() as patch:
        patch.setattr(store_base, "MIGRATIONS", MIGRATIONS[:6])
        store = Store(path)
        try:
            assert "project_ids" not in store.tables()
            store.write(Batch(memories=rows))
            con = store._cur()
            a, b = rows[0].id, rows[1].id
            con.execute(
                "INSERT INTO conflicts VALUES (1, ?, ?, ?, 'facts', 'contradiction', 0.9, "
                "'open', now()::TIMESTAMP, NULL, NULL, NULL)",
                [a, b, rows[0].scope],
            )
            con.execute(
                "INSERT INTO memory_events VALUES (now()::TIMESTAMP, 'superseded', ?, ?, 2)",
                [b, a],
            )
            was = replace(rows[1], status="active", superseded_by=None)
            before = json.dumps([memory_to_json(was)])
            after = json.dumps([memory_to_json(rows[1])])
            con.execute(
                "INSERT INTO undo_log VALUES (2, 'supersede', now()::TIMESTAMP, ?, ?, ?, "
                "'one superseded', NULL)",
                [[b], before, after],
            )
        finally:
            store.close()


def test_migration_rekeys_git_projects_and_old_ids_resolve(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = _clone_layout(tmp_path / "widget")
    plain = str(tmp_path / "notes")
    new_fact = _old_memory(scope, FACT)
    old_fact = _old_memory(
        scope, "The staging database listens on port 5432", status="superseded",
        superseded_by=new_fact.id,
    )  # fmt: skip
    outside = _old_memory(plain, "Notes are in org-mode")
    personal = _old_memory(GLOBAL_SCOPE, "I prefer tabs over spaces")
    settings.home.mkdir(parents=True, exist_ok=True)
    db = settings.home / "recallnest.duckdb"
    _v6_store(db, [new_fact, old_fact, outside, personal], monkeypatch)
    journal = Journal(settings.home)
    journal.record([new_fact, old_fact], [])
    journal.record([], [outside.id])

    with _opened(settings) as engine:
        store = engine.store
        assert "m007_portable_memory_ids" in store.migrated  # applied by this open
        basis = "git:github.com/Acme/Widget"
        want = {
            new_fact.id: memory_id_of_basis(basis, canonical(new_fact.text)),
            old_fact.id: memory_id_of_basis(basis, canonical(old_fact.text)),
        }
        assert store.mapped_ids([m.id for m in (new_fact, old_fact, outside, personal)]) == want
        assert store.project_bases() == {scope: basis}
        ids = {m.id for m in engine.export()}
        assert ids == {*want.values(), outside.id, personal.id}
        # Every reference moved with its memory.
        (moved_old,) = store.memories([want[old_fact.id]])
        assert moved_old.superseded_by == want[new_fact.id]
        con = store._cur()
        assert con.execute("SELECT a_id, b_id FROM conflicts").fetchall() == [
            (want[new_fact.id], want[old_fact.id])
        ]
        assert con.execute("SELECT memory_id, other_id FROM memory_events").fetchall() == [
            (want[old_fact.id], want[new_fact.id])
        ]
        ids_, before, after = con.execute(
            "SELECT memory_ids, before_rows, after_rows FROM undo_log"
        ).fetchone()
        assert ids_ == [want[old_fact.id]]
        assert json.loads(before)[0]["id"] == want[old_fact.id]
        assert json.loads(after)[0]["superseded_by"] == want[new_fact.id]
        assert new_fact.id not in before + after and old_fact.id not in before + after
        # The journal (repair's replay) speaks of the memories under their new ids.
        assert [(e["op"], e.get("id") or e["memory"]["id"]) for e in journal.entries()] == [
            ("put", want[new_fact.id]),
            ("put", want[old_fact.id]),
            ("delete", outside.id),
        ]
        assert journal.entries()[1]["memory"]["superseded_by"] == want[new_fact.id]
        # Search still finds the moved memory (same doc: postings and vectors stayed).
        hits = engine.search(SearchRequest("staging database port", kind="memories"))
        assert [h.id for h in hits] == [want[new_fact.id]]
        # Old ids resolve: show, history, and the same fact remembered again is one memory.
        assert engine.memory(new_fact.id).id == want[new_fact.id]
        history = engine.maintenance.history(old_fact.id)
        assert history["memory"]["id"] == want[old_fact.id]
        assert [m["id"] for m in history["replaced_by"]] == [want[new_fact.id]]
        assert engine.remember(FACT, scope=scope).id == want[new_fact.id]
        assert len(engine.export()) == 4
        # The undo entry restores the prior row under its new id (no row comes back under
        # the old one).
        assert engine.maintenance.undo(2).restored == 1
        assert engine.memory(old_fact.id).status == "active"
        assert not store.memories([old_fact.id]) and len(engine.export()) == 4
        # Forget by an old id forgets the memory under its new id.
        gone = engine.forget([old_fact.id])
        assert gone.forgotten == [want[old_fact.id]] and gone.missing == []
        with pytest.raises(NotFoundError):
            engine.memory(old_fact.id)


def test_an_export_from_before_the_migration_imports_under_the_new_ids(
    settings: Settings, tmp_path: Path
) -> None:
    scope = _clone_layout(tmp_path / "widget")
    older = _old_memory(scope, "Deploys go through fly.io", status="superseded")
    newer = _old_memory(scope, "Deploys go through render.com")
    older = replace(older, superseded_by=newer.id)
    records = jsonable([newer, older])
    with _opened(settings) as engine:
        engine.import_memories(memories_of(records))
        exported = {m.text: m for m in engine.export()}
        canon = canonical(newer.text)
        assert exported[newer.text].id == memory_id(scope, canon) != newer.id
        # Exported again and imported into a fresh home: the same ids (a round trip).
        again = jsonable(engine.export())
    other = settings.model_copy(update={"home": tmp_path / "other-home"})
    with _opened(other) as fresh:
        fresh.import_memories(memories_of(again))
        assert sorted(m.id for m in fresh.export()) == sorted(r["id"] for r in again)


def test_repair_keeps_a_memory_forgotten_before_the_migration_forgotten(
    settings: Settings, tmp_path: Path
) -> None:
    """A tombstone from before names the path-made id; the memory found again (here
    imported, as a re-ingest would capture it) has its new id, and is dropped all the same."""
    scope = _clone_layout(tmp_path / "widget")
    gone = _old_memory(scope, FACT)
    kept = _old_memory(scope, "Widget builds with make")
    settings.home.mkdir(parents=True, exist_ok=True)
    _rebuild(settings, jsonable([gone, kept]), {gone.id}, None)
    with _opened(settings) as engine:
        assert [m.text for m in engine.export()] == [kept.text]


# ---- two machines, real git ----------------------------------------------------------------


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


@pytest.mark.slow
def test_two_machines_capturing_one_fact_in_two_clones_hold_one_memory(tmp_path: Path) -> None:
    """Two homes, each with its own clone of one local bare repository (real git), remember
    the same fact in their clone: one id, and after a sync round one memory, not two."""
    origin = tmp_path / "widget.git"
    _git("init", "--bare", "-q", str(origin))
    seed = tmp_path / "seed"
    _git("clone", "-q", str(origin), str(seed))
    (seed / "README").write_text("widget\n")
    _git("-C", str(seed), "add", "README")
    _git("-C", str(seed), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    _git("-C", str(seed), "push", "-q", "origin", "HEAD")
    clones = [tmp_path / "laptop" / "widget", tmp_path / "desk" / "code" / "widget"]
    for clone in clones:
        _git("clone", "-q", str(origin), str(clone))
    sync_remote = tmp_path / "memories.git"
    _git("init", "--bare", "-q", str(sync_remote))
    remote = Remote("personal", str(sync_remote), "git")
    with homes(tmp_path / "homes", "ab", remote) as (a, b):
        on_a = a.remember(FACT, scope=str(clones[0]))
        on_b = b.remember(FACT, scope=str(clones[1]))
        assert on_a.id == on_b.id
        sync_all([a, b])
        for engine, clone in ((a, clones[0]), (b, clones[1])):
            rows = engine.export()
            assert [(m.id, m.scope, m.text) for m in rows] == [(on_a.id, str(clone), FACT)]


def _back_to_v6(engine: Engine) -> None:
    """Undo m007's bookkeeping (not its re-keys: there were none yet): the store is as a v6
    one, and the next open migrates it."""
    con = engine.store._cur()
    con.execute("DELETE FROM _migrations WHERE name = 'm007_portable_memory_ids'")
    con.execute("DROP TABLE project_ids")


def test_machines_that_synced_path_made_ids_converge_on_the_new_ids(tmp_path: Path) -> None:
    """Two machines synced a memory under its old id (made of machine a's path); both migrate;
    after a round each holds the one memory under its portable id, and the old id is gone."""
    shared = tmp_path / "shared"
    shared.mkdir()
    remote = Remote("personal", str(shared), "folder")
    clones = [_clone_layout(tmp_path / "a-src" / "widget"), _clone_layout(tmp_path / "b-w")]
    old = _old_memory(clones[0], FACT)
    with homes(tmp_path / "homes", "ab", remote) as (a, b):
        a.apply_memories([old])
        b.remember("Widget builds with make", scope=clones[1])  # b knows its clone
        sync_all([a, b])
        assert [m.id for m in b.store.memories([old.id])] == [old.id]
        for engine in (a, b):
            _back_to_v6(engine)
    PROJECT_IDS.forget(clones[0])
    PROJECT_IDS.forget(clones[1])
    new_id = memory_id_of_basis("git:github.com/Acme/Widget", canonical(FACT))
    with homes(tmp_path / "homes", "ab", None) as (a, b):
        for engine, clone in ((a, clones[0]), (b, clones[1])):
            assert engine.store.mapped_ids([old.id]) == {old.id: new_id}
            assert [m.scope for m in engine.store.memories([new_id])] == [clone]
        sync_all([a, b])
        for engine, clone in ((a, clones[0]), (b, clones[1])):
            rows = [m for m in engine.export() if m.text == FACT]
            assert [(m.id, m.scope) for m in rows] == [(new_id, clone)]
            assert engine.memory(old.id).id == new_id


@pytest.mark.slow
def test_git_runs_once_per_project_ever(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository without a remote is known by its root commit, which takes running git:
    once for the project, then never again, in this process or the next (the store keeps it)."""
    repo = tmp_path / "solo"
    _git("init", "-q", str(repo))
    (repo / "a").write_text("a\n")
    _git("-C", str(repo), "add", "a")
    _git("-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    calls: list[Path] = []
    real = identity.root_commit

    def counted(root: Path) -> str | None:
        calls.append(root)
        return real(root)

    monkeypatch.setattr(identity, "root_commit", counted)
    scope = str(repo)
    with _opened(settings) as engine:
        ids = [engine.remember(t, scope=scope).id for t in ("We use pnpm", "Deploys on fly.io")]
        (basis,) = engine.store.project_bases().values()
    assert basis.startswith("root:") and len(calls) == 1
    assert ids[0] == memory_id_of_basis(basis, canonical("We use pnpm"))
    PROJECT_IDS.forget(scope)  # as a new process would start
    with _opened(settings) as engine:
        assert engine.remember("We use pnpm", scope=scope).id == ids[0]
    assert len(calls) == 1


def _name(engine: Engine, scope: str, name: str) -> None:
    """What `recallnest sync name` does: the name on the wire, and the ids made of it."""
    config = SyncConfig.load(engine.settings.home)
    assert config is not None
    config.names[scope] = name
    config.save(engine.settings.home)
    engine.rekey_project(scope, f"name:{name}")


def test_clones_that_disagree_on_their_url_share_ids_once_named_alike(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    remote = Remote("personal", str(shared), "folder")
    one = _clone_layout(tmp_path / "one" / "widget", "git@github.com:Acme/Widget.git")
    two = _clone_layout(tmp_path / "two" / "widget", "git@mirror.example.com:acme/widget.git")
    with homes(tmp_path / "homes", "ab", remote) as (a, b):
        before = a.remember(FACT, scope=one).id
        assert b.remember(FACT, scope=two).id != before
        _name(a, one, "widget")
        _name(b, two, "widget")
        want = memory_id_of_basis("name:widget", canonical(FACT))
        assert [m.id for m in a.export()] == [m.id for m in b.export()] == [want]
        assert a.memory(before).id == want
        hits = a.search(SearchRequest("staging database port", kind="memories"))
        assert [h.id for h in hits] == [want]  # the index follows the re-key
        sync_all([a, b])
        assert [(m.id, m.scope) for m in a.export()] == [(want, one)]
        assert [(m.id, m.scope) for m in b.export()] == [(want, two)]
        assert b.remember(FACT, scope=two).id == want


def test_a_project_named_before_the_migration_gets_ids_made_of_its_name(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = _clone_layout(tmp_path / "widget")
    old = _old_memory(scope, FACT)
    other = _old_memory(scope, "Widget builds with make")
    settings.home.mkdir(parents=True, exist_ok=True)
    _v6_store(settings.home / "recallnest.duckdb", [old, other], monkeypatch)
    config = SyncConfig.new()
    config.names[scope] = "widget"
    config.save(settings.home)
    with _opened(settings) as engine:
        want = {m.id: memory_id_of_basis("name:widget", canonical(m.text)) for m in (old, other)}
        assert engine.store.mapped_ids(list(want)) == want
        assert engine.store.project_bases() == {scope: "name:widget"}
        assert engine.remember(FACT, scope=scope).id == want[old.id]

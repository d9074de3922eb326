"""The store's side of portable memory ids (store/rekey.py has the SQL): each project's id
basis, re-keying one project (`sync name`), and the old -> new id map."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from recallnest.store.base import StoreBase
from recallnest.store.rekey import plan_rekey, project_bases, rekey, save_bases
from recallnest.store.sql import _objects, _scan, _utcnow


class Rekeying(StoreBase):
    """Project id bases and the old -> new memory id map."""

    def project_bases(self) -> dict[str, str]:
        if self.read_only and "project_ids" not in self.tables():
            return {}  # a store from before m007, opened read-only (not migrated)
        return project_bases(self._cur())

    def save_project_bases(self, bases: Mapping[str, str]) -> None:
        if not bases:
            return
        with self.transaction(changes_resume=False) as tx:
            save_bases(tx, bases)

    def rekey_project(self, scope: str, basis: str) -> dict[str, str]:
        """Give `scope` the id basis `basis` (a name the user gave it) and re-key its memories;
        old -> new. The caller holds the writer lock (no capture between plan and write)."""
        with self.transaction() as tx:
            mapping, _ = plan_rekey(tx, (scope, basis))
            save_bases(tx, {scope: basis})
            rekey(tx, mapping, _utcnow())
        return mapping

    def id_map(self) -> dict[str, str]:
        """Every old -> new memory id."""
        return dict(self._cur().execute("SELECT old_id, new_id FROM memory_id_map").fetchall())

    def mapped_ids(self, ids: Sequence[str]) -> dict[str, str]:
        """old -> new for those of `ids` that were re-keyed (the map follows chains)."""
        if not ids:
            return {}
        cur = self._cur()
        with _scan(cur, "_ids", id=_objects(list(ids))):
            rows = cur.execute(
                "SELECT m.old_id, m.new_id FROM memory_id_map m JOIN _ids i ON i.id = m.old_id"
            ).fetchall()
        return dict(rows)

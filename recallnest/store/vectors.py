"""Embeddings: registered models, the documents still missing a vector, and writing vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from recallnest.core.errors import (
    StoreError,
)
from recallnest.store.base import (
    StoreBase,
)
from recallnest.store.sql import (
    _scan,
    _utcnow,
    _where,
)


class Vectors(StoreBase):
    """Embeddings: registered models, the documents still missing a vector, and writing vectors."""

    def register_model(self, model: str, dimensions: int) -> None:
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT dimensions FROM embedding_models WHERE model = ?", [model]
            ).fetchone()
            if row and int(row[0]) != dimensions:
                raise StoreError(
                    f"model {model} was registered with {row[0]} dimensions, now {dimensions}"
                )
            if not row:
                tx.execute(
                    "INSERT INTO embedding_models VALUES (?, ?, ?)", [model, dimensions, _utcnow()]
                )

    def missing_vectors(self, model: str, limit: int) -> list[tuple[int, str]]:
        """(doc, text) of rows without a vector of `model`, memories first, newest first."""
        rows = (
            self._cur()
            .execute(
                "SELECT doc, text FROM ("
                " SELECT doc, text, 0 AS pri, updated_at AS t FROM memories UNION ALL"
                " SELECT doc, text, 1 AS pri, ts AS t FROM turns) d "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.doc = d.doc AND v.model = ?) "
                "ORDER BY pri, t DESC NULLS LAST LIMIT ?",
                [model, limit],
            )
            .fetchall()
        )
        return [(int(doc), text) for doc, text in rows]

    def count_missing_vectors(self, model: str) -> int:
        row = (
            self._cur()
            .execute(
                "SELECT count(*) FROM (SELECT doc FROM memories UNION ALL SELECT doc FROM turns) d "
                "WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.doc = d.doc AND v.model = ?)",
                [model],
            )
            .fetchone()
        )
        return int(row[0]) if row else 0

    def add_vectors(self, model: str, docs: Sequence[int], matrix: np.ndarray) -> list[int]:
        """Store vectors for docs that still exist; returns the docs actually stored."""
        blobs = np.empty(len(docs), dtype=object)
        blobs[:] = [row.astype(np.float32).tobytes() for row in matrix]
        with (
            self.transaction(changes_resume=False) as tx,
            _scan(tx, "vec_batch", doc=np.asarray(docs, np.int64), vec=blobs),
        ):
            live = tx.execute(
                "SELECT b.doc FROM vec_batch b WHERE b.doc IN "
                "(SELECT doc FROM memories UNION ALL SELECT doc FROM turns)"
            ).fetchnumpy()["doc"]
            tx.execute(
                "DELETE FROM vectors WHERE model = ? AND doc IN (SELECT doc FROM vec_batch)",
                [model],
            )
            tx.execute(
                "INSERT INTO vectors SELECT b.doc, ?, b.vec FROM vec_batch b WHERE b.doc IN "
                "(SELECT doc FROM memories UNION ALL SELECT doc FROM turns)",
                [model],
            )
        return [int(d) for d in live]

    def drop_vectors(self, keep_model: str | None = None) -> int:
        """Delete vectors of every model except `keep_model` (all when None)."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT count(*) FROM vectors WHERE model IS DISTINCT FROM ?", [keep_model]
            ).fetchone()
            tx.execute("DELETE FROM vectors WHERE model IS DISTINCT FROM ?", [keep_model])
        return int(row[0]) if row else 0

    def memory_vectors(self, model: str, scope: str | None = None) -> dict[str, np.ndarray]:
        """The stored `model` vector of every active memory (in `scope`), by memory id."""
        where, params = _where({"m.scope": scope})
        rows = (
            self._cur()
            .execute(
                "SELECT m.id, v.vec FROM memories m JOIN vectors v ON v.doc = m.doc AND v.model = ?"
                + (where + " AND" if where else " WHERE")
                + " m.status = 'active'",
                [model, *params],
            )
            .fetchall()
        )
        return {str(i): np.frombuffer(vec, dtype=np.float32) for i, vec in rows}

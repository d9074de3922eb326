"""The SQL of the web UI's overview pages (issue 20): counts grouped for plots, per-day series,
and the session timeline. Reads only; aggregated in DuckDB so a page never pulls 100k rows.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Any, TypeVar, cast

from recallnest.store.base import StoreBase
from recallnest.store.sql import _aware, _naive

_T = TypeVar("_T")

_BY_CATEGORY_STATUS = (
    "SELECT category, status, count(*) FROM memories GROUP BY ALL ORDER BY category, status"
)
_BY_AGENT = (
    "SELECT agent, count(*), count(DISTINCT session_id) FROM turns GROUP BY agent ORDER BY agent"
)
_MEMORIES_PER_DAY = (
    "SELECT CAST(created_at AS DATE) AS day, category, count(*) FROM memories "
    "WHERE created_at >= ? GROUP BY ALL ORDER BY day, category"
)
_TURNS_PER_DAY = (
    "SELECT CAST(ts AS DATE) AS day, agent, count(*) FROM turns "
    "WHERE ts >= ? GROUP BY ALL ORDER BY day, agent"
)
# Rows added per day (turns by their time, memories by their creation), for the growth plot:
# the database keeps no history of its own file size, so growth is counted in rows.
_ROWS_PER_DAY = (
    "SELECT day, sum(n) FROM ("
    " SELECT CAST(ts AS DATE) AS day, count(*) AS n FROM turns WHERE ts IS NOT NULL GROUP BY 1"
    " UNION ALL SELECT CAST(created_at AS DATE), count(*) FROM memories"
    " WHERE created_at IS NOT NULL GROUP BY 1"
    ") GROUP BY day ORDER BY day"
)
_SESSIONS = (
    "SELECT session_id, any_value(agent), any_value(project), min(ts), max(ts), count(*) "
    "FROM turns {where} GROUP BY session_id ORDER BY max(ts) DESC NULLS LAST, session_id "
    "LIMIT ?"
)
_PROJECTS = "SELECT project, count(DISTINCT session_id) FROM turns GROUP BY project ORDER BY 2 DESC"


def _day(value: date | datetime | None) -> str | None:
    return value.isoformat()[:10] if value is not None else None


class Dashboard(StoreBase):
    """Grouped counts and per-day series for the web UI's dashboard and session timeline."""

    def dashboard(self, since: datetime) -> dict[str, Any]:
        """Counts by category and status, by agent, and per-day series from `since` on.

        Five GROUP BYs over every row (~15 ms at 100k + 100k, more under load), so the answer
        is reused until the store changes: every memory write bumps `generation`; turns are
        written without bumping it, so their count and newest time are part of the key."""
        key = (self.generation, self._turns_key(), since)
        return self._memoized("dashboard", key, lambda: self._dashboard(since))

    def _turns_key(self) -> tuple[int, object]:
        """Changes when turns are added or dropped (ingest, retention, forget): 1 ms."""
        row = self._cur().execute("SELECT count(*), max(ts) FROM turns").fetchone()
        return (int(row[0]), row[1]) if row else (0, None)

    def _memoized(self, name: str, key: object, compute: Callable[[], _T]) -> _T:
        held = self._memo.get(name)
        if held is not None and held[0] == key:
            return cast(_T, held[1])
        answer = compute()
        self._memo[name] = (key, answer)  # a race computes twice, never a stale answer
        return answer

    def _dashboard(self, since: datetime) -> dict[str, Any]:
        cur = self._cur()
        start = _naive(since)
        agents = cur.execute(_BY_AGENT).fetchall()
        return {
            "memories_by_category_status": [
                [c, s, int(n)] for c, s, n in cur.execute(_BY_CATEGORY_STATUS).fetchall()
            ],
            "turns_by_agent": {str(a): int(n) for a, n, _ in agents},
            "sessions_by_agent": {str(a): int(s) for a, _, s in agents},
            "memories_per_day": [
                [_day(d), c, int(n)]
                for d, c, n in cur.execute(_MEMORIES_PER_DAY, [start]).fetchall()
            ],
            "turns_per_day": [
                [_day(d), a, int(n)] for d, a, n in cur.execute(_TURNS_PER_DAY, [start]).fetchall()
            ],
            "rows_per_day": [[_day(d), int(n)] for d, n in cur.execute(_ROWS_PER_DAY).fetchall()],
        }

    def sessions(self, project: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The newest sessions (of `project` when given): agent, project, first and last turn
        time and the number of turns."""
        where, params = ("WHERE project = ?", [project]) if project else ("", [])
        rows = self._cur().execute(_SESSIONS.format(where=where), [*params, limit]).fetchall()
        names = ("session_id", "agent", "project", "started_at", "ended_at", "turns")
        return [
            dict(zip(names, (s, a, p, _aware(first), _aware(last), int(n)), strict=True))
            for s, a, p, first, last, n in rows
        ]

    def session_memories(self, session_id: str, limit: int = 200) -> list[str]:
        """Ids of the memories captured from turns of `session_id` (their evidence). The
        evidence lists are unnested and hash-joined with the session's turns: 10 ms at 100k
        memories + 100k turns, where `list_contains` against each turn took 38 ms."""
        rows = (
            self._cur()
            .execute(
                "SELECT DISTINCT m.id FROM (SELECT id, unnest(evidence) AS turn_id "
                "FROM memories) m JOIN turns t ON t.id = m.turn_id "
                "WHERE t.session_id = ? LIMIT ?",
                [session_id, limit],
            )
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    def projects(self) -> list[dict[str, Any]]:
        """Every project with turns, by how many sessions it has (a GROUP BY over every turn,
        on most pages: reused until turns are added or dropped)."""

        def compute() -> list[dict[str, Any]]:
            rows = self._cur().execute(_PROJECTS).fetchall()
            return [{"project": p, "sessions": int(n)} for p, n in rows]

        return list(self._memoized("projects", self._turns_key(), compute))

"""The store's size over time, for the web UI's dashboard (issue 20).

The database keeps no history of its own file size, so the daemon's maintenance samples it
(SAMPLE_SECONDS, when idle): the file's bytes and the row counts, one line per day in
`size-history.jsonl` in the state directory, the day's last sample winning. A file, not a
table: the samples describe the database file itself (a compaction rewrites it), and they need
no migration, sync or export. At most MAX_DAYS lines (~70 bytes each); rewritten whole through
a temporary file and a rename, so a crash leaves the old or the new file, never half of one.
"""

from __future__ import annotations

import json
import os
from datetime import date
from pathlib import Path
from typing import Any

HISTORY_NAME = "size-history.jsonl"
MAX_DAYS = 3660
SAMPLE_SECONDS = 3600.0
FIELDS = ("bytes", "turns", "memories")


def record(home: Path, day: date, sample: dict[str, int]) -> None:
    """Store `sample` ({bytes, turns, memories}) as `day`'s, replacing an earlier one."""
    path = home / HISTORY_NAME
    days = _read(path)
    days[day.isoformat()] = {k: int(sample[k]) for k in FIELDS}
    kept = sorted(days.items())[-MAX_DAYS:]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps({"day": d, **s}) + "\n" for d, s in kept), "utf-8")
    os.replace(tmp, path)


def history(home: Path, since: date) -> list[dict[str, Any]]:
    """The samples from `since` on, oldest first: {day, bytes, turns, memories}."""
    start = since.isoformat()
    return [{"day": d, **s} for d, s in sorted(_read(home / HISTORY_NAME).items()) if d >= start]


def _read(path: Path) -> dict[str, dict[str, int]]:
    try:
        lines = path.read_text("utf-8").splitlines()
    except FileNotFoundError:
        return {}
    out: dict[str, dict[str, int]] = {}
    for line in lines:
        try:
            row = json.loads(line)
            out[str(row["day"])[:10]] = {k: int(row[k]) for k in FIELDS}
        except (ValueError, KeyError, TypeError):
            continue  # a line edited by hand: skipped, the others still plot
    return out

"""Reading times the user types: ISO dates and times, or ages like `7d`, `12h`, `30m`, `2w`.
Standard library only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from recallnest.core.errors import RecallnestError


def parse_time(value: str | None, now: datetime | None = None) -> datetime | None:
    """ISO date/time, or a relative age like `7d`, `12h`, `30m`, `2w` (before now)."""
    if not value:
        return None
    now = now or datetime.now(UTC)
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    if value[-1:] in units and value[:-1].isdigit():
        return now - timedelta(**{units[value[-1]]: int(value[:-1])})
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise RecallnestError(
            f"cannot read time {value!r}: use ISO (2026-11-30) or 7d/12h"
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_future(value: str | None, now: datetime | None = None) -> datetime | None:
    """An expiry: ISO date/time, or a duration from now like `7d`, `+12h`, `2w`."""
    if not value:
        return None
    now = now or datetime.now(UTC)
    relative = value.lstrip("+")
    if relative[-1:] in ("m", "h", "d", "w") and relative[:-1].isdigit():
        past = parse_time(relative, now)
        assert past is not None
        return now + (now - past)
    return parse_time(value, now)


def as_utc(moment: datetime) -> datetime:
    """Aware UTC; naive timestamps (DuckDB TIMESTAMP) are taken as UTC."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)

"""Capture one turn as the capture tests do: a Claude turn in session s1 of project "shop",
with the turn it answers when given."""

from __future__ import annotations

from recallnest.capture.heuristics import capture_turn
from recallnest.core.models import Capture, Turn

PROJECT = "shop"


def turn(text: str, role: str = "user", record: str = "r1") -> Turn:
    return Turn(
        agent="claude", session_id="s1", role=role,  # type: ignore[arg-type]
        text=text, timestamp=None, path="/tmp/s1.jsonl", record_id=record, offset=0,
    )  # fmt: skip


def capture(text: str, role: str = "user", previous: str | None = None) -> list[Capture]:
    other = "assistant" if role == "user" else "user"
    prev = turn(previous, other, record="r0") if previous else None
    return capture_turn(turn(text, role), prev, project=PROJECT)

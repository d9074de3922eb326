"""A hybrid logical clock (Kulkarni et al.): stamps that follow wall time, never go backwards on
one machine, and move past every stamp the machine has seen, so an edit made after reading
another machine's edit always sorts after it, whatever the two wall clocks say.

A stamp is one string, `<wall ms, 13 digits>.<counter, 6 digits>.<machine id>`: string order is
the clock's total order, and the machine id makes stamps of two machines distinct."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

_STAMP = re.compile(r"^(\d{13})\.(\d{6})\.([0-9a-f]{8,32})$")
_MAX_COUNTER = 999_999
MAX_SKEW_MS = 7 * 24 * 3600 * 1000  # a stamp further ahead of our clock than this is hostile


@dataclass(frozen=True, slots=True, order=True)
class Stamp:
    wall: int
    counter: int
    machine: str

    def __str__(self) -> str:
        return f"{self.wall:013d}.{self.counter:06d}.{self.machine}"


def parse_stamp(text: str) -> Stamp:
    """A stamp from its string; ValueError if it is not one."""
    match = _STAMP.match(text)
    if match is None:
        raise ValueError(f"not a clock stamp: {text[:60]!r}")
    return Stamp(int(match[1]), int(match[2]), match[3])


class Clock:
    """One machine's clock. `now` gives a new stamp; `observe` moves past a remote stamp."""

    def __init__(
        self, machine: str, last: str | None = None, wall: Callable[[], int] | None = None
    ) -> None:
        self.machine = machine
        self._wall = wall or (lambda: time.time_ns() // 1_000_000)
        self._last = parse_stamp(last) if last else Stamp(0, 0, machine)

    @property
    def last(self) -> str:
        return str(self._last)

    def now(self) -> str:
        wall = self._wall()
        if wall > self._last.wall:
            self._last = Stamp(wall, 0, self.machine)
        elif self._last.counter < _MAX_COUNTER:
            self._last = Stamp(self._last.wall, self._last.counter + 1, self.machine)
        else:  # a million stamps in one millisecond: borrow the next one
            self._last = Stamp(self._last.wall + 1, 0, self.machine)
        return str(self._last)

    def observe(self, stamp: str) -> None:
        """Move the clock past `stamp` unless it is implausibly far in the future (a hostile or
        broken machine must not drag every clock along)."""
        seen = parse_stamp(stamp)
        if seen.wall - self._wall() > MAX_SKEW_MS:
            return
        if (seen.wall, seen.counter) > (self._last.wall, self._last.counter):
            self._last = Stamp(seen.wall, seen.counter, self.machine)

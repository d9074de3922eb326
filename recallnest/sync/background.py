"""When the daemon runs a sync round: after memories change (debounced, so a burst of captures
is one round), on a timer, and after a failure with a growing back-off (offline for a week is a
few rounds an hour, not a storm). Pure timing, no I/O; the daemon's sync thread asks `due`."""

from __future__ import annotations

from dataclasses import dataclass

DEBOUNCE_SECONDS = 20.0  # quiet time after the last change before a round
MAX_DELAY_SECONDS = 120.0  # a steady trickle of changes still syncs this often
INTERVAL_SECONDS = 300.0  # a round this often anyway (other machines' changes)
MAX_BACKOFF_SECONDS = 3600.0


@dataclass(slots=True)
class Schedule:
    debounce: float = DEBOUNCE_SECONDS
    max_delay: float = MAX_DELAY_SECONDS
    interval: float = INTERVAL_SECONDS
    generation: int | None = None  # the memory generation after the last round
    seen: int | None = None  # the generation at the last look
    first_change: float | None = None
    last_change: float | None = None
    last_round: float | None = None
    failures: int = 0

    def due(self, now: float, generation: int) -> bool:
        """Whether a round should start now, given the host's memory generation."""
        if self.last_round is None:  # the daemon just started: a round at once
            return True
        if generation != self.seen:
            self.seen = generation
            self.last_change = now
            if self.first_change is None:
                self.first_change = now
        if self.failures and now - self.last_round < self._backoff():
            return False
        if self.first_change is not None and self.last_change is not None:
            quiet = now - self.last_change >= self.debounce
            if quiet or now - self.first_change >= self.max_delay:
                return True
        return now - self.last_round >= self.interval

    def _backoff(self) -> float:
        return float(min(MAX_BACKOFF_SECONDS, 30.0 * 2 ** (self.failures - 1)))

    def done(self, now: float, generation: int, ok: bool) -> None:
        """Record a finished round: `generation` is the host's generation after it (the
        round's own writes are not changes to send back)."""
        self.generation = self.seen = generation
        self.first_change = self.last_change = None
        self.last_round = now
        self.failures = 0 if ok else self.failures + 1

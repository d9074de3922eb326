"""The daemon's long-lived threads, after watchdog's BaseThread: a daemon thread around a stop
event that its loop polls (`should_keep_running`) and sleeps on, and `stop()` that sets it and
lets the thread unblock whatever it waits in (`on_thread_stop`). Standard library only.

One-shot background work (the index load, a capture worker's pipe) uses plain threads: it has
no loop to stop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class BaseThread(threading.Thread):
    """Runs `loop(thread)` in a daemon thread until `stop()`. Threads that stop together share
    one `stopped_event` (the daemon's)."""

    def __init__(
        self,
        loop: Callable[[BaseThread], None],
        name: str,
        stopped_event: threading.Event | None = None,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(name=name, daemon=True)
        self.stopped_event = stopped_event if stopped_event is not None else threading.Event()
        self._loop = loop
        self._on_stop = on_stop

    def should_keep_running(self) -> bool:
        return not self.stopped_event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`, waking at once on stop; True when stopping."""
        return self.stopped_event.wait(seconds)

    def stop(self) -> None:
        self.stopped_event.set()
        self.on_thread_stop()

    def on_thread_stop(self) -> None:
        """Unblock what the loop waits in (a server's `serve_forever`, say)."""
        if self._on_stop is not None:
            self._on_stop()

    def run(self) -> None:
        self._loop(self)

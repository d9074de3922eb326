"""How many examples a property test draws.

The full run (CI, `pytest` with no marker filter) draws what each test asks for. The fast
loop (`pytest -m "not slow"`, issue 19: under 60 s on two cores) draws a quarter, at least 5:
every property still runs on every change, and the full run keeps its strength. conftest sets
the variable below when it sees the fast loop, before any test module is imported (xdist
workers inherit it).
"""

from __future__ import annotations

import os

FAST_LOOP_ENV = "PROPERTY_EXAMPLES_SCALE"
FAST_LOOP_SCALE = 0.25
FAST_LOOP_FLOOR = 5


def examples(wanted: int) -> int:
    scale = float(os.environ.get(FAST_LOOP_ENV, "1"))
    if scale >= 1:
        return wanted
    return max(min(wanted, FAST_LOOP_FLOOR), int(wanted * scale))

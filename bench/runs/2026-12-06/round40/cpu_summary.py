"""quiet_spy.py's CPU samples of the daemon's threads: CPU ms each thread used in each half
second, relative to the hook's start.

    python cpu_summary.py OUT/cpu0.txt [...]
"""

from __future__ import annotations

import collections
import itertools
import sys
from pathlib import Path


def summarise(path: str) -> None:
    rows = []
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        rows.append(
            (float(parts[0]), {k: float(v) for k, _, v in (p.rpartition("=") for p in parts[1:])})
        )
    bins: dict[float, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for (t0, c0), (_, c1) in itertools.pairwise(rows):
        for name, seconds in c1.items():
            used = seconds - c0.get(name, seconds)
            if used > 0:
                bins[(t0 // 0.5) * 0.5][name] += used * 1000
    print("==", path)
    for start in sorted(bins):
        busy = " ".join(f"{n}:{ms:.0f}" for n, ms in bins[start].most_common() if ms >= 10)
        print(f"{start:+5.1f}s {busy}")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        summarise(name)

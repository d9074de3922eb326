"""Pool the rounds of several bench_hook_quiet outputs: p50/p95/max after quiet and warm.

python pool_rounds.py LABEL=out1,out2,... [LABEL=...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np


def pool(files: list[str]) -> tuple[np.ndarray, np.ndarray]:
    quiet, warm = [], []
    for name in files:
        for line in Path(name).read_text().splitlines():
            found = re.match(r"round \d+: after quiet (\d+) ms, warm (\d+) ms", line)
            if found:
                quiet.append(int(found[1]))
                warm.append(int(found[2]))
    return np.array(quiet), np.array(warm)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        label, _, names = arg.partition("=")
        q, w = pool(names.split(","))
        print(
            f"{label}: n={len(q)} after quiet p50 {np.median(q):.1f} p95 "
            f"{np.percentile(q, 95):.1f} max {q.max()} | warm p50 {np.median(w):.1f} "
            f"p95 {np.percentile(w, 95):.1f} max {w.max()}"
        )

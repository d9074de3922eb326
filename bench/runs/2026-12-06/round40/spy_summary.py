"""py-spy's raw (collapsed) stacks of quiet_spy.py, summed by thread: for each, the stacks'
last three recallnest frames and the leaf, most samples first.

    python spy_summary.py OUT/round0.txt [...]
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path


def summarise(path: str) -> None:
    per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    total: collections.Counter[str] = collections.Counter()
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rstrip().rpartition(" ")
        frames = stack.split(";")
        ours = [
            f.split(" (")[0] + ":" + f.split(":")[-1].rstrip(")")
            for f in frames[1:]
            if "recallnest/" in f
        ]
        key = " > ".join(ours[-3:]) + " || " + frames[-1].split(" (")[0]
        per[frames[0]][key] += int(count)
        total[frames[0]] += int(count)
    print("=====", path)
    for thread, stacks in sorted(per.items(), key=lambda kv: -total[kv[0]]):
        print(f"--- {thread} total {total[thread]}")
        for key, n in stacks.most_common(8):
            print(f"  {n:5d} {key[:230]}")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        summarise(name)

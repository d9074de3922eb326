"""Peak RSS of each phase of the index load (issue 22, round three): rows, postings, vectors.
In-process; the peak (VmHWM) is reset through /proc/self/clear_refs before each phase.

    PYTHONMALLOC=malloc MALLOC_ARENA_MAX=2 python bench/runs/2026-12-06/load_phases.py HOME
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent))

from common import bench_settings

from recallnest.engine import Engine
from recallnest.retrieval import index as ix
from recallnest.retrieval.embed import make_embedder


def status() -> dict[str, int]:
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0]) // 1024
    return found


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")


def watch(name: str) -> None:
    """Print RSS before, the peak during and RSS after each call of SearchIndex.<name> (every
    20th call of set_vectors, whose peak is not reset: the vectors load as a whole)."""
    original: Callable[..., Any] = getattr(ix.SearchIndex, name)
    calls = [0]

    def wrapped(self: ix.SearchIndex, *args: Any, **kwargs: Any) -> Any:
        before, started = status(), time.perf_counter()
        if name != "set_vectors":
            reset_peak()
        out = original(self, *args, **kwargs)
        after = status()
        calls[0] += 1
        if name != "set_vectors" or calls[0] % 20 == 0:
            print(
                f"{name}: RSS before {before['VmRSS']} (peak so far {before['VmHWM']}), "
                f"peak {after['VmHWM']}, after {after['VmRSS']} MiB, "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
        return out

    setattr(ix.SearchIndex, name, wrapped)


def main() -> None:
    for name in ("load_rows", "load_posting_stream", "set_model", "set_vectors"):
        watch(name)
    reset_peak()
    settings = bench_settings(Path(sys.argv[1]), embedder="local")
    engine = Engine.open(settings, make_embedder("local"))
    print("index parts MiB", {k: round(v / 2**20, 1) for k, v in engine.index.footprint().items()})
    time.sleep(3)
    print("end", status())
    engine.close()


if __name__ == "__main__":
    main()

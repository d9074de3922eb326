"""Each benchmark runs end to end in its quick mode and prints a Markdown table.

No timing is asserted: the figures depend on the machine and its load. The point is that the
benchmarks keep working as the code they measure changes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

BENCHES = [
    ["bench/bench_store.py", "--quick"],
    ["bench/bench_search.py", "--quick", "--part", "all"],
    ["bench/bench_cli.py", "--quick"],
]


@pytest.mark.slow
@pytest.mark.parametrize("argv", BENCHES, ids=lambda argv: Path(argv[0]).stem)
def test_bench_quick_prints_a_table(argv: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "RECALLNEST_HOME": str(tmp_path / "unused-home"), "TMPDIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = proc.stdout.splitlines()
    assert any(line.startswith("### ") for line in lines), proc.stdout[-2000:]
    assert any(line.startswith("|--") for line in lines), proc.stdout[-2000:]
    assert "median" in proc.stdout

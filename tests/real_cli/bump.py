"""Change the CLI versions the real-CLI suite pins (tests/real_cli/versions.json).

    python tests/real_cli/bump.py codex=0.172.0 gemini=0.62.0   set versions
    python tests/real_cli/bump.py --latest                      every CLI to npm's latest
    python tests/real_cli/bump.py --latest claude               one CLI to npm's latest

Then run the suite (`RECALLNEST_REAL_CLI=1 python -m pytest -q tests/real_cli`) and update
the compatibility table in README.md with the versions and results.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

VERSIONS_FILE = Path(__file__).with_name("versions.json")
VERSION = re.compile(r"^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$")


def latest(package: str) -> str:
    done = subprocess.run(
        ["npm", "view", package, "version"], capture_output=True, text=True, timeout=120
    )
    if done.returncode != 0:
        raise SystemExit(f"npm view {package} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def wanted(args: list[str], pins: dict[str, dict[str, str]]) -> dict[str, str]:
    """agent -> new version, from `agent=version` pairs or `--latest [agent ...]`."""
    if args and args[0] == "--latest":
        agents = args[1:] or list(pins)
        return {agent: latest(_pin(pins, agent)["package"]) for agent in agents}
    changes = {}
    for arg in args:
        agent, sep, version = arg.partition("=")
        if not sep or not VERSION.match(version):
            raise SystemExit(f"expected AGENT=X.Y.Z, got {arg!r}")
        _pin(pins, agent)
        changes[agent] = version
    return changes


def _pin(pins: dict[str, dict[str, str]], agent: str) -> dict[str, str]:
    if agent not in pins:
        raise SystemExit(f"unknown agent {agent!r}; pinned: {', '.join(sorted(pins))}")
    return pins[agent]


def render(pins: dict[str, dict[str, str]]) -> str:
    lines = [f"  {json.dumps(agent)}: {json.dumps(pin)}" for agent, pin in pins.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    pins = json.loads(VERSIONS_FILE.read_text(encoding="utf-8"))
    for agent, version in wanted(argv, pins).items():
        print(f"{agent}: {pins[agent]['version']} -> {version}")
        pins[agent]["version"] = version
    VERSIONS_FILE.write_text(render(pins), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Look-alikes at scale: redact every line of ordinary code and docs, count the lines changed.

Run from the repository root:  python -m eval.secrets.scan_code DIR [--out masked.txt]

Reads the .py, .md, .toml, .json, .yaml, .yml and .txt files under DIR (skipping .git, .venv,
fixtures, golden and secrets folders) and redacts each line on its own. Run it on third-party
packages and on this repository, once with this tree and once with another checkout on
PYTHONPATH, and diff the --out files: every line masked by one redactor and not the other is
a new mask to judge (a false positive, or a secret the other one missed).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from recallnest.core.redact import redact

SUFFIXES = (".py", ".md", ".toml", ".json", ".yaml", ".yml", ".txt")
SKIPPED = frozenset({".git", ".venv", "fixtures", "golden", "secrets"})


def scan(root: Path) -> tuple[int, int, list[str]]:
    """(files, lines, the masked lines as `path: line => redacted`)."""
    files = [
        p
        for p in sorted(root.rglob("*"))
        if p.suffix in SUFFIXES and p.is_file() and not SKIPPED & set(p.parts)
    ]
    lines, masked = 0, []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for line in text.splitlines():
            lines += 1
            clean, kinds = redact(line)
            if kinds:
                masked.append(f"{path.relative_to(root)}: {line.strip()} => {clean.strip()}")
    return len(files), lines, masked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--out", type=Path, help="write the masked lines here")
    args = parser.parse_args()
    files, lines, masked = scan(args.root)
    print(f"{files} files, {lines} lines, {len(masked)} lines masked")
    if args.out:
        args.out.write_text("\n".join(masked) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

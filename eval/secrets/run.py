"""Measure the redactor on the corpus: formats masked, look-alikes kept, per split.

Run from the repository root:  python -m eval.secrets.run [--split dev|heldout|all] [--show]

A secret format counts as masked when none of its secret values is left in the redacted text
and every `keep` substring (the context that must survive: host, port, database, words) is
still there. A look-alike counts as kept when redaction leaves its text unchanged.
`--show` lists the failures of the chosen split (tune on dev; look at held-out at the end).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from recallnest.core.redact import redact

HERE = Path(__file__).parent


def load(name: str) -> list[dict[str, Any]]:
    with (HERE / name).open() as fh:
        return [json.loads(line) for line in fh if line.strip()]


def masked(record: dict[str, Any]) -> bool:
    clean = redact(record["text"])[0]
    no_secret = not any(secret in clean for secret in record["secrets"])
    return no_secret and all(part in clean for part in record["keep"])


def kept(record: dict[str, Any]) -> bool:
    return redact(record["text"])[0] == record["text"]


def failures(split: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The split's rows that fail: (positives missed, look-alikes flagged), as records."""
    wanted = ("dev", "heldout") if split == "all" else (split,)
    positives = [r for r in load("positives.jsonl") if r["split"] in wanted]
    lookalikes = [r for r in load("lookalikes.jsonl") if r["split"] in wanted]
    return [r for r in positives if not masked(r)], [r for r in lookalikes if not kept(r)]


def measure(split: str) -> dict[str, Any]:
    wanted = ("dev", "heldout") if split == "all" else (split,)
    positives = [r for r in load("positives.jsonl") if r["split"] in wanted]
    lookalikes = [r for r in load("lookalikes.jsonl") if r["split"] in wanted]
    missed, flagged = failures(split)
    return {
        "split": split,
        "formats": len(positives),
        "masked": len(positives) - len(missed),
        "lookalikes": len(lookalikes),
        "kept": len(lookalikes) - len(flagged),
        "missed": [r["format"] for r in missed],
        "flagged": [r["format"] for r in flagged],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    parser.add_argument("--show", action="store_true", help="print the failing texts")
    args = parser.parse_args()
    result = measure(args.split)
    print(
        f"{result['split']}: {result['masked']}/{result['formats']} secret formats masked, "
        f"{result['kept']}/{result['lookalikes']} look-alikes kept"
    )
    if args.show:
        # Trigger: 56 format names are shared by rows of different batches. Why: a lookup by
        # name showed another row of that name (a masked one) instead of the failing row.
        missed, flagged = failures(args.split)
        for row in missed + flagged:
            clean = redact(row["text"])[0]
            print(
                f"--- {row['format']} ({row.get('batch', row['split'])})\n{row['text']}\n=> {clean}"
            )


if __name__ == "__main__":
    main()

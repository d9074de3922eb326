"""Peak memory of reading one big legacy Gemini `.json` session (issue 18.9), before and after
the streaming parser.

Run from the repository root:  python -m bench.bench_gemini_document [--mb 60] [--quick]

Builds a legacy session (Gemini ≤0.38 layout, `JSON.stringify(record, null, 2)`) of about
`--mb` MB in a temporary directory: alternating user and model messages, each model message
with a tool call whose result holds a few KB of file text (mostly ASCII code, some Chinese).
Each mode runs in a fresh subprocess, which reports its peak RSS (`ru_maxrss`), its RSS at the
end (VmRSS) and the time taken:

- idle:           the imports only (what every other figure starts from)
- whole-parse:    the old path: read the file, `parse_document` (one `json.loads`)
- stream-parse:   `iter_document` over 256 KB chunks (the new path)
- whole-ingest:   the old ingest: `parse_document`, then ONE batch into a fresh store
- stream-ingest:  `ingest_file` as the daemon runs it now (batches as they are parsed,
                  then `release_memory`)

Ingest modes use the hash embedder (no model download); the store is a throw-away home.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CODE = (
    "def load(path: Path) -> dict[str, str]:\n    with path.open() as handle:\n"
    "        return json.load(handle)  # the config of the staging server, port 8443\n"
)
CHINESE = "我们决定把主数据库换成 PostgreSQL，因为需要更好的事务支持。\n"
MODES = ("idle", "whole-parse", "stream-parse", "whole-ingest", "stream-ingest")
# ru_maxrss survives fork and exec on Linux: the parent must stay small, so the file is built
# in a subprocess of its own and every mode runs in a fresh one.


def build(path: Path, megabytes: float) -> int:
    """Write the session; return its message count."""
    rng = random.Random(18_9)
    messages: list[dict[str, object]] = []
    size, k = 0, 0
    while size < megabytes * 1_000_000:
        stamp = f"2025-11-0{1 + k % 9}T10:{k % 60:02d}:00.000Z"
        if k % 2 == 0:
            text = f"Please look at module_{k}.py and fix the retry logic (step {k})."
            message: dict[str, object] = {"id": f"m{k}", "timestamp": stamp, "type": "user"}
            message |= {"content": text, "displayContent": text}
        else:
            body = (CODE * rng.randint(20, 60)) + CHINESE * rng.randint(0, 4)
            call = {"id": f"c{k}", "name": "read_file", "args": {"absolute_path": f"/p/m{k}.py"}}
            call |= {"result": [{"functionResponse": {"response": {"output": body}}}]}
            message = {"id": f"m{k}", "timestamp": stamp, "type": "gemini", "toolCalls": [call]}
            message |= {"content": f"I read module_{k}.py; the retry loop never backs off."}
            size += len(body)
        messages.append(message)
        size += 300
        k += 1
    record = {
        "sessionId": "bench-legacy-0001",
        "projectHash": "ab" * 32,
        "startTime": "2025-11-01T10:00:00.000Z",
        "lastUpdated": "2025-11-09T10:00:00.000Z",
        "messages": messages,
    }
    path.write_text(json.dumps(record, indent=2, ensure_ascii=False), "utf-8")
    return len(messages)


def run_mode(mode: str, path: Path, home: Path) -> dict[str, object]:
    """One mode in this process (called in a fresh subprocess)."""
    from recallnest.ingest.pipeline import Source, _batch, ingest_file, release_memory
    from recallnest.ingest.transcripts import iter_document, parse_document

    started = time.perf_counter()
    count = 0
    if mode in ("whole-parse", "whole-ingest"):
        events = parse_document("gemini", str(path), path.read_bytes())
        count = len(events)
        if mode == "whole-ingest":
            engine = _engine(home)
            from recallnest.ingest.pipeline import FileReport

            engine.ingest_batch(_batch(events, None, FileReport()))
            engine.close()
        del events
    elif mode == "stream-parse":
        with path.open("rb") as handle:
            chunks = iter(lambda: handle.read(256 * 1024), b"")
            for batch in iter_document("gemini", str(path), chunks):
                count += len(batch)
        release_memory()
    elif mode == "stream-ingest":
        engine = _engine(home)
        report = ingest_file(Source(str(path), "gemini"), None, engine.ingest_batch)
        count = report.turns + report.tool_uses
        engine.close()
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"mode": mode, "peak_mb": peak_kb / 1024, "end_mb": _rss_mb(), "s": seconds, "n": count}


def _engine(home: Path):  # type: ignore[no-untyped-def]
    from recallnest.core.config import Settings
    from recallnest.engine import Engine

    flags = {"home": str(home), "embedder": "hash"}
    return Engine.open(Settings.load(flags=flags, env={"HOME": str(home)}))


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(mode: str, path: Path, work: Path) -> dict[str, object]:
    home = Path(tempfile.mkdtemp(prefix=f"rn-{mode}-", dir=work))
    argv = [sys.executable, "-m", "bench.bench_gemini_document", "--child", mode]
    argv += ["--path", str(path), "--home", str(home)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="a 3 MB file")
    parser.add_argument("--child", choices=MODES)
    parser.add_argument("--build", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path)
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_mode(args.child, args.path, args.home)))
        return
    if args.build:
        print(build(args.path, args.mb))
        return
    with tempfile.TemporaryDirectory(prefix="rn-bench-doc-") as tmp:
        work = Path(tmp)
        chats = work / "gemini" / "tmp" / "proj" / "chats"
        chats.mkdir(parents=True)
        path = chats / "session-2025-11-01T10-00-bench001.json"
        mb = 3.0 if args.quick else args.mb
        argv = [sys.executable, "-m", "bench.bench_gemini_document", "--build", "--mb", str(mb)]
        built = subprocess.run([*argv, "--path", str(path)], check=True, capture_output=True)
        messages = int(built.stdout)
        size = path.stat().st_size / 1e6
        load = os.getloadavg()[0]
        print(f"legacy session: {size:.1f} MB, {messages:,} messages; load1 {load:.2f}")
        print()
        print("| mode | peak RSS MB | RSS at end MB | seconds | events |")
        print("|---|---|---|---|---|")
        for mode in MODES:
            row = measure(mode, path, work)
            print(
                f"| {mode} | {row['peak_mb']:.0f} | {row['end_mb']:.0f} | {row['s']:.1f} "
                f"| {row['n']:,} |"
            )


if __name__ == "__main__":
    main()

"""The prompt hook's own process (issue 23): a fresh `recallnest hook user-prompt` against a stub
daemon that answers at once, so only the process is timed (start, imports, stdin, the socket
round trip, the output), not the recall.

Three ways to start the same hook, each a fresh process per prompt, interleaved:
  installed command    the console script `recallnest install` writes into the agents'
                       settings (`<venv>/bin/recallnest hook user-prompt --agent claude`)
  full hook            the console script's interpreter running the full hook module
                       (integrations.hook), as every hook event ran before the fast path
  python -I -S         the venv's interpreter isolated and without site, running the fast
                       path directly (not what install writes: a leaner command to consider)

    python bench/bench_prompt_hook_process.py --venv /tmp/rnp-venv [-n 40]

The answer printed must be the same for all three (checked).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import fmt, load1, median, note, p95, print_table

TEXT = (
    "RECALLNEST RECALLED NOTES\n~~~\n"
    "- [own-007] project-00 own entities note 7: service zeta7 runs on port 8007\n~~~"
)
PAYLOAD = {
    "session_id": "s-1",
    "cwd": "/work/project-00",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "which port does service zeta7 run on? I need port 8007 for the config",
}


def serve(path: str) -> None:
    """The stub daemon: one JSON line in, the same answer out, at once."""
    reply = (json.dumps({"v": 1, "ok": True, "result": {"text": TEXT}}) + "\n").encode()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)

    def loop() -> None:
        while True:
            conn, _ = server.accept()
            with conn:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(reply)

    threading.Thread(target=loop, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, required=True, help="a venv with `pip install .`")
    parser.add_argument("-n", "--runs", type=int, default=40)
    args = parser.parse_args()
    python = str(args.venv / "bin" / "python")
    script = str(args.venv / "bin" / "recallnest")
    with tempfile.TemporaryDirectory(prefix="rnph-", dir="/tmp") as home:
        serve(os.path.join(home, "daemon.sock"))
        site = subprocess.run(
            [python, "-c", "import recallnest, os; print(os.path.dirname(recallnest.__path__[0]))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        full = (
            "import os, sys; os.umask(0o077); from recallnest.integrations.hook import main; "
            "sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, os.environ))"
        )
        lean = (
            f"import os, sys; os.umask(0o077); sys.path.append({site!r}); "
            "from recallnest.integrations.prompt_hook import main; "
            "sys.exit(main(sys.argv[1:], os.environ))"
        )
        event = ["user-prompt", "--agent", "claude"]
        commands = {
            "installed command (console script)": [script, "hook", *event],
            "full hook, as before the fast path": [python, "-c", full, *event],
            "python -I -S, fast path": [python, "-I", "-S", "-c", lean, *event],
        }
        env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "RECALLNEST_HOME": home}
        times: dict[str, list[float]] = {name: [] for name in commands}
        outputs: set[str] = set()
        note(f"load1 {load1():.2f} at start")
        for _ in range(args.runs):
            for name, argv in commands.items():
                began = time.perf_counter()
                done = subprocess.run(
                    argv, input=json.dumps(PAYLOAD), capture_output=True, text=True, env=env
                )
                times[name].append((time.perf_counter() - began) * 1000)
                if done.returncode or done.stderr or TEXT.splitlines()[2][:20] not in done.stdout:
                    raise SystemExit(f"{name}: unexpected {done!r}")
                outputs.add(done.stdout)
    if len(outputs) != 1:
        raise SystemExit(f"the three printed different answers: {outputs!r}")
    rows = [[name, fmt(min(v)), fmt(median(v)), fmt(p95(v))] for name, v in times.items()]
    title = f"Prompt hook process against an instant stub daemon, {args.runs} runs each"
    print_table(f"{title} (load1 {load1():.2f} at end)", ["how", "min", "p50 ms", "p95 ms"], rows)


if __name__ == "__main__":
    main()

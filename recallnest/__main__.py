"""`python -m recallnest` and the `recallnest` console script.

`recallnest hook ...` is dispatched before click is imported: the hook's fast path must load
only the standard library (see hook.py), and a prompt's hook (`user-prompt`, `before-agent`)
even less of it (prompt_hook.py: the prompt waits for it).
"""

from __future__ import annotations

import os
import sys

PROMPT_EVENTS = ("user-prompt", "before-agent")


def main() -> None:
    # Everything recallnest writes (database, WAL, logs, backups) holds transcript text and
    # must be owner-only, including files DuckDB creates later such as the WAL.
    os.umask(0o077)
    if len(sys.argv) > 2 and sys.argv[1] == "hook" and sys.argv[2] in PROMPT_EVENTS:
        from recallnest.integrations.prompt_hook import main as prompt_main

        sys.exit(prompt_main(sys.argv[2:], os.environ))
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        from recallnest.integrations.hook import main as hook_main

        sys.exit(hook_main(sys.argv[2:], sys.stdin, sys.stdout, os.environ))
    if _runs_the_daemon(sys.argv[1:]):
        from recallnest.core import heap

        heap.limit_arenas()  # before any thread: decision 0027
    from recallnest.cli import cli

    cli()


def _runs_the_daemon(args: list[str]) -> bool:
    """`... daemon run ...` (global options such as --home may come first)."""
    if "daemon" not in args:
        return False
    at = args.index("daemon")
    return args[at + 1 : at + 2] == ["run"]


if __name__ == "__main__":
    main()

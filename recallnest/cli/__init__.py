"""The command line: the click group (`_app`) and one module per command family.

May import every other package; nothing in recallnest imports cli (only `__main__`, the entry
point). Command modules import the group and shared helpers from `_app` and register on it when
imported here.
"""

from recallnest.cli import eval_cases, lifecycle, mcp, ops, sync, ui  # noqa: F401 (register commands)
from recallnest.cli._app import cli

lifecycle.register(cli)

__all__ = ["cli"]

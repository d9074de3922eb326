"""`recallnest mcp`: the MCP server command, registered on the main click group.

cli.py imports this module at its end, so importing it must stay cheap: the server (and the
`mcp` SDK it loads) is imported only when the command runs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from recallnest.cli._app import CONTEXT, cli, settings_of
from recallnest.core.models import AGENTS
from recallnest.core.paths import socket_path
from recallnest.core.terminal import raw


@cli.command(context_settings=CONTEXT)
@click.option(
    "--agent",
    type=click.Choice(AGENTS),
    help="The agent that starts the server (sizes resume_context like its hook).",
)
@click.pass_context
def mcp(ctx: click.Context, agent: str | None) -> None:
    """Serve memory tools to an agent over MCP (stdio); `recallnest install` registers it.

    A thin client of the daemon: when the daemon is not running, each tool says so and the
    server keeps running. Tools: search_memory, remember, forget, recent_sessions,
    resume_context. To register it by hand: claude mcp add --scope user recallnest --
    recallnest mcp --agent claude

    \b
    recallnest mcp --agent claude
    """
    from recallnest.integrations.mcp_server import serve

    # stdout is the JSON-RPC channel, not a terminal: the SDK writes bytes to its buffer, and
    # the tool results are made inert in mcp_server itself.
    sys.stdout = raw(sys.stdout)
    serve(socket_path(settings_of(ctx).home), Path(os.getcwd()), agent)

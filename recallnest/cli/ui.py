"""`recallnest ui`: the local web UI, registered on the main click group.

Importing this module stays cheap: the server is imported only when the command runs.
"""

from __future__ import annotations

import click

from recallnest.cli._app import CONTEXT, cli, settings_of


@cli.command(context_settings=CONTEXT)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, help="Port (default: a free one)."
)
@click.option("--no-open", is_flag=True, help="Print the URL without opening a browser.")
@click.pass_context
def ui(ctx: click.Context, port: int, no_open: bool) -> None:
    """Open the web UI: dashboard, search, memory pages (edit, pin, forget), review, conflicts,
    sessions and the resume preview. Loopback only; the printed URL carries a secret token
    for this run. Starts the daemon if it is not running (the UI reads through it).

    \b
    recallnest ui
    recallnest ui --port 8765 --no-open
    """
    from recallnest.integrations.webui.server import serve
    from recallnest.server import control

    settings = settings_of(ctx)
    started = control.start(settings)
    if started.startswith("started"):
        click.echo(f"daemon {started}", err=True)
    serve(settings, port, not no_open, click.echo)

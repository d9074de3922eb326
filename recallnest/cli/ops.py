"""Maintenance commands on the main group: `repair` (rebuild a damaged database) and
`audit secrets` (find, and on request redact, credentials that reached the store).

Registered on import (`recallnest.cli._app` imports this module). Both need the database to
themselves, so they refuse to run while the daemon does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from recallnest.cli._app import CONTEXT, cli, emit, json_option, settings_of
from recallnest.core.schemas import jsonable
from recallnest.core.terminal import raw

if TYPE_CHECKING:
    from recallnest.server.audit import Audit


@cli.command(context_settings=CONTEXT)
@click.option(
    "--from-export",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Restore memories from this `export` file (default: the damaged file, else the "
    "daemon's backup).",
)
@click.option("--force", is_flag=True, help="Rebuild even when the database reads back whole.")
@json_option
@click.pass_context
def repair(ctx: click.Context, from_export: Path | None, force: bool, as_json: bool) -> None:
    """Move a damaged database aside and rebuild it from the transcripts and memory backups.

    \b
    recallnest daemon stop && recallnest repair && recallnest daemon start
    recallnest repair --from-export memories.jsonl
    """
    from recallnest.server.repair import repair as run_repair

    with click.progressbar(length=0, label="repairing", file=raw(sys.stderr)) as bar:

        def on_file(done: int, total: int) -> None:
            bar.length = total
            bar.update(1)

        result = run_repair(settings_of(ctx), from_export, force, on_file)
    emit(jsonable(result), as_json, _print_repair)


def _print_repair(r: dict[str, Any]) -> None:
    if not r["repaired"]:
        click.echo(r["detail"])
        return
    click.echo(f"problem: {r['problem']}")
    if r["moved_to"]:
        click.echo(f"kept the old file as {r['moved_to']}")
    click.echo(f"re-ingested {r['files']} transcript files: {r['turns']} turns")
    source = r["memories_from"] or "nowhere (no export, readable file or backup)"
    click.echo(f"restored {r['memories_restored']} memories from {source}")
    for error in r["errors"]:
        click.echo(f"warning: {error}", err=True)


@cli.group(context_settings=CONTEXT)
def audit() -> None:
    """Check what the database holds."""


@audit.command("secrets", context_settings=CONTEXT)
@click.option("--fix", is_flag=True, help="Redact them in place (one transaction; ids kept).")
@json_option
@click.pass_context
def audit_secrets(ctx: click.Context, fix: bool, as_json: bool) -> None:
    """Scan every text column of the database for secrets (exit 1 if any remain).

    \b
    recallnest audit secrets
    recallnest audit secrets --fix --json
    """
    from recallnest.server.audit import audit_secrets as run_audit

    result = run_audit(settings_of(ctx), fix)
    emit(_audit_json(result), as_json, _print_audit)
    if result.findings and not fix:
        sys.exit(1)


def _audit_json(r: Audit) -> dict[str, Any]:
    """The report as JSON: `fixed` only after `--fix`."""
    out = {"database": r.database, "scanned": r.scanned, "findings": jsonable(r.findings)}
    return out if r.fixed is None else out | {"fixed": r.fixed}


def _print_audit(r: dict[str, Any]) -> None:
    for f in r["findings"]:
        kinds = ",".join(sorted(set(f["kinds"])))
        click.echo(f"{f['table']} {f['id'][:12]} {kinds}: {f['preview']}")
    scanned = ", ".join(f"{n} {table.replace('_', ' ')}" for table, n in r["scanned"].items())
    if not r["findings"]:
        click.echo(f"no secrets found (scanned {scanned})")
    elif "fixed" in r:
        click.echo(f"redacted secrets in {r['fixed']} rows (scanned {scanned})")
    else:
        click.echo(
            f"secrets in {len(r['findings'])} rows (scanned {scanned}); "
            "`recallnest audit secrets --fix` redacts them"
        )

"""The click command line: parse options, call one library function, format the output.

Errors derived from RecallnestError become one line on stderr and exit 1; no tracebacks unless
--debug. Every read command takes --json (one JSON document; field names in schemas.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from recallnest import __version__
from recallnest.core.config import Settings
from recallnest.core.errors import RecallnestError
from recallnest.core.models import CATEGORIES, GLOBAL_SCOPE, STATUSES
from recallnest.core.terminal import clean_output, json_dumps, raw

if TYPE_CHECKING:
    from recallnest.server.control import DaemonState

# Ops that only read: run on a home with no database they say nothing is indexed yet, instead
# of creating an empty database to answer "no results".
READ_OPS = frozenset(
    {
        "search",
        "memories.list",
        "memories.show",
        "memories.find",
        "memories.history",
        "stats",
        "export",
        "checkpoints.list",
        "checkpoints.show",
        "conflicts.list",
        "undo.list",
        "forget.log",
        "forget.plan",
        "lifecycle.size",
    }
)
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Group(click.Group):
    """Turns RecallnestError into a one-line message (exit 1) unless --debug, and refuses an
    argument that is not valid UTF-8 (exit 2) before any command sees it. Everything the
    command line prints goes through `terminal.clean` (see `main`)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # The output boundary: stored text quoted by any command, error or usage message
        # reaches the terminal without control, format or bidi characters.
        with clean_output():
            return super().main(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for n, arg in enumerate(args, 1):
            try:
                arg.encode("utf-8")
            except UnicodeEncodeError:
                shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                raise click.UsageError(
                    f"argument {n} is not valid UTF-8 ({shown!r}): recallnest stores text "
                    "as UTF-8; re-encode it (e.g. with iconv) and retry",
                    ctx,
                ) from None
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            ctx.meta["recallnest.succeeded"] = True
            return result
        except RecallnestError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            from recallnest.core.redact import (
                redact,  # an error may quote an argument: mask secrets
            )

            raise click.ClickException(redact(str(exc))[0]) from exc


@click.group(cls=_Group, context_settings=CONTEXT)
@click.version_option(__version__, prog_name="recallnest")
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    envvar="RECALLNEST_HOME",
    help="State directory (database, config, logs, socket).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logs.")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, debug: bool) -> None:
    """Local, zero-LLM memory for Claude Code, Codex CLI and Gemini CLI.

    \b
    recallnest remember "We use pnpm, never npm" --scope project .
    recallnest search "which package manager" --json
    """
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="recallnest: %(levelname)s %(message)s",
    )
    ctx.obj = {"debug": debug, "flags": {"home": home}}


def _check_home(ctx: click.Context, home: Path) -> None:
    """A home that cannot hold our files is a clear error. One that does not exist yet is
    created by the first command that writes; given with --home, that command says so on
    stderr when it succeeds (a mistyped --home would otherwise fill a new directory
    silently; the default home and RECALLNEST_HOME are created quietly, as on a first run)."""
    from recallnest.core.paths import check_home

    check_home(home)
    explicit = ctx.get_parameter_source("home") == click.core.ParameterSource.COMMANDLINE
    if explicit and not home.exists():
        ctx.call_on_close(lambda: _say_created(ctx, home))


def _say_created(ctx: click.Context, home: Path) -> None:
    if ctx.meta.get("recallnest.succeeded") and home.is_dir():
        click.echo(f"recallnest: created {home}", err=True)


def settings_of(ctx: click.Context) -> Settings:
    """The settings; the first call also checks the home (so --help never needs one)."""
    settings = Settings.load(flags=ctx.obj["flags"])
    if not ctx.obj.get("home_checked"):
        ctx.obj["home_checked"] = True
        _check_home(ctx.find_root(), settings.home)
    return settings


def settings_in_home(ctx: click.Context) -> Callable[[Path], Settings]:
    """The user's settings with another state directory (evaluations use a fresh home)."""
    base = settings_of(ctx)
    return lambda home: base.model_copy(update={"home": home})


def call(ctx: click.Context, op: str, args: dict[str, Any]) -> Any:
    """Run one operation through the daemon if it answers, else in this process."""
    from recallnest.server.client import connect

    client = connect(settings_of(ctx), create=op not in READ_OPS)
    try:
        return client.call(op, args)
    finally:
        client.close()


def emit(data: Any, as_json: bool, human: Callable[[Any], None]) -> None:
    if as_json:
        click.echo(json_dumps(data, indent=2, default=str))
    else:
        human(data)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(f)


def resolve_scope(scope: str, path: str | None) -> str:
    """`global`, or the project key of PATH (default: the current directory)."""
    if scope == "global":
        if path:
            raise RecallnestError("a PATH is only used with --scope project")
        return GLOBAL_SCOPE
    from recallnest.core.project import project_of

    key = project_of(str(Path(path or ".").resolve()))
    assert key is not None
    return key


def scope_key(scope: str | None) -> str | None:
    """`global`, or the project key of a path, or None (any scope)."""
    return scope if scope in (None, GLOBAL_SCOPE) else project_key(scope)


def project_key(path: str | None) -> str | None:
    if path is None:
        return None
    from recallnest.core.project import project_of

    return project_of(str(Path(path).resolve()))


# ---- memories ---------------------------------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.argument("text")
@click.argument("path", required=False)
@click.option("--category", type=click.Choice(CATEGORIES), help="Default: inferred from the text.")
@click.option(
    "--scope",
    type=click.Choice(["global", "project"]),
    default="global",
    show_default=True,
    help="`project` scopes it to PATH's project (default: cwd).",
)
@click.option("--importance", type=click.FloatRange(0, 1))
@json_option
@click.pass_context
def remember(
    ctx: click.Context,
    text: str,
    path: str | None,
    category: str | None,
    scope: str,
    importance: float | None,
    as_json: bool,
) -> None:
    """Store a memory (secrets are redacted; the same text twice is one memory).

    \b
    recallnest remember "I prefer tabs over spaces"
    recallnest remember "We use pnpm, never npm, in this repo" --scope project .
    """
    args = {
        "text": text,
        "category": category,
        "scope": resolve_scope(scope, path),
        "importance": importance,
    }
    result = call(ctx, "remember", args)
    emit(
        result,
        as_json,
        lambda m: click.echo(
            f"{'remembered' if m['created'] else 'updated'} {m['id']} "
            f"[{m['category']}, {m['scope']}]"
            + "".join(f" (replaces {old[:8]})" for old in m.get("superseded", []))
        ),
    )


@cli.command(context_settings=CONTEXT)
@click.argument("query")
@click.option(
    "--kind", type=click.Choice(["all", "memories", "turns"]), default="all", show_default=True
)
@click.option(
    "--project", "project_path", help="Only this project's turns, its memories and global ones."
)
@click.option("--category", type=click.Choice(CATEGORIES))
@click.option("--agent", type=click.Choice(["claude", "codex", "gemini"]))
@click.option("--session", "session_id")
@click.option("--since", help="ISO date or age (7d, 12h).")
@click.option("--limit", "-n", type=click.IntRange(1, 1000), default=10, show_default=True)
@click.option("--explain", is_flag=True, help="Show each channel's rank and score.")
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    kind: str,
    project_path: str | None,
    category: str | None,
    agent: str | None,
    session_id: str | None,
    since: str | None,
    limit: int,
    explain: bool,
    as_json: bool,
) -> None:
    """Search memories and conversation turns (keyword + vector, fused).

    \b
    recallnest search "which package manager" --json
    recallnest search "staging port" --kind turns --agent codex --since 7d
    """
    args = {
        "query": query,
        "kind": kind,
        "project": project_key(project_path),
        "category": category,
        "agent": agent,
        "session_id": session_id,
        "since": since,
        "limit": limit,
        "explain": explain,
    }
    emit(call(ctx, "search", args), as_json, _print_hits)


def _print_hits(hits: list[dict[str, Any]]) -> None:
    if not hits:
        click.echo("no results")
    for n, h in enumerate(hits, 1):
        where = (
            f"{h['category']}, {h['scope']}"
            if h["kind"] == "memory"
            else f"{h['agent']} {h['role']}, {str(h['timestamp'])[:16]}"
        )
        click.echo(f"{n:>2}. {h['score']:.3f} [{h['kind']}: {where}] {h['id'][:8]}")
        click.echo(f"    {one_line(h['text'], 200)}")
        explain = h.get("explain")
        if explain:
            ranks = ", ".join(f"{k} #{v}" for k, v in explain["ranks"].items())
            parts = ", ".join(f"{k} {v:+.3f}" for k, v in explain["parts"].items() if v)
            click.echo(f"    ranks: {ranks or '-'}; score: {parts}")


def one_line(text: str | None, width: int = 90) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@cli.group(context_settings=CONTEXT)
def memories() -> None:
    """List and show durable memories."""


@memories.command("list", context_settings=CONTEXT)
@click.option("--scope", help="`global` or a project path.")
@click.option("--category", type=click.Choice(CATEGORIES))
@click.option(
    "--status",
    type=click.Choice([*STATUSES, "any"]),
    default="active",
    show_default=True,
)
@click.option("--limit", "-n", type=click.IntRange(1), default=50, show_default=True)
@json_option
@click.pass_context
def memories_list(
    ctx: click.Context,
    scope: str | None,
    category: str | None,
    status: str,
    limit: int,
    as_json: bool,
) -> None:
    """List memories, most recently updated first."""
    args = {
        "scope": scope_key(scope),
        "category": category,
        "status": None if status == "any" else status,
        "limit": limit,
    }
    emit(call(ctx, "memories.list", args), as_json, _print_memories)


def _print_memories(memories: list[dict[str, Any]]) -> None:
    if not memories:
        click.echo("no memories")
    for m in memories:
        click.echo(f"{m['id'][:8]} [{m['category']}, {m['scope']}] {one_line(m['text'], 90)}")


@memories.command("show", context_settings=CONTEXT)
@click.argument("memory_id")
@json_option
@click.pass_context
def memories_show(ctx: click.Context, memory_id: str, as_json: bool) -> None:
    """Show one memory (full id or a unique prefix of 6+ characters)."""
    emit(call(ctx, "memories.show", {"id": memory_id}), as_json, _print_fields)


def _print_fields(record: dict[str, Any]) -> None:
    for key, value in record.items():
        click.echo(f"{key}: {value}")


@cli.command(context_settings=CONTEXT)
@json_option
@click.pass_context
def stats(ctx: click.Context, as_json: bool) -> None:
    """Counts, file size and embedding progress."""
    emit(call(ctx, "stats", {}), as_json, _print_stats)


def _print_stats(s: dict[str, Any]) -> None:
    click.echo(f"home: {s['home']}")
    for name, n in s["counts"].items():
        click.echo(f"{name}: {n}")
    f = s["file"]
    click.echo(
        f"file: {f.get('path_bytes', 0) / 1e6:.1f} MB "
        f"(live blocks {f.get('used_bytes', 0) / 1e6:.1f} MB)"
    )
    e = s["embedder"]
    click.echo(
        f"embedder: {e['model'] or 'none (keyword-only)'}; vectors "
        f"{e['rows_with_vectors']}/{e['rows']}" + (f"; {e['error']}" if e["error"] else "")
    )


@cli.command("export", context_settings=CONTEXT)
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl", show_default=True)
@click.option("--output", "-o", type=click.File("w", encoding="utf-8"), default="-")
@click.pass_context
def export_cmd(ctx: click.Context, fmt: str, output: Any) -> None:
    """Write every memory (all statuses) as JSON lines; `import` reads it back losslessly."""
    for record in call(ctx, "export", {}):
        output.write(json_dumps(record, sort_keys=True) + "\n")


@cli.command("import", context_settings=CONTEXT)
@click.argument("file", type=click.File("r", encoding="utf-8"))
@json_option
@click.pass_context
def import_cmd(ctx: click.Context, file: Any, as_json: bool) -> None:
    """Import memories from an `export` file (same ids; existing ones are replaced)."""
    records = []
    for n, line in enumerate(file, 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError as exc:
                raise RecallnestError(f"{file.name}:{n}: not JSON ({exc})") from exc
    result = call(ctx, "import", {"records": records})
    emit(result, as_json, lambda r: click.echo(f"imported {r['imported']} memories"))


@cli.command(context_settings=CONTEXT)
@click.pass_context
def reindex(ctx: click.Context) -> None:
    """Re-embed every record with the configured embedder (after a model change)."""
    from recallnest.server.client import LocalClient, daemon_answers

    settings = settings_of(ctx)
    if daemon_answers(settings):
        raise RecallnestError(
            "stop the daemon first (`recallnest daemon stop`): it re-embeds "
            "in the background after a model change anyway"
        )
    client = LocalClient(settings)
    try:
        total = (
            client.engine.store.count_missing_vectors(client.engine.embedder.model_id)
            if client.engine.embedder
            else 0
        )
        with click.progressbar(length=total, label="embedding", file=raw(sys.stderr)) as bar:
            last = [0]

            def progress(done: int, _total: int) -> None:
                bar.update(done - last[0])
                last[0] = done

            result = client.engine.reindex(progress)
    finally:
        client.close()
    click.echo(
        f"embedded {result.embedded} rows with {result.model}; dropped "
        f"{result.dropped_vectors} vectors of other models"
    )


@cli.command(context_settings=CONTEXT)
@json_option
@click.pass_context
def doctor(ctx: click.Context, as_json: bool) -> None:
    """Check the installation: extensions, embedder, database, permissions."""
    from recallnest.integrations.doctor import run_checks

    checks = run_checks(settings_of(ctx))
    emit(checks, as_json, _print_checks)
    if not all(c["ok"] for c in checks):
        sys.exit(1)


def _print_checks(checks: list[dict[str, Any]]) -> None:
    for c in checks:
        mark = "FAIL" if not c["ok"] else "note" if c.get("note") else "ok  "
        click.echo(f"{mark} {c['name']}: {c['detail']}")


# ---- daemon and ingestion ---------------------------------------------------------------------


@cli.group(context_settings=CONTEXT)
def daemon() -> None:
    """Run the background daemon that tails the agents' transcripts."""


@daemon.command("run", context_settings=CONTEXT)
@click.option("--polling", is_flag=True, help="Poll instead of filesystem events (network FS).")
@click.pass_context
def daemon_run(ctx: click.Context, polling: bool) -> None:
    """Run in the foreground until Ctrl-C or SIGTERM."""
    from recallnest.server.daemon import run

    sys.exit(run(settings_of(ctx), polling=polling))


@daemon.command("start", context_settings=CONTEXT)
@click.option("--polling", is_flag=True, help="Poll instead of filesystem events.")
@click.pass_context
def daemon_start(ctx: click.Context, polling: bool) -> None:
    """Start the daemon in the background (no-op if it already runs)."""
    from recallnest.server.control import start

    click.echo(start(settings_of(ctx), polling))


@daemon.command("stop", context_settings=CONTEXT)
@click.pass_context
def daemon_stop(ctx: click.Context) -> None:
    """Stop the daemon gracefully (it flushes and closes the database)."""
    from recallnest.server.control import stop

    click.echo(stop(settings_of(ctx)))


@daemon.command("status", context_settings=CONTEXT)
@json_option
@click.pass_context
def daemon_status(ctx: click.Context, as_json: bool) -> None:
    """Whether the daemon runs, its PID, what it watches and what it ingested."""
    from recallnest.server.control import status

    state = status(settings_of(ctx))
    emit(_status_json(state), as_json, _print_fields)
    if not state.running:
        sys.exit(3)


def _status_json(state: DaemonState) -> dict[str, Any]:
    """The daemon's own `daemon.status` answer, or why it does not answer."""
    if state.running:
        return {"running": True, **state.answer}
    return {
        "running": False,
        "pid": state.pid,
        "stale_pid": state.stale_pid,
        "detail": state.detail,
        "error": state.error,
    }


@cli.command(context_settings=CONTEXT)
@click.option("--agent", type=click.Choice(["claude", "codex", "gemini"]))
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="Read this folder instead of the agents' default ones (repeatable).",
)
@click.option("--since", help="Only files modified since (ISO date or age like 30d).")
@json_option
@click.pass_context
def ingest(
    ctx: click.Context, agent: str | None, roots: tuple[str, ...], since: str | None, as_json: bool
) -> None:
    """Backfill existing transcripts (idempotent: a second run adds nothing).

    \b
    recallnest ingest
    recallnest ingest --agent codex --since 30d
    """
    from recallnest.core.schemas import jsonable
    from recallnest.server.control import backfill

    with contextlib.ExitStack() as bars:
        reading = bars.enter_context(
            click.progressbar(length=0, label="ingesting", file=raw(sys.stderr))
        )
        capturing: list[Any] = []

        def on_file(done: int, total: int) -> None:
            reading.length = total
            reading.update(1)

        def on_capture(done: int, total: int) -> None:
            # Large backfills store every turn first, then capture memories (decision 0009).
            if not capturing:
                reading.render_finish()
                capturing.append(
                    bars.enter_context(
                        click.progressbar(length=total, label="capturing", file=raw(sys.stderr))
                    )
                )
            capturing[0].update(done - capturing[0].pos)

        done = backfill(settings_of(ctx), agent, list(roots), since, on_file, on_capture)
    emit({"via": done.via, **jsonable(done.backfill)}, as_json, _print_summary)


def _phases(s: dict[str, Any]) -> str:
    stored, captured = s.get("store_seconds", 0.0), s.get("capture_seconds", 0.0)
    return f"{stored + captured:.1f} s, of which memory capture {captured:.1f} s"


def _print_summary(s: dict[str, Any]) -> None:
    click.echo(
        f"{s['files']} files, {s['turns']} turns read ({s['new_turns']} new), "
        f"{s['tool_uses']} tool calls, {s['memories']} memories, {s['skipped_lines']} lines "
        f"skipped, {s['oversized_lines']} oversized, {s['redactions']} secrets redacted "
        f"(via {s['via']}, {_phases(s)})"
    )
    if s.get("special_files"):
        click.echo(
            f"warning: {s['special_files']} special files skipped (FIFO, socket, device)", err=True
        )
    for error in s["errors"]:
        click.echo(f"warning: {error}", err=True)


# ---- installation ---------------------------------------------------------------------------


def _install_context(ctx: click.Context) -> Any:
    import shutil

    from recallnest.integrations.install_types import InstallContext

    script = shutil.which("recallnest") or sys.argv[0]
    exe = str(Path(script).resolve()) if Path(script).exists() else "recallnest"
    return InstallContext.here(settings_of(ctx), os.environ, exe)


def _agents(ictx: Any, agents: tuple[str, ...]) -> list[str]:
    from recallnest.integrations.install import detect_agents

    found = list(agents) or detect_agents(ictx.config_dirs)
    if not found:
        raise RecallnestError(
            "no agent detected (no ~/.claude, ~/.codex or ~/.gemini); name one with --agent"
        )
    return found


def _run_command(argv: Any) -> int:
    import subprocess

    return subprocess.run(list(argv), check=False).returncode


def _print_changes(changes: list[Any], dry_run: bool) -> None:
    for c in changes:
        verb = f"would {c.action}" if dry_run and c.action != "unchanged" else c.action
        click.echo(f"{c.target}: {verb} {c.path} ({c.summary})")
        for note in c.notes:
            click.echo(f"  note: {note}")
        for command in c.commands:
            click.echo(f"  {'would run' if dry_run else 'ran'}: {' '.join(command)}")


@cli.command(context_settings=CONTEXT)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(["claude", "codex", "gemini"]),
    help="Only this agent (repeatable). Default: every detected agent.",
)
@click.option("--service", is_flag=True, help="Also run the daemon as a user service.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.pass_context
def install(ctx: click.Context, agents: tuple[str, ...], service: bool, dry_run: bool) -> None:
    """Register the session hooks and the MCP server with each agent (settings backed up first).

    \b
    recallnest install --dry-run
    recallnest install --agent claude
    """
    from recallnest.integrations import install as installer
    from recallnest.integrations.service import install_service

    ictx = _install_context(ctx)
    changes = installer.install(_agents(ictx, agents), ictx, dry_run=dry_run, mcp=True)
    if service:
        changes.append(
            install_service(
                ictx,
                sys.platform,
                os.getuid(),
                dry_run=dry_run,
                run_command=None if dry_run else _run_command,
            )
        )
    _print_changes(changes, dry_run)


@cli.command(context_settings=CONTEXT)
@click.option("--agent", "agents", multiple=True, type=click.Choice(["claude", "codex", "gemini"]))
@click.option("--service", is_flag=True, help="Also remove the user service.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.pass_context
def uninstall(ctx: click.Context, agents: tuple[str, ...], service: bool, dry_run: bool) -> None:
    """Remove our hooks, restoring each settings file to its prior state."""
    from recallnest.integrations import install as installer
    from recallnest.integrations.service import uninstall_service

    ictx = _install_context(ctx)
    changes = installer.uninstall(
        list(agents) or ["claude", "codex", "gemini"], ictx, dry_run=dry_run, mcp=True
    )
    if service:
        changes.append(
            uninstall_service(
                ictx,
                sys.platform,
                os.getuid(),
                dry_run=dry_run,
                run_command=None if dry_run else _run_command,
            )
        )
    _print_changes(changes, dry_run)


# ---- evaluation ------------------------------------------------------------------------------


@cli.group("eval", context_settings=CONTEXT)
def eval_group() -> None:
    """Measure retrieval and capture quality on labelled data."""


@eval_group.command("locomo", context_settings=CONTEXT)
@click.option(
    "--data",
    "data_dir",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of LoCoMo conversation files (*.json).",
)
@click.option("--limit-conversations", type=click.IntRange(1), help="Only the first N files.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Reuse passage vectors across runs (tuning); off by default.",
)
@click.option(
    "--disable",
    "disabled",
    multiple=True,
    help="Switch a retrieval stage off (ablation, repeatable): keyword, exact, vector, "
    "expansion, boilerplate, context, session, importance, date, latest.",
)
@json_option
@click.pass_context
def eval_locomo(
    ctx: click.Context,
    data_dir: Path,
    limit_conversations: int | None,
    cache_dir: Path | None,
    disabled: tuple[str, ...],
    as_json: bool,
) -> None:
    """Turn- and session-level retrieval recall on LoCoMo, through the real pipeline.

    \b
    recallnest eval locomo --data ~/data/locomo --json
    """
    from recallnest.evaluation.locomo import run

    files = sorted(data_dir.glob("*.json"))[:limit_conversations]
    if not files:
        raise RecallnestError(f"no *.json conversation files in {data_dir}")
    settings_for = settings_in_home(ctx)

    report = run(
        files,
        settings_for,
        log=lambda m: click.echo(m, err=True),
        cache_dir=cache_dir,
        disabled=frozenset(disabled),
    )
    emit(report, as_json, _print_locomo)


def _print_locomo(report: dict[str, Any]) -> None:
    keys = [
        "turn_recall@5",
        "turn_recall@10",
        "turn_any@5",
        "turn_any@10",
        "session_any@5",
        "session_any@10",
        "session_recall@10",
    ]
    click.echo(f"{'category':<12} {'n':>5} " + " ".join(f"{k:>17}" for k in keys))
    for cat, s in report["categories"].items():
        values = " ".join(f"{s.get(k, float('nan')):>17.1f}" for k in keys)
        click.echo(f"{cat:<12} {s['n']:>5} {values}")
    lat = report["latency_ms"]
    click.echo(
        f"query latency: p50 {lat['p50']} ms, p95 {lat['p95']} ms ({lat['queries']} queries)"
    )


# ---- continuity ------------------------------------------------------------------------------


@cli.command(context_settings=CONTEXT)
@click.option(
    "--cwd",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="The directory the agent session starts in.",
)
@click.option(
    "--agent", type=click.Choice(["claude", "codex", "gemini"]), default="claude", show_default=True
)
@click.option(
    "--source",
    type=click.Choice(["startup", "resume", "clear", "compact"]),
    default="startup",
    show_default=True,
    help="Why the session starts.",
)
@json_option
@click.pass_context
def resume(ctx: click.Context, cwd: str, agent: str, source: str, as_json: bool) -> None:
    """Preview the resume context a session-start hook would inject, in the agent's format.

    \b
    recallnest resume --cwd ~/code/app --agent codex
    """
    from recallnest.integrations.harness import for_agent

    args = {"cwd": str(Path(cwd).resolve()), "agent": agent, "source": source, "record": False}
    result = call(ctx, "resume", args)
    if as_json:
        emit(result, True, _print_fields)
    else:
        click.echo(for_agent(agent).render(result["text"]), nl=False)


@cli.command(context_settings=CONTEXT)
@click.option("--session", "session_id", help="Session id (default: the latest in --cwd).")
@click.option("--cwd", type=click.Path(file_okay=False), default=".", show_default=True)
@json_option
@click.pass_context
def checkpoint(ctx: click.Context, session_id: str | None, cwd: str, as_json: bool) -> None:
    """Build and store a checkpoint of a session now."""
    args = {"session_id": session_id, "project": project_key(cwd), "reason": "manual"}
    result = call(ctx, "checkpoint", args)
    if result is None:
        raise RecallnestError("nothing worth a checkpoint in that session yet")
    emit(result, as_json, _print_checkpoint)


@cli.group(context_settings=CONTEXT)
def checkpoints() -> None:
    """List and show session checkpoints."""


@checkpoints.command("list", context_settings=CONTEXT)
@click.option("--cwd", type=click.Path(file_okay=False), help="Only this project's.")
@click.option("--limit", "-n", type=click.IntRange(1), default=20, show_default=True)
@json_option
@click.pass_context
def checkpoints_list(ctx: click.Context, cwd: str | None, limit: int, as_json: bool) -> None:
    """Checkpoints, newest first."""
    result = call(ctx, "checkpoints.list", {"project": project_key(cwd), "limit": limit})
    emit(result, as_json, _print_checkpoints)


def _print_checkpoints(items: list[dict[str, Any]]) -> None:
    if not items:
        click.echo("no checkpoints")
    for cp in items:
        click.echo(
            f"{cp['id'][:8]} {cp['created_at'][:16]} {cp['agent']} {cp['project']} "
            f"({cp['reason']}): {one_line(cp['summary'], 80)}"
        )


@checkpoints.command("show", context_settings=CONTEXT)
@click.argument("checkpoint_id")
@json_option
@click.pass_context
def checkpoints_show(ctx: click.Context, checkpoint_id: str, as_json: bool) -> None:
    """Show one checkpoint (full id or a unique prefix)."""
    result = call(ctx, "checkpoints.show", {"id": checkpoint_id})
    if result is None:
        raise RecallnestError(f"no checkpoint with id {checkpoint_id}")
    emit(result, as_json, _print_checkpoint)


def _print_checkpoint(cp: dict[str, Any]) -> None:
    click.echo(f"{cp['id']}  {cp['created_at']}  {cp['agent']}  {cp['project']}  ({cp['reason']})")
    click.echo(f"summary: {cp['summary']}")
    for name in ("decisions", "open_loops", "next_actions", "files", "commands", "entities"):
        if cp.get(name):
            click.echo(f"{name.replace('_', ' ')}:")
            for item in cp[name]:
                click.echo(f"  - {item}")


@eval_group.command("capture", context_settings=CONTEXT)
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=Path("eval/capture/cases.jsonl"),
    show_default=True,
)
@click.option(
    "--split", type=click.Choice(["dev", "test", "all"]), default="all", show_default=True
)
@json_option
def eval_capture(cases_path: Path, split: str, as_json: bool) -> None:
    """Precision and recall of capture on the labelled turns (and the false positives)."""
    from dataclasses import asdict

    from recallnest.evaluation.capture import evaluate, format_report, load_jsonl

    cases = [c for c in load_jsonl(cases_path) if split == "all" or c.get("split") == split]
    report = evaluate(cases)
    emit(asdict(report), as_json, lambda _: click.echo(format_report(split, report)))


@cli.command(context_settings=CONTEXT)
@click.option(
    "--dry-run",
    is_flag=True,
    required=True,
    help="Only show what would be captured (required: capture itself is automatic).",
)
@click.option("--text", help="The turn's text (default: read stdin).")
@click.option("--role", type=click.Choice(["user", "assistant"]), default="user", show_default=True)
@click.option("--previous", help="The turn before it (for corrections).")
@click.option(
    "--cwd",
    type=click.Path(file_okay=False),
    default=".",
    show_default=True,
    help="Project the turn belongs to (for scoping).",
)
@json_option
def capture(
    dry_run: bool, text: str | None, role: str, previous: str | None, cwd: str, as_json: bool
) -> None:
    """Show what the zero-LLM capture rules would keep from a turn.

    \b
    echo "Always use uv, never pip" | recallnest capture --dry-run
    recallnest capture --dry-run --role assistant --text "Fixed: the build failed on port 8443."
    """
    from recallnest.capture.heuristics import capture_turn
    from recallnest.core.models import Turn

    body = text if text is not None else sys.stdin.read()

    def turn(role_: str, text_: str, rid: str) -> Turn:
        return Turn(
            agent="cli",
            session_id="dry-run",
            role=role_,  # type: ignore[arg-type]
            text=text_,
            timestamp=None,
            path="",
            record_id=rid,
            offset=0,
        )

    before = turn("assistant" if role == "user" else "user", previous, "p") if previous else None
    found = capture_turn(turn(role, body, "t"), before, project=project_key(cwd))
    rows = [
        {
            "category": c.category,
            "text": c.text,
            "importance": c.importance,
            "confidence": c.confidence,
            "scope": c.scope,
            "subject": c.subject,
            "rule": c.rule,
        }
        for c in found
    ]
    emit(rows, as_json, _print_captures)


def _print_captures(rows: list[dict[str, Any]]) -> None:
    if not rows:
        click.echo("nothing would be captured")
    for r in rows:
        click.echo(
            f"[{r['category']}, {r['scope']}] {r['text']}  (importance {r['importance']}, "
            f"confidence {r['confidence']}, rule {r['rule']})"
        )


@eval_group.command("continuity", context_settings=CONTEXT)
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(exists=True, path_type=Path),
    default=Path("eval/continuity/cases"),
    show_default=True,
)
@click.option("--show", is_flag=True, help="Print each composed context.")
@json_option
def eval_continuity(cases_path: Path, show: bool, as_json: bool) -> None:
    """Pass rate of the resume-context scenarios (must / must-not contain)."""
    from dataclasses import asdict

    from recallnest.evaluation.continuity import _print_human, evaluate, load_cases

    report, results = evaluate(load_cases(cases_path))
    emit(asdict(report), as_json, lambda _: _print_human(report, results, show))
    if report.passed != report.cases:
        sys.exit(1)

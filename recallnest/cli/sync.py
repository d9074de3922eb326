"""`recallnest sync`: set up sync with a git remote or a shared folder (`init`), see where it
stands (`status`), run a round now (`now`), print the key to copy to another machine (`key`),
name a project alike on every machine (`name`, which re-keys its memories) and unbind a remote
(`remove`). Rounds run in the daemon when it answers, else in this process."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import click

from recallnest.cli._app import CONTEXT, call, cli, emit, json_option, project_key, settings_of
from recallnest.core.errors import RecallnestError


@cli.group(context_settings=CONTEXT)
def sync() -> None:
    """Memory on every machine, through git or a shared folder (encrypted)."""


def _is_folder(remote: str) -> bool:
    path = Path(remote).expanduser()
    return path.is_dir() and not (path / "HEAD").exists() and not (path / ".git").exists()


@sync.command("init", context_settings=CONTEXT)
@click.argument("remote")
@click.option("--name", default=None, help="Name of this remote (default: personal, or team).")
@click.option("--team", is_flag=True, help="A team remote: only the bound projects go there.")
@click.option(
    "--project",
    "projects",
    multiple=True,
    type=click.Path(file_okay=False),
    help="A project bound to the team remote (repeatable).",
)
@click.option(
    "--key",
    "key_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="The key file copied from a machine already syncing with this remote.",
)
@click.option("--folder", is_flag=True, help="REMOTE is a plain shared folder, not git.")
@click.pass_context
def sync_init(
    ctx: click.Context,
    remote: str,
    name: str | None,
    team: bool,
    projects: tuple[str, ...],
    key_file: Path | None,
    folder: bool,
) -> None:
    """Sync memories through REMOTE (a git URL or path, or a shared folder).

    \b
    recallnest sync init git@github.com:me/memories.git
    recallnest sync init ~/Dropbox/recallnest --folder
    recallnest sync init git@git.example.com:team/mem.git --team --project .
    """
    from recallnest.sync.codec import new_key, read_key, write_key
    from recallnest.sync.config import Remote, SyncConfig

    settings = settings_of(ctx)
    if projects and not team:
        raise RecallnestError("--project binds a project to a team remote: add --team")
    if team and not projects:
        raise RecallnestError("a team remote needs at least one --project")
    kind = "folder" if folder or _is_folder(remote) else "git"
    url = str(Path(remote).expanduser().resolve()) if kind == "folder" else remote
    scopes = tuple(str(project_key(p)) for p in projects)
    config = SyncConfig.load(settings.home) or SyncConfig.new()
    remote_name = name or ("team" if team else "personal")
    if any(r.name == remote_name for r in config.remotes):
        raise RecallnestError(f"a remote named {remote_name!r} is set up already")
    key_path = SyncConfig.key_path(settings.home, remote_name)
    key = read_key(key_file) if key_file else new_key()
    write_key(key_path, key)
    config.remotes.append(Remote(remote_name, url, kind, team, scopes))
    config.save(settings.home)
    click.echo(f"sync: {remote_name} -> {url} ({kind}{', team' if team else ''})")
    if key_file is None:
        click.echo(
            f"key: {key_path}\n"
            "Copy that file to your other machines and run `recallnest sync init "
            f"{remote} --key <file>` there. Without it, nothing on the remote can be read."
        )


@sync.command("status", context_settings=CONTEXT)
@json_option
@click.pass_context
def sync_status(ctx: click.Context, as_json: bool) -> None:
    """Where sync stands: last sync, pending changes, errors, rejected lines."""
    emit(call(ctx, "sync.status", {}), as_json, _print_status)


def _print_status(s: dict[str, Any]) -> None:
    if not s.get("configured"):
        click.echo("sync is not set up (recallnest sync init <remote>)")
        return
    click.echo(f"machine {s['machine']} ({s['user']}@{s['host']})")
    for name, r in s["remotes"].items():
        team = f" team {', '.join(r['projects'])}" if r["team"] else ""
        click.echo(f"{name}: {r['url']} ({r['kind']}{team})")
        click.echo(f"  last sync {r['last_sync'] or 'never'}; ahead {r['ahead']} file(s)")
        click.echo(f"  log lines {r['log_lines']}")
        if r["error"]:
            click.echo(f"  error: {r['error']}")
        for line in r["rejected"][-5:]:
            click.echo(f"  rejected: {line}")


@sync.command("now", context_settings=CONTEXT)
@click.option("--remote", "remotes", multiple=True, help="Only this remote (repeatable).")
@json_option
@click.pass_context
def sync_now(ctx: click.Context, remotes: tuple[str, ...], as_json: bool) -> None:
    """Run a sync round now."""
    args: dict[str, Any] = {"remotes": list(remotes)} if remotes else {}
    result = call(ctx, "sync.now", args)
    emit(result, as_json, _print_round)
    if any(r.get("error") for r in result["remotes"].values()):
        ctx.exit(1)


def _print_round(r: dict[str, Any]) -> None:
    click.echo(f"sent {r['exported']} change(s), applied {r['applied']} ({r['seconds']} s)")
    for name, s in r["remotes"].items():
        line = f"{name}: pulled {s['pulled_events']} event(s) from {s['pulled_files']} file(s)"
        click.echo(line + f", pushed {s.get('pushed_files', 0)} file(s)")
        if s.get("error"):
            click.echo(f"  error: {s['error']} (changes kept; retried at the next round)")
        for rejected in s["rejected"]:
            click.echo(f"  rejected: {rejected}")


@sync.command("name", context_settings=CONTEXT)
@click.argument("path", type=click.Path(file_okay=False))
@click.argument("name")
@click.pass_context
def sync_name(ctx: click.Context, path: str, name: str) -> None:
    """Name PATH's project NAME on the remotes (give it the same name on every machine).

    Without a name, a project is known by its git remote URL, else its root commit, else its
    path; a name is for a project whose clones disagree on those (or that is not in git).
    Its memories' ids are made of the name from then on (old ids still resolve)."""
    from recallnest.sync.config import SyncConfig
    from recallnest.sync.identity import portable_of

    settings = settings_of(ctx)
    config = SyncConfig.load(settings.home)
    if config is None:
        raise RecallnestError("sync is not set up: run `recallnest sync init <remote>` first")
    if not name.strip() or any(c in name for c in "\n\r\t"):
        raise RecallnestError("a project name must be one non-empty line")
    scope = str(project_key(path))
    before = portable_of(scope, config.names)
    config.names[scope] = name.strip()
    config.save(settings.home)
    # Its memory ids are made of the name from now on (the same on every machine that names
    # the project alike): re-keyed, old ids kept resolving.
    done = call(ctx, "sync.name", {"scope": scope, "name": name.strip()})
    click.echo(f"{scope}: {before} -> name:{name.strip()} ({done['rekeyed']} memories re-keyed)")


@sync.command("remove", context_settings=CONTEXT)
@click.argument("name")
@json_option
@click.pass_context
def sync_remove(ctx: click.Context, name: str, as_json: bool) -> None:
    """Stop syncing with remote NAME (see `sync status` for names).

    Memories stay on this machine and the remote is left as it is; this machine's log for it,
    its local mirror and its key are deleted (copy the key first with `sync key` if no other
    machine holds it)."""
    emit(call(ctx, "sync.remove", {"name": name}), as_json, _print_removed)


def _print_removed(r: dict[str, Any]) -> None:
    click.echo(f"removed {r['removed']} ({r['url']}); dropped {r['log_lines']} log line(s)")


@sync.command("key", context_settings=CONTEXT)
@click.option("--remote", default="personal", show_default=True)
@click.argument("dest", type=click.Path(dir_okay=False, path_type=Path))
@click.pass_context
def sync_key(ctx: click.Context, remote: str, dest: Path) -> None:
    """Copy a remote's key to DEST (to carry it to another machine)."""
    from recallnest.sync.config import SyncConfig

    source = SyncConfig.key_path(settings_of(ctx).home, remote)
    if not source.exists():
        raise RecallnestError(f"no key for remote {remote!r}")
    shutil.copyfile(source, dest)
    dest.chmod(0o600)
    click.echo(f"{dest} (keep it private: it opens everything on the remote)")

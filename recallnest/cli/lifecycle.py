"""Lifecycle commands (issue 7): consolidate, conflicts, undo, forget (by id, query, project,
session, time range), forgotten, memories find/history/pin/unpin/tier/expire, compact,
maintain.

`register(cli)` adds them to the main group (cli.py calls it at its end, after defining the
shared plumbing this module imports). `forget` here is the only `forget` command: by id
(exit 1 when none exists), query, project, session or time range.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from recallnest.cli._app import CONTEXT, call, emit, json_option, one_line, project_key, scope_key
from recallnest.core.errors import RecallnestError
from recallnest.core.models import CATEGORIES, STATUSES, TIERS

PREVIEW_CHARS = 90

__all__ = ["register"]


# ---- consolidation, conflicts, undo --------------------------------------------------------------


@click.command(context_settings=CONTEXT)
@click.option("--scope", help="`global` or a project path (default: every scope).")
@click.option("--dry-run", is_flag=True, help="Show what would change; change nothing.")
@json_option
@click.pass_context
def consolidate(ctx: click.Context, scope: str | None, dry_run: bool, as_json: bool) -> None:
    """Merge near-duplicate memories and settle contradictions (undo with `recallnest undo`).

    \b
    Profile and preferences: the newer statement supersedes the older one.
    Entities and patterns: contradictions are flagged (`recallnest conflicts list`).
    Events and cases: both are kept, in time order. Pinned and core memories never change.

    \b
    recallnest consolidate --dry-run
    """
    report = call(ctx, "consolidate", {"scope": scope_key(scope), "dry_run": dry_run})
    emit(report, as_json, _print_consolidation)


def _print_consolidation(r: dict[str, Any]) -> None:
    s = r["stats"]
    verb = "would" if r["dry_run"] else "did"
    click.echo(
        f"{s.get('memories', 0)} active memories, {s.get('related_pairs', 0)} related pairs "
        f"({r['similarity']}); {verb}: merge {s.get('merged', 0)}, supersede "
        f"{s.get('superseded', 0)}, flag {s.get('conflicts', 0)}; kept both {s.get('kept_both', 0)}"
        + (f"; cleared {s['relinked']} stale links" if s.get("relinked") else "")
    )
    for c in r["changes"]:
        click.echo(
            f"  {c['action']:<9} {c['kept'][:8]} {one_line(c['kept_text'], 60)}\n"
            f"  {'':<9} {c['other'][:8]} {one_line(c['other_text'], 60)}"
            + (f"  ({c['reason']})" if c["reason"] else "")
        )
    if r.get("skipped"):
        click.echo(f"skipped: {r['skipped']}")
    if r["undo_id"] is not None:
        click.echo(f"undo with: recallnest undo {r['undo_id']}")


@click.group(context_settings=CONTEXT)
def conflicts() -> None:
    """Contradictions consolidation flagged for you to settle."""


@conflicts.command("list", context_settings=CONTEXT)
@click.option("--all", "include_all", is_flag=True, help="Include resolved conflicts.")
@json_option
@click.pass_context
def conflicts_list(ctx: click.Context, include_all: bool, as_json: bool) -> None:
    """Open conflicts: two active memories that disagree (older first)."""
    emit(call(ctx, "conflicts.list", {"all": include_all}), as_json, _print_conflicts)


def _print_conflicts(items: list[dict[str, Any]]) -> None:
    if not items:
        click.echo("no conflicts")
    for c in items:
        state = c["status"] if c["status"] == "open" else f"resolved: {c['resolution']}"
        click.echo(f"#{c['id']} [{c['category']}, {c['scope']}] {c['reason']} ({state})")
        click.echo(f"  older {c['a_id'][:8]} {one_line(c['a_text'])}")
        click.echo(f"  newer {c['b_id'][:8]} {one_line(c['b_text'])}")


@conflicts.command("resolve", context_settings=CONTEXT)
@click.argument("conflict_id", type=int)
@click.option(
    "--keep",
    type=click.Choice(["older", "newer", "both"]),
    required=True,
    help="The memory that stays; the other is superseded by it (`both`: no change).",
)
@json_option
@click.pass_context
def conflicts_resolve(ctx: click.Context, conflict_id: int, keep: str, as_json: bool) -> None:
    """Settle one conflict.

    \b
    recallnest conflicts resolve CONFLICT_ID --keep newer
    """
    result = call(ctx, "conflicts.resolve", {"id": conflict_id, "keep": keep})
    emit(result, as_json, lambda r: click.echo(f"conflict #{r['id']}: kept {r['kept']}"))


@click.command(context_settings=CONTEXT)
@click.argument("undo_id", type=int, required=False)
@click.option(
    "--kind",
    type=click.Choice(["consolidate", "expire", "retier"]),
    help="Undo the last change of this kind (default: the last consolidation).",
)
@click.option("--list", "list_only", is_flag=True, help="List what can be undone.")
@click.option("--force", is_flag=True, help="Restore even if the rows changed since.")
@json_option
@click.pass_context
def undo(
    ctx: click.Context,
    undo_id: int | None,
    kind: str | None,
    list_only: bool,
    force: bool,
    as_json: bool,
) -> None:
    """Restore the memories an automatic change replaced (the last consolidation by default).

    Automatic changes stay undoable for 7 days.

    \b
    recallnest undo            # the last consolidation
    recallnest undo --list
    """
    if list_only:
        emit(call(ctx, "undo.list", {}), as_json, _print_undo_list)
        return
    result = call(ctx, "undo", {"id": undo_id, "kind": kind, "force": force})
    emit(
        result,
        as_json,
        lambda r: click.echo(f"undid {r['kind']} #{r['undo_id']}: restored {_rows(r['restored'])}"),
    )


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def _print_undo_list(items: list[dict[str, Any]]) -> None:
    if not items:
        click.echo("nothing to undo")
    for e in items:
        click.echo(
            f"#{e['id']} {str(e['created_at'])[:19]} {e['kind']}: {e['summary']} "
            f"({e['memories']} memories)"
        )


# ---- forgetting ----------------------------------------------------------------------------------


@click.command(context_settings=CONTEXT)
@click.argument("ids", nargs=-1)
@click.option("--query", help="Memories (any status) holding every keyword of QUERY.")
@click.option("--project", "project_path", help="Memories scoped to this project path.")
@click.option(
    "--session",
    "session_id",
    help="Everything captured from this session (`current`: the latest in --cwd).",
)
@click.option("--cwd", default=".", show_default=True, help="Project for `--session current`.")
@click.option("--since", help="Created at/after (ISO date or age like 7d).")
@click.option("--until", help="Created before (ISO date or age like 7d).")
@click.option("--with-turns", is_flag=True, help="Also delete the conversation turns.")
@click.option("--purge", is_flag=True, help="Compact the file now so no bytes remain.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@json_option
@click.pass_context
def forget(
    ctx: click.Context,
    ids: tuple[str, ...],
    query: str | None,
    project_path: str | None,
    session_id: str | None,
    cwd: str,
    since: str | None,
    until: str | None,
    with_turns: bool,
    purge: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Delete memories (by id, query, project, session or time range) with their index
    entries; an audit log keeps ids and counts, never text.

    \b
    recallnest forget MEMORY_ID
    recallnest forget --query "staging password" --purge
    recallnest forget --session current --with-turns --yes
    recallnest forget --project ~/code/old-app --since 2026-01-01 --with-turns
    """
    args: dict[str, Any] = {
        "ids": list(ids),
        "query": query,
        "project": project_key(project_path),
        "session_id": session_id,
        "cwd_project": project_key(cwd),
        "since": since,
        "until": until,
        "with_turns": with_turns,
        "purge": purge,
    }
    selective = query or project_path or session_id or since or until
    if selective and not yes:
        plan = call(ctx, "forget.plan", args)
        _print_plan(plan, with_turns)
        if not plan["memories"] and not plan["turns"] and not plan["checkpoints"]:
            return
        if not sys.stdin.isatty():  # a prompt nobody can answer would only abort
            raise click.ClickException("not on a terminal, so nothing was forgotten: add --yes")
        click.confirm("forget these?", abort=True, err=True)
    result = call(ctx, "forget.run", args)
    # `forget ID... --json` keeps its original two keys; counts come with the other selectors.
    legacy = not selective and not with_turns and not purge
    shown = {"forgotten": result["forgotten"], "missing": result["missing"]} if legacy else result
    emit(shown, as_json, _print_forgotten)
    if result["missing"] and not result["forgotten"]:
        sys.exit(1)


def _print_plan(plan: dict[str, Any], with_turns: bool) -> None:
    click.echo(
        f"would forget {plan['memories']} memories"
        + (f", trim the evidence of {plan['trimmed']}" if plan["trimmed"] else "")
        + (f", {plan['turns']} turns" if with_turns else "")
        + f", {plan['checkpoints']} checkpoints",
        err=True,
    )
    for m in plan["preview"]:
        click.echo(
            f"  {m['id'][:8]} [{m['category']}, {m['status']}] {one_line(m['text'])}", err=True
        )
    if plan["memories"] > len(plan["preview"]):
        click.echo(f"  … and {plan['memories'] - len(plan['preview'])} more", err=True)


def _print_forgotten(r: dict[str, Any]) -> None:
    counts = r.get("counts")
    if counts is None or not (counts["turns"] or counts["checkpoints"] or counts.get("compaction")):
        line = f"forgot {len(r['forgotten'])}"
    else:
        line = (
            f"forgot {counts['memories']} memories, {counts['turns']} turns, "
            f"{counts['checkpoints']} checkpoints, {counts['tool_uses']} tool calls"
        )
        if counts.get("compaction"):
            after = counts["compaction"]["after"]["file_bytes"]
            line += f"; file compacted to {after / 1e6:.1f} MB"
    if r["missing"]:
        line += f"; not found: {' '.join(r['missing'])}"
    click.echo(line)


@click.command(context_settings=CONTEXT)
@click.option("--limit", "-n", type=click.IntRange(1), default=50, show_default=True)
@json_option
@click.pass_context
def forgotten(ctx: click.Context, limit: int, as_json: bool) -> None:
    """The forgetting audit log: when, which selector, which ids, how many rows."""
    emit(call(ctx, "forget.log", {"limit": limit}), as_json, _print_forget_log)


def _print_forget_log(items: list[dict[str, Any]]) -> None:
    if not items:
        click.echo("nothing forgotten")
    for e in items:
        click.echo(
            f"#{e['id']} {str(e['forgotten_at'])[:19]} {e['selector']}: {e['memories']} "
            f"memories, {e['turns']} turns, {e['checkpoints']} checkpoints"
            + (" (purged)" if e["purged"] else "")
        )


# ---- memories: find, history, pin, tier, expire --------------------------------------------------


@click.command("find", context_settings=CONTEXT)
@click.option("--scope", help="`global` or a project path.")
@click.option("--category", type=click.Choice(CATEGORIES))
@click.option(
    "--status",
    type=click.Choice([*STATUSES, "any"]),
    default="active",
    show_default=True,
)
@click.option("--tier", type=click.Choice(TIERS))
@click.option("--pinned/--unpinned", default=None, help="Only pinned (or unpinned) memories.")
@click.option("--older-than", help="Created before this age (30d) or date.")
@click.option("--newer-than", help="Created within this age (7d) or since this date.")
@click.option("--expired", is_flag=True, help="Only memories past their expiry.")
@click.option(
    "--sort",
    type=click.Choice(["updated", "created", "importance", "accessed", "decay"]),
    default="updated",
    show_default=True,
)
@click.option("--limit", "-n", type=click.IntRange(1), default=50, show_default=True)
@json_option
@click.pass_context
def memories_find(
    ctx: click.Context,
    scope: str | None,
    category: str | None,
    status: str,
    tier: str | None,
    pinned: bool | None,
    older_than: str | None,
    newer_than: str | None,
    expired: bool,
    sort: str,
    limit: int,
    as_json: bool,
) -> None:
    """Find memories by tier, age, status and category, sorted (decay: strongest first).

    \b
    recallnest memories find --tier peripheral --sort decay
    recallnest memories find --status superseded --newer-than 30d
    """
    args = {
        "scope": scope_key(scope),
        "category": category,
        "status": None if status == "any" else status,
        "tier": tier,
        "pinned": pinned,
        "older_than": older_than,
        "newer_than": newer_than,
        "expired": expired,
        "sort": sort,
        "limit": limit,
    }
    emit(call(ctx, "memories.find", args), as_json, _print_found)


def _print_found(items: list[dict[str, Any]]) -> None:
    if not items:
        click.echo("no memories")
    for m in items:
        flags = "pinned " if m["pinned"] else ""
        click.echo(
            f"{m['id'][:8]} [{m['category']}, {m['tier']}, {m['status']}] {flags}"
            f"decay {m['decay']:.2f} {str(m['created_at'] or '')[:10]} {one_line(m['text'], 70)}"
        )


@click.command("history", context_settings=CONTEXT)
@click.argument("memory_id")
@json_option
@click.pass_context
def memories_history(ctx: click.Context, memory_id: str, as_json: bool) -> None:
    """What a memory replaced (merges, older versions) and what replaced it."""
    emit(call(ctx, "memories.history", {"id": memory_id}), as_json, _print_history)


def _print_history(h: dict[str, Any]) -> None:
    m = h["memory"]
    click.echo(f"{m['id']} [{m['category']}, {m['status']}] {one_line(m['text'])}")
    for label, rows in (("replaced by", h["replaced_by"]), ("replaced", h["replaced"])):
        for r in rows:
            click.echo(f"  {label} {r['id'][:8]} [{r['status']}] {one_line(r['text'], 70)}")
    for e in h["events"]:
        other = f" -> {e['other_id'][:8]}" if e["other_id"] else ""
        click.echo(f"  {str(e['at'])[:19]} {e['kind']} {e['memory_id'][:8]}{other}")


def _flags_command(name: str, help_text: str, **fixed: Any) -> click.Command:
    @click.command(name, context_settings=CONTEXT, help=help_text)
    @click.argument("ids", nargs=-1, required=True)
    @json_option
    @click.pass_context
    def command(ctx: click.Context, ids: tuple[str, ...], as_json: bool) -> None:
        result = call(ctx, "memories.flags", {"ids": list(ids), **fixed})
        emit(result, as_json, lambda r: click.echo(f"{name}: {len(r['changed'])} changed"))

    return command


memories_pin = _flags_command(
    "pin", "Pin memories: decay and consolidation never change them.", pinned=True
)
memories_unpin = _flags_command("unpin", "Unpin memories.", pinned=False)


@click.command("approve", context_settings=CONTEXT)
@click.argument("ids", nargs=-1, required=True)
@json_option
@click.pass_context
def memories_approve(ctx: click.Context, ids: tuple[str, ...], as_json: bool) -> None:
    """Approve captures held for review (the `review_captures` setting): they become active
    memories that search and resume use. `memories list --status pending` lists them."""
    result = call(ctx, "memories.approve", {"ids": list(ids)})
    emit(result, as_json, lambda r: click.echo(f"approved: {len(r['approved'])}"))


@click.command("tier", context_settings=CONTEXT)
@click.argument("memory_id")
@click.argument("tier", type=click.Choice(TIERS))
@json_option
@click.pass_context
def memories_tier(ctx: click.Context, memory_id: str, tier: str, as_json: bool) -> None:
    """Set a memory's tier (`core` protects it from decay and consolidation)."""
    result = call(ctx, "memories.flags", {"ids": [memory_id], "tier": tier})
    emit(result, as_json, lambda r: click.echo(f"tier {tier}: {len(r['changed'])} changed"))


@click.command("expire", context_settings=CONTEXT)
@click.argument("memory_id")
@click.argument("when")
@json_option
@click.pass_context
def memories_expire(ctx: click.Context, memory_id: str, when: str, as_json: bool) -> None:
    """Set when a memory expires (ISO date, or from now: 7d, 12h, 2w; `never` clears it).
    Expired memories are archived by maintenance and never shown by resume."""
    args: dict[str, Any] = {"ids": [memory_id]}
    if when == "never":
        args["clear_valid_until"] = True
    else:
        args["valid_until"] = when
    result = call(ctx, "memories.flags", args)
    emit(result, as_json, lambda r: click.echo(f"expiry set: {len(r['changed'])} changed"))


# ---- storage -------------------------------------------------------------------------------------


@click.command(context_settings=CONTEXT)
@click.option("--if-needed", is_flag=True, help="Only when the file exceeds 2x its live data.")
@click.option("--dry-run", is_flag=True, help="Only show file and live sizes.")
@json_option
@click.pass_context
def compact(ctx: click.Context, if_needed: bool, dry_run: bool, as_json: bool) -> None:
    """Rewrite the database file without the space of deleted rows (DuckDB's VACUUM does not
    return it); shows file and live sizes."""
    if dry_run:
        emit(call(ctx, "lifecycle.size", {}), as_json, _print_size)
        return
    emit(call(ctx, "compact", {"if_needed": if_needed}), as_json, _print_compaction)


def _print_size(s: dict[str, Any]) -> None:
    ratio = f"{s['ratio']:.2f}x" if s["ratio"] else "n/a"
    click.echo(
        f"file {s['file_bytes'] / 1e6:.1f} MB, live data ~{s['live_bytes'] / 1e6:.1f} MB ({ratio})"
    )


def _print_compaction(r: dict[str, Any]) -> None:
    _print_size(r["before"])
    if r["compacted"]:
        click.echo(f"compacted in {r['seconds']:.2f} s: ", nl=False)
        _print_size(r["after"])
    else:
        click.echo("not needed")


@click.command(context_settings=CONTEXT)
@click.option("--retention-days", type=click.IntRange(1), help="Drop turns older than this.")
@click.option("--max-turns", type=click.IntRange(1), help="Keep at most this many turns.")
@json_option
@click.pass_context
def maintain(
    ctx: click.Context, retention_days: int | None, max_turns: int | None, as_json: bool
) -> None:
    """Run every maintenance task now (the daemon runs them when idle): expire, re-tier,
    consolidate, turn retention, undo-log pruning, compaction if needed."""
    args = {"retention_days": retention_days, "max_turns": max_turns}
    emit(call(ctx, "maintain", args), as_json, _print_maintenance)


def _print_maintenance(r: dict[str, Any]) -> None:
    c = r["consolidate"]
    click.echo(
        f"reads flushed {r['access_flushed']}; expired {r['expire']['changed']}; re-tiered "
        f"{r['retier']['changed']}; consolidation changes {c['changes']}; turns dropped "
        f"{r['retention']['turns']}; undo entries pruned {r['prune_undo']}; compacted "
        f"{'yes' if r['compact']['compacted'] else 'no'}"
    )


# ---- registration --------------------------------------------------------------------------------


def register(cli: click.Group) -> None:
    """Add the lifecycle commands to the main group (idempotent). `forget` replaces the
    id-only one; the `memories` group gains find, history, pin, unpin, approve, tier and
    expire."""
    for command in (consolidate, conflicts, undo, forget, forgotten, compact, maintain):
        cli.add_command(command)
    memories = cli.commands.get("memories")
    if not isinstance(memories, click.Group):
        raise RecallnestError("the CLI has no `memories` group to extend")
    for command in (
        memories_find,
        memories_history,
        memories_pin,
        memories_unpin,
        memories_approve,
        memories_tier,
        memories_expire,
    ):
        memories.add_command(command)

"""Register recallnest's hooks and MCP server in each agent's user settings, and undo it exactly.

    agent   hooks                                     MCP server (`recallnest mcp`)
    claude  $CLAUDE_CONFIG_DIR/settings.json          ~/.claude.json, top-level `mcpServers`
            (default ~/.claude/settings.json)         ($CLAUDE_CONFIG_DIR/.claude.json if set)
    codex   $CODEX_HOME/hooks.json                    $CODEX_HOME/config.toml,
            (default ~/.codex/hooks.json)             table [mcp_servers.recallnest]
    gemini  $GEMINI_CLI_HOME/.gemini/settings.json    the same settings.json, `mcpServers`
            (default ~/.gemini/settings.json)

Each hook is one group of its own appended to `hooks.<Event>`; the MCP server is one entry
named `recallnest`; nothing else in a file is touched. Appending matters for Codex: its
per-hook trust keys contain the group index, so the user's existing hooks keep their approval.
JSON files are edited in place (`recallnest.integrations.jsonc`): only what we add or remove
changes, the
user's layout and (where the agent allows them: Gemini) comments stay. Codex's config.toml is
edited as text (`recallnest.integrations.install_mcp`), and uninstall also cuts the trust entries
Codex
wrote there for the hooks it removes (`recallnest.integrations.trust`).

Backups and the manifest live in the recallnest home, not beside the user's files:
    <state>/install/manifest.json            per file: existed before?, backup name,
                                             sha256 of the bytes we wrote, directories created
    <state>/install/backups/<agent>-<name>   the bytes just before our first write
`uninstall` restores the backup byte for byte when the file is still exactly what we wrote
(or removes it if it did not exist); if the user changed it since, it removes only our entries
and keeps their edits. Without a manifest it still finds our hooks by their command and our MCP
server by its name and command.

The daemon's user service (systemd / launchd) is installed by `recallnest.integrations.service`.

This module reads no environment: callers pass an `InstallContext` (the home directory, the
agents' folders, the absolute path of the `recallnest` script; `InstallContext.here` builds
the one of this process).
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shlex
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from recallnest.core.errors import ConfigError
from recallnest.integrations import jsonc
from recallnest.integrations import trust as trust_mod
from recallnest.integrations.install_mcp import (
    MCP_SERVER_NAME,
    add_server,
    load_toml,
    mcp_entry,
    remove_server,
    toml_block,
    toml_with_server,
    toml_without_ours,
)
from recallnest.integrations.install_mcp import (  # re-exported: callers know these names from here
    TOML_MARKER as TOML_MARKER,
)
from recallnest.integrations.install_mcp import (
    is_our_server as is_our_server,
)
from recallnest.integrations.install_types import AgentSpec, HookSpec, InstallContext, McpSpec
from recallnest.integrations.trust import CodexHook

Action = Literal["create", "update", "remove", "restore", "unchanged"]
Command = tuple[str, ...]

MANIFEST_VERSION = 1
INSTALL_DIR_NAME = "install"
HOOK_SUBCOMMANDS = ("session-start", "pre-compact", "session-end", "before-agent", "user-prompt")


# Claude Code: SessionEnd hooks share a 1.5 s budget that a settings-file timeout may raise.
# Codex: SessionEnd is capped at 3 s. Gemini CLI: timeouts are MILLISECONDS, and lifecycle
# matchers are exact strings, so "*" (a "startup|resume" matcher would match nothing); there
# is no SessionStart after /compress, hence PreCompress + BeforeAgent. Prompt-time recall runs
# on UserPromptSubmit (Claude Code, Codex) and on the BeforeAgent hook Gemini already has.
SPECS: dict[str, AgentSpec] = {
    "claude": AgentSpec(
        agent="claude",
        settings_name="settings.json",
        hooks=(
            HookSpec("SessionStart", "session-start", 5, "startup|resume|clear|compact"),
            HookSpec("PreCompact", "pre-compact", 5),
            HookSpec("SessionEnd", "session-end", 2),
            HookSpec("UserPromptSubmit", "user-prompt", 2),
        ),
        notes=(
            "Claude Code picks up settings.json changes live; in a new workspace, hooks "
            "run once the workspace-trust dialog is accepted.",
        ),
        # User-scope MCP servers live in ~/.claude.json (`claude mcp add --scope user`), which
        # moves into $CLAUDE_CONFIG_DIR when that is set.
        mcp=McpSpec(
            ".claude.json",
            notes=(
                "Claude Code starts MCP servers when a session starts: restart open sessions; "
                "`claude mcp list` shows recallnest. It asks before each tool call until you "
                'allow them (e.g. "mcp__recallnest" in permissions.allow).',
            ),
            typed=True,
            beside_default_dir=".claude",
        ),
    ),
    "codex": AgentSpec(
        agent="codex",
        settings_name="hooks.json",
        hooks=(
            HookSpec(
                "SessionStart",
                "session-start",
                5,
                "startup|resume|clear|compact",
                "Loading recallnest context",
            ),
            HookSpec("PreCompact", "pre-compact", 5),
            HookSpec("SessionEnd", "session-end", 3),
            HookSpec("UserPromptSubmit", "user-prompt", 2),
        ),
        notes=(
            "Hooks need Codex 0.114 or newer; before about 0.13x enable them with "
            "`[features] hooks = true` in ~/.codex/config.toml.",
        ),
        # Codex passes MCP servers only a short allow-list of environment variables, so the
        # entry carries RECALLNEST_HOME itself (see mcp_entry).
        mcp=McpSpec(
            "config.toml",
            notes=(
                "Codex starts MCP servers when a session starts; `codex mcp list` shows "
                "recallnest.",
            ),
            toml=True,
        ),
    ),
    "gemini": AgentSpec(
        agent="gemini",
        settings_name=".gemini/settings.json",
        hooks=(
            HookSpec("SessionStart", "session-start", 5000, "*"),
            HookSpec("PreCompress", "pre-compact", 5000, "*"),
            HookSpec("SessionEnd", "session-end", 2000, "*"),
            HookSpec("BeforeAgent", "before-agent", 2000, "*"),
        ),
        notes=(
            "Gemini CLI (0.61) loads these hooks, and starts the MCP server, only in folders "
            "you trust; `gemini -p` in an untrusted folder stops unless --skip-trust.",
        ),
        named_handlers=True,
        comments=True,  # read through strip-json-comments (trailing commas are still refused)
        mcp=McpSpec(
            ".gemini/settings.json",
            notes=("Gemini CLI starts MCP servers at launch; `/mcp` lists recallnest's tools.",),
        ),
    ),
}


@dataclass(frozen=True, slots=True)
class Change:
    """One file install/uninstall touched (or would touch, on a dry run)."""

    target: str
    path: Path
    action: Action
    summary: str
    notes: tuple[str, ...] = ()
    commands: tuple[Command, ...] = ()


@dataclass(frozen=True, slots=True)
class Target:
    """One file install writes for an agent, and which of our entries belong in it."""

    agent: str
    path: Path
    hooks: bool
    mcp: bool
    toml: bool = False
    trust: bool = False  # Codex's config.toml: also cut its trust entries for our hooks


@dataclass(frozen=True, slots=True)
class FilePlan:
    """A settings file before and after: `after=None` deletes it."""

    agent: str
    path: Path
    before: bytes | None
    after: bytes | None
    change: Change
    toml: bool = False


@dataclass(frozen=True, slots=True)
class JsonStyle:
    """Formatting of an existing JSON file, kept when we rewrite it."""

    indent: int | str | None = 2
    trailing_newline: bool = True
    ensure_ascii: bool = False


# --- where the settings live -------------------------------------------------------------------


def settings_path(ctx: InstallContext, agent: str) -> Path:
    spec = _spec(agent)
    return ctx.config_dirs[agent] / spec.settings_name


def mcp_path(ctx: InstallContext, agent: str) -> Path | None:
    """The file holding `agent`'s user-level MCP servers (None: the agent has none)."""
    spec = _spec(agent).mcp
    if spec is None:
        return None
    base = ctx.config_dirs[agent]
    if spec.beside_default_dir and base == ctx.home / spec.beside_default_dir:
        base = ctx.home
    return base / spec.settings_name


def targets(
    agent: str, ctx: InstallContext, *, mcp: bool = False, trust: bool = False
) -> list[Target]:
    """The files install touches for `agent`: its hooks file, and (with `mcp`) the file of its
    MCP servers, which is the same file for Gemini CLI. With `trust` (uninstall), Codex's
    config.toml is visited even without `mcp`, for the trust entries of the hooks removed."""
    spec = _spec(agent)
    hooks = Target(agent, settings_path(ctx, agent), hooks=True, mcp=False)
    servers = mcp_path(ctx, agent) if (mcp or trust) else None
    if servers is None or spec.mcp is None:
        return [hooks]
    if servers == hooks.path:
        return [replace(hooks, mcp=mcp)] if mcp else [hooks]
    trusts = trust and agent == "codex"
    if not (mcp or trusts):
        return [hooks]
    return [hooks, Target(agent, servers, hooks=False, mcp=mcp, toml=spec.mcp.toml, trust=trusts)]


def detect_agents(
    config_dirs: Mapping[str, Path], which: Callable[[str], str | None] | None = None
) -> list[str]:
    """Agents whose settings directory exists, or (with `which`) whose CLI is on PATH."""
    return [
        agent
        for agent, spec in SPECS.items()
        if (config_dirs[agent] / spec.settings_name).parent.is_dir()
        or (which is not None and which(agent) is not None)
    ]


def _spec(agent: str) -> AgentSpec:
    try:
        return SPECS[agent]
    except KeyError:
        supported = ", ".join(sorted(SPECS))
        raise ConfigError(f"unknown agent {agent!r}; supported: {supported}") from None


# --- is it registered? (doctor) ----------------------------------------------------------------


def registration(agent: str, ctx: InstallContext) -> tuple[bool, str]:
    """Whether `agent`'s settings hold each of our hooks, in any form install ever wrote (any
    path of the script, any timeout), and whether the script they run still exists."""
    spec = _spec(agent)
    path = settings_path(ctx, agent)
    doc = load_document(path, read_bytes(path), comments=allows_comments(agent, path))
    handlers = {
        hook.event: [h for h in _handlers(doc, hook.event) if is_ours(h, agent, hook.subcommand)]
        for hook in spec.hooks
    }
    missing = [event for event, found in handlers.items() if not found]
    if missing:
        return False, f"{agent}: no recallnest hook for {', '.join(missing)} in {path}"
    scripts = {shlex.split(h["command"])[0] for found in handlers.values() for h in found}
    gone = sorted(s for s in scripts if shutil.which(s) is None)
    if gone:
        return False, f"{agent}: the hooks run {', '.join(gone)}, which is not there any more"
    return True, agent


def _handlers(doc: Mapping[str, Any], event: str) -> list[Any]:
    hooks = doc.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    return [
        handler
        for group in (groups if isinstance(groups, list) else ())
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for handler in group["hooks"]
    ]


# --- hook entries in a settings document (pure) -------------------------------------------------


def hook_command(executable: str, subcommand: str, agent: str) -> str:
    return f"{shlex.quote(executable)} hook {subcommand} --agent {agent}"


def handler(spec: AgentSpec, hook: HookSpec, executable: str) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    if spec.named_handlers:
        entry["name"] = f"recallnest-{hook.subcommand}"
    entry["type"] = "command"
    entry["command"] = hook_command(executable, hook.subcommand, spec.agent)
    entry["timeout"] = hook.timeout
    if hook.status_message:
        entry["statusMessage"] = hook.status_message
    return entry


def group(spec: AgentSpec, hook: HookSpec, executable: str) -> dict[str, Any]:
    entry: dict[str, Any] = {} if hook.matcher is None else {"matcher": hook.matcher}
    entry["hooks"] = [handler(spec, hook, executable)]
    return entry


def add_hooks(doc: dict[str, Any], spec: AgentSpec, executable: str) -> dict[str, Any]:
    """A copy of `doc` with every hook of `spec` present exactly once, in its current form."""
    new = copy.deepcopy(doc)
    for hook in spec.hooks:
        groups = _event_groups(new, hook.event)
        wanted = group(spec, hook, executable)
        if wanted not in groups:
            _drop_ours(groups, spec.agent, hook.subcommand)  # an older form (path, timeout)
            groups.append(wanted)
    return new


def remove_hooks(doc: dict[str, Any], agent: str) -> dict[str, Any]:
    """A copy of `doc` without our hooks; containers we emptied are removed too."""
    new = copy.deepcopy(doc)
    hooks = new.get("hooks")
    if not isinstance(hooks, dict):
        return new
    for event in list(hooks):
        groups = hooks[event]
        if isinstance(groups, list) and _drop_ours(groups, agent) and not groups:
            del hooks[event]
    if not hooks and hooks != doc.get("hooks"):
        del new["hooks"]
    return new


def is_ours(entry: object, agent: str, subcommand: str | None = None) -> bool:
    """Whether a handler runs `recallnest hook <subcommand> --agent <agent>`."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    try:
        words = shlex.split(entry["command"])
    except ValueError:
        return False
    if len(words) < 5 or words[-4] != "hook" or words[-2:] != ["--agent", agent]:
        return False
    wanted = HOOK_SUBCOMMANDS if subcommand is None else (subcommand,)
    runs_us = any(Path(word).name in ("recallnest", "recallnest.exe") for word in words[:-4])
    return words[-3] in wanted and runs_us


def _event_groups(doc: dict[str, Any], event: str) -> list[Any]:
    hooks = doc.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError('"hooks" is not a JSON object; fix the settings file and retry')
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f'"hooks.{event}" is not a JSON list; fix the settings file and retry')
    return groups


def _drop_ours(groups: list[Any], agent: str, subcommand: str | None = None) -> bool:
    """Remove our handlers in place, and groups left empty by that. True if any was removed."""
    removed = False
    for item in list(groups):
        handlers = item.get("hooks") if isinstance(item, dict) else None
        if not isinstance(handlers, list):
            continue
        kept = [entry for entry in handlers if not is_ours(entry, agent, subcommand)]
        if len(kept) == len(handlers):
            continue
        removed = True
        if kept:
            item["hooks"] = kept
        else:
            groups.remove(item)
    return removed


def remove_ours(doc: dict[str, Any], agent: str) -> dict[str, Any]:
    """A copy of `doc` without our hooks and without our MCP server."""
    return remove_server(remove_hooks(doc, agent))


# --- JSON files --------------------------------------------------------------------------------


def load_document(path: Path, raw: bytes | None, *, comments: bool = False) -> dict[str, Any]:
    """The settings document ({} if the file is absent); ConfigError if it is not a JSON object.
    With `comments`, // and /* */ comments are allowed, as the agent itself allows them."""
    if raw is None or not raw.strip():
        return {}
    try:
        doc = jsonc.parse(raw.decode("utf-8"), comments=comments).value
    except jsonc.JsoncError as exc:
        if str(exc).startswith("comments are not allowed"):
            raise ConfigError(
                f"{path} holds a comment ({str(exc).split('(')[-1]}, but its agent reads it as "
                "plain JSON, where comments are not allowed (Claude Code then ignores the whole "
                "file): remove the comment and retry"
            ) from exc
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it, or add the hooks by hand from hooks/"
        ) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it, or add the hooks by hand from hooks/"
        ) from exc
    if not isinstance(doc, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it and retry")
    return doc


def render_document(
    path: Path, before: bytes | None, doc: dict[str, Any], *, comments: bool = False
) -> bytes:
    """`before` changed to hold `doc`, touching only what differs: the user's layout, key
    order and comments stay (see `jsonc.splice`). A new file is written with 2-space indents."""
    if before is None or not before.strip():
        return dump_document(doc, JsonStyle())
    style = detect_style(before)
    try:
        text = jsonc.splice(
            before.decode("utf-8"), doc, comments=comments, ensure_ascii=style.ensure_ascii
        )
    except jsonc.JsoncError as exc:
        raise ConfigError(f"cannot edit {path} safely ({exc}); add our entries by hand") from exc
    return text.encode("utf-8")


def allows_comments(agent: str, path: Path) -> bool:
    """Whether `agent` reads the JSON file at `path` with comments allowed."""
    spec = _spec(agent)
    return spec.comments and path.name == Path(spec.settings_name).name


def detect_style(raw: bytes | None) -> JsonStyle:
    if raw is None or not raw.strip():
        return JsonStyle()
    text = raw.decode("utf-8", "replace")
    match = re.match(r"\s*[{\[]\s*?\n([ \t]+)\S", text)
    indent: int | str | None = None
    if match:
        unit = match.group(1)
        indent = len(unit) if set(unit) == {" "} else unit
    elif "\n" in text.strip() or text.strip() == "{}":
        indent = 2
    return JsonStyle(indent, text.endswith("\n"), text.isascii() and "\\u" in text)


def dump_document(doc: dict[str, Any], style: JsonStyle) -> bytes:
    text = json.dumps(doc, indent=style.indent, ensure_ascii=style.ensure_ascii)
    return (text + ("\n" if style.trailing_newline else "")).encode("utf-8")


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename, keeping the file's permission bits."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o600
    tmp = path.with_name(f".{path.name}.recallnest-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def make_dirs(directory: Path) -> list[str]:
    """Create `directory` and missing parents; return those created, outermost first."""
    missing = [d for d in (directory, *directory.parents) if not d.exists()][::-1]
    for created in missing:
        created.mkdir(mode=0o700)
    return [str(d) for d in missing]


# --- manifest and backups ----------------------------------------------------------------------


def install_dir(state_dir: Path) -> Path:
    return state_dir / INSTALL_DIR_NAME


def load_manifest(state_dir: Path) -> dict[str, Any]:
    path = install_dir(state_dir) / "manifest.json"
    raw = read_bytes(path)
    try:
        manifest = json.loads(raw) if raw else {}
    except ValueError as exc:
        raise ConfigError(f"{path} is corrupt ({exc}); move it away and retry") from exc
    manifest.setdefault("version", MANIFEST_VERSION)
    manifest.setdefault("files", {})
    return manifest


def save_manifest(state_dir: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest, or remove it (and empty folders) once nothing is installed."""
    folder = install_dir(state_dir)
    path = folder / "manifest.json"
    if manifest["files"]:
        make_dirs(folder / "backups")
        write_atomic(path, json.dumps(manifest, indent=2, sort_keys=True).encode() + b"\n")
        return
    path.unlink(missing_ok=True)
    for empty in (folder / "backups", folder):
        if empty.is_dir() and not any(empty.iterdir()):
            empty.rmdir()


def _backup_path(state_dir: Path, record: Mapping[str, Any]) -> Path:
    return install_dir(state_dir) / "backups" / str(record["backup"])


# --- install -----------------------------------------------------------------------------------


def plan_target(target: Target, ctx: InstallContext) -> FilePlan:
    """What installing our entries in one file would change; reads it, writes nothing."""
    spec = _spec(target.agent)
    path = target.path
    before = read_bytes(path)
    if target.toml:
        after, parts = toml_with_server(path, before, toml_block(ctx, spec)), ["mcp"]
    else:
        after, parts = _json_installed(target, spec, ctx, before)
    if after is None:
        change = Change(target.agent, path, "unchanged", "already installed")
        return FilePlan(target.agent, path, before, before, change, target.toml)
    action: Action = "create" if before is None else "update"
    events = ", ".join(hook.event for hook in spec.hooks)
    summary = {"hooks": f"recallnest hooks: {events}", "mcp": f"MCP server {MCP_SERVER_NAME}"}
    notes = {"hooks": spec.notes, "mcp": spec.mcp.notes if spec.mcp else ()}
    change = Change(
        target.agent,
        path,
        action,
        "add " + "; ".join(summary[p] for p in parts),
        tuple(note for p in parts for note in notes[p]),
    )
    return FilePlan(target.agent, path, before, after, change, target.toml)


def _json_installed(
    target: Target, spec: AgentSpec, ctx: InstallContext, before: bytes | None
) -> tuple[bytes | None, list[str]]:
    """The JSON file with our entries (None when already so), and which parts changed."""
    comments = allows_comments(target.agent, target.path)
    doc = load_document(target.path, before, comments=comments)
    new = doc
    parts: list[str] = []
    if target.hooks and (with_hooks := add_hooks(new, spec, ctx.executable)) != new:
        new, parts = with_hooks, [*parts, "hooks"]
    if target.mcp and (with_server := add_server(new, mcp_entry(spec, ctx), target.path)) != new:
        new, parts = with_server, [*parts, "mcp"]
    if not parts:
        return None, parts
    return render_document(target.path, before, new, comments=comments), parts


def install(
    agents: Iterable[str], ctx: InstallContext, *, dry_run: bool = False, mcp: bool = False
) -> list[Change]:
    """Register the hooks of each agent, and with `mcp` its MCP server too. Plans everything
    first, so a broken file stops the whole run before anything is written. Idempotent: a
    second run reports "already installed". One Change per file.
    """
    plans = [
        plan_target(target, ctx) for agent in agents for target in targets(agent, ctx, mcp=mcp)
    ]
    if not dry_run:
        manifest = load_manifest(ctx.state_dir)
        for plan in plans:
            if plan.after is not None and plan.after != plan.before:
                _apply_install(plan, plan.after, ctx, manifest)
        save_manifest(ctx.state_dir, manifest)
    files = {plan.path: plan.after for plan in plans}
    return [_with_trust_note(plan.change, ctx, files) for plan in plans]


def _with_trust_note(
    change: Change, ctx: InstallContext, files: Mapping[Path, bytes | None]
) -> Change:
    if change.path != settings_path(ctx, change.target):
        return change
    try:
        status = trust_status(change.target, ctx, files)
    except ConfigError as exc:  # the files are written by now: report, do not fail
        status = (False, f"cannot tell whether {change.target} will run the hooks: {exc}")
    return change if status is None else replace(change, notes=(*change.notes, status[1]))


def trust_status(
    agent: str, ctx: InstallContext, files: Mapping[Path, bytes | None] | None = None
) -> tuple[bool, str] | None:
    """Will `agent` run our hooks? One line saying so, or how to make it; None when the agent
    has no trust step of its own (Claude Code asks once per workspace, in its own dialog).
    `files` overrides what is on disk (a dry run's planned contents)."""

    def read(path: Path) -> bytes | None:
        return files[path] if files is not None and path in files else read_bytes(path)

    hooks_path = settings_path(ctx, agent)
    if agent == "codex":
        doc = load_document(hooks_path, read(hooks_path))
        ours = trust_mod.codex_hooks(doc, lambda entry: is_ours(entry, "codex"))
        config_path = ctx.config_dirs["codex"] / "config.toml"
        return trust_mod.codex_trust(load_toml(config_path, read(config_path)), hooks_path, ours)
    if agent == "gemini" and ctx.cwd is not None:
        settings = load_document(hooks_path, read(hooks_path), comments=True)
        folders = trust_mod.gemini_trusted_folders_path(hooks_path.parent, ctx.env)
        trusted, why = trust_mod.gemini_folder_trust(ctx.cwd, folders, settings, ctx.env)
        return trust_mod.gemini_trust_line(trusted, why, ctx.cwd)
    return None


def _apply_install(
    plan: FilePlan, after: bytes, ctx: InstallContext, manifest: dict[str, Any]
) -> None:
    key = str(plan.path)
    old = manifest["files"].get(key)
    record = old if _written_by_us(old, plan.before) else _new_record(plan, ctx)
    created = (old or {}).get("created_dirs", []) + make_dirs(plan.path.parent)
    record["created_dirs"] = created
    write_atomic(plan.path, after)
    record["installed_sha256"] = _sha256(after)
    manifest["files"][key] = record


def _written_by_us(record: Mapping[str, Any] | None, current: bytes | None) -> bool:
    """The file is exactly what our last install wrote (its backup still describes it)."""
    return (
        record is not None
        and current is not None
        and (record.get("installed_sha256") == _sha256(current))
    )


def _new_record(plan: FilePlan, ctx: InstallContext) -> dict[str, Any]:
    """Back up the file as it is now, before our first write to it.

    A file that already holds our entries but is not what we wrote (the user edited it after
    an install) has no clean "before" any more: it is backed up for safety but marked not
    restorable, and uninstall then removes our entries surgically.
    """
    record: dict[str, Any] = {"agent": plan.agent, "existed": plan.before is not None}
    record["restorable"] = _without_ours(plan.agent, plan.path, plan.toml, plan.before) is None
    record["backup"] = None
    if plan.before is not None:
        record["backup"] = f"{plan.agent}-{plan.path.name}"
        backup = _backup_path(ctx.state_dir, record)
        make_dirs(backup.parent)
        write_atomic(backup, plan.before)
    return record


# --- uninstall ---------------------------------------------------------------------------------


def plan_removal(target: Target, ctx: InstallContext) -> FilePlan:
    """What removing our entries from one file would change; reads files, writes nothing."""
    agent, path = target.agent, target.path
    before = read_bytes(path)
    record = load_manifest(ctx.state_dir)["files"].get(str(path))
    if before is None:
        change = Change(agent, path, "unchanged", "not installed")
        return FilePlan(agent, path, None, None, change, target.toml)
    restorable = record and record.get("restorable") and _written_by_us(record, before)
    if restorable and (target.hooks or target.mcp):
        return _plan_restore(target, before, record, ctx)
    return _plan_surgical(target, before, record, _trust_hooks(target, ctx))


def _trust_hooks(target: Target, ctx: InstallContext) -> tuple[CodexHook, ...]:
    """Our hooks as Codex keys them in its trust entries (read from hooks.json as it is now)."""
    if not target.trust:
        return ()
    hooks_path = settings_path(ctx, "codex")
    doc = load_document(hooks_path, read_bytes(hooks_path))
    return tuple(trust_mod.codex_hooks(doc, lambda entry: is_ours(entry, "codex")))


def _plan_restore(
    target: Target, before: bytes, record: Mapping[str, Any], ctx: InstallContext
) -> FilePlan:
    agent, path = target.agent, target.path
    if not record["existed"]:
        change = Change(agent, path, "remove", "remove the file install created")
        return FilePlan(agent, path, before, None, change, target.toml)
    backup = read_bytes(_backup_path(ctx.state_dir, record))
    if backup is None:
        return _plan_surgical(target, before, record, _trust_hooks(target, ctx))
    change = Change(agent, path, "restore", "restore the file exactly as it was before install")
    return FilePlan(agent, path, before, backup, change, target.toml)


def _plan_surgical(
    target: Target,
    before: bytes,
    record: Mapping[str, Any] | None,
    trust: tuple[CodexHook, ...] = (),
) -> FilePlan:
    agent, path, toml = target.agent, target.path, target.toml
    after = _without_ours(agent, path, toml, before, server=target.mcp or not toml, trust=trust)
    if after is None:
        change = Change(agent, path, "unchanged", "not installed")
        return FilePlan(agent, path, before, before, change, toml)
    empty = (
        not after.strip()
        if toml
        else not load_document(path, after, comments=allows_comments(agent, path))
    )
    if empty and record is not None and not record["existed"]:
        change = Change(agent, path, "remove", "remove the file install created")
        return FilePlan(agent, path, before, None, change, toml)
    change = Change(agent, path, "update", "remove recallnest's entries; your later edits are kept")
    return FilePlan(agent, path, before, after, change, toml)


def _without_ours(
    agent: str,
    path: Path,
    toml: bool,
    raw: bytes | None,
    *,
    server: bool = True,
    trust: tuple[CodexHook, ...] = (),
) -> bytes | None:
    """`raw` without our hooks and MCP server (and, in Codex's config.toml, the trust entries of
    `trust`); None when it holds none of them."""
    if raw is None:
        return None
    if toml:
        return toml_without_ours(path, raw, server=server, trust=trust)
    comments = allows_comments(agent, path)
    doc = load_document(path, raw, comments=comments)
    new = remove_ours(doc, agent)
    return None if new == doc else render_document(path, raw, new, comments=comments)


def uninstall(
    agents: Iterable[str], ctx: InstallContext, *, dry_run: bool = False, mcp: bool = False
) -> list[Change]:
    """Remove what install wrote, restoring each file to its prior bytes when possible. Every
    file visited loses all our entries; `mcp` also visits the files that hold only our MCP
    server (Claude Code's ~/.claude.json, Codex's config.toml)."""
    visits = [t for agent in agents for t in targets(agent, ctx, mcp=mcp, trust=True)]
    plans = [(target, _plan_removal_or_note(target, ctx)) for target in visits]
    # A config.toml visited only for trust entries is reported (and touched) only if it held any.
    plans = [(t, p) for t, p in plans if t.hooks or t.mcp or p.change.summary != "not installed"]
    if not dry_run:
        manifest = load_manifest(ctx.state_dir)
        for target, plan in plans:
            if target.hooks or target.mcp:
                _apply_uninstall(plan, ctx, manifest)
            elif plan.after is not None:  # trust entries only: our MCP record stays as it is
                write_atomic(plan.path, plan.after)
        save_manifest(ctx.state_dir, manifest)
    return [plan.change for _, plan in plans]


def _plan_removal_or_note(target: Target, ctx: InstallContext) -> FilePlan:
    """`plan_removal`; for a config.toml visited only for trust entries, a file we cannot read
    does not stop the hooks from being removed: it is left alone, with the reason."""
    try:
        return plan_removal(target, ctx)
    except ConfigError as exc:
        if target.hooks or target.mcp:
            raise
        before = read_bytes(target.path)
        change = Change(target.agent, target.path, "unchanged", f"trust entries left: {exc}")
        return FilePlan(target.agent, target.path, before, before, change, target.toml)


def _apply_uninstall(plan: FilePlan, ctx: InstallContext, manifest: dict[str, Any]) -> None:
    record = manifest["files"].pop(str(plan.path), None)
    if plan.after is None and plan.before is not None:
        plan.path.unlink()
    elif plan.after != plan.before and plan.after is not None:
        write_atomic(plan.path, plan.after)
    if record is None:
        return
    if record.get("backup"):
        _backup_path(ctx.state_dir, record).unlink(missing_ok=True)
    for created in reversed(record.get("created_dirs", [])):
        if Path(created).is_dir() and not any(Path(created).iterdir()):
            Path(created).rmdir()

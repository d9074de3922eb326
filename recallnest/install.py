"""Register recallnest's hooks in each agent's user settings, and undo it exactly.

    claude  $CLAUDE_CONFIG_DIR/settings.json          (default ~/.claude/settings.json)
    codex   $CODEX_HOME/hooks.json                    (default ~/.codex/hooks.json)
    gemini  $GEMINI_CLI_HOME/.gemini/settings.json    (default ~/.gemini/settings.json)

Each hook is one group of its own appended to `hooks.<Event>`; nothing else in the file is
touched. Appending matters for Codex: its per-hook trust keys contain the group index, so the
user's existing hooks keep their approval.

Backups and the manifest live in the recallnest home, not beside the user's files:
    <state>/install/manifest.json            per settings file: existed before?, backup name,
                                             sha256 of the bytes we wrote, directories created
    <state>/install/backups/<agent>-<name>   the bytes just before our first write
`uninstall` restores the backup byte for byte when the file is still exactly what we wrote
(or removes it if it did not exist); if the user changed it since, it removes only our hook
groups and keeps their edits. Without a manifest it still finds our hooks by their command.

The daemon's user service (systemd / launchd) is installed by `recallnest.service`.

This module reads no environment: callers pass the home directory, an env mapping for
`resolve_config_dirs`, and the absolute path of the `recallnest` script.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from recallnest.errors import ConfigError

Action = Literal["create", "update", "remove", "restore", "unchanged"]
Command = tuple[str, ...]

MANIFEST_VERSION = 1
INSTALL_DIR_NAME = "install"
HOOK_SUBCOMMANDS = ("session-start", "pre-compact", "session-end", "before-agent")


@dataclass(frozen=True, slots=True)
class HookSpec:
    """One hook registration: agent event, `recallnest hook <subcommand>`, timeout.

    `timeout` is in the agent's unit: seconds for Claude Code and Codex, milliseconds for
    Gemini CLI. Our hook finishes in well under a second; the timeout only caps a pathology.
    """

    event: str
    subcommand: str
    timeout: int
    matcher: str | None = None
    status_message: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """What recallnest registers for one agent, and where.

    `hooks` is the list of entries. MCP server registration (a later issue) will add a second
    kind of entry here, applied by the same plan/apply/uninstall path.
    """

    agent: str
    settings_name: str
    hooks: tuple[HookSpec, ...]
    notes: tuple[str, ...] = ()
    named_handlers: bool = False


# Claude Code: SessionEnd hooks share a 1.5 s budget that a settings-file timeout may raise.
# Codex: SessionEnd is capped at 3 s. Gemini CLI: timeouts are MILLISECONDS, and lifecycle
# matchers are exact strings, so "*" (a "startup|resume" matcher would match nothing); there
# is no SessionStart after /compress, hence PreCompress + BeforeAgent.
SPECS: dict[str, AgentSpec] = {
    "claude": AgentSpec(
        agent="claude",
        settings_name="settings.json",
        hooks=(
            HookSpec("SessionStart", "session-start", 5, "startup|resume|clear|compact"),
            HookSpec("PreCompact", "pre-compact", 5),
            HookSpec("SessionEnd", "session-end", 2),
        ),
        notes=(
            "Claude Code picks up settings.json changes live; in a new workspace, hooks "
            "run once the workspace-trust dialog is accepted.",
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
        ),
        notes=(
            "Codex runs a new or changed hook only after you approve it: start Codex, open "
            "/hooks (or answer the 'Hooks need review' prompt) and trust the recallnest hooks. "
            "`codex exec` has no review screen, so approve them once interactively.",
            "Hooks need Codex 0.114 or newer; before about 0.13x enable them with "
            "`[features] hooks = true` in ~/.codex/config.toml.",
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
            "Gemini CLI runs user-level hooks without approval (v0.27+), unless "
            "hooksConfig.enabled is false in its settings.",
        ),
        named_handlers=True,
    ),
}


@dataclass(frozen=True, slots=True)
class InstallContext:
    """Everything install needs, passed in explicitly (tests point it all at tmp_path).

    `config_dirs` maps agent -> the directory its settings path is relative to (see
    `resolve_config_dirs`); `executable` is the absolute path of the `recallnest` console
    script when it can be resolved, so hooks work without the venv on PATH.
    """

    home: Path
    state_dir: Path
    config_dirs: Mapping[str, Path]
    executable: str = "recallnest"


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
class FilePlan:
    """A settings file before and after: `after=None` deletes it."""

    agent: str
    path: Path
    before: bytes | None
    after: bytes | None
    change: Change


@dataclass(frozen=True, slots=True)
class JsonStyle:
    """Formatting of an existing JSON file, kept when we rewrite it."""

    indent: int | str | None = 2
    trailing_newline: bool = True
    ensure_ascii: bool = False


# --- where the settings live -------------------------------------------------------------------


def resolve_config_dirs(home: Path, env: Mapping[str, str]) -> dict[str, Path]:
    """Per agent, the directory its settings path is relative to, honouring each CLI's override."""
    return {
        "claude": Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude"),
        "codex": Path(env.get("CODEX_HOME") or home / ".codex"),
        "gemini": Path(env.get("GEMINI_CLI_HOME") or home),
    }


def settings_path(ctx: InstallContext, agent: str) -> Path:
    spec = _spec(agent)
    return ctx.config_dirs[agent] / spec.settings_name


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


# --- JSON files --------------------------------------------------------------------------------


def load_document(path: Path, raw: bytes | None) -> dict[str, Any]:
    """The settings document ({} if the file is absent); ConfigError if it is not a JSON object."""
    if raw is None or not raw.strip():
        return {}
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise ConfigError(
            f"{path} is not valid JSON ({exc}); fix it, or add the hooks by hand from hooks/"
        ) from exc
    if not isinstance(doc, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it and retry")
    return doc


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


def plan_install(agent: str, ctx: InstallContext) -> FilePlan:
    """What installing `agent`'s hooks would change; reads the file, writes nothing."""
    spec = _spec(agent)
    path = settings_path(ctx, agent)
    before = read_bytes(path)
    doc = load_document(path, before)
    new = add_hooks(doc, spec, ctx.executable)
    if new == doc:
        return FilePlan(
            agent, path, before, before, Change(agent, path, "unchanged", "already installed")
        )
    after = dump_document(new, detect_style(before))
    action: Action = "create" if before is None else "update"
    events = ", ".join(hook.event for hook in spec.hooks)
    change = Change(agent, path, action, f"add recallnest hooks: {events}", spec.notes)
    return FilePlan(agent, path, before, after, change)


def install(agents: Iterable[str], ctx: InstallContext, *, dry_run: bool = False) -> list[Change]:
    """Register the hooks of each agent. Plans everything first, so a broken file stops the
    whole run before anything is written. Idempotent: a second run reports "already installed".
    """
    plans = [plan_install(agent, ctx) for agent in agents]
    if not dry_run:
        manifest = load_manifest(ctx.state_dir)
        for plan in plans:
            if plan.after is not None and plan.after != plan.before:
                _apply_install(plan, plan.after, ctx, manifest)
        save_manifest(ctx.state_dir, manifest)
    return [plan.change for plan in plans]


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

    A file that already holds our hooks but is not what we wrote (the user edited it after an
    install) has no clean "before" any more: it is backed up for safety but marked not
    restorable, and uninstall then removes our hooks surgically.
    """
    doc = load_document(plan.path, plan.before)
    record: dict[str, Any] = {"agent": plan.agent, "existed": plan.before is not None}
    record["restorable"] = remove_hooks(doc, plan.agent) == doc
    record["backup"] = None
    if plan.before is not None:
        record["backup"] = f"{plan.agent}-{plan.path.name}"
        backup = _backup_path(ctx.state_dir, record)
        make_dirs(backup.parent)
        write_atomic(backup, plan.before)
    return record


# --- uninstall ---------------------------------------------------------------------------------


def plan_uninstall(agent: str, ctx: InstallContext) -> FilePlan:
    """What uninstalling `agent`'s hooks would change; reads files, writes nothing."""
    path = settings_path(ctx, agent)
    before = read_bytes(path)
    record = load_manifest(ctx.state_dir)["files"].get(str(path))
    if before is None:
        return FilePlan(agent, path, None, None, Change(agent, path, "unchanged", "not installed"))
    if record and record.get("restorable") and _written_by_us(record, before):
        return _plan_restore(agent, path, before, record, ctx)
    return _plan_surgical(agent, path, before, record)


def _plan_restore(
    agent: str, path: Path, before: bytes, record: Mapping[str, Any], ctx: InstallContext
) -> FilePlan:
    if not record["existed"]:
        change = Change(agent, path, "remove", "remove the file install created")
        return FilePlan(agent, path, before, None, change)
    backup = read_bytes(_backup_path(ctx.state_dir, record))
    if backup is None:
        return _plan_surgical(agent, path, before, record)
    change = Change(agent, path, "restore", "restore the file exactly as it was before install")
    return FilePlan(agent, path, before, backup, change)


def _plan_surgical(
    agent: str, path: Path, before: bytes, record: Mapping[str, Any] | None
) -> FilePlan:
    doc = load_document(path, before)
    new = remove_hooks(doc, agent)
    if new == doc:
        return FilePlan(
            agent, path, before, before, Change(agent, path, "unchanged", "not installed")
        )
    if not new and record is not None and not record["existed"]:
        return FilePlan(
            agent,
            path,
            before,
            None,
            Change(agent, path, "remove", "remove the file install created"),
        )
    after = dump_document(new, detect_style(before))
    summary = "remove recallnest hooks; your later edits are kept"
    return FilePlan(agent, path, before, after, Change(agent, path, "update", summary))


def uninstall(agents: Iterable[str], ctx: InstallContext, *, dry_run: bool = False) -> list[Change]:
    """Remove the hooks of each agent, restoring each file to its prior bytes when possible."""
    plans = [plan_uninstall(agent, ctx) for agent in agents]
    if not dry_run:
        manifest = load_manifest(ctx.state_dir)
        for plan in plans:
            _apply_uninstall(plan, ctx, manifest)
        save_manifest(ctx.state_dir, manifest)
    return [plan.change for plan in plans]


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

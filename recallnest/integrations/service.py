"""The recallnest daemon as a user service: a systemd user unit (Linux) or a launchd agent
(macOS) running `recallnest daemon run` at login, with RECALLNEST_HOME pinned.

Writing the file is this module's job; activating it is not. Each function returns the
`systemctl --user` / `launchctl` commands to run and runs them only through an injected
`run_command` (the CLI passes a subprocess runner unless --dry-run; tests pass a recorder).
Reads no environment: the caller passes the platform, uid and an `InstallContext`.
"""

from __future__ import annotations

import plistlib
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from recallnest.core.errors import ConfigError
from recallnest.integrations.install import (
    Action,
    Change,
    Command,
    make_dirs,
    read_bytes,
    write_atomic,
)
from recallnest.integrations.install_types import InstallContext

RunCommand = Callable[[Sequence[str]], int]

SYSTEMD_UNIT = "recallnest.integrations.service"
LAUNCHD_LABEL = "dev.recallnest.daemon"


@dataclass(frozen=True, slots=True)
class ServicePlan:
    """A service definition file and the commands that (de)activate it."""

    path: Path
    content: bytes
    enable: tuple[Command, ...]
    restart: tuple[Command, ...]
    disable: tuple[Command, ...]
    after_remove: tuple[Command, ...] = ()


def plan_service(ctx: InstallContext, platform: str, uid: int) -> ServicePlan:
    """The systemd user unit (Linux) or launchd agent (macOS) running `recallnest daemon run`."""
    if not Path(ctx.executable).is_absolute():
        raise ConfigError(
            f"the service needs the absolute path of the recallnest script; got {ctx.executable!r}"
        )
    if platform.startswith("linux"):
        return _systemd_plan(ctx)
    if platform == "darwin":
        return _launchd_plan(ctx, uid)
    raise ConfigError(
        f"no user service support on {platform!r}; run `recallnest daemon run` "
        "from your own service manager"
    )


def _systemd_plan(ctx: InstallContext) -> ServicePlan:
    systemctl = ("systemctl", "--user")
    return ServicePlan(
        path=ctx.home / ".config" / "systemd" / "user" / SYSTEMD_UNIT,
        content=systemd_unit(ctx).encode(),
        enable=((*systemctl, "daemon-reload"), (*systemctl, "enable", "--now", SYSTEMD_UNIT)),
        restart=(
            (*systemctl, "daemon-reload"),
            (*systemctl, "enable", SYSTEMD_UNIT),
            (*systemctl, "restart", SYSTEMD_UNIT),
        ),
        disable=((*systemctl, "disable", "--now", SYSTEMD_UNIT),),
        after_remove=((*systemctl, "daemon-reload"),),
    )


def systemd_unit(ctx: InstallContext) -> str:
    exec_start = f"{_systemd_quote(ctx.executable, in_exec=True)} daemon run"
    environment = _systemd_quote(f"RECALLNEST_HOME={ctx.state_dir}", in_exec=False)
    return (
        "# Written by `recallnest install --service`; removed by `uninstall --service`.\n"
        "[Unit]\n"
        "Description=recallnest memory daemon for coding agents\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={exec_start}\n"
        f"Environment={environment}\n"
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def _systemd_quote(value: str, in_exec: bool) -> str:
    """Double-quote for systemd: escape \\ and ", double % (specifiers) and, in Exec*, $."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    return '"' + (escaped.replace("$", "$$") if in_exec else escaped) + '"'


def _launchd_plan(ctx: InstallContext, uid: int) -> ServicePlan:
    path = ctx.home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    domain = f"gui/{uid}"
    return ServicePlan(
        path=path,
        content=launchd_plist(ctx),
        enable=(("launchctl", "bootstrap", domain, str(path)),),
        restart=(
            ("launchctl", "bootout", f"{domain}/{LAUNCHD_LABEL}"),
            ("launchctl", "bootstrap", domain, str(path)),
        ),
        disable=(("launchctl", "bootout", f"{domain}/{LAUNCHD_LABEL}"),),
    )


def launchd_plist(ctx: InstallContext) -> bytes:
    logs = ctx.state_dir / "logs"
    return plistlib.dumps(
        {
            "Label": LAUNCHD_LABEL,
            "ProgramArguments": [ctx.executable, "daemon", "run"],
            "EnvironmentVariables": {"RECALLNEST_HOME": str(ctx.state_dir)},
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},
            "ProcessType": "Background",
            "StandardOutPath": str(logs / "daemon.out.log"),
            "StandardErrorPath": str(logs / "daemon.err.log"),
        }
    )


def install_service(
    ctx: InstallContext,
    platform: str,
    uid: int,
    *,
    dry_run: bool = False,
    run_command: RunCommand | None = None,
) -> Change:
    """Write the service file and return the commands that enable it.

    The commands run only if `run_command` is given and this is not a dry run (the CLI passes
    a subprocess runner; tests pass a recorder). Non-zero exits are reported in `notes`.
    """
    plan = plan_service(ctx, platform, uid)
    before = read_bytes(plan.path)
    if before == plan.content:
        return Change("service", plan.path, "unchanged", "already installed")
    commands = plan.enable if before is None else plan.restart
    action: Action = "create" if before is None else "update"
    change = Change(
        "service", plan.path, action, "run `recallnest daemon run` at login", commands=commands
    )
    if dry_run:
        return change
    make_dirs(plan.path.parent)
    write_atomic(plan.path, plan.content)
    return _with_results(change, _run_all(commands, run_command))


def uninstall_service(
    ctx: InstallContext,
    platform: str,
    uid: int,
    *,
    dry_run: bool = False,
    run_command: RunCommand | None = None,
) -> Change:
    """Stop and disable the service, then remove its file."""
    plan = plan_service(ctx, platform, uid)
    if not plan.path.exists():
        return Change("service", plan.path, "unchanged", "not installed")
    commands = plan.disable + plan.after_remove
    change = Change(
        "service", plan.path, "remove", "stop the daemon service and remove it", commands=commands
    )
    if dry_run:
        return change
    results = _run_all(plan.disable, run_command)
    plan.path.unlink()
    return _with_results(change, results + _run_all(plan.after_remove, run_command))


def _run_all(commands: Sequence[Command], run_command: RunCommand | None) -> list[str]:
    if run_command is None:
        return []
    failures = []
    for command in commands:
        code = run_command(command)
        if code != 0:
            failures.append(f"`{shlex.join(command)}` exited {code}")
    return failures


def _with_results(change: Change, failures: list[str]) -> Change:
    if not failures:
        return change
    return Change(
        change.target,
        change.path,
        change.action,
        change.summary,
        (*change.notes, *failures),
        change.commands,
    )

"""The installer: hooks in each agent's user settings, exact uninstall, the daemon service.

Hermetic: a fake HOME under tmp_path with pre-existing settings for all three CLIs (other
hooks, other keys, MCP servers, each in its own formatting); nothing reads the real home.
"""

from __future__ import annotations

import json
import plistlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.install import config_dirs
from support.paths import ROOT

from recallnest.core.errors import ConfigError
from recallnest.core.models import AGENTS
from recallnest.integrations import install as inst
from recallnest.integrations import service

EXE = "/opt/recallnest/venv/bin/recallnest"

CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(git status)"]},
    "env": {"GREETING": "héllo"},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
        ],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ]
    },
    "model": "opus"
}
"""

CODEX_HOOKS = """{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [{"type": "command", "command": "~/bin/codex-greet", "timeout": 10}]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  }
}"""

GEMINI_SETTINGS = """{
\t"general": {"vimMode": true},
\t"mcpServers": {"files": {"command": "npx", "args": ["-y", "@mcp/files"]}},
\t"hooksConfig": {"enabled": true},
\t"hooks": {
\t\t"SessionStart": [
\t\t\t{"matcher": "*", "hooks": [{"name": "mine", "type": "command", "command": "x"}]}
\t\t]
\t}
}
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    files = {
        ".claude/settings.json": CLAUDE_SETTINGS,
        ".codex/hooks.json": CODEX_HOOKS,
        ".gemini/settings.json": GEMINI_SETTINGS,
    }
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True)
        (home / name).write_text(text, encoding="utf-8")
    return home


@pytest.fixture
def ctx(home: Path, tmp_path: Path) -> inst.InstallContext:
    dirs = config_dirs(home, {})
    return inst.InstallContext(home, tmp_path / "state", dirs, EXE)


def settings(ctx: inst.InstallContext) -> dict[str, Path]:
    return {agent: inst.settings_path(ctx, agent) for agent in AGENTS}


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


def ours(path: Path, agent: str) -> list[tuple[str, dict[str, Any]]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return [
        (event, entry)
        for event, groups in doc.get("hooks", {}).items()
        for group in groups
        for entry in group["hooks"]
        if inst.is_ours(entry, agent)
    ]


# --- install / uninstall round trips ---------------------------------------------------------


def test_install_then_uninstall_restores_every_file_byte_for_byte(
    ctx: inst.InstallContext, home: Path
) -> None:
    before = snapshot(home)
    changes = inst.install(AGENTS, ctx)
    assert [c.action for c in changes] == ["update", "update", "update"]
    for agent, path in settings(ctx).items():
        assert len(ours(path, agent)) == len(inst.SPECS[agent].hooks)

    changes = inst.uninstall(AGENTS, ctx)
    assert [c.action for c in changes] == ["restore", "restore", "restore"]
    assert snapshot(home) == before
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_install_keeps_every_other_key_and_hook_in_place(ctx: inst.InstallContext) -> None:
    originals = {a: json.loads(p.read_text()) for a, p in settings(ctx).items()}
    inst.install(AGENTS, ctx)
    for agent, path in settings(ctx).items():
        doc = json.loads(path.read_text())
        assert inst.remove_hooks(doc, agent) == originals[agent]
        for event, groups in originals[agent]["hooks"].items():
            # Existing groups keep their index: Codex trust keys contain it.
            assert doc["hooks"][event][: len(groups)] == groups


def test_install_keeps_the_files_formatting(ctx: inst.InstallContext) -> None:
    inst.install(AGENTS, ctx)
    paths = settings(ctx)
    assert paths["claude"].read_text().startswith('{\n    "permissions"')
    assert '"héllo"' in paths["claude"].read_text(encoding="utf-8")
    assert not paths["codex"].read_text().endswith("\n")
    assert paths["codex"].read_text().startswith('{\n  "hooks"')
    assert paths["gemini"].read_text().startswith('{\n\t"general"')


def test_install_twice_is_identical_to_once(ctx: inst.InstallContext, tmp_path: Path) -> None:
    inst.install(AGENTS, ctx)
    once = snapshot(tmp_path)
    changes = inst.install(AGENTS, ctx)
    assert snapshot(tmp_path) == once
    assert {(c.action, c.summary) for c in changes} == {("unchanged", "already installed")}


def test_dry_run_writes_nothing(ctx: inst.InstallContext, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    changes = inst.install(AGENTS, ctx, dry_run=True)
    assert [c.action for c in changes] == ["update", "update", "update"]
    assert snapshot(tmp_path) == before

    inst.install(AGENTS, ctx)
    installed = snapshot(tmp_path)
    changes = inst.uninstall(AGENTS, ctx, dry_run=True)
    assert [c.action for c in changes] == ["restore", "restore", "restore"]
    assert snapshot(tmp_path) == installed


def test_missing_settings_files_are_created_then_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    before = snapshot(home)

    changes = inst.install(AGENTS, ctx)
    assert [c.action for c in changes] == ["create", "create", "create"]
    assert all(path.is_file() for path in settings(ctx).values())

    changes = inst.uninstall(AGENTS, ctx)
    assert [c.action for c in changes] == ["remove", "remove", "remove"]
    assert snapshot(home) == before  # .claude kept; .codex and .gemini were ours, removed
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_created_file_with_later_user_keys_is_kept_on_uninstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    inst.install(["claude"], ctx)
    path = inst.settings_path(ctx, "claude")
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({"model": "sonnet", **doc}, indent=2))

    assert inst.uninstall(["claude"], ctx)[0].action == "update"
    assert json.loads(path.read_text()) == {"model": "sonnet"}


def test_uninstall_keeps_edits_made_after_install(ctx: inst.InstallContext) -> None:
    originals = {a: json.loads(p.read_text()) for a, p in settings(ctx).items()}
    inst.install(AGENTS, ctx)
    for path in settings(ctx).values():
        doc = json.loads(path.read_text())
        doc["theme"] = "dark"
        doc["hooks"].setdefault("Stop", []).append({"hooks": [{"type": "command", "command": "y"}]})
        path.write_text(json.dumps(doc, indent=2))

    changes = inst.uninstall(AGENTS, ctx)
    assert {c.action for c in changes} == {"update"}
    for agent, path in settings(ctx).items():
        doc = json.loads(path.read_text())
        assert ours(path, agent) == []
        assert doc["theme"] == "dark"
        assert doc["hooks"]["Stop"][-1] == {"hooks": [{"type": "command", "command": "y"}]}
        for key, value in originals[agent].items():
            if key != "hooks":
                assert doc[key] == value
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_uninstall_without_a_manifest_still_finds_our_hooks(ctx: inst.InstallContext) -> None:
    originals = {a: json.loads(p.read_text()) for a, p in settings(ctx).items()}
    inst.install(AGENTS, ctx)
    for path in (ctx.state_dir / inst.INSTALL_DIR_NAME).rglob("*"):
        if path.is_file():
            path.unlink()

    inst.uninstall(AGENTS, ctx)
    for agent, path in settings(ctx).items():
        assert json.loads(path.read_text()) == originals[agent]


def test_reinstall_with_a_moved_executable_replaces_our_hooks(
    ctx: inst.InstallContext, home: Path
) -> None:
    before = snapshot(home)
    inst.install(AGENTS, ctx)
    moved = inst.InstallContext(ctx.home, ctx.state_dir, ctx.config_dirs, "/new/bin/recallnest")
    assert {c.action for c in inst.install(AGENTS, moved)} == {"update"}
    for agent, path in settings(ctx).items():
        commands = [entry["command"] for _, entry in ours(path, agent)]
        assert len(commands) == len(inst.SPECS[agent].hooks)
        assert all(command.startswith("/new/bin/recallnest hook ") for command in commands)

    inst.uninstall(AGENTS, moved)
    assert snapshot(home) == before


def test_reinstall_after_the_user_removed_a_hook_is_still_undone_cleanly(
    ctx: inst.InstallContext,
) -> None:
    original = json.loads(settings(ctx)["claude"].read_text())
    inst.install(["claude"], ctx)
    path = settings(ctx)["claude"]
    doc = json.loads(path.read_text())
    doc["hooks"]["SessionEnd"] = []
    doc["statusLine"] = {"type": "command", "command": "status"}
    path.write_text(json.dumps(doc, indent=4) + "\n")

    assert inst.install(["claude"], ctx)[0].action == "update"
    assert len(ours(path, "claude")) == len(inst.SPECS["claude"].hooks)
    inst.uninstall(["claude"], ctx)
    doc = json.loads(path.read_text())
    assert ours(path, "claude") == []
    assert doc == {**original, "statusLine": {"type": "command", "command": "status"}}


def test_user_deleting_the_file_after_install_is_fine(ctx: inst.InstallContext) -> None:
    inst.install(["codex"], ctx)
    settings(ctx)["codex"].unlink()
    assert inst.uninstall(["codex"], ctx)[0].action == "unchanged"
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_uninstall_when_nothing_was_installed_changes_nothing(
    ctx: inst.InstallContext, tmp_path: Path
) -> None:
    before = snapshot(tmp_path)
    changes = inst.uninstall(AGENTS, ctx)
    assert {(c.action, c.summary) for c in changes} == {("unchanged", "not installed")}
    assert snapshot(tmp_path) == before


def test_file_permissions_survive_install_and_uninstall(ctx: inst.InstallContext) -> None:
    path = settings(ctx)["claude"]
    path.chmod(0o640)
    inst.install(["claude"], ctx)
    assert path.stat().st_mode & 0o777 == 0o640
    inst.uninstall(["claude"], ctx)
    assert path.stat().st_mode & 0o777 == 0o640


def test_a_broken_settings_file_stops_the_run_before_any_write(
    ctx: inst.InstallContext, tmp_path: Path
) -> None:
    settings(ctx)["gemini"].write_text('{"hooks": // a comment\n}')
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError, match="not valid JSON"):
        inst.install(AGENTS, ctx)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("text", ['{"hooks": []}', '{"hooks": {"SessionStart": {}}}', "[1]"])
def test_settings_of_the_wrong_shape_are_refused(ctx: inst.InstallContext, text: str) -> None:
    settings(ctx)["claude"].write_text(text)
    with pytest.raises(ConfigError):
        inst.install(["claude"], ctx)


def test_unknown_agent_fails_fast(ctx: inst.InstallContext) -> None:
    with pytest.raises(ConfigError, match="supported: claude, codex, gemini"):
        inst.install(["cursor"], ctx)


# --- what is written -------------------------------------------------------------------------


def test_hooks_run_the_absolute_script_with_the_agents_units(ctx: inst.InstallContext) -> None:
    inst.install(AGENTS, ctx)
    claude = dict(ours(settings(ctx)["claude"], "claude"))
    assert claude["SessionStart"] == {
        "type": "command",
        "command": f"{EXE} hook session-start --agent claude",
        "timeout": 5,
    }
    gemini = dict(ours(settings(ctx)["gemini"], "gemini"))
    assert set(gemini) == {"SessionStart", "PreCompress", "SessionEnd", "BeforeAgent"}
    assert gemini["SessionStart"]["timeout"] == 5000  # milliseconds
    doc = json.loads(settings(ctx)["gemini"].read_text())
    assert doc["hooks"]["SessionStart"][-1]["matcher"] == "*"


def test_executable_with_spaces_is_shell_quoted_and_recognised() -> None:
    command = inst.hook_command("/opt/my tools/recallnest", "session-start", "codex")
    assert command == "'/opt/my tools/recallnest' hook session-start --agent codex"
    assert inst.is_ours({"command": command}, "codex")
    assert not inst.is_ours({"command": command}, "claude")
    assert not inst.is_ours({"command": "other hook session-start --agent codex"}, "codex")


def test_codex_changes_tell_the_user_to_approve_the_hooks(ctx: inst.InstallContext) -> None:
    (change,) = inst.install(["codex"], ctx)
    assert any("/hooks" in note for note in change.notes)
    (again,) = inst.install(["codex"], ctx)
    # Only the trust line is repeated: whether Codex trusts the hooks yet.
    (line,) = again.notes
    assert line.startswith("Codex has not trusted the recallnest hooks yet (0 of 4 trusted)")


def test_hooks_folder_matches_what_install_writes() -> None:
    files = {
        "claude": ROOT / "hooks/claude/hooks/hooks.json",
        "codex": ROOT / "hooks/codex/hooks.json",
        "gemini": ROOT / "hooks/gemini/hooks/hooks.json",
    }
    for agent, path in files.items():
        spec = inst.SPECS[agent]
        expected = {hook.event: [inst.group(spec, hook, "recallnest")] for hook in spec.hooks}
        assert json.loads(path.read_text())["hooks"] == expected
    for manifest in (
        "hooks/claude/.claude-plugin/plugin.json",
        "hooks/gemini/gemini-extension.json",
    ):
        assert json.loads((ROOT / manifest).read_text())["name"] == "recallnest"


def test_the_claude_plugin_manifest_passes_strict_validation() -> None:
    # `claude plugin validate --strict` (2.1.197) turns a missing author into a failure; the
    # command and its output are in hooks/README.md ("Checked with the real CLIs").
    manifest = json.loads((ROOT / "hooks/claude/.claude-plugin/plugin.json").read_text())
    assert {"name", "version", "description", "author"} <= set(manifest)
    assert isinstance(manifest["author"], dict) and manifest["author"]["name"].strip()


# --- discovery -------------------------------------------------------------------------------


def test_config_dirs_honour_each_clis_override(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g"}
    dirs = config_dirs(tmp_path, env)
    assert dirs == {"claude": Path("/c"), "codex": Path("/x"), "gemini": Path("/g")}
    ctx = inst.InstallContext(tmp_path, tmp_path, dirs)
    assert inst.settings_path(ctx, "gemini") == Path("/g/.gemini/settings.json")
    assert inst.settings_path(ctx, "codex") == Path("/x/hooks.json")


def test_detect_agents_by_config_dir_or_path(tmp_path: Path) -> None:
    (tmp_path / ".gemini").mkdir()
    dirs = config_dirs(tmp_path, {})
    assert inst.detect_agents(dirs) == ["gemini"]
    which = {"codex": "/usr/bin/codex"}.get
    assert inst.detect_agents(dirs, which=which) == ["codex", "gemini"]


# --- the daemon service ----------------------------------------------------------------------


class Recorder:
    def __init__(self, code: int = 0) -> None:
        self.commands: list[tuple[str, ...]] = []
        self.code = code

    def __call__(self, command: Sequence[str]) -> int:
        self.commands.append(tuple(command))
        return self.code


def test_systemd_unit_content(ctx: inst.InstallContext) -> None:
    assert service.systemd_unit(ctx) == (
        "# Written by `recallnest install --service`; removed by `uninstall --service`.\n"
        "[Unit]\n"
        "Description=recallnest memory daemon for coding agents\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f'ExecStart="{EXE}" daemon run\n'
        f'Environment="RECALLNEST_HOME={ctx.state_dir}"\n'
        "Restart=on-failure\n"
        "RestartSec=5\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def test_systemd_quoting_of_awkward_paths(tmp_path: Path) -> None:
    ctx = inst.InstallContext(tmp_path, Path("/s"), {}, '/opt/a b/100%/$x"/recallnest')
    assert 'ExecStart="/opt/a b/100%%/$$x\\"/recallnest" daemon run\n' in service.systemd_unit(ctx)


def test_install_service_on_linux(ctx: inst.InstallContext, home: Path) -> None:
    unit = home / ".config/systemd/user/recallnest.integrations.service"
    dry = service.install_service(ctx, "linux", 1000, dry_run=True, run_command=Recorder())
    assert dry.action == "create" and not unit.exists()

    run = Recorder()
    change = service.install_service(ctx, "linux", 1000, run_command=run)
    assert unit.read_text() == service.systemd_unit(ctx)
    assert (
        run.commands
        == list(change.commands)
        == [
            ("systemctl", "--user", "daemon-reload"),
            ("systemctl", "--user", "enable", "--now", "recallnest.integrations.service"),
        ]
    )
    again = service.install_service(ctx, "linux", 1000, run_command=run)
    assert (again.action, again.commands) == ("unchanged", ())


def test_uninstall_service_stops_before_removing(ctx: inst.InstallContext, home: Path) -> None:
    service.install_service(ctx, "linux", 1000)
    run = Recorder()
    change = service.uninstall_service(ctx, "linux", 1000, run_command=run)
    assert change.action == "remove"
    assert not (home / ".config/systemd/user/recallnest.integrations.service").exists()
    assert run.commands == [
        ("systemctl", "--user", "disable", "--now", "recallnest.integrations.service"),
        ("systemctl", "--user", "daemon-reload"),
    ]
    assert service.uninstall_service(ctx, "linux", 1000).action == "unchanged"


def test_launchd_plist(ctx: inst.InstallContext, home: Path) -> None:
    run = Recorder()
    change = service.install_service(ctx, "darwin", 501, run_command=run)
    path = home / "Library/LaunchAgents/dev.recallnest.daemon.plist"
    plist = plistlib.loads(path.read_bytes())
    assert plist["Label"] == "dev.recallnest.daemon"
    assert plist["ProgramArguments"] == [EXE, "daemon", "run"]
    assert plist["EnvironmentVariables"] == {"RECALLNEST_HOME": str(ctx.state_dir)}
    assert (
        run.commands == list(change.commands) == [("launchctl", "bootstrap", "gui/501", str(path))]
    )


def test_service_command_failures_are_reported(ctx: inst.InstallContext) -> None:
    change = service.install_service(ctx, "linux", 1000, run_command=Recorder(code=1))
    assert change.notes == (
        "`systemctl --user daemon-reload` exited 1",
        "`systemctl --user enable --now recallnest.integrations.service` exited 1",
    )


def test_service_without_run_command_only_returns_commands(ctx: inst.InstallContext) -> None:
    change = service.install_service(ctx, "linux", 1000)
    assert change.commands and change.notes == ()


def test_service_needs_an_absolute_executable(tmp_path: Path) -> None:
    ctx = inst.InstallContext(tmp_path, tmp_path, {}, "recallnest")
    with pytest.raises(ConfigError, match="absolute path"):
        service.install_service(ctx, "linux", 1000)


def test_service_on_an_unsupported_platform(ctx: inst.InstallContext) -> None:
    with pytest.raises(ConfigError, match="win32"):
        service.install_service(ctx, "win32", 0)

"""The installer's MCP part: `recallnest mcp` registered in each CLI's user config beside the
hooks, other servers and every other byte kept, exact uninstall.

Hermetic: a fake HOME under tmp_path with the user's own MCP servers in ~/.claude.json (Claude
Code's formatting), ~/.codex/config.toml (comments, sub-tables) and ~/.gemini/settings.json.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from support.install import config_dirs

from recallnest.core.errors import ConfigError
from recallnest.core.models import AGENTS
from recallnest.integrations import install as inst

EXE = "/opt/recallnest/venv/bin/recallnest"

CLAUDE_JSON = """{
  "numStartups": 42,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_TOKEN": "ghp_x"}
    }
  },
  "projects": {"/work/app": {"allowedTools": [], "mcpServers": {}}}
}"""

CODEX_TOML = """# my Codex settings
model = "gpt-5.2-codex"   # fast enough

[features]
hooks = true

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.docs.env]
DOCS_TOKEN = "abc"   # keep this
"""

GEMINI_SETTINGS = """{
\t"general": {"vimMode": true},
\t"mcpServers": {"files": {"command": "npx", "args": ["-y", "@mcp/files"]}}
}
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    files = {
        ".claude.json": CLAUDE_JSON,
        ".claude/settings.json": "{}\n",
        ".codex/config.toml": CODEX_TOML,
        ".gemini/settings.json": GEMINI_SETTINGS,
    }
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text, encoding="utf-8")
    return home


@pytest.fixture
def ctx(home: Path, tmp_path: Path) -> inst.InstallContext:
    return inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


def servers(home: Path) -> dict[str, dict[str, Any]]:
    """The MCP servers each CLI would load."""
    return {
        "claude": json.loads((home / ".claude.json").read_text())["mcpServers"],
        "codex": tomllib.loads((home / ".codex/config.toml").read_text())["mcp_servers"],
        "gemini": json.loads((home / ".gemini/settings.json").read_text())["mcpServers"],
    }


def expected_entry(agent: str, ctx: inst.InstallContext, exe: str = EXE) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "stdio"} if agent == "claude" else {}
    return entry | {
        "command": exe,
        "args": ["mcp", "--agent", agent],
        "env": {"RECALLNEST_HOME": str(ctx.state_dir)},
    }


# --- round trips ------------------------------------------------------------------------------


def test_install_registers_the_server_and_uninstall_restores_every_byte(
    ctx: inst.InstallContext, home: Path
) -> None:
    before = snapshot(home)
    changes = inst.install(AGENTS, ctx, mcp=True)
    assert [(c.target, c.path.name, c.action) for c in changes] == [
        ("claude", "settings.json", "update"),
        ("claude", ".claude.json", "update"),
        ("codex", "hooks.json", "create"),
        ("codex", "config.toml", "update"),
        ("gemini", "settings.json", "update"),
    ]
    assert changes[1].summary == "add MCP server recallnest"
    assert changes[4].summary.endswith("; MCP server recallnest")
    assert any("claude mcp list" in note for note in changes[1].notes)

    found = servers(home)
    for agent in AGENTS:
        assert found[agent]["recallnest"] == expected_entry(agent, ctx)
    assert list(found["claude"]) == ["github", "recallnest"]
    assert list(found["codex"]) == ["docs", "recallnest"]
    assert found["codex"]["docs"]["env"] == {"DOCS_TOKEN": "abc"}
    assert list(found["gemini"]) == ["files", "recallnest"]
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 42 and claude["projects"]["/work/app"]["mcpServers"] == {}
    codex_text = (home / ".codex/config.toml").read_text()
    assert codex_text.startswith(CODEX_TOML + "\n" + inst.TOML_MARKER + "\n")
    assert (home / ".claude.json").read_text().startswith('{\n  "numStartups": 42,')

    changes = inst.uninstall(AGENTS, ctx, mcp=True)
    assert [c.action for c in changes] == ["restore", "restore", "remove", "restore", "restore"]
    assert snapshot(home) == before
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_install_with_mcp_twice_is_identical_to_once(
    ctx: inst.InstallContext, tmp_path: Path
) -> None:
    inst.install(AGENTS, ctx, mcp=True)
    once = snapshot(tmp_path)
    changes = inst.install(AGENTS, ctx, mcp=True)
    assert snapshot(tmp_path) == once
    assert {(c.action, c.summary) for c in changes} == {("unchanged", "already installed")}
    # The only note left is whether Codex trusts the hooks yet.
    assert [c.target for c in changes if c.notes] == ["codex"]


def test_dry_run_writes_nothing(ctx: inst.InstallContext, tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    changes = inst.install(AGENTS, ctx, mcp=True, dry_run=True)
    assert len(changes) == 5 and "unchanged" not in {c.action for c in changes}
    assert snapshot(tmp_path) == before


def test_without_mcp_no_server_is_registered(ctx: inst.InstallContext, home: Path) -> None:
    inst.install(AGENTS, ctx)
    assert (home / ".claude.json").read_text() == CLAUDE_JSON
    assert (home / ".codex/config.toml").read_text() == CODEX_TOML
    assert "recallnest" not in servers(home)["gemini"]


def test_missing_config_files_are_created_then_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for folder in (".claude", ".codex"):
        (home / folder).mkdir(parents=True)
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    before = snapshot(home)

    changes = inst.install(AGENTS, ctx, mcp=True)
    assert {c.action for c in changes} == {"create"}
    assert tomllib.loads((home / ".codex/config.toml").read_text()) == {
        "mcp_servers": {"recallnest": expected_entry("codex", ctx)}
    }
    assert json.loads((home / ".claude.json").read_text()) == {
        "mcpServers": {"recallnest": expected_entry("claude", ctx)}
    }

    assert {c.action for c in inst.uninstall(AGENTS, ctx, mcp=True)} == {"remove"}
    assert snapshot(home) == before


# --- later edits, lost manifests, moved scripts -----------------------------------------------


def test_claude_rewriting_its_file_keeps_its_changes_on_uninstall(
    ctx: inst.InstallContext, home: Path
) -> None:
    inst.install(["claude"], ctx, mcp=True)
    path = home / ".claude.json"
    doc = json.loads(path.read_text())
    doc["numStartups"] = 43
    doc["mcpServers"]["sentry"] = {"type": "http", "url": "https://mcp.sentry.dev/mcp"}
    path.write_text(json.dumps(doc, indent=2))

    changes = inst.uninstall(["claude"], ctx, mcp=True)
    assert [c.action for c in changes] == ["restore", "update"]
    after = json.loads(path.read_text())
    assert after["numStartups"] == 43
    assert list(after["mcpServers"]) == ["github", "sentry"]


def test_codex_edits_after_install_survive_uninstall(ctx: inst.InstallContext, home: Path) -> None:
    inst.install(["codex"], ctx, mcp=True)
    path = home / ".codex/config.toml"
    added = '\n# added later\n[mcp_servers.later]\ncommand = "later-mcp"\n'
    edited = path.read_text().replace('model = "gpt-5.2-codex"', 'model = "o3"') + added
    path.write_text(edited)

    changes = inst.uninstall(["codex"], ctx, mcp=True)
    assert [c.action for c in changes] == ["remove", "update"]
    assert path.read_text() == CODEX_TOML.replace('model = "gpt-5.2-codex"', 'model = "o3"') + added


def test_uninstall_without_a_manifest_still_finds_our_server(
    ctx: inst.InstallContext, home: Path
) -> None:
    inst.install(AGENTS, ctx, mcp=True)
    for path in (ctx.state_dir / inst.INSTALL_DIR_NAME).rglob("*"):
        if path.is_file():
            path.unlink()

    inst.uninstall(AGENTS, ctx, mcp=True)
    assert (home / ".codex/config.toml").read_text() == CODEX_TOML  # the block cut out exactly
    assert json.loads((home / ".claude.json").read_text()) == json.loads(CLAUDE_JSON)
    assert json.loads((home / ".gemini/settings.json").read_text()) == json.loads(GEMINI_SETTINGS)


def test_reinstall_with_a_moved_executable_replaces_our_entries(
    ctx: inst.InstallContext, home: Path
) -> None:
    before = snapshot(home)
    inst.install(AGENTS, ctx, mcp=True)
    moved = inst.InstallContext(ctx.home, ctx.state_dir, ctx.config_dirs, "/new/bin/recallnest")
    assert {c.action for c in inst.install(AGENTS, moved, mcp=True)} == {"update"}
    for agent, found in servers(home).items():
        assert found["recallnest"] == expected_entry(agent, ctx, "/new/bin/recallnest")
    assert (home / ".codex/config.toml").read_text().count("[mcp_servers.recallnest]") == 1

    inst.uninstall(AGENTS, moved, mcp=True)
    assert snapshot(home) == before


def test_uninstall_of_hooks_only_leaves_the_mcp_only_files(
    ctx: inst.InstallContext, home: Path
) -> None:
    inst.install(AGENTS, ctx, mcp=True)
    inst.uninstall(AGENTS, ctx)
    found = servers(home)
    assert "recallnest" in found["claude"] and "recallnest" in found["codex"]
    assert "recallnest" not in found["gemini"]  # its file is the hooks file: all ours went
    assert {c.action for c in inst.uninstall(AGENTS, ctx, mcp=True)} >= {"restore"}
    assert "recallnest" not in servers(home)["claude"]


# --- what is refused, and where files are -----------------------------------------------------


def test_a_foreign_server_named_recallnest_is_refused(
    ctx: inst.InstallContext, tmp_path: Path, home: Path
) -> None:
    doc = json.loads(CLAUDE_JSON)
    doc["mcpServers"]["recallnest"] = {"command": "node", "args": ["my-own.js"]}
    (home / ".claude.json").write_text(json.dumps(doc))
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError, match="does not run `recallnest mcp`"):
        inst.install(AGENTS, ctx, mcp=True)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('mcp_servers = { docs = { command = "x" } }\n', "unusual layout"),
        (
            '[mcp_servers]\nrecallnest.command = "/bin/recallnest"\nrecallnest.args = ["mcp"]\n',
            "by hand",
        ),
        ("model = \n", "not valid TOML"),
        ('mcp_servers = "none"\n', "not a table"),
    ],
)
def test_toml_we_cannot_edit_safely_is_refused_before_any_write(
    ctx: inst.InstallContext, tmp_path: Path, home: Path, text: str, message: str
) -> None:
    (home / ".codex/config.toml").write_text(text)
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError, match=message):
        inst.install(AGENTS, ctx, mcp=True)
    assert snapshot(tmp_path) == before


def test_awkward_paths_are_valid_toml(home: Path, tmp_path: Path) -> None:
    exe = '/opt/my "tools"\\x/bin/recallnest'
    state = tmp_path / "state\tdir"
    ctx = inst.InstallContext(home, state, config_dirs(home, {}), exe)
    inst.install(["codex"], ctx, mcp=True)
    entry = servers(home)["codex"]["recallnest"]
    assert entry["command"] == exe and entry["env"] == {"RECALLNEST_HOME": str(state)}
    assert inst.is_our_server(entry)


def test_where_each_cli_keeps_its_servers(tmp_path: Path) -> None:
    default = inst.InstallContext(tmp_path, tmp_path, config_dirs(tmp_path, {}))
    assert inst.mcp_path(default, "claude") == tmp_path / ".claude.json"
    assert inst.mcp_path(default, "codex") == tmp_path / ".codex/config.toml"
    assert inst.mcp_path(default, "gemini") == inst.settings_path(default, "gemini")
    env = {"CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g"}
    moved = inst.InstallContext(tmp_path, tmp_path, config_dirs(tmp_path, env))
    assert inst.mcp_path(moved, "claude") == Path("/c/.claude.json")
    assert inst.mcp_path(moved, "codex") == Path("/x/config.toml")
    assert inst.mcp_path(moved, "gemini") == Path("/g/.gemini/settings.json")


def test_our_server_is_recognised_by_its_command() -> None:
    assert inst.is_our_server({"command": "/a/b/recallnest", "args": ["mcp"]})
    assert inst.is_our_server({"command": "recallnest", "args": ["mcp", "--agent", "codex"]})
    assert not inst.is_our_server({"command": "/a/b/recallnest", "args": ["daemon", "run"]})
    assert not inst.is_our_server({"command": "node", "args": ["mcp"]})
    assert not inst.is_our_server("recallnest mcp")

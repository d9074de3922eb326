"""The value types install and install_mcp share: what recallnest registers for an agent
(`AgentSpec`, `HookSpec`, `McpSpec`) and the explicit context of one install run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recallnest.core.config import Settings


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
class McpSpec:
    """Where an agent reads its user-level MCP servers.

    `settings_name` is relative to the agent's config directory, like `AgentSpec.settings_name`;
    with `beside_default_dir`, a config directory at its default place (~/.claude) means the
    file sits in that directory's parent instead (~/.claude.json). `toml` selects Codex's
    config.toml; `typed` adds `"type": "stdio"`, as `claude mcp add` writes it.
    """

    settings_name: str
    notes: tuple[str, ...] = ()
    toml: bool = False
    typed: bool = False
    beside_default_dir: str | None = None


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """What recallnest registers for one agent, and where: its hooks, and its MCP server."""

    agent: str
    settings_name: str
    hooks: tuple[HookSpec, ...]
    notes: tuple[str, ...] = ()
    named_handlers: bool = False
    mcp: McpSpec | None = None
    comments: bool = False  # the CLI reads its settings file with // and /* */ comments allowed


@dataclass(frozen=True, slots=True)
class InstallContext:
    """Everything install needs, passed in explicitly (tests point it all at tmp_path).

    `config_dirs` maps agent -> the directory its settings path is relative to (see
    `config_dirs`); `executable` is the absolute path of the `recallnest` console
    script when it can be resolved, so hooks work without the venv on PATH. `cwd` and `env`
    only feed the trust report (Gemini CLI trusts folders; its variables can override that).
    """

    home: Path
    state_dir: Path
    config_dirs: Mapping[str, Path]
    executable: str = "recallnest"
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def here(
        cls, settings: Settings, env: Mapping[str, str], executable: str = "recallnest"
    ) -> InstallContext:
        """The context of this process: the user's home, its working directory and the
        agents' folders where `settings` put them."""
        return cls(
            home=Path.home(),
            state_dir=settings.home,
            config_dirs=config_dirs(settings),
            executable=executable,
            cwd=Path.cwd(),
            env=env,
        )


def config_dirs(settings: Settings) -> dict[str, Path]:
    """Per agent, the directory its settings path is relative to (the settings honour each
    CLI's relocation variable: CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME)."""
    return {
        "claude": settings.claude_dir,
        "codex": settings.codex_dir,
        "gemini": settings.gemini_dir.parent,
    }

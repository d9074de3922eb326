"""Settings: where state lives and how recallnest behaves.

Only entry points (cli, daemon start) call `Settings.load()`; everything below receives the
result as an argument. This is the only module that reads `os.environ` (besides `paths`, which
the stdlib-only hook path needs).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from recallnest.core.errors import ConfigError
from recallnest.core.paths import CONFIG_NAME, home_dir

ENV_PREFIX = "RECALLNEST_"


class Settings(BaseModel):
    """Every tunable, with its default. Field names are the config.toml keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    home: Path
    embedder: str = Field(
        default="local", description="local | hash | openai | ollama | jina | none"
    )
    embed_url: str | None = None
    embed_model: str | None = None
    embed_api_key: str | None = None
    fusion_alpha: float = Field(default=0.5, ge=0.0, le=1.0)
    resume_budget_tokens: int = Field(default=1200, ge=100, le=10000)
    # Prompt-time recall (issue 23, decision 0022): the notes a prompt gets, at most this many
    # tokens each time and in total per session; `prompt_recall = false` turns it off.
    prompt_recall: bool = True
    prompt_recall_tokens: int = Field(default=160, ge=20, le=2000)
    prompt_recall_session_tokens: int = Field(default=600, ge=20, le=20000)
    # A session with no new turn for this long gets a checkpoint (the daemon's idle timer).
    idle_checkpoint_seconds: float = Field(default=300.0, ge=1.0)
    # Review before commit (issue 20): new automatic captures are stored `pending` and reach no
    # search or resume until approved (the web UI's Review page, `memories.approve`).
    review_captures: bool = False
    extra_roots: tuple[str, ...] = ()
    polling: bool = False
    turn_retention_days: int | None = Field(default=None, ge=1)  # None: keep turns forever
    max_turns: int | None = Field(default=None, ge=1)  # None: no size budget for turns
    # DuckDB's memory_limit in MiB: its block cache (store._connect; same default there).
    db_memory_mb: int = Field(default=512, ge=64)
    claude_dir: Path
    codex_dir: Path
    gemini_dir: Path

    def watched_roots(self) -> list[Path]:
        """The transcript folders of the three agents plus configured extra roots."""
        return [
            self.claude_dir / "projects",
            self.codex_dir / "sessions",
            self.codex_dir / "archived_sessions",
            self.gemini_dir / "tmp",
            *(Path(r).expanduser() for r in self.extra_roots),
        ]

    @classmethod
    def load(
        cls, flags: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
    ) -> Settings:
        """Resolve settings. Precedence: flags > RECALLNEST_* environment > config.toml > defaults.

        `flags` holds only options the user actually gave (None values are ignored).
        """
        env = os.environ if env is None else env
        home = Path(flags["home"]) if flags and flags.get("home") else home_dir(env)
        values: dict[str, Any] = {**_agent_dirs(env), "home": home}
        values.update(_read_toml(home / CONFIG_NAME))
        values.update(_from_env(env))
        values.update({k: v for k, v in (flags or {}).items() if v is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"invalid setting {where!r}: {first['msg']}") from exc


def _agent_dirs(env: Mapping[str, str]) -> dict[str, Path]:
    """Each agent's config root, honouring the agents' own relocation variables."""
    home = Path(env.get("HOME") or Path.home())
    gemini_home = Path(env["GEMINI_CLI_HOME"]) if env.get("GEMINI_CLI_HOME") else home
    return {
        "claude_dir": Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude"),
        "codex_dir": Path(env.get("CODEX_HOME") or home / ".codex"),
        "gemini_dir": gemini_home / ".gemini",
    }


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    unknown = set(data) - set(Settings.model_fields)
    if unknown:
        raise ConfigError(f"unknown key(s) in {path}: {', '.join(sorted(unknown))}")
    return data


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in Settings.model_fields:
        raw = env.get(ENV_PREFIX + name.upper())
        if raw is None or name == "home":
            continue
        values[name] = tuple(raw.split(os.pathsep)) if name == "extra_roots" else raw
    return values

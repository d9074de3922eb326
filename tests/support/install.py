"""The agents' folders of a test user, as install sees them. Not a test module."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from recallnest.core.config import Settings
from recallnest.integrations import install_types


def config_dirs(home: Path, env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Where install looks for each agent's settings, for a user whose home is `home` (with
    the agents' relocation variables in `env`)."""
    return install_types.config_dirs(Settings.load(env={"HOME": str(home), **(env or {})}))

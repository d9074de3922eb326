"""Project identity: which project a working directory belongs to.

The project of a cwd is its git repository's main working tree root, so every worktree of
one repository maps to one project; outside git, it is the directory itself. Only reads
`.git` files and directories; never runs git (a hook or the daemon must not spawn processes).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

_MAX_DEPTH = 64


def project_of(cwd: str | None) -> str | None:
    """The project key for `cwd` (an absolute path string), or None when cwd is unknown."""
    if not cwd:
        return None
    # Only a "~" path is expanded first: building a Path for every turn's cwd cost ~10 µs a
    # turn in a backfill; _project_of normalises what it returns.
    return _project_of(os.path.expanduser(cwd) if cwd.startswith("~") else cwd)


@lru_cache(maxsize=4096)
def _project_of(cwd: str) -> str:
    path = Path(cwd)
    for candidate in [path, *path.parents][:_MAX_DEPTH]:
        dot_git = candidate / ".git"
        try:
            if dot_git.is_dir():
                return str(candidate)
            if dot_git.is_file():
                return _main_worktree(dot_git) or str(candidate)
        except OSError:
            break
    return str(path)


def _main_worktree(dot_git_file: Path) -> str | None:
    """A linked worktree's `.git` file says `gitdir: <main>/.git/worktrees/<name>`; the main
    repository's `.git` is that directory's `commondir` (usually `../..`)."""
    try:
        line = dot_git_file.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    gitdir = Path(line.split(":", 1)[1].strip())
    if not gitdir.is_absolute():
        gitdir = (dot_git_file.parent / gitdir).resolve()
    common = gitdir
    try:
        common_file = gitdir / "commondir"
        if common_file.is_file():
            common = (gitdir / common_file.read_text(encoding="utf-8").strip()).resolve()
    except OSError:
        return None
    if common.name == ".git":
        return str(common.parent)
    return None

"""Portable project identity (issue 21): a project scope is a local path (its git repository's
main working tree, `core.project`), which differs from machine to machine. On the wire a scope
is a portable id, the same on every machine, and each machine maps it back to its own path:

- `name:<name>`: a name the user gave the project (`recallnest sync name PATH NAME`), first;
- `git:<host/path>`: the normalised URL of the repository's `origin` remote (else its first
  remote): `git@github.com:Me/Proj.git`, `https://me@github.com/Me/Proj` and
  `ssh://git@github.com/Me/Proj.git` are all `git:github.com/Me/Proj`;
- `root:<sha>`: the repository's root commit, when it has no remote;
- `path:<path>`: the path itself, outside git (machines that share a layout still agree).

Worktrees and clones of one repository are one project: `core.project` maps a worktree to its
main working tree, and clones share their remote URL (or root commit). A portable id that names
no project known on this machine is kept as the memory's scope until one appears (`local`).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path

from recallnest.core.models import GLOBAL_SCOPE

PREFIXES = ("name:", "git:", "root:", "path:")
GIT_TIMEOUT = 10.0
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:path (scp-like syntax)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?([^/:]+)(?::\d+)?(/.*)?$", re.IGNORECASE)


def is_portable(scope: str) -> bool:
    return scope.startswith(PREFIXES)


def normalise_url(url: str) -> str:
    """A git remote URL without scheme, user, port and `.git`, host lowercased: the same for
    every way of spelling one repository's address. A local path stays a (resolved) path."""
    url = url.strip()
    match = _URL.match(url)
    if match:
        host, path = match[1], match[2] or ""
        if url.lower().startswith("file://"):
            return str(Path(url[7:]).resolve()).removesuffix(".git")
    elif (scp := _SCP.match(url)) and not url.startswith(("/", ".", "~")):
        host, path = scp[1], scp[2]
    else:
        return str(Path(url).expanduser().resolve()).removesuffix("/.git").removesuffix(".git")
    path = path.strip("/").removesuffix(".git").rstrip("/")
    return f"{host.lower()}/{path}"


def _remotes(config: Path) -> dict[str, str]:
    """The `url` of each `[remote "name"]` section of a git config file."""
    remotes: dict[str, str] = {}
    section: str | None = None
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return remotes
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            head = re.match(r'^\[\s*remote\s+"([^"]+)"\s*\]', line)
            section = head[1] if head else None
        elif section is not None and "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            if key.lower() == "url" and section not in remotes:
                remotes[section] = value.strip('"')
    return remotes


def _git_dir(root: Path) -> Path | None:
    """The repository's git directory: `.git`, or where a `.git` file (a submodule) points."""
    dot_git = root / ".git"
    try:
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if line.startswith("gitdir:"):
                target = Path(line.split(":", 1)[1].strip())
                return target if target.is_absolute() else (root / target).resolve()
    except OSError:
        pass
    return None


def _root_commit(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-list", "--max-parents=0", "HEAD"],
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    roots = sorted(done.stdout.decode(errors="replace").split())
    return roots[0] if done.returncode == 0 and roots else None


def portable_of(scope: str, names: Mapping[str, str] | None = None) -> str:
    """The portable id of a local scope (global stays global; a portable id stays itself)."""
    if scope == GLOBAL_SCOPE or is_portable(scope):
        return scope
    if names and scope in names:
        return f"name:{names[scope]}"
    root = Path(scope)
    git_dir = _git_dir(root)
    if git_dir is not None:
        remotes = _remotes(git_dir / "config")
        if remotes:
            url = remotes.get("origin") or remotes[sorted(remotes)[0]]
            return f"git:{normalise_url(url)}"
        commit = _root_commit(root)
        if commit:
            return f"root:{commit}"
    return f"path:{scope}"


class Identities:
    """Portable ids of this machine's projects, both ways, computed once per sync round."""

    def __init__(self, local_scopes: Iterable[str], names: Mapping[str, str] | None = None):
        self._names = dict(names or {})
        self._portable: dict[str, str] = {}
        self._local: dict[str, str] = {}
        for scope in sorted(set(local_scopes)):
            if scope != GLOBAL_SCOPE and not is_portable(scope):
                self._local.setdefault(self.portable(scope), scope)

    def portable(self, scope: str) -> str:
        found = self._portable.get(scope)
        if found is None:
            found = self._portable[scope] = portable_of(scope, self._names)
        return found

    def local(self, portable: str) -> str:
        """This machine's scope for a portable id: its project with that id, else the path of
        a `path:` id, else the id itself (kept until a project with that id appears here)."""
        if portable == GLOBAL_SCOPE or not is_portable(portable):
            return portable
        found = self._local.get(portable)
        if found is not None:
            return found
        if portable.startswith("path:"):
            return portable.removeprefix("path:")
        return portable

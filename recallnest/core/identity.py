"""What a memory id is made of (issue 21): a project's portable id, the same on every machine.

A memory id is UUIDv5 of an id basis and the canonical text (`models.memory_id`). The basis of
a project scope (a local path: its git repository's main working tree, `core.project`) is

- `git:<host/path>`: the normalised URL of its `origin` remote (else its first remote), read
  from `.git/config` (`git@github.com:Me/Proj.git`, `https://me@github.com/Me/Proj` and
  `ssh://git@github.com/Me/Proj.git` are all `git:github.com/Me/Proj`);
- `root:<sha>`: its root commit, when it has no remote (this one runs git, once per project);
- the path itself outside git, or in a repository with no commit yet: the id a memory had
  before ids were portable, so such a project's memories keep theirs.

So the same fact captured in two clones of one repository, on two machines, has one id. The
global scope and a portable id (`git:`, `root:`, `name:`, `path:`, a memory of a project this
machine lacks) are their own basis.

`PROJECT_IDS` caches each project's basis for the process; the store keeps the git-derived
ones (`project_ids`, migration m007), loaded at open, so a hook or a capture never runs git
for a project it has seen, and a project's ids do not change when its remote does.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

PREFIXES = ("name:", "git:", "root:", "path:")
GIT_TIMEOUT = 10.0
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:path (scp-like syntax)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?([^/:]+)(?::\d+)?(/.*)?$", re.IGNORECASE)
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


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


def git_dir(root: Path) -> Path | None:
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


def _has_commit(gdir: Path) -> bool:
    """Whether HEAD names a commit (a sha, or a branch with a loose or packed ref), read from
    files: a repository with no commit yet (or a bare `.git` directory) runs no git."""
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        if _SHA.match(head):
            return True
        if not head.startswith("ref:"):
            return False
        ref = head.split(":", 1)[1].strip()
        if (gdir / ref).is_file():
            return True
        packed = gdir / "packed-refs"
        return packed.is_file() and any(
            line.endswith(f" {ref}") for line in packed.read_text(errors="replace").splitlines()
        )
    except OSError:
        return False


def root_commit(root: Path) -> str | None:
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


def git_identity(scope: str) -> str | None:
    """`git:<url>` or `root:<sha>` for a project in git, else None."""
    if not os.path.isabs(scope):
        return None
    root = Path(scope)
    gdir = git_dir(root)
    if gdir is None:
        return None
    remotes = _remotes(gdir / "config")
    if remotes:
        url = remotes.get("origin") or remotes[sorted(remotes)[0]]
        return f"git:{normalise_url(url)}"
    if not _has_commit(gdir):
        return None
    commit = root_commit(root)
    return f"root:{commit}" if commit else None


class ProjectIds:
    """Each project's id basis, computed once per process (git runs at most once a project).
    Bases from git are also kept in the store (`seed` loads them); a path basis is not, so a
    project put in git later gets its portable id in the next process."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}
        self._lock = threading.Lock()

    def basis(self, scope: str, global_scope: str) -> str:
        if scope == global_scope or is_portable(scope):
            return scope
        found = self._known.get(scope)
        if found is None:
            found = git_identity(scope) or scope
            with self._lock:
                found = self._known.setdefault(scope, found)
        return found

    def seed(self, bases: Mapping[str, str]) -> None:
        """Bases the store kept: they win over what this process computed."""
        with self._lock:
            self._known.update(bases)

    def forget(self, scope: str) -> None:
        with self._lock:
            self._known.pop(scope, None)


PROJECT_IDS = ProjectIds()

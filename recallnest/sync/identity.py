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

The `git:`/`root:` id is the project's memory id basis (`core.identity`, kept in the store), so
a scope travels under the same id its memories' ids are made of; a name (`sync name`) becomes
the basis too (`Engine.rekey_project`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from recallnest.core.identity import PROJECT_IDS, is_portable, normalise_url
from recallnest.core.models import GLOBAL_SCOPE

__all__ = ["Identities", "is_portable", "normalise_url", "portable_of"]


def portable_of(scope: str, names: Mapping[str, str] | None = None) -> str:
    """The portable id of a local scope (global stays global; a portable id stays itself)."""
    if scope == GLOBAL_SCOPE or is_portable(scope):
        return scope
    if names and scope in names:
        return f"name:{names[scope]}"
    basis = PROJECT_IDS.basis(scope, GLOBAL_SCOPE)  # what its memory ids are made of
    return basis if is_portable(basis) else f"path:{scope}"


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

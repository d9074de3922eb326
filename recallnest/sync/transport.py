"""Where logs travel: a git remote or a plain shared folder, both with the same layout,
`machines/<machine id>/<bucket>.jsonl`. Each machine writes only its own directory, so nothing
ever conflicts.

Git: a local bare repository under the home holds the objects; each machine publishes its
files on its own branch `recallnest/<machine>` (only that machine pushes it), as a chain of at
most MAX_CHAIN commits, force-pushed. After a forget the branch restarts as ONE parentless
commit, so the commits that held the memory's lines are no longer reachable from any ref of
the remote: its history then holds no more than the current logs. Authentication is the user's
git's own."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from recallnest.core.errors import RecallnestError

BRANCH = "refs/heads/recallnest/"
TRACKING = "refs/remotes/recallnest/"
GIT_TIMEOUT = 120.0
MAX_CHAIN = 32  # commits on a machine's branch before it restarts as one commit


class TransportError(RecallnestError):
    """The remote could not be reached or refused (offline, no access)."""


class Transport(Protocol):
    def fetch(self) -> None: ...

    def listing(self) -> dict[str, str]:
        """Every log file on the remote: path -> a version that changes with its content."""
        ...

    def read(self, versions: Mapping[str, str]) -> dict[str, bytes]:
        """The content of files, given as path -> version from `listing`."""
        ...

    def publish(self, machine: str, files: Mapping[str, bytes | None], fresh: bool = False) -> None:
        """Write (bytes) or delete (None) this machine's files, then send them. `fresh`: keep
        no earlier version anywhere the remote's refs reach (after a forget)."""
        ...

    def collect(self) -> None:
        """Drop what this machine still holds of file versions no longer on the remote."""
        ...


def owner_of(path: str) -> str | None:
    """The machine whose directory holds `path` (machines/<id>/<file>), or None."""
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "machines" and parts[2].endswith(".jsonl"):
        return parts[1]
    return None


class FolderTransport:
    """A directory that a file-sync tool shares (or any mounted path)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def fetch(self) -> None:
        if not self.root.is_dir():
            raise TransportError(f"sync folder {self.root} is not reachable")

    def listing(self) -> dict[str, str]:
        out: dict[str, str] = {}
        base = self.root / "machines"
        if not base.is_dir():
            return out
        for path in base.glob("*/*.jsonl"):
            st = path.stat()
            out[path.relative_to(self.root).as_posix()] = f"{st.st_mtime_ns}:{st.st_size}"
        return out

    def read(self, versions: Mapping[str, str]) -> dict[str, bytes]:
        out = {}
        for rel in versions:
            try:
                out[rel] = (self.root / rel).read_bytes()
            except FileNotFoundError:
                continue
        return out

    def publish(self, machine: str, files: Mapping[str, bytes | None], fresh: bool = False) -> None:
        self.fetch()
        for rel, data in files.items():
            if owner_of(rel) != machine:
                raise RecallnestError(f"{rel} is not in this machine's directory")
            path = self.root / rel
            if data is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)

    def collect(self) -> None:
        """Nothing is kept locally: the folder is the only copy (a file-sync tool's own
        version history is outside RecallNest's reach; the lines there are sealed)."""


class GitTransport:
    """A git remote, through a local bare repository (`objects`) and the git binary."""

    def __init__(self, url: str, objects: Path) -> None:
        self.url = url
        self.dir = objects
        if not (objects / "HEAD").exists():
            objects.mkdir(parents=True, exist_ok=True)
            self._git("init", "--bare", "-q")
            # Objects stay loose and unpacked, so an old version can be pruned cheaply; no
            # automatic gc, whose packs would keep old versions until a full collect.
            self._git("config", "transfer.unpackLimit", "2000000000")
            self._git("config", "gc.auto", "0")

    def _git(self, *args: str, data: bytes | None = None, check: bool = True) -> bytes:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        env.update(
            GIT_AUTHOR_NAME="recallnest",
            GIT_AUTHOR_EMAIL="recallnest@localhost",
            GIT_COMMITTER_NAME="recallnest",
            GIT_COMMITTER_EMAIL="recallnest@localhost",
        )
        try:
            done = subprocess.run(
                ["git", "--git-dir", str(self.dir), *args],
                input=data,
                capture_output=True,
                env=env,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TransportError(f"git {args[0]}: {exc}") from exc
        if check and done.returncode != 0:
            err = done.stderr.decode(errors="replace").strip().splitlines()
            raise TransportError(f"git {args[0]} failed: {err[-1] if err else done.returncode}")
        return done.stdout

    def fetch(self) -> None:
        self._git("fetch", "-q", "--prune", self.url, f"+{BRANCH}*:{TRACKING}*")

    def _refs(self) -> dict[str, str]:
        out = self._git("for-each-ref", "--format=%(refname) %(objectname)", TRACKING)
        refs = {}
        for line in out.decode().splitlines():
            name, sha = line.split(" ")
            refs[name.removeprefix(TRACKING)] = sha
        return refs

    def _tree(self, ref: str) -> dict[str, str]:
        out = self._git("ls-tree", "-r", "-z", ref, "machines/")
        files = {}
        for entry in out.split(b"\0"):
            if entry:
                meta, path = entry.decode().split("\t", 1)
                files[path] = meta.split()[2]
        return files

    def listing(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for machine, sha in self._refs().items():
            # A branch may hold only its own machine's directory (anything else is ignored).
            out.update((p, blob) for p, blob in self._tree(sha).items() if owner_of(p) == machine)
        return out

    def read(self, versions: Mapping[str, str]) -> dict[str, bytes]:
        wanted = sorted(versions)  # a version is the file's blob id
        if not wanted:
            return {}
        ask = "".join(versions[p] + "\n" for p in wanted).encode()
        raw = self._git("cat-file", "--batch", data=ask)
        out, pos = {}, 0
        for path in wanted:
            end = raw.index(b"\n", pos)
            size = int(raw[pos:end].split()[2])
            out[path] = raw[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return out

    def publish(self, machine: str, files: Mapping[str, bytes | None], fresh: bool = False) -> None:
        ref = f"{BRANCH}{machine}"
        current: dict[str, str] = {}
        parent: list[str] = []
        head = self._git("rev-parse", "-q", "--verify", ref, check=False).decode().strip()
        if head:
            current = self._tree(ref)
            depth = int(self._git("rev-list", "--count", ref).decode().strip() or 0)
            if not fresh and depth < MAX_CHAIN:
                parent = ["-p", head]
        for rel, data in files.items():
            if owner_of(rel) != machine:
                raise RecallnestError(f"{rel} is not in this machine's directory")
            if data is None:
                current.pop(rel, None)
            else:
                current[rel] = self._write_blob(data)
        sub = "".join(
            f"100644 blob {sha}\t{rel.rsplit('/', 1)[1]}\n" for rel, sha in sorted(current.items())
        )
        tree = self._mktree(sub)
        tree = self._mktree(f"040000 tree {tree}\t{machine}\n")
        tree = self._mktree(f"040000 tree {tree}\tmachines\n")
        # A short chain: with the previous commit as parent, git sends only the changed files
        # (between two unrelated commits it sends every file: 5 s a push at 100k memories).
        # Every MAX_CHAIN pushes, and at once after a forget, the branch restarts as one
        # parentless commit, force-pushed: what the old versions held leaves the history.
        commit = self._git("commit-tree", tree, *parent, "-m", f"recallnest log of {machine}")
        commit_id = commit.decode().strip()
        self._git("update-ref", ref, commit_id)
        self._git("push", "-q", "--force", self.url, f"{commit_id}:{ref}")
        self._git("update-ref", f"{TRACKING}{machine}", commit_id)

    def _write_blob(self, data: bytes) -> str:
        """Store a blob as a loose object, in process (what `git hash-object -w` writes: the
        zlib of `blob <size>\\0<data>` under its SHA-1): one git process per changed file
        was most of an incremental round."""
        raw = b"blob %d\0" % len(data) + data
        sha = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
        path = self.dir / "objects" / sha[:2] / sha[2:]
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="tmp_obj_")
            with os.fdopen(fd, "wb") as out:
                out.write(zlib.compress(raw, 1))
            os.chmod(tmp, 0o444)
            os.replace(tmp, path)
        return sha

    def _mktree(self, entries: str) -> str:
        return self._git("mktree", data=entries.encode()).decode().strip()

    def collect(self) -> None:
        """Drop local objects no ref reaches (old versions of log files, which may hold lines
        of a memory forgotten since). Objects are kept loose (`transfer.unpackLimit`, no
        automatic gc), and pruning loose objects only walks the few current trees; a pack
        (made by a git run by hand) is unpacked first, since pruning never opens packs."""
        packs = self.dir / "objects" / "pack"
        for pack in sorted(packs.glob("*.pack")) if packs.is_dir() else []:
            moved = pack.with_suffix(".unpacking")
            pack.rename(moved)
            for side in pack.parent.glob(pack.stem + ".*"):
                side.unlink()
            self._git("unpack-objects", "-q", data=moved.read_bytes())
            moved.unlink()
        self._git("prune", "--expire=now")

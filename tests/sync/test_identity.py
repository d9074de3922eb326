"""Portable project identity: the same project gets the same id on every machine, whatever its
path or the spelling of its remote URL, and memories land in each machine's own project."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from recallnest.core.models import GLOBAL_SCOPE
from recallnest.core.schemas import jsonable
from recallnest.sync.config import Remote
from recallnest.sync.identity import Identities, normalise_url, portable_of
from tests.support.sync_homes import homes, sync_all


def _repo(path: Path, url: str | None) -> str:
    """A repository's working tree as git leaves it (a .git directory with its config)."""
    (path / ".git").mkdir(parents=True)
    config = '[core]\n\tbare = false\n[remote "upstream"]\n\turl = /elsewhere\n'
    if url is not None:
        config += f'[remote "origin"]\n\turl = {url}\n\tfetch = +refs/heads/*:refs/remotes/o/*\n'
    (path / ".git" / "config").write_text(config)
    return str(path)


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:Acme/Widget.git",
        "https://github.com/Acme/Widget",
        "https://me@GitHub.com/Acme/Widget.git/",
        "ssh://git@github.com:22/Acme/Widget.git",
    ],
)
def test_every_spelling_of_a_remote_url_is_one_id(url: str) -> None:
    assert normalise_url(url) == "github.com/Acme/Widget"


def test_clones_at_different_paths_share_an_id_and_names_come_first(tmp_path: Path) -> None:
    one = _repo(tmp_path / "laptop" / "widget", "git@github.com:Acme/Widget.git")
    two = _repo(tmp_path / "desk" / "src" / "w", "https://github.com/Acme/Widget")
    other = _repo(tmp_path / "other", "git@github.com:Acme/Gadget.git")
    assert portable_of(one) == portable_of(two) == "git:github.com/Acme/Widget"
    assert portable_of(other) == "git:github.com/Acme/Gadget"
    assert portable_of(GLOBAL_SCOPE) == GLOBAL_SCOPE
    plain = str(tmp_path / "notes")
    assert portable_of(plain) == f"path:{plain}"
    assert portable_of(plain, {plain: "notes"}) == "name:notes"
    ids = Identities([two, GLOBAL_SCOPE])
    assert ids.local("git:github.com/Acme/Widget") == two
    assert ids.local("git:github.com/Acme/Unknown") == "git:github.com/Acme/Unknown"
    assert ids.local(f"path:{plain}") == plain


@pytest.mark.slow
def test_a_repository_without_a_remote_is_its_root_commit(tmp_path: Path) -> None:
    work = tmp_path / "solo"
    work.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "HOME": str(tmp_path)}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q", str(work)], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(work), "commit", "-q", "--allow-empty", "-m", "root"],
        check=True,
        env=env,
    )
    root = subprocess.run(
        ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, check=True, env=env
    )
    (work / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert portable_of(str(work)) == f"root:{root.stdout.decode().strip()}"


def test_a_project_memory_lands_in_each_machines_own_clone(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    laptop = _repo(tmp_path / "laptop" / "widget", "git@github.com:Acme/Widget.git")
    desk = _repo(tmp_path / "desk2" / "w", "https://github.com/Acme/Widget.git")
    with homes(tmp_path, "ab", Remote("personal", str(shared), "folder")) as (a, b):
        mem_id = a.remember("The widget build needs Node 20", scope=laptop).id
        line = " ".join(p.read_text() for p in shared.rglob("*.jsonl"))
        assert laptop not in line  # no local path on the wire (and the payload is sealed)
        sync_all([a, b])
        # B has no clone yet: the memory waits under the portable id.
        (waiting,) = b.store.memories([mem_id])
        assert waiting.scope == "git:github.com/Acme/Widget"
        # B works in its own clone: at the next round, the memory moves into it.
        b.remember("The desk clone uses a local registry", scope=desk)
        sync_all([a, b])
        (moved,) = b.store.memories([mem_id])
        assert moved.scope == desk
        # An edit on B travels back to A's path, and nothing moves on a quiet round.
        b.maintenance.set_flags([mem_id], pinned=True)
        sync_all([a, b])
        (on_a,) = a.store.memories([mem_id])
        assert on_a.scope == laptop and on_a.pinned
        quiet = [a.sync.sync(), b.sync.sync()]
        assert [(r["exported"], r["applied"]) for r in quiet] == [(0, 0), (0, 0)]
        assert {m["scope"] for m in jsonable(a.export())} == {laptop}
        assert {m["scope"] for m in jsonable(b.export())} == {desk}

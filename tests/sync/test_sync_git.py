"""Three homes syncing through a local bare git repository, with the real git binary: slow
(every round runs git). Forget is checked against the remote's whole history, every object
reachable from any ref, opened with the key."""

from __future__ import annotations

import base64
import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from recallnest.core.models import GLOBAL_SCOPE
from recallnest.core.schemas import jsonable
from recallnest.sync.codec import new_key
from recallnest.sync.config import Remote
from tests.support.sync_homes import KEY, add_remote, forget, homes, state, sync_all, texts

pytestmark = pytest.mark.slow


def _bare(path: Path) -> Path:
    subprocess.run(["git", "init", "--bare", "-q", str(path)], check=True)
    return path


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], input=data, capture_output=True, check=True
    ).stdout


def _objects(repo: Path, every: bool = False) -> list[bytes]:
    """Every object reachable from any ref (or, `every`, every object in the repository)."""
    if every:
        listed = _git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
        shas = listed.decode().split()
    else:
        shas = [
            line.split()[0]
            for line in _git(repo, "rev-list", "--all", "--objects").decode().splitlines()
        ]
    out = []
    for sha in shas:
        out.append(_git(repo, "cat-file", "-p", sha))
    return out


def _opened(blob: bytes, key: bytes) -> str:
    """A blob's text with every sealed payload it holds opened with `key`."""
    parts = [blob.decode(errors="replace")]
    for line in parts[0].splitlines():
        try:
            header = json.loads(line)
            raw = base64.b64decode(header["p"])
            aad = f"{header['v']}|{header['s']}|{header['m']}|{header['k']}|{header['w']}"
            parts.append(AESGCM(key).decrypt(raw[:12], raw[12:], aad.encode()).decode())
        except (ValueError, KeyError, TypeError):
            continue
    return "\n".join(parts)


def _history_text(repo: Path, key: bytes = KEY, every: bool = False) -> str:
    return "\n".join(_opened(blob, key) for blob in _objects(repo, every))


def test_three_homes_through_a_bare_repository(tmp_path: Path) -> None:
    remote = Remote("personal", str(_bare(tmp_path / "remote.git")), "git")
    with homes(tmp_path, "abc", remote) as (a, b, c):
        a.remember("We use pnpm, never npm")
        b.remember("The deploy target is fly.io")
        shared = c.remember("Integration tests need a running Postgres").id
        sync_all([a, b, c])
        assert texts(a) == texts(b) == texts(c) and len(texts(a)) == 3
        # The same memory edited on two machines, concurrently.
        (on_a,) = a.store.memories([shared])
        (on_b,) = b.store.memories([shared])
        a.apply_memories([replace(on_a, text="Integration tests need Postgres 16")])
        b.apply_memories([replace(on_b, tier="core")])
        sync_all([a, b, c])
        assert state(a) == state(b) == state(c)
        (merged,) = c.store.memories([shared])
        assert (merged.text, merged.tier) == ("Integration tests need Postgres 16", "core")
        # Nothing readable without the key: no text in any object of the remote.
        raw = "\n".join(blob.decode(errors="replace") for blob in _objects(tmp_path / "remote.git"))
        assert "pnpm" not in raw and "fly.io" not in raw
        branches = _git(tmp_path / "remote.git", "for-each-ref", "--format=%(refname)").split()
        assert len(branches) == 3  # one branch per machine, so pushes never conflict
        # A second round with nothing new moves nothing.
        quiet = a.sync.sync()
        assert quiet["exported"] == 0 and quiet["applied"] == 0
        assert quiet["remotes"]["personal"].get("pushed_files", 0) == 0


def test_forget_is_gone_from_every_machine_and_the_remote_history(tmp_path: Path) -> None:
    repo = _bare(tmp_path / "remote.git")
    remote = Remote("personal", str(repo), "git")
    # The mark searched for holds letters outside hex: the history text holds commit and tree
    # hashes, and "4417" turned up inside one by chance (a flaky failure in CI).
    secret = "The office door code is 4417 kiwi"
    with homes(tmp_path, "abc", remote) as (a, b, c):
        mem_id = a.remember(secret).id
        a.remember("Keep commits small")
        sync_all([a, b, c])
        (on_b,) = b.store.memories([mem_id])
        b.apply_memories([replace(on_b, text=secret + " (changed monthly)")])
        sync_all([a, b, c])
        assert "4417 kiwi" in _history_text(repo)  # the test can see it while it is remembered
        forget(c, [mem_id])
        # Three rounds: c sends the forget, b compacts its edit of it away, a sees b's log.
        sync_all([a, b, c], rounds=3)
        for engine in (a, b, c):
            assert not [t for t in texts(engine) if "kiwi" in t]
        assert "Keep commits small" in texts(b)
        # The remote's whole history (every ref, every commit, every patch), opened with the
        # key: the forgotten text is in none of it; what is still remembered is.
        history = _history_text(repo)
        assert "kiwi" not in history
        assert "Keep commits small" in history
        patches = _git(repo, "log", "--all", "-p", "--format=%H %s").decode(errors="replace")
        assert "kiwi" not in _opened(patches.encode(), KEY)
        assert _git(repo, "rev-list", "--all", "--count").strip() == b"3"  # one commit a machine
        # Objects no ref reaches (the pushes before the forget) stay in the server's store
        # until it collects them: they are sealed, and even the memory id in their clear
        # headers is blinded, so without the key nothing in any object names the memory.
        every = "\n".join(b.decode(errors="replace") for b in _objects(repo, every=True))
        assert "kiwi" not in every and "door code" not in every and mem_id not in every
        # Every machine's own git mirror was collected after the forget: no copy there, even
        # opened with the key that sits next to it.
        for name in "abc":
            mirror = tmp_path / name / "sync" / "personal.git"
            assert "kiwi" not in _history_text(mirror, every=True)
        # After the server's own garbage collection, no object at all holds it, even opened.
        _git(repo, "gc", "-q", "--prune=now")
        assert "kiwi" not in _history_text(repo, every=True)


def test_a_team_remote_with_two_users(tmp_path: Path) -> None:
    team_repo = _bare(tmp_path / "team.git")
    # Each user has their own clone, at their own path, of one repository.
    clones = []
    for path, url in (
        (tmp_path / "alice-src" / "svc", "git@git.example.com:team/svc.git"),
        (tmp_path / "bob-work" / "service", "https://git.example.com/team/svc"),
    ):
        (path / ".git").mkdir(parents=True)
        (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {url}\n')
        clones.append(str(path))
    team_key = new_key()
    with homes(tmp_path, "ab", None) as (alice, bob):
        for engine, user, clone in ((alice, "alice", clones[0]), (bob, "bob", clones[1])):
            team = Remote("team", str(team_repo), "git", team=True, projects=(clone,))
            add_remote(engine, team, key=team_key, user=user)
        alice.remember("The service listens on port 8080", scope=clones[0])
        alice.remember("I prefer short variable names", scope=GLOBAL_SCOPE)
        sync_all([alice, bob])
        assert texts(bob) == ["The service listens on port 8080"]
        assert {m["scope"] for m in jsonable(bob.export())} == {clones[1]}  # in bob's own clone
        history = _history_text(team_repo, team_key)
        assert "8080" in history and "short variable names" not in history
        assert '"u": "alice"' in history  # who wrote it travels with it
        assert "git:git.example.com/team/svc" in history and clones[0] not in history
        bob.remember("Deploys need the VPN", scope=clones[1])
        sync_all([alice, bob])
        (vpn,) = [m for m in jsonable(alice.export()) if m["text"] == "Deploys need the VPN"]
        assert vpn["scope"] == clones[0]
        assert '"u": "bob"' in _history_text(team_repo, team_key)
        # The personal memory never went to the team remote, so bob never got it.
        assert "I prefer short variable names" not in texts(bob)


def test_offline_for_a_week_then_catching_up(tmp_path: Path) -> None:
    repo = _bare(tmp_path / "remote.git")
    remote = Remote("personal", str(repo), "git")
    with homes(tmp_path, "abc", remote) as (a, b, c):
        a.remember("The API rate limit is 100 requests a minute")
        sync_all([a, b, c])
        repo.rename(tmp_path / "away.git")
        c.remember("Release notes live in docs/CHANGELOG.md")
        failed = c.sync.sync()["remotes"]["personal"]
        assert "git fetch failed" in failed["error"]
        (tmp_path / "away.git").rename(repo)
        for n in range(5):
            a.remember(f"Week note {n}: the cache TTL is {n + 1} hours")
        sync_all([a, b])
        sync_all([c, a, b])
        assert texts(a) == texts(b) == texts(c)
        assert "Release notes live in docs/CHANGELOG.md" in texts(b)

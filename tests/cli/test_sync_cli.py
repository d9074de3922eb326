"""`recallnest sync init/name/now/status/key` through click's CliRunner (in-process: no daemon
answers, so a round runs in this process), with a shared-folder remote."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

Cli = Callable[..., Result]


def _config(home: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((home / "sync" / "config.json").read_text())
    return data


def _repo(path: Path, url: str) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {url}\n')
    return path


def test_init_a_folder_then_a_team_remote_and_name_a_project(
    cli: Cli, tmp_path: Path, recallnest_home: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    done = cli(["sync", "init", str(shared)])
    assert done.exit_code == 0, done.output
    assert "(folder)" in done.output and "personal.key" in done.output
    key = recallnest_home / "sync" / "personal.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    repo = _repo(tmp_path / "src" / "widget", "git@github.com:Acme/Widget.git")
    bad = cli(["sync", "init", "git@example.com:team/mem.git", "--project", str(repo)])
    assert bad.exit_code == 1 and "add --team" in bad.output
    team = cli(["sync", "init", "git@example.com:team/mem.git", "--team", "--project", str(repo)])
    assert team.exit_code == 0, team.output
    (_, bound) = _config(recallnest_home)["remotes"]  # type: ignore[misc]  # a list of two remotes
    assert bound["team"] and bound["projects"] == [str(repo)]
    named = cli(["sync", "name", str(repo), "widget"])
    assert named.exit_code == 0, named.output
    assert "git:github.com/Acme/Widget -> name:widget" in named.output
    assert _config(recallnest_home)["names"] == {str(repo): "widget"}
    again = cli(["sync", "init", str(shared)])
    assert again.exit_code == 1 and "set up already" in again.output


def test_now_and_status_and_key(cli: Cli, tmp_path: Path, recallnest_home: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    assert cli(["sync", "init", str(shared), "--folder"]).exit_code == 0
    assert cli(["remember", "We deploy on Fridays never"]).exit_code == 0
    now = cli(["sync", "now", "--json"])
    assert now.exit_code == 0, now.output
    report = json.loads(now.stdout)
    assert report["exported"] == 1 and report["remotes"]["personal"]["pushed_files"] == 1
    assert len(list(shared.rglob("*.jsonl"))) == 1
    status = json.loads(cli(["sync", "status", "--json"]).stdout)
    personal = status["remotes"]["personal"]
    assert personal["last_sync"] and personal["ahead"] == 0 and not personal["error"]
    copied = tmp_path / "copy.key"
    assert cli(["sync", "key", str(copied)]).exit_code == 0
    assert copied.read_bytes() == (recallnest_home / "sync" / "personal.key").read_bytes()


def test_naming_a_project_rekeys_its_memories(
    cli: Cli, tmp_path: Path, recallnest_home: Path
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    assert cli(["sync", "init", str(shared)]).exit_code == 0
    repo = _repo(tmp_path / "widget", "git@github.com:Acme/Widget.git")
    mem = json.loads(cli(["remember", "Widget builds with make", "--scope", "project",
                          str(repo), "--json"]).stdout)  # fmt: skip
    named = cli(["sync", "name", str(repo), "widget"])
    assert named.exit_code == 0, named.output
    assert "(1 memories re-keyed)" in named.output
    shown = cli(["memories", "show", mem["id"], "--json"])  # the old id still resolves
    assert shown.exit_code == 0, shown.output
    new_id = json.loads(shown.stdout)["id"]
    assert new_id != mem["id"]
    again = json.loads(cli(["remember", "Widget builds with make", "--scope", "project",
                            str(repo), "--json"]).stdout)  # fmt: skip
    assert again["id"] == new_id  # captured again: the same memory, under the name
    history = cli(["memories", "history", mem["id"], "--json"])
    assert history.exit_code == 0 and json.loads(history.stdout)["memory"]["id"] == new_id
    gone = cli(["forget", mem["id"], "--yes", "--json"])
    assert gone.exit_code == 0, gone.output
    assert json.loads(gone.stdout)["forgotten"] == [new_id]
    assert json.loads(cli(["memories", "list", "--json"]).stdout) == []


def test_remove_unbinds_a_remote(cli: Cli, tmp_path: Path, recallnest_home: Path) -> None:
    shared, team = tmp_path / "shared", tmp_path / "team"
    shared.mkdir()
    team.mkdir()
    repo = _repo(tmp_path / "widget", "git@github.com:Acme/Widget.git")
    assert cli(["sync", "init", str(shared)]).exit_code == 0
    assert cli(["sync", "init", str(team), "--team", "--project", str(repo)]).exit_code == 0
    assert cli(["remember", "We deploy on Fridays never"]).exit_code == 0
    assert cli(["sync", "now"]).exit_code == 0
    gone = cli(["sync", "remove", "personal", "--json"])
    assert gone.exit_code == 0, gone.output
    assert json.loads(gone.stdout) == {"removed": "personal", "url": str(shared), "log_lines": 1}
    assert [r["name"] for r in _config(recallnest_home)["remotes"]] == ["team"]  # type: ignore[attr-defined]
    assert not (recallnest_home / "sync" / "personal.key").exists()
    status = json.loads(cli(["sync", "status", "--json"]).stdout)
    assert list(status["remotes"]) == ["team"]
    assert len(list(shared.rglob("*.jsonl"))) == 1  # the remote is left as it was
    assert json.loads(cli(["memories", "list", "--json"]).stdout)  # memories stay
    missing = cli(["sync", "remove", "personal"])
    assert missing.exit_code == 1 and "no sync remote named 'personal'" in missing.output

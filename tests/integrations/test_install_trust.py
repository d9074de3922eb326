"""Will the agents run our hooks? Codex's per-hook trust and Gemini CLI's folder trust.

The Codex fixtures were written by Codex CLI 0.171.0 itself (tests/fixtures/codex-0.171-trust/
SOURCES.md): its own hash of each hook, and config.toml after the user trusted them.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from support.install import config_dirs
from support.paths import TESTS

from recallnest.integrations import install as inst
from recallnest.integrations import trust

FIXTURES = TESTS / "fixtures" / "codex-0.171-trust"
RECORDED_HOME = "/tmp/cx2/home"  # where the fixtures were made; rewritten to tmp_path
EXE = "/opt/recallnest/venv/bin/recallnest"


def fixture(name: str, home: Path) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8").replace(RECORDED_HOME, str(home))


@pytest.fixture
def codex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[inst.InstallContext, Path]:
    """A Codex home exactly as the fixtures show it: our hooks installed, our MCP server in
    config.toml, and the user's own comment, key and table there too. The fixtures were
    recorded before the UserPromptSubmit hook (issue 23) existed: install writes the three
    hooks Codex hashed then."""
    recorded = tuple(h for h in inst.SPECS["codex"].hooks if h.event != "UserPromptSubmit")
    monkeypatch.setitem(inst.SPECS, "codex", replace(inst.SPECS["codex"], hooks=recorded))
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    hooks = home / ".codex" / "hooks.json"
    hooks.write_text(
        json.dumps(inst.remove_hooks(json.loads(fixture("hooks.json", home)), "codex"))
    )
    inst.install(["codex"], ctx, mcp=True)
    assert json.loads(hooks.read_text()) == json.loads(fixture("hooks.json", home))
    (home / ".codex" / "config.toml").write_text(fixture("config-before-trust.toml", home))
    return ctx, home


def test_our_hash_is_the_one_codex_computes(tmp_path: Path) -> None:
    doc = json.loads(fixture("hooks.json", tmp_path))
    path = tmp_path / ".codex" / "hooks.json"
    mine = {h.key(path): h.trusted_hash for h in trust.codex_hooks(doc, bool)}
    listed = json.loads(fixture("hooks-list.json", tmp_path))["data"][0]["hooks"]
    assert len(listed) == 5  # the user's two hooks and our three
    assert mine == {h["key"]: h["currentHash"] for h in listed}


def test_install_says_the_hooks_are_not_trusted_yet_and_how(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, _ = codex
    ok, line = inst.trust_status("codex", ctx) or (True, "")
    assert not ok
    assert line.startswith("Codex has not trusted the recallnest hooks yet (0 of 3 trusted)")
    assert "/hooks" in line and "codex exec" in line


def test_once_codex_trusted_them_the_line_says_so(codex: tuple[inst.InstallContext, Path]) -> None:
    ctx, home = codex
    (home / ".codex" / "config.toml").write_text(fixture("config-trusted.toml", home))
    assert inst.trust_status("codex", ctx) == (True, "Codex trusts the recallnest hooks (3 of 3)")


def test_a_hook_changed_since_it_was_trusted_is_reported(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, home = codex
    (home / ".codex" / "config.toml").write_text(fixture("config-trusted.toml", home))
    moved = inst.InstallContext(ctx.home, ctx.state_dir, ctx.config_dirs, "/elsewhere/recallnest")
    inst.install(["codex"], moved)  # a new script path: a new hash for every handler
    ok, line = inst.trust_status("codex", moved) or (True, "")
    assert not ok and "0 of 3 trusted, 3 changed since you trusted them" in line


def test_uninstall_removes_our_trust_entries_and_keeps_the_rest_byte_for_byte(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, home = codex
    config = home / ".codex" / "config.toml"
    trusted = fixture("config-trusted.toml", home)
    config.write_text(trusted)
    inst.uninstall(["codex"], ctx, mcp=True)
    after = config.read_text()
    # Exactly our MCP block and our three trust tables went; the user's hooks keep their trust.
    ours = [
        f'[hooks.state."{home}/.codex/hooks.json:{key}"]'
        for key in ("pre_compact:0:0", "session_start:1:0", "session_end:0:0")
    ]
    expected = trusted
    for header in ours:
        start = expected.index("\n" + header)
        end = expected.find("\n\n", start + 1)
        expected = expected[:start] + (expected[end + 1 :] if end >= 0 else "\n")
    block = fixture("config-before-trust.toml", home)
    mcp = block[block.index("# recallnest memory tools") : block.index("\n[profiles.fast]")]
    expected = expected.replace("\n" + mcp, "", 1)
    assert after == expected
    state = tomllib.loads(after)["hooks"]["state"]
    assert sorted(k.rsplit(":", 3)[1] for k in state) == ["session_start", "stop"]
    assert "mcp_servers" not in tomllib.loads(after)


def test_uninstalling_only_the_hooks_still_removes_their_trust(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, home = codex
    config = home / ".codex" / "config.toml"
    config.write_text(fixture("config-trusted.toml", home))
    changes = inst.uninstall(["codex"], ctx)  # no mcp: the server stays
    assert [c.path.name for c in changes] == ["hooks.json", "config.toml"]
    doc = tomllib.loads(config.read_text())
    assert "recallnest" in doc["mcp_servers"]
    assert len(doc["hooks"]["state"]) == 2
    # A reinstall is not silently trusted by stale entries.
    inst.install(["codex"], ctx)
    assert not (inst.trust_status("codex", ctx) or (True, ""))[0]


def test_uninstall_with_no_trust_entries_leaves_config_toml_alone(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, home = codex
    config = home / ".codex" / "config.toml"
    before = config.read_bytes()
    changes = inst.uninstall(["codex"], ctx)
    assert [c.path.name for c in changes] == ["hooks.json"]
    assert config.read_bytes() == before


def test_a_symlinked_codex_home_still_matches_our_keys(
    codex: tuple[inst.InstallContext, Path], tmp_path: Path
) -> None:
    ctx, home = codex
    link = tmp_path / "codex-link"
    link.symlink_to(home / ".codex")
    # Codex was started with CODEX_HOME=<link>: its keys name the link, not the folder.
    text = fixture("config-trusted.toml", home).replace(f"{home}/.codex/", f"{link}/")
    (home / ".codex" / "config.toml").write_text(text)
    assert inst.trust_status("codex", ctx) == (True, "Codex trusts the recallnest hooks (3 of 3)")
    inst.uninstall(["codex"], ctx, mcp=True)
    assert len(tomllib.loads((home / ".codex" / "config.toml").read_text())["hooks"]["state"]) == 2


# --- Gemini CLI folder trust -------------------------------------------------------------------


def gemini_ctx(tmp_path: Path, cwd: Path, env: dict[str, str] | None = None) -> inst.InstallContext:
    home = tmp_path / "home"
    dirs = config_dirs(home, {})
    return inst.InstallContext(home, tmp_path / "state", dirs, EXE, cwd=cwd, env=env or {})


@pytest.mark.parametrize(
    ("rules", "env", "trusted"),
    [
        ({}, {}, False),
        ({"{project}": "TRUST_FOLDER"}, {}, True),
        ({"{project}/sub": "TRUST_PARENT"}, {}, True),
        ({"{parent}": "TRUST_FOLDER", "{project}": "DO_NOT_TRUST"}, {}, False),
        ({"{parent}": "DO_NOT_TRUST", "{project}": "TRUST_FOLDER"}, {}, True),
        ({}, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, True),
        ({"{project}": "TRUST_FOLDER"}, {"GEMINI_CLI_TRUST_WORKSPACE": "false"}, False),
    ],
)
def test_gemini_folder_trust_is_read_as_gemini_reads_it(
    tmp_path: Path, rules: dict[str, str], env: dict[str, str], trusted: bool
) -> None:
    project = tmp_path / "work" / "project"
    (project / "sub").mkdir(parents=True)
    ctx = gemini_ctx(tmp_path, project / "sub", env)
    folders = ctx.home / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir(parents=True)
    names = {"project": str(project), "parent": str(project.parent)}
    text = "// written by Gemini CLI\n" + json.dumps(
        {k.format(**names): v for k, v in rules.items()}
    )
    folders.write_text(text)
    inst.install(["gemini"], ctx)
    ok, line = inst.trust_status("gemini", ctx) or (None, "")
    assert ok is trusted
    assert str(project / "sub") in line
    if not trusted:
        assert "--skip-trust" in line and "MCP server" in line


def test_gemini_install_notes_no_longer_claim_hooks_run_without_trust(tmp_path: Path) -> None:
    ctx = gemini_ctx(tmp_path, tmp_path)
    (change,) = inst.install(["gemini"], ctx, mcp=True)
    text = " ".join(change.notes)
    assert "without approval" not in text
    assert "only in folders you trust" in text
    assert "does not trust" in change.notes[-1]
    shutil.rmtree(ctx.home)


def test_when_only_our_hooks_were_trusted_config_toml_comes_back_as_it_was(
    codex: tuple[inst.InstallContext, Path],
) -> None:
    ctx, home = codex
    config = home / ".codex" / "config.toml"
    inst.uninstall(["codex"], ctx, mcp=True)
    original = config.read_text()  # the user's file without anything of ours
    inst.install(["codex"], ctx, mcp=True)
    after_install = config.read_text()
    # Codex trusts just our three hooks: the [hooks.state] header and three tables, as it
    # wrote them in config-trusted.toml.
    trusted = fixture("config-trusted.toml", home)
    state = trusted[trusted.index("\n[hooks.state]\n") :]
    tables = [t for t in state.split("\n\n") if t.strip()]
    ours = [t for t in tables if ":session_start:0:0" not in t and ":stop:0:0" not in t]
    config.write_text(after_install + "\n" + "\n\n".join(ours) + "\n")
    assert inst.trust_status("codex", ctx) == (True, "Codex trusts the recallnest hooks (3 of 3)")
    inst.uninstall(["codex"], ctx, mcp=True)
    assert config.read_text() == original


def test_a_folder_trusted_in_gemini_itself_is_seen_as_trusted(tmp_path: Path) -> None:
    # The file Gemini CLI 0.61 wrote when its trust dialog was answered "Trust folder".
    written = (FIXTURES.parent / "gemini-0.61-trust" / "trustedFolders.json").read_text()
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    ctx = gemini_ctx(tmp_path, project / "sub")
    (ctx.home / ".gemini").mkdir(parents=True)
    (ctx.home / ".gemini" / "trustedFolders.json").write_text(
        written.replace("/tmp/gm3/proj", str(project))
    )
    inst.install(["gemini"], ctx)
    ok, line = inst.trust_status("gemini", ctx) or (False, "")
    assert ok and f"trusted by {project} (TRUST_FOLDER)" in line
    elsewhere = gemini_ctx(tmp_path, tmp_path)
    assert (inst.trust_status("gemini", elsewhere) or (True, ""))[0] is False


def test_an_unreadable_config_toml_does_not_undo_a_hooks_install(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text("model = [unclosed\n")
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    (change,) = inst.install(["codex"], ctx)  # hooks only: config.toml is not edited
    assert change.action == "create"
    assert "cannot tell whether codex will run the hooks" in change.notes[-1]
    assert "not valid TOML" in change.notes[-1]


def test_an_unreadable_config_toml_does_not_stop_a_hooks_uninstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    ctx = inst.InstallContext(home, tmp_path / "state", config_dirs(home, {}), EXE)
    inst.install(["codex"], ctx)
    config = home / ".codex" / "config.toml"
    config.write_text("model = [unclosed\n")
    changes = inst.uninstall(["codex"], ctx)
    assert [(c.path.name, c.action) for c in changes] == [
        ("hooks.json", "remove"),
        ("config.toml", "unchanged"),
    ]
    assert "not valid TOML" in changes[1].summary
    assert config.read_text() == "model = [unclosed\n"
    assert not (home / ".codex" / "hooks.json").exists()

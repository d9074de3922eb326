"""Settings files with comments and with the user's own layout: install edits only what it adds.

Gemini CLI reads settings.json through strip-json-comments (comments yes, trailing commas no);
Claude Code and Codex read plain JSON. The property tests write arbitrary user documents in
arbitrary layouts, install, and check that uninstall gives back the exact bytes: through the
backup, and also by cutting our entries out (no manifest, or the CLI edited the file since).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.examples import examples
from support.install import config_dirs

from recallnest.core.errors import ConfigError
from recallnest.integrations import install as inst
from recallnest.integrations import jsonc

EXE = "/opt/recallnest/venv/bin/recallnest"

GEMINI_WITH_COMMENTS = """// Gemini CLI settings: mine, keep these notes
{
  /* UI */
  "general": {"vimMode": true},   // I like vim
  "mcpServers": {
    "files": {"command": "npx", "args": ["-y", "@mcp/files"]} // "//" in strings is no comment
  },
  "url": "http://example.com/*not-a-comment*/"
}
"""


def make_ctx(root: Path) -> inst.InstallContext:
    home = root / "home"
    return inst.InstallContext(home, root / "state", config_dirs(home, {}), EXE)


def write(ctx: inst.InstallContext, agent: str, text: str) -> Path:
    path = inst.settings_path(ctx, agent)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))  # bytes: keep \r\n as written
    return path


def test_gemini_settings_with_comments_are_edited_and_restored(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    path = write(ctx, "gemini", GEMINI_WITH_COMMENTS)
    inst.install(["gemini"], ctx, mcp=True)
    text = path.read_text(encoding="utf-8")
    for line in GEMINI_WITH_COMMENTS.splitlines()[:5]:
        assert line in text  # comments and the user's own lines are untouched
    doc = jsonc.parse(text, comments=True).value
    assert "recallnest" in doc["mcpServers"] and "files" in doc["mcpServers"]
    assert doc["url"] == "http://example.com/*not-a-comment*/"
    assert [c.action for c in inst.uninstall(["gemini"], ctx, mcp=True)] == ["restore"]
    assert path.read_text(encoding="utf-8") == GEMINI_WITH_COMMENTS


def test_comments_survive_a_surgical_uninstall(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    path = write(ctx, "gemini", GEMINI_WITH_COMMENTS)
    inst.install(["gemini"], ctx, mcp=True)
    # Gemini (or the user) edits the file after install: the backup no longer applies.
    edited = path.read_text(encoding="utf-8").replace('"vimMode": true', '"vimMode": false')
    path.write_text(edited, encoding="utf-8")
    assert [c.action for c in inst.uninstall(["gemini"], ctx, mcp=True)] == ["update"]
    expected = GEMINI_WITH_COMMENTS.replace('"vimMode": true', '"vimMode": false')
    assert path.read_text(encoding="utf-8") == expected


@pytest.mark.parametrize(
    ("agent", "text", "reason"),
    [
        ("claude", '{\n  // no\n  "model": "opus"\n}\n', "holds a comment .line 2, column 3.,"),
        ("codex", '{"hooks": {} /* no */}', "comments are not allowed.*remove the comment"),
        ("gemini", '{\n  "general": {"vimMode": true},\n}\n', "trailing comma"),
        ("gemini", '{"a": 1} /* open', "unterminated"),
        ("gemini", '{"a": 1, "a": 2}', "duplicate key"),
    ],
)
def test_what_the_agent_would_not_read_is_refused_and_nothing_is_written(
    tmp_path: Path, agent: str, text: str, reason: str
) -> None:
    ctx = make_ctx(tmp_path)
    path = write(ctx, agent, text)
    with pytest.raises(ConfigError, match=reason) as err:
        inst.install([agent], ctx, mcp=True)
    assert "line" in str(err.value) and str(path) in str(err.value)
    assert path.read_text(encoding="utf-8") == text
    assert not (ctx.state_dir / inst.INSTALL_DIR_NAME).exists()


def test_the_users_layout_is_kept_line_for_line(tmp_path: Path) -> None:
    original = (
        '{"permissions": {"allow": ["Bash(ls)"]},\n'
        '   "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", '
        '"command": "echo hi"}]}]},\n'
        '   "model":"opus"}'
    )
    ctx = make_ctx(tmp_path)
    path = write(ctx, "claude", original)
    inst.install(["claude"], ctx)
    text = path.read_text(encoding="utf-8")
    assert text.startswith('{"permissions": {"allow": ["Bash(ls)"]},\n   "hooks": ')
    assert '"model":"opus"}' in text and text.endswith("}")
    assert '{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}' in text


# --- property: install then uninstall gives back the bytes ---------------------------------------

KEY = st.text(st.sampled_from('ab/*"\\é\n{}:, '), min_size=0, max_size=6)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.sampled_from('xy/*"\\\t é'), max_size=8),
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEY, inner, max_size=3),
    max_leaves=8,
)
# Containers install edits exist or not, but are never empty: a user's empty "hooks": {} would
# come back as no "hooks" at all after a surgical uninstall (we remove what we emptied).
OTHER_HOOK = st.fixed_dictionaries(
    {"hooks": st.just([{"type": "command", "command": "./mine.sh"}])},
    optional={"matcher": st.sampled_from(["*", "startup", "Bash"])},
)
HOOKS = st.dictionaries(
    st.sampled_from(["SessionStart", "PreToolUse", "Stop", "PreCompress"]),
    st.lists(OTHER_HOOK, min_size=1, max_size=2),
    min_size=1,
    max_size=2,
)
SERVERS = st.dictionaries(
    st.sampled_from(["files", "web"]), st.just({"command": "npx"}), min_size=1, max_size=2
)
USER_DOC = st.fixed_dictionaries(
    {}, optional={"hooks": HOOKS, "mcpServers": SERVERS, "model": VALUE, "env": VALUE}
).flatmap(
    lambda d: st.dictionaries(KEY.filter(lambda k: k not in d), VALUE, max_size=3).map(
        lambda extra: {**extra, **d}
    )
)


def render(value: Any, rng: random.Random, indent: str | None, comments: bool, level: int) -> str:
    """`value` as JSON text in a given layout, with comments sprinkled in the gaps."""

    def gap() -> str:
        if not comments or rng.random() < 0.6:
            return ""
        return rng.choice([" /* c */", " /* a, b */", "// x, y\n" if indent is not None else ""])

    if isinstance(value, dict):
        parts = [
            f"{json.dumps(k, ensure_ascii=rng.random() < 0.5)}{rng.choice([': ', ':', ' : '])}"
            + render(v, rng, indent, comments, level + 1)
            for k, v in value.items()
        ]
        return _wrap("{", "}", parts, indent, level, gap)
    if isinstance(value, list):
        items = [render(v, rng, indent, comments, level + 1) for v in value]
        return _wrap("[", "]", items, indent, level, gap)
    return json.dumps(value)


def _wrap(
    open_: str, close: str, parts: list[str], indent: str | None, level: int, gap: Any
) -> str:
    if not parts:
        return open_ + close
    if indent is None:
        return open_ + "".join(f"{p},{gap()} " for p in parts[:-1]) + parts[-1] + gap() + close
    inner = indent * (level + 1)
    body = "".join(f"\n{inner}{p},{gap()}" for p in parts[:-1]) + f"\n{inner}{parts[-1]}{gap()}"
    return open_ + gap() + body + "\n" + indent * level + close


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    agent=st.sampled_from(["claude", "codex", "gemini"]),
    doc=USER_DOC,
    indent=st.sampled_from([None, "  ", "    ", "\t", " "]),
    seed=st.integers(0, 2**16),
    newline=st.booleans(),
    crlf=st.booleans(),
)
def test_install_then_uninstall_gives_back_the_bytes(
    agent: str, doc: dict[str, Any], indent: str | None, seed: int, newline: bool, crlf: bool
) -> None:
    comments = agent == "gemini"
    text = render(doc, random.Random(seed), indent, comments, 0) + ("\n" if newline else "")
    text = text.replace("\n", "\r\n") if crlf else text
    assert canon(jsonc.parse(text, comments=comments).value) == canon(doc)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = make_ctx(Path(tmp))
        path = write(ctx, agent, text)
        inst.install([agent], ctx)
        installed = path.read_bytes()
        if "\r\n" in text:  # what we add follows the file's line endings
            assert installed.count(b"\n") == installed.count(b"\r\n")
        new = jsonc.parse(installed.decode(), comments=comments).value
        assert inst.remove_hooks(new, agent) == doc
        # With the manifest: the backup comes back.
        inst.uninstall([agent], ctx)
        assert path.read_bytes().decode("utf-8") == text
        # Without it (or after the CLI's own edit): our entries are cut out of the text.
        inst.install([agent], ctx)
        (ctx.state_dir / inst.INSTALL_DIR_NAME / "manifest.json").unlink()
        inst.uninstall([agent], ctx)
        assert path.read_bytes().decode("utf-8") == text


@settings(max_examples=examples(100), deadline=None)
@given(doc=USER_DOC, indent=st.sampled_from([None, "  ", "\t"]), seed=st.integers(0, 2**16))
def test_a_later_edit_by_the_cli_is_kept_and_ours_cut_out(
    doc: dict[str, Any], indent: str | None, seed: int
) -> None:
    text = render(doc, random.Random(seed), indent, True, 0)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = make_ctx(Path(tmp))
        path = write(ctx, "gemini", text)
        inst.install(["gemini"], ctx, mcp=True)
        installed = path.read_text(encoding="utf-8")
        state = {**jsonc.parse(installed, comments=True).value, "cliState": {"n": 1}}
        path.write_text(jsonc.splice(installed, state, comments=True), encoding="utf-8")
        inst.uninstall(["gemini"], ctx, mcp=True)
        expected = jsonc.splice(text, {**doc, "cliState": {"n": 1}}, comments=True)
        assert path.read_text(encoding="utf-8") == expected


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)

"""README stays true: the CLI reference is the current --help output, every command is
documented, and .ci/run runs the README's test command verbatim."""

from __future__ import annotations

import os
import re

import click
from click.testing import CliRunner
from support.paths import ROOT

from recallnest.cli import cli

README = ROOT / "README.md"
START, END = "<!-- cli-reference:start -->", "<!-- cli-reference:end -->"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [prefix]
    for name in sorted(group.commands):
        command = group.commands[name]
        if isinstance(command, click.Group):
            out.extend(_commands(command, (*prefix, name)))
        else:
            out.append((*prefix, name))
    return out


def _reference() -> str:
    runner = CliRunner()
    parts = []
    for path in _commands(cli):
        result = runner.invoke(cli, [*path, "--help"], prog_name="recallnest", terminal_width=100)
        assert result.exit_code == 0, result.output
        title = " ".join(("recallnest", *path))
        parts.append(f"### `{title}`\n\n```\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


def test_cli_reference_is_current() -> None:
    text = README.read_text(encoding="utf-8")
    expected = f"{START}\n{_reference()}\n{END}"
    current = re.search(re.escape(START) + ".*?" + re.escape(END), text, re.S)
    assert current is not None
    if os.environ.get("REGEN_DOCS"):
        README.write_text(text.replace(current.group(0), expected), encoding="utf-8")
        return
    regen = "run: REGEN_DOCS=1 python -m pytest tests/system/test_docs.py"
    assert current.group(0) == expected, regen


def test_every_command_has_help_text() -> None:
    for path in _commands(cli)[1:]:
        command: click.Command = cli
        for name in path:
            assert isinstance(command, click.Group)
            command = command.commands[name]
        assert command.help, f"{' '.join(path)} has no help text"


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    text = README.read_text(encoding="utf-8")
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, re.S)
    assert len(commands) == 2
    assert commands[0].startswith("pip install .")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci.splitlines()


def test_readme_says_to_clone_enter_and_make_a_virtualenv_first() -> None:
    """A newcomer starts from nothing: the clone and the virtualenv come before the two
    set-up commands, and the virtualenv lines are the ones CI runs."""
    text = README.read_text(encoding="utf-8")
    setup = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    first = re.search(r"```console\n(.*?)\n```", setup, re.S)
    assert first is not None and setup.index(first.group(0)) < setup.index("```sh")
    clone, venv = first.group(1).splitlines()
    assert clone.startswith("git clone ") and "&& cd recallnest" in clone
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert all(step.strip() in ci for step in venv.split("&&"))

"""terminal: the one cleaning function of human output, and JSON that escapes instead."""

from __future__ import annotations

import io
import json
import sys

import click

from recallnest.core import terminal

HOSTILE = "a\x1b]52;c;aGk=\x07b\u202ec\x00d\x9b2Je\u2028f\rg\U000e0041h\ud800i"


def test_clean_keeps_text_newlines_and_tabs_and_drops_every_control() -> None:
    assert terminal.clean(HOSTILE + "\n\tj") == "a]52;c;aGk=bcd2Jefghi\n\tj"
    assert terminal.clean("plain ASCII, 中文, émoji 🙂") == "plain ASCII, 中文, émoji 🙂"


def test_json_dumps_escapes_what_it_would_clean_and_round_trips() -> None:
    data = {"text": HOSTILE.replace("\ud800", "")}
    out = terminal.json_dumps(data)
    assert terminal.clean(out) == out  # nothing raw left to clean
    assert json.loads(out) == data
    assert "中文" in terminal.json_dumps("中文")  # readable text stays readable


def test_clean_output_wraps_click_echo_and_errors() -> None:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        with terminal.clean_output():
            click.echo(HOSTILE)
            click.echo(HOSTILE, err=True)
            assert terminal.raw(sys.stdout) is out
    finally:
        sys.stdout, sys.stderr = saved
    assert out.getvalue() == err.getvalue() == terminal.clean(HOSTILE) + "\n"

"""Text bound for a person's terminal: no control, format or bidi character gets through.

Stored text comes from transcripts, and a transcript can hold anything an agent or a tool
printed: an OSC 52 clipboard write, an OSC 0 window title, a CSI cursor move, BEL, NUL, a
carriage return that overwrites the line, U+202E that reverses what follows. `clean` removes
every such character (Unicode categories Cc, Cf, Cs, Co, Cn, Zl, Zp), keeping newlines and
tabs; what is left of an escape sequence is plain, inert text. `json_dumps` keeps the data
instead: those characters leave as `\\uXXXX` escapes, so `--json` output and exports stay
valid, lossless JSON without a raw ESC or bidi control in them.

`clean_output()` applies `clean` at the CLI's one output boundary: while it is active,
`sys.stdout` and `sys.stderr` are wrapped, so every echo, error message and help text is
cleaned without each command having to remember. Our own progress bars redraw with a carriage
return and write their fixed labels to `raw(sys.stderr)`.

Standard library only; imports nothing from recallnest.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from functools import cache
from typing import Any, TextIO

__all__ = ["UNSAFE_CATEGORIES", "clean", "clean_output", "json_dumps", "raw"]

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_SUSPECT = re.compile(r"[^\t\n\x20-\x7e]+")  # fast path: printable ASCII never needs a look


@cache  # outputs repeat the same few non-ASCII characters (CJK, punctuation) many times
def _unsafe(ch: str) -> bool:
    return ch not in "\t\n" and unicodedata.category(ch) in UNSAFE_CATEGORIES


def clean(text: str) -> str:
    """`text` without control, format, bidi, surrogate and unassigned characters."""
    return _SUSPECT.sub(lambda m: "".join(ch for ch in m.group(0) if not _unsafe(ch)), text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:  # JSON spells an astral character as a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_dumps(data: Any, **options: Any) -> str:
    """`json.dumps(data, ensure_ascii=False, **options)` with every unsafe character escaped
    (json escapes only U+0000–U+001F itself). They can only occur inside strings, so the
    result is the same JSON document."""
    text = json.dumps(data, ensure_ascii=False, **options)
    return _SUSPECT.sub(
        lambda m: "".join(_escape(ch) if _unsafe(ch) else ch for ch in m.group(0)), text
    )


class _CleanStream(io.TextIOBase):
    """A text stream that writes `clean(s)` to `target`. It has no `buffer`, so click cannot
    go around it to the bytes underneath."""

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target

    def write(self, s: str) -> int:
        if not isinstance(s, str):  # click probes for a binary stream with write(b"")
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        self.target.write(clean(s))
        return len(s)

    def flush(self) -> None:
        self.target.flush()

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)


def raw(stream: TextIO) -> TextIO:
    """The stream under a cleaning wrapper (itself if it is not one)."""
    return stream.target if isinstance(stream, _CleanStream) else stream


@contextlib.contextmanager
def clean_output() -> Iterator[None]:
    """Clean everything written to sys.stdout and sys.stderr until the block ends."""
    saved = sys.stdout, sys.stderr
    sys.stdout = _CleanStream(raw(sys.stdout))
    sys.stderr = _CleanStream(raw(sys.stderr))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved

"""An incremental reader of one JSON object whose bulk is one array: Gemini's legacy sessions.

`members(chunks, key)` yields the object's top-level members in file order, as (name, value);
the array under `key` is not built: each element is yielded on its own as (key + "[]",
element). A value under `key` that is not an array is yielded whole, as (key, value).
Memory is one element plus one chunk, not the whole document (issue 18.9: a 63 MB session
took the daemon from 208 MB to a 2 GB peak with `json.loads`).

Values are decoded by `json.JSONDecoder.raw_decode`, so they are exactly what `json.loads`
gives. A value that runs past the data read so far is decoded again after the next chunk; the
read-ahead grows with the value, so a huge element costs linear time. Bad or truncated input
raises `StreamError` AFTER every complete member before it was yielded: a half-written file
loses nothing it already held. Pure: the caller supplies the bytes.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"
_DELIMITERS = _WHITESPACE + ",]}"
_COMPACT_AT = 1 << 16  # drop consumed text from the buffer once this much has been read


class StreamError(ValueError):
    """The bytes are not one complete JSON object (truncated, invalid JSON or UTF-8)."""


class _Buffer:
    """Decoded text read so far, a read position, and more text on demand."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self.text = ""
        self.pos = 0
        self.done = False

    def more(self, at_least: int = 0) -> bool:
        """Append at least `at_least` more characters (one chunk when 0); False at the end."""
        if self.done:
            return False
        if self.pos >= _COMPACT_AT:
            self.text, self.pos = self.text[self.pos :], 0
        target = len(self.text) + max(at_least, 1)
        parts = [self.text]
        size = len(self.text)
        while size < target and not self.done:
            part = self._next_text()
            parts.append(part)
            size += len(part)
        self.text = "".join(parts)
        return True

    def _next_text(self) -> str:
        try:
            chunk = next(self._chunks)
        except StopIteration:
            self.done = True
            return self._decode(b"", final=True)
        return self._decode(chunk, final=False)

    def _decode(self, data: bytes, final: bool) -> str:
        try:
            return self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            raise StreamError(f"not UTF-8: {exc}") from exc

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end), not consumed."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.text) or not self.more():
                return self.text[self.pos : self.pos + 1]

    def expect(self, allowed: str) -> str:
        """Consume the next non-whitespace character, which must be one of `allowed`."""
        found = self.peek()
        if not found or found not in allowed:
            where = "the end" if not found else repr(found)
            raise StreamError(f"expected one of {allowed!r} at character {self.pos}, got {where}")
        self.pos += 1
        return found

    def value(self) -> object:
        """Decode the JSON value at the read position, reading on while it is incomplete."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.text, self.pos)
            except json.JSONDecodeError as exc:
                if not self.more(len(self.text) - self.pos):
                    raise StreamError(f"bad or truncated JSON: {exc}") from exc
                continue
            except RecursionError as exc:
                raise StreamError("JSON nested too deeply") from exc
            if not self._may_go_on(value, end) or not self.more():
                self.pos = end
                return value

    def _may_go_on(self, value: object, end: int) -> bool:
        """A value decoded up to the buffer's end may go on in the next chunk, and so may a
        number cut inside (`2.` then `5e-3`): one is complete only before a delimiter."""
        if end >= len(self.text):
            return True
        number = isinstance(value, int | float) and not isinstance(value, bool)
        return number and self.text[end] not in _DELIMITERS


def members(chunks: Iterable[bytes], key: str) -> Iterator[tuple[str, object]]:
    """The top-level members of the JSON object in `chunks`, the array under `key` element by
    element (see the module doc). Raises StreamError after the last complete member."""
    buffer = _Buffer(chunks)
    buffer.expect("{")
    if buffer.peek() == "}":
        buffer.expect("}")
    else:
        yield from _members(buffer, key)
    if buffer.peek():
        raise StreamError(f"data after the end of the JSON object at character {buffer.pos}")


def _members(buffer: _Buffer, key: str) -> Iterator[tuple[str, object]]:
    while True:
        name = buffer.value()
        if not isinstance(name, str):
            raise StreamError(f"expected a member name at character {buffer.pos}")
        buffer.expect(":")
        if name == key and buffer.peek() == "[":
            yield from ((name + "[]", element) for element in _elements(buffer))
        else:
            yield name, buffer.value()
        if buffer.expect(",}") == "}":
            return


def _elements(buffer: _Buffer) -> Iterator[object]:
    buffer.expect("[")
    if buffer.peek() == "]":
        buffer.expect("]")
        return
    while True:
        yield buffer.value()
        if buffer.expect(",]") == "]":
            return

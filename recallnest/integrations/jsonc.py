"""Read JSON settings files (optionally with comments) and edit them without disturbing the rest.

`parse(text)` returns the value together with where each value sits in the text. `splice(text,
new)` rewrites only the parts of the text whose value differs from `new`: a member or element we
add is appended after the last one, in the indentation and spacing its siblings use; one we
remove is cut out with its comma; everything else (comments, layout, key order, escapes) keeps
its bytes. Cutting out what `splice` appended gives back the original bytes.

Comments (`//` and `/* */`) are accepted only when asked for: Gemini CLI reads its settings
through strip-json-comments, while Claude Code and Codex read plain JSON. Trailing commas are
refused everywhere, as JSON.parse refuses them after strip-json-comments.

This module does no I/O.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

MAX_DEPTH = 200  # deeper nesting than any settings file; keeps the recursion bounded
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"', re.DOTALL)
_LITERALS = {"true": True, "false": False, "null": None}
_SPACE = re.compile(r"[ \t\r\n]*")
_TRIVIA = re.compile(r"(?:[ \t\r\n]+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)


class JsoncError(ValueError):
    """The text is not JSON (with comments, when they are allowed)."""


@dataclass(frozen=True, slots=True)
class Item:
    """A member of an object (with its key) or an element of an array (key None)."""

    key: str | None
    start: int  # where the key (or the element) starts
    node: Node
    colon: str = ""  # what stands between the key and its value (objects only)


@dataclass(frozen=True, slots=True)
class Node:
    """A value and its span [start, end) in the text; containers list their items."""

    start: int
    end: int
    value: Any
    kind: str  # "object", "array" or "scalar"
    items: tuple[Item, ...] = ()


def canon(value: Any) -> str:
    """A text that is equal for equal JSON values (and different for 1, 1.0 and true)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --- parsing -----------------------------------------------------------------------------------


def parse(text: str, *, comments: bool = False) -> Node:
    """The document tree of `text`; JsoncError (with line and column) if it is not JSON."""
    parser = _Parser(text, comments)
    parser.skip()
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        parser.fail("unexpected text after the JSON value")
    return node


def has_comments(text: str) -> bool:
    """Whether `text` (JSON that parses with comments allowed) holds any comment."""
    return any(m.group(0).startswith("/") for m in _COMMENT_OR_STRING.finditer(text))


_COMMENT_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text, self.comments, self.pos = text, comments, 0

    def fail(self, message: str) -> None:
        line = self.text.count("\n", 0, self.pos) + 1
        column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1) + 1
        raise JsoncError(f"{message} (line {line}, column {column})")

    def skip(self) -> None:
        """Past whitespace (and comments, when allowed)."""
        pattern = _TRIVIA if self.comments else _SPACE
        self.pos = pattern.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.text.startswith("/", self.pos):
            if not self.comments:
                self.fail("comments are not allowed in this file")
            self.fail(
                "unterminated /* comment" if self.text.startswith("/*", self.pos) else "stray /"
            )

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            self.fail("nested too deeply")
        ch = self.text[self.pos : self.pos + 1]
        if ch == "{":
            return self.container(depth, "object", "}")
        if ch == "[":
            return self.container(depth, "array", "]")
        return self.scalar()

    def container(self, depth: int, kind: str, close: str) -> Node:
        start = self.pos
        self.pos += 1
        items: list[Item] = []
        self.skip()
        while self.text[self.pos : self.pos + 1] != close:
            if items:
                self.expect(",")
                self.skip()
                if self.text[self.pos : self.pos + 1] == close:
                    self.fail("trailing comma")
            items.append(self.member(depth) if kind == "object" else self.element(depth))
            self.skip()
        self.pos += 1
        return Node(start, self.pos, self.build(kind, items), kind, tuple(items))

    def member(self, depth: int) -> Item:
        start = self.pos
        key = self.scalar()
        if not isinstance(key.value, str) or self.text[start] != '"':
            self.fail("expected a string key")
        self.skip()
        self.expect(":")
        self.skip()
        return Item(key.value, start, self.value(depth + 1), self.text[key.end : self.pos])

    def element(self, depth: int) -> Item:
        node = self.value(depth + 1)
        return Item(None, node.start, node)

    def build(self, kind: str, items: list[Item]) -> Any:
        if kind == "array":
            return [item.node.value for item in items]
        keys = [item.key for item in items]
        if len(set(keys)) != len(keys):
            dup = next(k for k in keys if keys.count(k) > 1)
            self.fail(f"duplicate key {dup!r}")
        return {item.key: item.node.value for item in items}

    def scalar(self) -> Node:
        start, text = self.pos, self.text
        for pattern in (_STRING, _NUMBER):
            match = pattern.match(text, start)
            if match:
                self.pos = match.end()
                raw = match.group(0)
                plain = raw[0] == '"' and "\\" not in raw  # the common case, without json.loads
                return Node(start, self.pos, raw[1:-1] if plain else json.loads(raw), "scalar")
        for word, value in _LITERALS.items():
            if text.startswith(word, start):
                self.pos = start + len(word)
                return Node(start, self.pos, value, "scalar")
        self.fail("expected a JSON value")
        raise AssertionError  # fail() always raises

    def expect(self, ch: str) -> None:
        if self.text[self.pos : self.pos + 1] != ch:
            self.fail(f"expected {ch!r}")
        self.pos += 1


# --- splicing ----------------------------------------------------------------------------------


def splice(text: str, new: Any, *, comments: bool = False, ensure_ascii: bool = False) -> str:
    """`text` rewritten to hold `new`, changing only what differs (see the module docstring)."""
    root = parse(text, comments=comments)
    edits: list[tuple[int, int, str]] = []
    newline = "\r\n" if "\r\n" in text else "\n"
    _Splicer(text, _indent_unit(text), ensure_ascii, edits, newline).diff(root, new)
    out = text
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + replacement + out[end:]
    back = parse(out, comments=True).value if comments else json.loads(out)
    if canon(back) != canon(new):
        raise JsoncError("internal error: the edited text does not hold the intended value")
    return out


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else "  "


def _line_indent(text: str, pos: int) -> str:
    line_start = text.rfind("\n", 0, pos) + 1
    match = re.match(r"[ \t]*", text[line_start:pos])
    return match.group(0) if match else ""


@dataclass(slots=True)
class _Splicer:
    text: str
    unit: str
    ensure_ascii: bool
    edits: list[tuple[int, int, str]]
    newline: str = "\n"

    def diff(self, node: Node, new: Any) -> None:
        if canon(node.value) == canon(new):
            return
        if node.kind == "object" and isinstance(new, dict):
            self.diff_object(node, new)
        elif node.kind == "array" and isinstance(new, list):
            self.diff_array(node, new)
        else:
            self.replace(node, new)

    def replace(self, node: Node, new: Any) -> None:
        self.edits.append(
            (node.start, node.end, self.dump(new, _line_indent(self.text, node.start)))
        )

    def dump(self, value: Any, indent: str | None) -> str:
        if indent is None:
            return json.dumps(value, ensure_ascii=self.ensure_ascii)
        text = json.dumps(value, indent=self.unit, ensure_ascii=self.ensure_ascii)
        return text.replace("\n", self.newline + indent)

    def diff_object(self, node: Node, new: dict[str, Any]) -> None:
        kept = [item for item in node.items if item.key in new]
        for item in kept:
            self.diff(item.node, new[str(item.key)])
        removed = {n for n, item in enumerate(node.items) if item.key not in new}
        old_keys = {item.key for item in node.items}
        added = [self.member_text(node, k, v) for k, v in new.items() if k not in old_keys]
        self.rebuild(node, new, removed, added)

    def diff_array(self, node: Node, new: list[Any]) -> None:
        old = [canon(item.node.value) for item in node.items]
        matcher = difflib.SequenceMatcher(None, old, [canon(v) for v in new], autojunk=False)
        pairs: list[tuple[int, int]] = []
        removed: set[int] = set()
        appended: list[Any] = []
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            both = min(i2 - i1, j2 - j1) if op == "replace" else 0
            pairs += [(i1 + k, j1 + k) for k in range(both)]
            removed.update(range(i1 + both, i2))
            if j2 - j1 > both and i2 < len(node.items):  # inserted before an element
                self.replace(node, new)
                return
            appended += new[j1 + both : j2]
        for i, j in pairs:
            self.diff(node.items[i].node, new[j])
        self.rebuild(node, new, removed, [self.element_text(node, v) for v in appended])

    def rebuild(self, node: Node, new: Any, removed: set[int], added: list[str]) -> None:
        items = node.items
        if len(removed) == len(items) and (added or len(items) == 0):
            self.replace(node, new)  # nothing of the old container is left to lay out from
            return
        for run in _runs(sorted(removed)):
            self.cut(node, run[0], run[-1])
        if added:
            sep = self.separator(node)
            self.edits.append(
                (items[-1].node.end, items[-1].node.end, "".join(f",{sep}{a}" for a in added))
            )

    def cut(self, node: Node, first: int, last: int) -> None:
        """Remove items first..last with the right comma: a run at the end takes the comma
        before it, any other run the comma after it; comments in the gap we cut into stay."""
        items, text = node.items, self.text
        if last == len(items) - 1 and first > 0:
            comma = _find_comma(text, items[first - 1].node.end)
            tail = _after_comments(text, comma + 1, items[first].start)
            if tail == comma + 1:
                self.edits.append((comma, items[last].node.end, ""))
            else:
                self.edits += [(comma, comma + 1, ""), (tail, items[last].node.end, "")]
        elif last == len(items) - 1:  # every item, and nothing added
            inner = text[node.start + 1 : node.end - 1]
            if has_comments(inner):
                self.edits.append((items[0].start, items[last].node.end, ""))
            else:
                self.edits.append((node.start + 1, node.end - 1, ""))
        else:
            nxt = items[last + 1].start
            comma = _find_comma(text, items[last].node.end)
            head = _first_comment(text, comma + 1, nxt)
            self.edits.append((items[first].start, nxt if head is None else head, ""))

    def separator(self, node: Node) -> str:
        """What goes between a comma and the next item in this container."""
        items, text = node.items, self.text
        if len(items) >= 2:
            gap = text[items[-2].node.end : items[-1].start]
            if not has_comments(gap) and gap.strip() == ",":
                return gap[gap.index(",") + 1 :]
        first = items[0].start
        if "\n" in text[node.start : first]:
            return self.newline + _line_indent(text, first)
        return " "

    def item_indent(self, node: Node) -> str | None:
        """The indentation of items on their own lines; None for a one-line container."""
        if not node.items:
            return None
        first = node.items[0].start
        return _line_indent(self.text, first) if "\n" in self.text[node.start : first] else None

    def member_text(self, node: Node, key: str, value: Any) -> str:
        colon = ": "
        if node.items and node.items[0].colon.strip() == ":" and "\n" not in node.items[0].colon:
            colon = node.items[0].colon
        key_text = json.dumps(key, ensure_ascii=self.ensure_ascii)
        return key_text + colon + self.dump(value, self.item_indent(node))

    def element_text(self, node: Node, value: Any) -> str:
        return self.dump(value, self.item_indent(node))


def _runs(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _comment_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [
        (start + m.start(), start + m.end())
        for m in _COMMENT_OR_STRING.finditer(text[start:end])
        if m.group(0).startswith("/")
    ]


def _after_comments(text: str, start: int, end: int) -> int:
    """The end of the last comment in text[start:end], or `start` if there is none."""
    spans = _comment_spans(text, start, end)
    return spans[-1][1] if spans else start


def _first_comment(text: str, start: int, end: int) -> int | None:
    spans = _comment_spans(text, start, end)
    return spans[0][0] if spans else None


def _find_comma(text: str, start: int) -> int:
    """The first comma at or after `start` that is not inside a comment."""
    pos = start
    for span_start, span_end in _comment_spans(text, start, len(text)):
        comma = text.find(",", pos, span_start)
        if comma >= 0:
            return comma
        pos = span_end
    return text.index(",", pos)

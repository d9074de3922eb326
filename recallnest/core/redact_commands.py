"""Where a known command line takes a password as a positional word: `rabbitmqctl add_user
<user> <password>`, `upx login <bucket> <operator> <password>`, `pocketbase superuser upsert
<email> <password>`, `htpasswd -b <file> <user> <password>`, `wpa_passphrase <ssid>
<passphrase>`, or after a keyword of the tool's own (`nmcli … password <pw>`).

Nothing beside such a password names it, so only the tool's grammar says which word it is:
each tool is listed with its subcommand and the position of the password after it. The line
is split into words (quoted words whole), flags are skipped, and the offset of the password's
word is returned; `recallnest.core.redact` matches and judges the value there.

Pure and standard library only, like `recallnest.core.redact`, its only caller. Linear: the
words of a command are read once (a keyword's two at each keyword), a bounded number of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["password_arg_starts"]


@dataclass(frozen=True, slots=True)
class _Command:
    words: tuple[frozenset[str], ...]  # the subcommand, word by word (alternatives per word)
    slot: int  # the password's position among the arguments (-1: the last)
    flag: str = ""  # a letter that must be among the short flags (`htpasswd -b`: batch mode)


def _cmd(words: str, slot: int, flag: str = "") -> _Command:
    """`_cmd("superuser|admin create|upsert", 1)`: words separated by spaces, alternatives by
    `|`; then the password's position among the arguments after them."""
    return _Command(tuple(frozenset(w.split("|")) for w in words.split()), slot, flag)


_LAST = -1
# Tool (lower case, as typed) -> its command that takes a password positionally.
# Trigger: secrets s42 and e2e-heldout16 (rabbitmqctl, upx, pocketbase, nmcli); the rest are
# the same grammar in other tools people paste: an account's password given to a broker's,
# a storage's, a backend's or a password manager's CLI, or a Wi-Fi passphrase.
_COMMANDS: dict[str, _Command] = {
    "rabbitmqctl": _cmd("add_user|change_password|authenticate_user", 1),  # user, password
    "upx": _cmd("login", 2),  # UpYun: bucket, operator, password
    "pocketbase": _cmd("superuser|admin create|upsert|update", 1),  # email, password
    "htpasswd": _cmd("", _LAST, flag="b"),  # -b [file] user password (-n: no file)
    "mosquitto_passwd": _cmd("", 2, flag="b"),  # -b file user password
    "cf": _cmd("auth", 1),  # Cloud Foundry: user, password
    "bw": _cmd("login", 1),  # Bitwarden: email, master password
    "mega-login": _cmd("", 1),  # MEGAcmd: email, password
    "net": _cmd("user", 1),  # Windows: net user <name> <password> [/add]
    "wpa_passphrase": _cmd("", 1),  # ssid, passphrase
    "raspi-config": _cmd("nonint do_wifi_ssid_passphrase", 1),  # ssid, passphrase
}
# Tool -> keywords whose next word is the password, anywhere on its command line: `nmcli dev
# wifi connect <ssid> password <pw>`, `nmcli con modify <c> wifi-sec.psk <pw>` (nmcli lines
# run long, so the words are read from the keyword, not from the tool); `mysqladmin -u root
# password <new>`.
_KEYWORDS: dict[str, frozenset[str]] = {
    "nmcli": frozenset(
        ("password", "wifi-sec.psk", "802-11-wireless-security.psk", "802-1x.password")
    ),
    "mysqladmin": frozenset(("password",)),
}

# Where the commands are looked for: a word of theirs, what comes right before it, and the
# tools whose command line it can be part of.
# (A regex for the tools' names, tried at every offset, cost ~15 us a turn; each str.find
# ~1 us; so the tools are looked for only on the lines these words are on.)
_ANCHORS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "pass": (
        ("ht", ("htpasswd",)),
        ("mosquitto_", ("mosquitto_passwd",)),
        ("wpa_", ("wpa_passphrase",)),
        ("change_", ("rabbitmqctl",)),
        ("ssid_", ("raspi-config",)),
        (" ", ("nmcli", "mysqladmin")),  # `… password <pw>`
        (".", ("nmcli",)),  # `802-1x.password <pw>`
    ),
    "psk": ((".", ("nmcli",)),),  # `wifi-sec.psk <pw>`
    "auth": (("cf ", ("cf",)),),
    "user": (
        ("add_", ("rabbitmqctl",)),
        ("authenticate_", ("rabbitmqctl",)),
        ("super", ("pocketbase",)),
        ("net ", ("net",)),
    ),
    "login": (("upx ", ("upx",)), ("bw ", ("bw",)), ("mega-", ("mega-login",))),
    "pocketbase": (("", ("pocketbase",)),),  # `pocketbase admin create …`
}
# The words of _ANCHORS not given by the caller: searched for here.
_SEARCHED = ("user", "login", "pocketbase")
_BEFORE = {word: tuple(before for before, _tools in places) for word, places in _ANCHORS.items()}

_TOOL_LEFT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-.")
# A word: quoted parts and unquoted runs glued together (`--pw='a b'`), each bounded.
_WORD_RE = re.compile(r"[ \t]{1,16}((?:[^\s\"']{1,512}|\"[^\"\n]{0,256}\"|'[^'\n]{0,256}'){1,8})")
# Words that end the command: shell operators, a comment, prose resuming in Chinese.
_STOP_CHARS = frozenset("&|;<>#)`")
# `nmcli -g 802-11-wireless-security.psk connection show x`: a field list, not an argument.
_FIELD_FLAGS = frozenset(("-g", "-f", "--fields", "--get-values"))
_LINE_REACH = 300
_MAX_WORDS = 10  # a subcommand of two words, flags, three arguments
_BLANKS_RE = re.compile(r"[ \t]")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")
_OPERATORS = ("&", "|", ";")


def password_arg_starts(lowered: str, text: str, found: Mapping[str, Iterable[int]]) -> list[int]:
    """Offsets of the password words of the known commands in `text`; `found` holds the
    offsets of "pass", "psk" and "auth" in `lowered`, which the caller has looked for.

    `lowered` is `text` lower-cased, of the same length: tools and subcommands are matched in
    it, flags in `text`, where `htpasswd -b` (batch) and `-B` (bcrypt) differ."""
    # Only the words after what a command's word has before it (not `"role": "user"`).
    hits: list[tuple[int, str]] = []
    for word, offsets in found.items():
        befores = _BEFORE[word]
        for i in offsets:
            if lowered.endswith(befores, 0, i):
                hits.append((i, word))
    for word in _SEARCHED:
        befores = _BEFORE[word]
        i = lowered.find(word)
        while i != -1:
            if lowered.endswith(befores, 0, i):
                hits.append((i, word))
            i = lowered.find(word, i + len(word))
    starts: set[int] = set()
    tried: set[tuple[int, int]] = set()
    for i, word in hits:
        line_start = max(lowered.rfind("\n", max(0, i - _LINE_REACH), i) + 1, i - _LINE_REACH)
        newline = lowered.find("\n", i, i + _LINE_REACH)
        line_end = min(len(lowered), i + _LINE_REACH) if newline == -1 else newline
        for before, tools in _ANCHORS[word]:
            if not lowered.endswith(before, 0, i):
                continue
            for tool in tools:
                at = lowered.rfind(tool, line_start, min(line_end, i + len(tool)))
                # A keyword tool's line is read at each keyword, another tool's once.
                key = (at, i if tool in _KEYWORDS else -1)
                if at == -1 or key in tried or not _is_tool(lowered, at, at + len(tool)):
                    continue
                tried.add(key)
                end = at + len(tool)
                if tool in _KEYWORDS:
                    offset = _keyword_value(lowered, text, end, i, line_end, _KEYWORDS[tool])
                else:
                    offset = _password_word(_words(text, end, line_end), _COMMANDS[tool])
                if offset is not None:
                    starts.add(offset)
    return sorted(starts)


def _is_tool(lowered: str, start: int, end: int) -> bool:
    """The tool's name is a word of its own (`./pocketbase`, `sudo net`), not `dotnet`, `.net`."""
    before = lowered[start - 1] if start else " "
    return before not in _TOOL_LEFT and lowered[end : end + 1] in (" ", "\t")


def _words(text: str, pos: int, stop: int, most: int = _MAX_WORDS) -> list[tuple[int, str]]:
    """(offset, word) of the words after `pos`, up to a shell operator or Chinese prose."""
    words: list[tuple[int, str]] = []
    while len(words) < most:
        m = _WORD_RE.match(text, pos, stop)
        if m is None:
            break
        word = m.group(1)
        if word[0] in _STOP_CHARS or not word[0].isascii():
            break
        words.append((m.start(1), word))
        pos = m.end()
    return words


def _keyword_value(
    lowered: str, text: str, tool_end: int, i: int, line_end: int, keywords: frozenset[str]
) -> int | None:
    """Offset of the word after the keyword around `i` (`password`, `wifi-sec.psk`), on the
    tool's command line: no `&`, `|` or `;` between, no field list (`nmcli -g …`)."""
    blank = max(lowered.rfind(" ", tool_end, i), lowered.rfind("\t", tool_end, i))
    if blank == -1 or any(lowered.find(op, tool_end, blank) != -1 for op in _OPERATORS):
        return None
    pair = _words(text, blank, line_end, 2)
    if len(pair) < 2 or pair[0][1].lower() not in keywords:
        return None
    previous = _BLANKS_RE.split(lowered[max(tool_end, blank - 16) : blank])[-1]
    return None if previous in _FIELD_FLAGS else _whole(pair[1])


def _password_word(words: list[tuple[int, str]], command: _Command) -> int | None:
    """Offset of the command's password among `words` (the words after the tool), None when
    they are no such call: the subcommand first (flags and a value after each may come before
    its words), then the arguments, flags skipped (and a number after one: `-C 10`)."""
    k, after_flag, short_flags = 0, False, ""
    args: list[tuple[int, str]] = []
    for offset, word in words:
        if k < len(command.words):
            if word.lower() in command.words[k]:
                k += 1
            elif not (word.startswith("-") or after_flag):
                return None
            after_flag = word.startswith("-") and "=" not in word
            continue
        if word.startswith("-") and len(word) > 1:
            if not word.startswith("--"):
                short_flags += word[1:]
            after_flag = "=" not in word
            continue
        if after_flag and word.isdigit():  # `-C 10`, `--method 0`: a flag's value
            after_flag = False
            continue
        after_flag = False
        args.append((offset, word))
    if k < len(command.words) or (command.flag and command.flag not in short_flags):
        return None
    if command.slot == _LAST:
        return _whole(args[-1]) if len(args) >= 2 else None
    return _whole(args[command.slot]) if len(args) > command.slot else None


def _whole(word: tuple[int, str]) -> int | None:
    """The word's offset when it is one value, quoted or not: not quotes glued to other text
    (`" + "-x " * (n) + "`, shell or code around a string, not an argument)."""
    offset, value = word
    # Chinese prose or a comma may follow without a blank: `'…'，登录一次就行`.
    value = _NON_ASCII_RE.split(value, maxsplit=1)[0].rstrip(",.;:")
    quote = value[:1]
    if quote in ("'", '"'):
        whole = len(value) >= 2 and value[-1] == quote and value.count(quote) == 2
    else:
        whole = '"' not in value and "'" not in value
    return offset if whole else None

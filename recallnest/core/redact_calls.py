"""Where a login is made with the password as a positional argument, with no name beside it:
a call that logs in (`smtp.login(user, "…")`, `$sftp->login('u', '…')`, `ldap_bind($ds, $dn,
"…")`, `new NetworkCredential("u", "…")`), a call that connects with an address, a port, a
user and a password (`client.connect(host, 22, "deploy", "…")`,
`DriverManager.getConnection(url, "u", "…")`, `pymysql.connect("db", "app", "…", "shop")`),
and Redis's own login: `AUTH [user] <password>` at its prompt or in a command array
(`execute_command("AUTH", "…")`), the `requirepass` / `masterauth` directives, and an ACL
rule's `>password`.

Only the call's or the command's grammar says which word is the password: the arguments are
split at the call's top-level commas, a leading handle or address (and a port after it) is
skipped, the next argument is the user and the one after it the password. Returned are the
offsets of password literals (their opening quote) or of bare words; `recallnest.core.redact`
matches and judges the value there.

Pure and standard library only, like `recallnest.core.redact`, its only caller. Linear: each
call's arguments are read once, at most `_ARGS_REACH` characters of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = ["login_call_starts", "redis_auth_starts"]

_ARGS_REACH = 400
_MAX_ARGS = 8
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
# Words looked for here (the caller has looked for "auth" and "cred" already).
# (Looked for in the text's ASCII bytes: a bytes.find costs a fraction of a str.find on a text
# holding Chinese, ~1.2 us each over a 1.5k-character turn.)
_SEARCHED = (b"login", b"logon", b"signin", b"connect", b"bind", b"pdo", b"mysqli")
_CALL_OPEN_RE = re.compile(r"[ \t]{0,3}\(")
# A literal: the value's offset is its opening quote; `.toCharArray()` / `.getBytes()` after it
# (Java's `new PasswordAuthentication("u", "…".toCharArray())`) is still the literal.
_LITERAL_RE = re.compile(
    r"(?:\"[^\"\\\n]{0,256}\"|'[^'\\\n]{0,256}'|`[^`\\\n]{0,256}`)"
    r"(?:\.(?:tochararray|getbytes)\(\))?\Z"
)
_INT_RE = re.compile(r"\d{1,6}\Z")
_KEYWORD_ARG_RE = re.compile(r"[a-z_][a-z0-9_]{0,40}[ \t]{0,3}(?:=(?!=)|:(?!:))")
# A name that holds a user, not a handle or an address: `user`, `$username`, `email`, `dn`.
_USERISH = ("user", "login", "name", "mail", "acct", "account", "uid", "dn", "principal")
# `this`, `null`: a function's `bind(this, …)` gives a receiver, not a user.
_RECEIVERS = frozenset(("this", "self", "null", "nil", "none", "undefined", "window", "0"))
# A literal that is an address: a host, an IP, a URL, a DSN, a socket path.
_ADDRESS_CHARS = (".", ":", "/", "\\")


def _called_name(lowered: str, i: int) -> tuple[str, int] | None:
    """The called function's name around offset `i` (lower case, `_` dropped) and the offset of
    its opening parenthesis, or None when no call opens right after the name."""
    start = i
    while start > 0 and lowered[start - 1] in _NAME_CHARS:
        start -= 1
    end = i
    while end < len(lowered) and lowered[end] in _NAME_CHARS:
        end += 1
    if end - start > 48:
        return None
    call = _CALL_OPEN_RE.match(lowered, end)
    if call is None:
        return None
    return lowered[start:end].replace("_", ""), call.end()


def _kind(name: str) -> str:
    """The kind of login a called name makes (`_` dropped): "login", "connect", "bind", or ""."""
    if name.startswith(("login", "logon", "signin")) or name.endswith(("login", "logon")):
        return "login"
    if name in ("auth", "authenticate", "authpassword", "ssh2authpassword", "plainauth"):
        return "login"
    if name.endswith(("credential", "credentials", "authentication", "authenticationtoken")):
        return "login"
    if name.endswith("passwordtoken"):  # Shiro's `new UsernamePasswordToken("u", "…")`
        return "login"
    if name in ("simplebind", "simplebinds", "binds", "ldapbind"):
        return "login"
    if name == "bind":
        return "bind"
    if name in ("connect", "getconnection", "pgconnect", "mysqlconnect", "mysqliconnect", "pdo"):
        return "connect"
    if name == "mysqli":
        return "connect"
    return ""


def _arguments(lowered: str, pos: int) -> list[tuple[int, str]]:
    """(offset, text) of the call's top-level arguments from `pos` (right after its `(`),
    stripped; empty when the call does not close within reach or nests too deep."""
    args: list[tuple[int, str]] = []
    depth, quote, start = 0, "", pos
    stop = min(len(lowered), pos + _ARGS_REACH)
    for j in range(pos, stop):
        c = lowered[j]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\n":
                return []
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                if c == ")":
                    args.append((start, lowered[start:j]))
                    return _stripped(args)
                return []
            depth -= 1
        elif c == "," and depth == 0:
            args.append((start, lowered[start:j]))
            start = j + 1
            if len(args) > _MAX_ARGS:
                return []
    return []


def _stripped(args: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for offset, arg in args:
        core = arg.strip()
        out.append((offset + (len(arg) - len(arg.lstrip())), core))
    return out if out and out[-1][1] else out[:-1]


def _literal(arg: str) -> bool:
    return _LITERAL_RE.match(arg) is not None


def _userish(arg: str) -> bool:
    return any(word in arg for word in _USERISH)


def _address(arg: str) -> bool:
    """An address or a handle given before the user: a host, URL or DSN literal, or a name
    that holds no user (`host`, `url`, `$conn`, `self.hostname`)."""
    if _literal(arg):
        body = arg[1:-1]
        return body in ("", "localhost") or any(c in body for c in _ADDRESS_CHARS)
    return not _userish(arg) and not _INT_RE.match(arg)


def _password_of(kind: str, args: list[tuple[int, str]]) -> int | None:
    """Offset of the password literal among a login call's positional arguments."""
    positional: list[tuple[int, str]] = []
    for offset, arg in args:
        if _KEYWORD_ARG_RE.match(arg):
            break  # named arguments follow: the assignment rules read those
        positional.append((offset, arg))
    if len(positional) < 2:
        return None
    first = positional[0][1]
    if first in _RECEIVERS:
        return None
    if kind == "bind" and not (_literal(first) and any(c in first for c in "=@\\")):
        return None  # a DN, `user@domain` or `DOMAIN\user`: not `.bind("click", …)`
    i = 0
    if first in ('""', "''"):
        i = 1  # Go's `smtp.PlainAuth("", user, "…", host)`: the identity, empty
    elif (kind == "connect" and _address(first)) or (
        len(positional) >= 3 and not _literal(first) and not _userish(first)
    ):
        i = 1  # `connect(url, …)`; `ftp_login($conn, "u", "…")`
    if (
        kind == "connect"
        and i < len(positional)
        and (
            _INT_RE.match(positional[i][1])
            or (not _literal(positional[i][1]) and "port" in positional[i][1])
        )
    ):
        i += 1
    if i + 1 >= len(positional):
        return None
    user, (offset, password) = positional[i][1], positional[i + 1]
    if _INT_RE.match(user) or not _literal(password):
        return None
    return offset


def login_call_starts(
    lowered: str, ascii_text: bytes, found: Mapping[str, Iterable[int]]
) -> list[int]:
    """Offsets of the password literals given positionally to login calls in `lowered` (the
    text lower-cased, of the same length; `ascii_text`: one byte per character of it);
    `found` holds the offsets of "auth" and "cred", which the caller has looked for."""
    hits: list[int] = []
    for offsets in found.values():
        hits.extend(offsets)
    for word in _SEARCHED:
        i = ascii_text.find(word)
        while i != -1:
            hits.append(i)
            i = ascii_text.find(word, i + len(word))
    starts: set[int] = set()
    seen: set[int] = set()
    for i in sorted(hits):
        called = _called_name(lowered, i)
        if called is None or called[1] in seen:
            continue
        name, open_end = called
        seen.add(open_end)
        kind = _kind(name)
        if not kind:
            continue
        offset = _password_of(kind, _arguments(lowered, open_end))
        if offset is not None:
            starts.add(offset)
    return sorted(starts)


# Redis: `AUTH <password>` / `AUTH <user> <password>` (the command in capitals, or in any case
# at a Redis prompt: `127.0.0.1:6379> auth …`, `redis> auth …`), the config directives and
# `CONFIG SET` names that take the password, an ACL rule's `>password`.
_AUTH_ARGS_RE = re.compile(
    r"auth[ \t]{1,3}(?:(?P<user>[a-z0-9_.@\-]{1,64})[ \t]{1,3})?"
    r"(?P<pw>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'`]{1,256})"
    r"[ \t]*(?:$|[\r\n]|(?=[^\x00-\x7f]))",
    re.MULTILINE,
)
_PROMPT_RE = re.compile(r"(?:redis|:\d{2,5}(?:\[\d{1,2}\])?)>[ \t]{0,3}\Z")
_DIRECTIVES = (b"requirepass", b"masterauth")
_DIRECTIVE_RE = re.compile(r"[ \t]{1,3}(?P<pw>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'`]{1,256})")
_ACL_RULE_RE = re.compile(r"[ \t]>(?=[^\s>])")
_COMMAND_ARRAY_RE = re.compile(
    r"(?P<q>[\"'])auth(?P=q)[ \t]{0,3},[ \t]{0,3}"
    r"(?:(?P<q2>[\"'])[^\"'\n]{1,64}(?P=q2)[ \t]{0,3},[ \t]{0,3})?"
    r"(?P<pw>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}')[ \t]{0,3}[\])]"
)


def redis_auth_starts(lowered: str, text: str, ascii_text: bytes, auth: Iterable[int]) -> list[int]:
    """Offsets of Redis passwords in `text` (`lowered`: lower-cased, `ascii_text`: one byte a
    character of it); `auth` holds the offsets of "auth" in `lowered`."""
    starts: set[int] = set()
    for i in auth:
        before = lowered[max(0, i - 1) : i]
        if before in ("'", '"'):
            m = _COMMAND_ARRAY_RE.match(lowered, i - 1)
            if m is not None:
                starts.add(m.start("pw"))
            continue
        if before not in ("", " ", "\t", "\n", ">") and before.isascii():
            continue
        if text[i : i + 4] != "AUTH":
            line = lowered[max(0, lowered.rfind("\n", 0, i) + 1, i - 64) : i]
            if _PROMPT_RE.search(line) is None:
                continue
        m = _AUTH_ARGS_RE.match(lowered, i)
        if m is not None:
            starts.add(m.start("pw"))
    for word in _DIRECTIVES:
        i = ascii_text.find(word)
        while i != -1:
            end = i + len(word)
            if i == 0 or (not lowered[i - 1].isalnum() and lowered[i - 1] != "_"):
                m = _DIRECTIVE_RE.match(lowered, end)
                if m is not None:
                    starts.add(m.start("pw"))
            i = ascii_text.find(word, end)
    i = ascii_text.find(b"acl setuser")
    while i != -1:
        newline = lowered.find("\n", i)
        end = len(lowered) if newline == -1 else newline
        starts.update(m.end() for m in _ACL_RULE_RE.finditer(lowered, i, end))
        i = ascii_text.find(b"acl setuser", end)
    return sorted(starts)

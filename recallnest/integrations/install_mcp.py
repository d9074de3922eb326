"""recallnest's MCP server entry in each agent's file, and Codex's config.toml edited as text.

JSON files get an `mcpServers.recallnest` entry (see `install` for which file). Codex's
config.toml is edited line by line so the user's comments and layout survive: our table is one
block appended at the end, with a comment naming its owner, and cut out again on uninstall,
together with the `[hooks.state."<key>"]` tables in which Codex records that the user trusted
our hooks (see `recallnest.integrations.trust`). Every edit is checked with tomllib: a result that
does not
parse to the intended document is refused, with what to do by hand.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallnest.core.errors import ConfigError
from recallnest.integrations import trust as trust_mod
from recallnest.integrations.trust import CodexHook

if TYPE_CHECKING:
    from recallnest.integrations.install_types import AgentSpec, InstallContext

MCP_SERVER_NAME = "recallnest"
SCRIPT_NAMES = ("recallnest", "recallnest.exe")
TOML_MARKER = "# recallnest memory tools: added by `recallnest install`, removed by `uninstall`"


# --- the MCP server entry ----------------------------------------------------------------------


def mcp_entry(spec: AgentSpec, ctx: InstallContext) -> dict[str, Any]:
    """How the agent starts `recallnest mcp`. RECALLNEST_HOME is pinned (as in the daemon's
    service) because Codex hands MCP servers only an allow-list of environment variables."""
    entry: dict[str, Any] = {"type": "stdio"} if spec.mcp is not None and spec.mcp.typed else {}
    entry["command"] = ctx.executable
    entry["args"] = ["mcp", "--agent", spec.agent]
    entry["env"] = {"RECALLNEST_HOME": str(ctx.state_dir)}
    return entry


def is_our_server(entry: object) -> bool:
    """Whether an MCP server entry runs `recallnest mcp` (any install path of the script)."""
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args")
    return (
        isinstance(command, str)
        and Path(command).name in SCRIPT_NAMES
        and isinstance(args, list)
        and args[:1] == ["mcp"]
    )


def add_server(doc: dict[str, Any], entry: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of `doc` with `mcpServers.recallnest` set to `entry`; other servers untouched."""
    new = copy.deepcopy(doc)
    servers = new.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f'"mcpServers" in {path} is not a JSON object; fix it and retry')
    _check_name_is_free(servers.get(MCP_SERVER_NAME), path)
    servers[MCP_SERVER_NAME] = entry
    return new


def remove_server(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of `doc` without our MCP server; an `mcpServers` we emptied is removed too."""
    new = copy.deepcopy(doc)
    servers = new.get("mcpServers")
    if isinstance(servers, dict) and is_our_server(servers.get(MCP_SERVER_NAME)):
        del servers[MCP_SERVER_NAME]
        if not servers:
            del new["mcpServers"]
    return new


def _check_name_is_free(current: object, path: Path) -> None:
    if current is not None and not is_our_server(current):
        raise ConfigError(
            f'{path} already has an MCP server named "{MCP_SERVER_NAME}" that does not run '
            "`recallnest mcp`; rename or remove it, then retry"
        )


# --- Codex config.toml (edited as text) ---------------------------------------------------------

_TOML_NAME = r"""\s*mcp_servers\s*\.\s*(?:recallnest|"recallnest"|'recallnest')\s*"""
_OUR_HEADER = re.compile(rf"^\s*\[{_TOML_NAME}(?:\.[^\]]*)?\]\s*(?:#.*)?$")
_KEY = r"""(?:[\w\-]+|"[^"]*"|'[^']*')"""
_ANY_HEADER = re.compile(rf"^\s*\[\[?\s*{_KEY}(?:\s*\.\s*{_KEY})*\s*\]\]?\s*(?:#.*)?$")
_STATE_HEADER = re.compile(r"^\s*\[\s*hooks\s*\.\s*state\s*\]\s*(?:#.*)?$")
_TRUST_HEADER = re.compile(
    r"""^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(?:#.*)?$"""
)


def toml_block(ctx: InstallContext, spec: AgentSpec) -> str:
    """Our `[mcp_servers.recallnest]` table as TOML text, with a comment naming its owner."""
    entry = mcp_entry(spec, ctx)
    args = ", ".join(_toml_string(a) for a in entry["args"])
    env = ", ".join(f"{k} = {_toml_string(v)}" for k, v in entry["env"].items())
    return (
        f"{TOML_MARKER}\n"
        f"[mcp_servers.{MCP_SERVER_NAME}]\n"
        f"command = {_toml_string(entry['command'])}\n"
        f"args = [{args}]\n"
        f"env = {{ {env} }}\n"
    )


def _toml_string(value: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def load_toml(path: Path, raw: bytes | None) -> dict[str, Any]:
    """The TOML document ({} if the file is absent); ConfigError if it does not parse."""
    try:
        return tomllib.loads(_toml_text(raw))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix it and retry") from exc


def _toml_text(raw: bytes | None) -> str:
    return (raw or b"").decode("utf-8")


def _toml_server(doc: Mapping[str, Any], path: Path) -> object:
    servers = doc.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"mcp_servers in {path} is not a table; fix it and retry")
    return servers.get(MCP_SERVER_NAME)


def toml_with_server(path: Path, raw: bytes | None, block: str) -> bytes | None:
    """The file with our table appended (an older form of it cut out first); None when it is
    already there as wanted. The result must parse to the same document plus our table."""
    doc = load_toml(path, raw)
    current = _toml_server(doc, path)
    wanted = tomllib.loads(block)["mcp_servers"][MCP_SERVER_NAME]
    if current == wanted:
        return None
    _check_name_is_free(current, path)
    text = _toml_text(raw)
    if current is not None:
        text = _cut_block(text, path, _without_server(doc))
    if text and not text.endswith("\n"):
        text += "\n"
    new = text + ("\n" if text.strip() else "") + block
    expected = copy.deepcopy(doc)
    expected.setdefault("mcp_servers", {})[MCP_SERVER_NAME] = wanted
    _check_toml(new, expected, path, f"add this table by hand:\n{block}")
    return new.encode("utf-8")


def toml_without_ours(
    path: Path, raw: bytes, *, server: bool = True, trust: Iterable[CodexHook] = ()
) -> bytes | None:
    """The file without our MCP table (if `server`) and without Codex's trust entries for
    `trust` (our hooks as they stand in the hooks.json beside it); None when it holds neither."""
    doc = load_toml(path, raw)
    server = server and is_our_server(_toml_server(doc, path))
    state = _trust_state(doc)
    keys = set(trust_mod.our_trust_keys(state, path.with_name("hooks.json"), trust))
    if not server and not keys:
        return None
    expected = copy.deepcopy(doc)
    if server:
        del expected["mcp_servers"][MCP_SERVER_NAME]
    for key in keys:
        del expected["hooks"]["state"][key]

    # Codex wrote an empty [hooks.state] header to hold the entries: it goes when they all go.
    emptied = bool(keys) and not expected["hooks"]["state"]
    if emptied:
        del expected["hooks"]["state"]

    def ours(line: str) -> bool:
        return (
            bool(server and _OUR_HEADER.match(line))
            or _trust_header_key(line) in keys
            or (emptied and _STATE_HEADER.match(line) is not None)
        )

    text, cut = _cut_tables(_toml_text(raw), ours)
    what = f"[mcp_servers.{MCP_SERVER_NAME}]" if server else ""
    what += (" and " if what else "") + ", ".join(f'[hooks.state."{k}"]' for k in sorted(keys))
    if cut < int(server) + len(keys):  # an inline table or dotted keys: no block to cut out
        raise ConfigError(f"cannot edit {path} safely (unusual layout); remove {what} by hand")
    _check_toml(text, expected, path, f"remove {what} by hand")
    return text.encode("utf-8")


def _trust_state(doc: Mapping[str, Any]) -> dict[str, Any]:
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return state if isinstance(state, dict) else {}


def _trust_header_key(line: str) -> str | None:
    match = _TRUST_HEADER.match(line)
    if match is None:
        return None
    key = tomllib.loads(f"k = {match.group(1)}")["k"]
    return key if isinstance(key, str) else None


def _without_server(doc: dict[str, Any]) -> dict[str, Any]:
    new = copy.deepcopy(doc)
    del new["mcp_servers"][MCP_SERVER_NAME]
    return new


def _cut_block(text: str, path: Path, expected: dict[str, Any]) -> str:
    """`text` without our MCP table (see `_cut_tables`)."""
    new, cut = _cut_tables(text, lambda line: bool(_OUR_HEADER.match(line)))
    if not cut:  # an inline table or dotted keys: not a block we can cut out
        raise ConfigError(
            f"cannot edit {path} safely (unusual layout); "
            f"remove [mcp_servers.{MCP_SERVER_NAME}] by hand"
        )
    _check_toml(new, expected, path, f"remove [mcp_servers.{MCP_SERVER_NAME}] by hand")
    return new


def _cut_tables(text: str, ours: Callable[[str], bool]) -> tuple[str, int]:
    """`text` without each table whose header line is `ours`: from the header (and our comment
    and one blank line before it) through the line before the next header that is not ours;
    comments and blank lines just before that next table stay with it. Also the count cut."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    cut = n = 0
    while n < len(lines):
        if not (_ANY_HEADER.match(lines[n]) and ours(lines[n])):
            out.append(lines[n])
            n += 1
            continue
        end = n + 1
        while end < len(lines) and not (_ANY_HEADER.match(lines[end]) and not ours(lines[end])):
            end += 1
        while end > n + 1 and lines[end - 1].strip()[:1] in ("", "#"):
            end -= 1
        cut += sum(1 for line in lines[n:end] if _ANY_HEADER.match(line) and ours(line))
        if out and out[-1].strip() == TOML_MARKER:
            out.pop()
        if out and not out[-1].strip():
            out.pop()
        n = end
    return "".join(out), cut


def _check_toml(text: str, expected: dict[str, Any], path: Path, advice: str) -> None:
    """Refuse an edit whose result does not parse to `expected` (dotted keys, inline tables,
    multi-line values: layouts our line-based edit does not handle)."""
    try:
        found = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        found = None

    def bare(doc: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in doc.items() if not (k in ("mcp_servers", "hooks") and v == {})}

    if found is None or bare(found) != bare(expected):
        raise ConfigError(f"cannot edit {path} safely (unusual layout); {advice}")

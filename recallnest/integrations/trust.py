"""Whether the agents will actually run our hooks: Codex's per-hook trust, Gemini's folder trust.

Codex CLI (0.171) runs a hook from ~/.codex/hooks.json only once the user trusted it (in /hooks,
or the "Hooks need review" prompt); `codex exec` skips untrusted hooks without a word. Trusting
writes, into $CODEX_HOME/config.toml,

    [hooks.state."<hooks.json path>:<event_snake>:<group index>:<handler index>"]
    trusted_hash = "sha256:<hex>"

where <hex> is the SHA-256 of the compact, key-sorted JSON of {"event_name", "matcher" (only
if set), "hooks": [{"async", "command", "timeout" (600 when unset), "type", "statusMessage"
(only if set)}]}: one handler of one group. Found by asking the real CLI (`codex app-server`,
method hooks/list, which reports each hook's key, currentHash and trustStatus) and checked
against it; see docs/decisions/0012-agent-trust-and-settings-edits.md. A hash that no longer
matches means the hook changed since it was trusted ("modified"): Codex does not run it.

Gemini CLI (0.61) loads the hooks and MCP servers of ~/.gemini/settings.json only in a trusted
folder; headless runs in an untrusted one stop with an error unless `--skip-trust` (or
GEMINI_CLI_TRUST_WORKSPACE=true). Trusted folders live in ~/.gemini/trustedFolders.json
(GEMINI_CLI_TRUSTED_FOLDERS_PATH overrides it): {"<path>": "TRUST_FOLDER" | "TRUST_PARENT" |
"DO_NOT_TRUST"}, the longest matching rule wins, TRUST_PARENT trusts the rule's parent folder.

This module reads files but writes none; callers pass paths and the environment.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallnest.integrations import jsonc

CODEX_DEFAULT_TIMEOUT = 600  # seconds: what Codex hashes for a handler without a timeout
TRUST_LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")


@dataclass(frozen=True, slots=True)
class CodexHook:
    """One of our handlers in hooks.json, as Codex keys and hashes it."""

    event: str  # snake_case, as in the key
    group: int
    handler: int
    trusted_hash: str

    def key(self, hooks_path: Path) -> str:
        return f"{hooks_path}:{self.event}:{self.group}:{self.handler}"


def snake(event: str) -> str:
    """SessionStart -> session_start, as Codex spells events in trust keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def codex_hash(event: str, matcher: object, handler: Mapping[str, Any]) -> str:
    """The `trusted_hash` Codex expects for one handler of a group under `event`."""
    hook: dict[str, Any] = {
        "async": bool(handler.get("async", False)),
        "command": handler.get("command"),
        "timeout": handler.get("timeout", CODEX_DEFAULT_TIMEOUT),
        "type": handler.get("type", "command"),
    }
    if handler.get("statusMessage") is not None:
        hook["statusMessage"] = handler["statusMessage"]
    doc: dict[str, Any] = {"event_name": snake(event), "hooks": [hook]}
    if matcher is not None:
        doc["matcher"] = matcher
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def codex_hooks(doc: Mapping[str, Any], is_ours: Any) -> list[CodexHook]:
    """Every handler in a hooks.json document for which `is_ours(handler)` is true."""
    found = []
    hooks = doc.get("hooks")
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else ():
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if is_ours(handler):
                    digest = codex_hash(event, group.get("matcher"), handler)
                    found.append(CodexHook(snake(event), g, h, digest))
    return found


def parse_key(key: str) -> tuple[Path, str, int, int] | None:
    """`<path>:<event>:<group>:<handler>` split up; None if it is not of that shape."""
    parts = key.rsplit(":", 3)
    if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
        return None
    return _same_file(Path(parts[0])), parts[1], int(parts[2]), int(parts[3])


def _same_file(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def our_trust_keys(
    state: Mapping[str, Any], hooks_path: Path, hooks: Iterable[CodexHook]
) -> dict[str, CodexHook]:
    """The keys of `[hooks.state]` that name one of `hooks` (however the path was spelled)."""
    wanted = {(_same_file(hooks_path), h.event, h.group, h.handler): h for h in hooks}
    return {key: wanted[parsed] for key in state if (parsed := parse_key(key)) in wanted}


def codex_trust(
    config: Mapping[str, Any], hooks_path: Path, hooks: list[CodexHook]
) -> tuple[bool, str]:
    """One line: are our hooks trusted by Codex, and if not, how to trust them."""
    state = (config.get("hooks") or {}).get("state") or {}
    entries = {hook: state[key] for key, hook in our_trust_keys(state, hooks_path, hooks).items()}
    trusted = [h for h in hooks if _hash_of(entries.get(h)) == h.trusted_hash]
    changed = [h for h in hooks if h in entries and h not in trusted]
    if hooks and len(trusted) == len(hooks):
        return True, f"Codex trusts the recallnest hooks ({len(trusted)} of {len(hooks)})"
    detail = f"{len(trusted)} of {len(hooks)} trusted"
    if changed:
        detail += f", {len(changed)} changed since you trusted them"
    return False, (
        f"Codex has not trusted the recallnest hooks yet ({detail}): run `codex`, open /hooks "
        "and trust them (`codex exec` skips untrusted hooks without a word)"
    )


def _hash_of(entry: object) -> object:
    return entry.get("trusted_hash") if isinstance(entry, dict) else None


# --- Gemini CLI folder trust ---------------------------------------------------------------------


def gemini_trusted_folders_path(gemini_dir: Path, env: Mapping[str, str]) -> Path:
    return Path(env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_dir / "trustedFolders.json")


def gemini_folder_trust(
    cwd: Path, trusted_folders: Path, settings: Mapping[str, Any], env: Mapping[str, str]
) -> tuple[bool | None, str]:
    """Whether Gemini CLI trusts `cwd` (None: no rule, so it asks, and headless runs stop),
    and why, read the way Gemini CLI 0.61 reads it."""
    if env.get("GEMINI_RESTRICTED_MODE") == "true" or env.get("GEMINI_CLI_TRUST_WORKSPACE") == (
        "false"
    ):
        return False, "distrusted by the environment"
    if env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return True, "trusted through GEMINI_CLI_TRUST_WORKSPACE=true"
    folder_trust = (settings.get("security") or {}).get("folderTrust") or {}
    if folder_trust.get("enabled", True) is False:
        return True, "folder trust is turned off in settings.json"
    rules = _read_rules(trusted_folders)
    return _longest_match(_same_file(cwd), rules)


def _read_rules(path: Path) -> dict[str, str]:
    try:
        doc = jsonc.parse(path.read_text(encoding="utf-8"), comments=True).value
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, jsonc.JsoncError):
        return {}  # Gemini itself stops on a broken file; doctor reports "no rule"
    if not isinstance(doc, dict):
        return {}
    return {p: level for p, level in doc.items() if level in TRUST_LEVELS}


def _longest_match(cwd: Path, rules: Mapping[str, str]) -> tuple[bool | None, str]:
    best: tuple[int, str, str] | None = None
    for rule, level in rules.items():
        folder = Path(os.path.dirname(rule)) if level == "TRUST_PARENT" else Path(rule)
        if cwd.is_relative_to(_same_file(folder)) and (best is None or len(rule) > best[0]):
            best = (len(rule), rule, level)
    if best is None:
        return None, "no rule in trustedFolders.json covers it"
    _, rule, level = best
    if level == "DO_NOT_TRUST":
        return False, f"{rule} is marked DO_NOT_TRUST"
    return True, f"trusted by {rule} ({level})"


def gemini_trust_line(trusted: bool | None, why: str, cwd: Path) -> tuple[bool, str]:
    """One line for install and doctor."""
    if trusted:
        return True, f"Gemini CLI trusts {cwd} ({why}): its hooks and MCP server run there"
    return False, (
        f"Gemini CLI does not trust {cwd} ({why}): its hooks and MCP server stay off there and "
        "`gemini -p` stops; trust the folder when an interactive `gemini` asks (or in "
        "/permissions), or run headless with --skip-trust"
    )

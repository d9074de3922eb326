"""`recallnest doctor`: check each link of the chain and say what is wrong in one line.

Checks never raise: each returns {"name", "ok", "detail"}.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.errors import RecallnestError
from recallnest.core.paths import db_path
from recallnest.server.protocol import ProtocolError

Check = dict[str, Any]


def run_checks(settings: Settings, env: Mapping[str, str] | None = None) -> list[Check]:
    """Every check, in order. `env` (default: the process environment) is read only for the
    agents' own trust overrides, such as GEMINI_CLI_TRUST_WORKSPACE."""
    checks: list[Callable[[Settings], tuple[bool, str]]] = [
        _home,
        _extensions,
        _database,
        _embedder,
        _daemon,
        _maintenance,
        _resume,
        _hooks,
        _sync,
    ]
    out = []
    for check in checks:
        try:
            ok, detail = check(settings)
        except (RecallnestError, ProtocolError) as exc:
            ok, detail = False, str(exc)
        out.append({"name": check.__name__.strip("_"), "ok": ok, "detail": detail})
    return out + _trust(settings, os.environ if env is None else env)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _home(settings: Settings) -> tuple[bool, str]:
    home = settings.home
    if not home.exists():
        return True, f"{home} (not created yet)"
    problems = []
    if _mode(home) & 0o077:
        problems.append(f"{home} is mode {_mode(home):o}, expected 700 (chmod 700 {home})")
    db = db_path(home)
    if db.exists() and _mode(db) & 0o077:
        problems.append(f"{db} is mode {_mode(db):o}, expected 600 (chmod 600 {db})")
    if problems:
        return False, "; ".join(problems)
    return True, f"{home} (owner-only)"


def _extensions(settings: Settings) -> tuple[bool, str]:
    from recallnest.store import check_extensions

    versions = check_extensions()
    return True, ", ".join(f"{k} {v}" for k, v in versions.items()) + " (loaded from wheels)"


def _database(settings: Settings) -> tuple[bool, str]:
    from recallnest.server.client import daemon_answers

    db = db_path(settings.home)
    if daemon_answers(settings):
        return True, f"{db} held by the running daemon"
    if not db.exists():
        return True, f"{db} (created on first use)"
    from recallnest.server.repair import check_database
    from recallnest.store import REPAIR_HINT, Store

    problem = check_database(db)  # reads every table: DuckDB checks each block's checksum
    if problem is not None:
        return False, problem if REPAIR_HINT in problem else problem + REPAIR_HINT

    store = Store(db, read_only=True)
    try:
        counts = store.counts()
        missing = [m for m in _expected_migrations() if m not in store.applied_migrations()]
    finally:
        store.close()
    if missing:
        return False, f"schema out of date (pending: {', '.join(missing)}); open it read-write once"
    return True, f"{db}: {counts['memories']} memories, {counts['turns']} turns"


def _expected_migrations() -> list[str]:
    from recallnest.store.migrations import MIGRATIONS

    return [m.__name__ for m in MIGRATIONS]


def _embedder(settings: Settings) -> tuple[bool, str]:
    from recallnest.engine import build_embedder
    from recallnest.retrieval.embed import probe

    embedder = build_embedder(settings)
    if embedder is None:
        return True, "none configured: search is keyword-only"
    ok, message = probe(embedder)
    if not ok:
        return False, f"{message} (search falls back to keyword-only)"
    return True, message  # probe names the model and its dimensions


def _daemon(settings: Settings) -> tuple[bool, str]:
    from recallnest.server.control import status

    state = status(settings)
    if not state.running:
        return (
            False,
            f"{state.detail}: start it with `recallnest daemon start` (or install "
            "--service); hooks print nothing until it runs",
        )
    watching = len(state.answer.get("watching") or [])
    return True, f"PID {state.pid}, watching {watching} folder(s), socket answers"


def _maintenance(settings: Settings) -> tuple[bool, str]:
    """Background tasks that failed and wait for their retry (maintenance.health)."""
    from recallnest.server.control import status

    state = status(settings)
    if not state.running:
        return True, "no daemon running, so no background task is scheduled"
    failing: dict[str, dict[str, Any]] = state.answer.get("maintenance_failing") or {}
    if not failing:
        return True, "every background task succeeded at its last run"
    return False, "; ".join(
        f"{name} failed (attempt {f['attempts']}) at {f['failed_at']}: {f['error']}; "
        f"next retry {f['next_retry_at']}"
        for name, f in failing.items()
    )


def _sync(settings: Settings) -> tuple[bool, str]:
    """Sync health: set up or not, each remote's last sync, pending files and last error."""
    from recallnest.server.client import daemon_answers
    from recallnest.server.control import _ask
    from recallnest.sync.config import SyncConfig

    config = SyncConfig.load(settings.home)
    if config is None:
        return True, "not set up (recallnest sync init <remote>)"
    missing = [
        r.name for r in config.remotes if not SyncConfig.key_path(settings.home, r.name).exists()
    ]
    if missing:
        return False, f"no key for remote(s) {', '.join(missing)} (sync init --key <file>)"
    if not daemon_answers(settings):
        return True, f"{len(config.remotes)} remote(s); no daemon running, so no background sync"
    status = _ask(settings, "sync.status", {}, 5.0)
    parts, ok = [], True
    for name, r in status["remotes"].items():
        state = f"{name}: last sync {r['last_sync'] or 'never'}, ahead {r['ahead']}"
        if r["error"]:
            ok = False
            state += f", error: {r['error']}"
        if r["rejected"]:
            ok = False
            state += f", {len(r['rejected'])} rejected line(s)"
        parts.append(state)
    return ok, "; ".join(parts)


def _resume(settings: Settings) -> tuple[bool, str]:
    from recallnest.server.client import daemon_answers
    from recallnest.server.control import _ask

    if not daemon_answers(settings):
        return False, "skipped: no daemon to compose a resume context"
    result = _ask(
        settings,
        "resume",
        {"cwd": os.getcwd(), "agent": "claude", "source": "startup", "record": False},
        5.0,
    )
    return (
        True,
        f"composed for {result['project']}: {result['tokens']} tokens, "
        f"{len(result['items'])} items",
    )


def _hooks(settings: Settings) -> tuple[bool, str]:
    from recallnest.integrations.install import detect_agents, registration
    from recallnest.integrations.install_types import InstallContext

    ctx = InstallContext.here(settings, {})
    agents = detect_agents(ctx.config_dirs)
    if not agents:
        return True, "no agent detected (no ~/.claude, ~/.codex or ~/.gemini)"
    results = [registration(agent, ctx) for agent in agents]
    problems = [detail for ok, detail in results if not ok]
    if problems:
        return False, "; ".join(problems) + ": run `recallnest install`"
    return True, f"hooks registered for {', '.join(agents)}"


def _trust(settings: Settings, env: Mapping[str, str]) -> list[Check]:
    """One line per agent with a trust step of its own whose hooks are registered: a note, not
    a failure, when it will not run them yet (trusting is the user's call, in the agent)."""
    from recallnest.integrations.install import detect_agents, registration, trust_status
    from recallnest.integrations.install_types import InstallContext

    ctx = InstallContext.here(settings, env)
    out = []
    for agent in detect_agents(ctx.config_dirs):
        try:
            status = registration(agent, ctx)[0] and trust_status(agent, ctx)
        except RecallnestError as exc:
            status = (False, str(exc))
        if status:
            ok, detail = status
            out.append({"name": f"{agent}-trust", "ok": True, "detail": detail, "note": not ok})
    return out

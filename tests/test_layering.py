"""Import rules (STYLE.md §3.2): each third-party runtime dependency has one home, and the hook's
fast path stays on the standard library. Checked by parsing every module with `ast`."""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

import recallnest

PACKAGE = Path(recallnest.__file__).resolve().parent
HEAVY = ("duckdb", "numpy", "click", "pydantic", "httpx")

# Third-party package -> the only modules allowed to import it (None: any module may).
HOMES: dict[str, set[str] | None] = {
    "duckdb": {"recallnest.store._store", "recallnest.store.migrations"},
    "httpx": {"recallnest.retrieval.embed"},
    "watchdog": {"recallnest.server.daemon"},
    "mcp": {"recallnest.integrations.mcp_server"},
    "pydantic": {"recallnest.core.config", "recallnest.core.schemas", "recallnest.cli._app"},
    # click: cli.py and any module named cli* (see click_allowed).
}
# The hook runs in a fresh process at every agent session start: these modules (and every
# recallnest module they import) must use the standard library only.
FAST_PATH = {
    "recallnest.integrations.hook",
    "recallnest.server.protocol",
    "recallnest.core.paths",
    "recallnest.core.models",
    "recallnest.core.errors",
    "recallnest.integrations.harness",
    "recallnest.integrations.harness.claude",
    "recallnest.integrations.harness.codex",
    "recallnest.integrations.harness.gemini",
    # Only when the daemon is down: its resume snapshot, and starting it (issue 16 item 9).
    "recallnest.continuity.snapshot",
    "recallnest.integrations.autostart",
    "recallnest.server.pidfile",  # autostart's probe of the daemon lock (one copy of it)
    # Only when the hook logs a line (rare): the redactor and its helpers.
    "recallnest.core.redact",
    "recallnest.core.redact_shapes",
    "recallnest.core.redact_values",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _resolve_from(module: str, node: ast.ImportFrom) -> list[str]:
    """Absolute names a `from ... import ...` brings in (submodules when they exist)."""
    if node.level:
        is_package = MODULES[module].name == "__init__.py"
        base = module.split(".")
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        source = ".".join([*base, *([node.module] if node.module else [])])
    else:
        source = node.module or ""
    names = [source]
    for alias in node.names:
        candidate = f"{source}.{alias.name}"
        if candidate in MODULES:
            names.append(candidate)
    return names


@cache
def imports_of(module: str) -> frozenset[str]:
    """Every module `module` imports at run time (nested imports included, TYPE_CHECKING
    blocks excluded)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.update(_resolve_from(module, node))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return frozenset(found)


def top(name: str) -> str:
    return name.split(".")[0]


def is_stdlib(name: str) -> bool:
    return top(name) in sys.stdlib_module_names


def click_allowed(module: str) -> bool:
    return module == "recallnest.cli" or module.startswith("recallnest.cli.")


# ---- the table --------------------------------------------------------------------------------


def test_the_parser_sees_the_package() -> None:
    assert {
        "recallnest.store._store",
        "recallnest.cli._app",
        "recallnest.integrations.hook",
    } <= set(MODULES)
    assert "duckdb" in imports_of("recallnest.store._store")
    assert "recallnest.integrations.harness.claude" in imports_of("recallnest.integrations.harness")


def test_type_checking_imports_are_ignored() -> None:
    assert "duckdb" not in imports_of("recallnest.store.migrations")


@pytest.mark.parametrize("package", sorted(HOMES))
def test_third_party_dependency_has_one_home(package: str) -> None:
    allowed = HOMES[package] or set()
    offenders = sorted(
        m for m in MODULES if m not in allowed and any(top(i) == package for i in imports_of(m))
    )
    assert offenders == [], f"{package} imported outside {sorted(allowed)}"


def test_click_only_in_cli() -> None:
    offenders = sorted(
        m for m in MODULES if not click_allowed(m) and any(top(i) == "click" for i in imports_of(m))
    )
    assert offenders == []


def test_nothing_imports_cli_but_the_entry_point() -> None:
    offenders = sorted(
        m
        for m in MODULES
        if m != "recallnest.__main__"
        and not click_allowed(m)
        and any(click_allowed(i) for i in imports_of(m))
    )
    assert offenders == []


def test_errors_and_models_import_nothing_heavy() -> None:
    for module in ("recallnest.core.errors", "recallnest.core.models"):
        outside = [i for i in imports_of(module) if not is_stdlib(i) and top(i) != "recallnest"]
        assert outside == [], module
    assert not any(top(i) == "recallnest" for i in imports_of("recallnest.core.errors"))


def _closure(start: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module in seen or module not in MODULES:
            continue
        seen.add(module)
        todo.extend(i for i in imports_of(module) if top(i) == "recallnest")
        # Importing a submodule runs its package's __init__ first.
        parent = module.rpartition(".")[0]
        if parent:
            todo.append(parent)
    return seen


def test_hook_fast_path_is_standard_library_only() -> None:
    for module in sorted(_closure(FAST_PATH)):
        outside = sorted(
            i for i in imports_of(module) if not is_stdlib(i) and top(i) != "recallnest"
        )
        assert outside == [], f"{module} imports {outside} on the hook's fast path"


def test_hook_fast_path_stays_small() -> None:
    # New recallnest modules on the hook path must be deliberate: they run at every session
    # start. Only the named fast-path modules and import-free helpers are allowed.
    extra = _closure(FAST_PATH) - FAST_PATH - {"recallnest"}
    for module in sorted(extra):
        assert all(is_stdlib(i) for i in imports_of(module)), module


def test_importing_the_hook_loads_no_heavy_module() -> None:
    code = (
        "import recallnest.integrations.hook, sys; "
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_importing_the_package_loads_no_heavy_module() -> None:
    code = f"import recallnest, sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "[]", result.stderr

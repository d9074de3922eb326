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
    "duckdb": {
        f"recallnest.store.{name}"
        for name in (
            "audit",
            "base",
            "compaction",
            "connection",
            "facade",
            "lifecycle",
            "loading",
            "migrations",
            "postings",
            "reads",
            "sql",
            "vectors",
            "write",
        )
    },
    "httpx": {"recallnest.retrieval.embed"},
    "cryptography": {"recallnest.sync.codec"},
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
    "recallnest.core.redact_commands",
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
        "recallnest.store.facade",
        "recallnest.cli._app",
        "recallnest.integrations.hook",
    } <= set(MODULES)
    assert "duckdb" in imports_of("recallnest.store.facade")
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_importing_the_package_loads_no_heavy_module() -> None:
    code = f"import recallnest, sys; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "[]", result.stderr


@pytest.mark.slow
def test_the_daemon_loads_httpx_only_for_a_remote_embedder() -> None:
    """httpx is ~9 MiB of the daemon's RSS; the default (local) embedder never needs it
    (decision 0027)."""
    code = (
        "import recallnest.server.daemon, recallnest.engine, sys; "
        "from recallnest.retrieval.embed import make_embedder; "
        "make_embedder('local'); print('httpx' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


# ---- layers and cycles (issue 19) -------------------------------------------------------------

# Each package's layer: a module may import only from lower layers, or inside its own package.
# The data flow, transcript -> parse -> redact -> capture -> admit -> store -> index ->
# search / resume -> hook, runs down this table (docs/ARCHITECTURE.md draws it).
LAYER = {
    "core": 0,
    "ingest": 1,
    "capture": 1,
    "store": 1,
    "retrieval": 1,
    "continuity": 2,
    "lifecycle": 2,
    "sync": 2,
    "engine": 3,
    "server": 4,
    "integrations": 5,
    "evaluation": 5,
    "cli": 6,
    "__main__": 7,
}
# The one sideways edge inside layer 1: the store's plain types (no duckdb) are shared vocabulary.
SHARED_TYPES = "recallnest.store.types"


def package_of(module: str) -> str:
    """'recallnest.capture.admission' -> 'capture'; the root package has no layer ('')."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


@cache
def edges_of(module: str) -> frozenset[str]:
    """recallnest modules `module` imports anywhere (module level, in functions and under
    TYPE_CHECKING), each edge to the module that defines the name. The implicit edge to a
    package's __init__ (importing `a.b` runs `a`) is left out: every __init__ but cli's and
    harness's holds only a docstring."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if top(a.name) == "recallnest")
        elif isinstance(node, ast.ImportFrom):
            names = _resolve_from(module, node)
            source, submodules = names[0], names[1:]
            if top(source) != "recallnest":
                continue
            found.update(submodules)
            if len(submodules) < len(node.names):  # some names are attributes of `source`
                found.add(source)
    found.discard(module)
    return frozenset(m for m in found if m in MODULES)


def layer_violations(extra: dict[str, set[str]] | None = None) -> list[str]:
    edges = {m: set(edges_of(m)) | (extra or {}).get(m, set()) for m in MODULES}
    bad = []
    for src, targets in sorted(edges.items()):
        s = package_of(src)
        for dst in sorted(targets):
            d = package_of(dst)
            if d == s or d == "":
                continue
            if s == "" or LAYER[d] < LAYER[s]:
                continue
            if LAYER[s] == LAYER[d] == 1 and dst == SHARED_TYPES and s in ("ingest", "retrieval"):
                continue
            bad.append(f"{src} -> {dst} (layer {LAYER[s]} -> {LAYER[d]})")
    return bad


def import_cycles(extra: dict[str, set[str]] | None = None) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    graph = {m: set(edges_of(m)) | (extra or {}).get(m, set()) for m in MODULES}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_every_package_has_a_layer() -> None:
    packages = {package_of(m) for m in MODULES} - {""}
    assert packages == set(LAYER)


def test_dependencies_run_one_way() -> None:
    assert layer_violations() == []


def test_there_is_no_import_cycle() -> None:
    assert import_cycles() == []


def test_a_back_edge_is_caught() -> None:
    # core must never reach up into the composition root; the checker must say so.
    back = {"recallnest.core.text": {"recallnest.engine"}}
    found = layer_violations(back)
    assert "recallnest.core.text -> recallnest.engine (layer 0 -> 3)" in found
    assert len(found) == len(layer_violations()) + 1
    loop = {
        "recallnest.core.errors": {"recallnest.core.text"},
        "recallnest.core.text": {"recallnest.core.errors"},
    }
    assert ["recallnest.core.errors", "recallnest.core.text"] in import_cycles(loop)


def test_layer_one_sees_only_core_and_the_store_types() -> None:
    for module in MODULES:
        if LAYER.get(package_of(module)) != 1:
            continue
        for dst in edges_of(module):
            if package_of(dst) not in ("core", package_of(module)):
                assert dst == SHARED_TYPES, f"{module} imports {dst}"


def test_package_docstrings_say_what_lives_there() -> None:
    for package in LAYER:
        if package in ("engine", "__main__"):
            continue
        doc = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
        assert doc and "import" in doc.lower(), f"recallnest.{package} needs its docstring"


@pytest.mark.slow
def test_importing_the_store_leaves_pandas_alone() -> None:
    # The pandas shim is set at the first connection, and only when pandas is not installed:
    # importing the store must not change what a host process can import (issue 19).
    code = "import recallnest.store.facade, sys; print('pandas' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.stdout.strip() == "False", result.stderr


def test_the_pandas_shim_spares_an_installed_pandas(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from recallnest.store import connection

    (tmp_path / "pandas").mkdir()
    (tmp_path / "pandas" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "pandas", raising=False)
    connection._block_absent_optional_imports()
    assert sys.modules.get("pandas", "absent") == "absent"  # findable: left to be imported

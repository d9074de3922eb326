"""Canonical form, alias tables, query expansion and subject vocabulary
(recallnest.core.aliases)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.paths import ROOT

from recallnest.core import aliases
from recallnest.core.aliases import (
    MAX_QUERY_VARIANTS,
    build_alias_table,
    canonical,
    expand_query_aliases,
    find_subject,
    normalize_width,
    subject_value,
)
from recallnest.core.errors import ConfigError

NO_ALIASES = build_alias_table({})


# --------------------------------------------------------------------------- canonical()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Always   use\tuv,\nnever pip.  ", "always use uv, never pip"),
        ("以后都用 pnpm。", "以后都用 pnpm"),
        ("真的吗！？", "真的吗"),
        ("ＵＳＥ　ｕｖ！", "use uv"),  # full-width ASCII and ideographic space
        ("Done...", "done"),
        ("ok!?", "ok"),
    ],
)
def test_canonical_normalises_text(text: str, expected: str) -> None:
    assert canonical(text, NO_ALIASES) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Always use TS", "always use TypeScript."),
        ("deploy to k8s", "Deploy to Kubernetes"),
        ("PG is the main db", "postgresql is the main database"),
        ("we write py for tooling", "We write Python3 for tooling"),
        ("数据库用 PG", "database用 postgres"),
        ("mongo for events", "MongoDB for events"),
        ("tf for infra, gh for code", "Terraform for infra, GitHub for code"),
    ],
)
def test_canonical_applies_builtin_aliases(a: str, b: str) -> None:
    assert canonical(a) == canonical(b)


@pytest.mark.parametrize(
    "text",
    ["run setup.py", "install ts-node", "edit src/ts/app", "the @ts/config package", "pg_dump"],
)
def test_canonical_leaves_identifiers_and_paths_alone(text: str) -> None:
    assert canonical(text) == canonical(text, NO_ALIASES)


@given(st.text(max_size=80))
def test_canonical_is_idempotent(text: str) -> None:
    once = canonical(text)
    assert canonical(once) == once


# --------------------------------------------------------------------------- user alias mapping


def test_user_aliases_extend_and_override_builtins() -> None:
    table = build_alias_table({"aliases": {"shop-api": ["shop backend", "sb"], "k8s": "kube"}})
    assert canonical("deploy the shop backend") == "deploy the shop backend"
    assert canonical("deploy the shop backend", table) == "deploy the shop-api"
    assert canonical("SB is down", table) == "shop-api is down"
    # "kube" was a built-in variant of kubernetes; the user moved it to their own name
    assert canonical("kube config", table) == "k8s config"


def test_user_aliases_accept_a_flat_mapping() -> None:
    table = build_alias_table({"billing": "invoicer"})
    assert canonical("the invoicer service", table) == "the billing service"


@pytest.mark.parametrize("bad", [{"aliases": ["x"]}, {"a": 3}, {"a": ["ok", 3]}])
def test_malformed_user_aliases_raise_config_error(bad: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        build_alias_table(bad)


# --------------------------------------------------------------------------- query expansion


def test_expand_query_aliases_gives_the_query_then_variants() -> None:
    variants = expand_query_aliases("deploy to k8s")
    assert variants[0] == "deploy to k8s"
    assert "deploy to kubernetes" in variants
    assert "deploy to kube" in variants


def test_expand_query_aliases_covers_chinese_aliases() -> None:
    assert "database 连接池" in expand_query_aliases("数据库 连接池")


def test_expand_query_aliases_without_entities_is_just_the_query() -> None:
    assert expand_query_aliases("why is the build slow") == ["why is the build slow"]


def test_expand_query_aliases_uses_a_user_table() -> None:
    table = build_alias_table({"shop-api": ["shop backend"]})
    assert expand_query_aliases("shop backend logs", table) == [
        "shop backend logs",
        "shop-api logs",
    ]


@given(st.text(max_size=60))
def test_expand_query_aliases_is_bounded_and_unique(text: str) -> None:
    variants = expand_query_aliases(text)
    assert variants[0] == normalize_width(text)
    assert len(variants) == len(set(variants)) <= MAX_QUERY_VARIANTS


# --------------------------------------------------------------------------- subjects


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("never npm, use pnpm", "package-manager:js", "pnpm"),
        ("use npm", "package-manager:js", "npm"),
        ("always use uv, never pip", "package-manager:python", "uv"),
        ("use pnpm instead of npm", "package-manager:js", "pnpm"),
        ("这个项目里缩进统一两个空格", "indent", "两个空格"),
        ("neovim is my editor", "editor", "neovim"),
    ],
)
def test_subject_and_value(text: str, subject: str, value: str) -> None:
    canon = canonical(text)
    assert find_subject(canon) == subject
    assert subject_value(canon, subject) == value


def test_subject_value_is_none_when_every_mention_is_negated() -> None:
    assert subject_value("never use npm", "package-manager:js") is None


def test_unknown_subject_is_none() -> None:
    assert find_subject(canonical("keep answers short")) is None


def _every_position(text: str) -> str:
    """canonical() as the plain pattern substitution over every position."""
    table = aliases.DEFAULT_ALIASES
    assert table.pattern is not None
    folded = aliases._SPACES.sub(" ", aliases.normalize_width(text).casefold()).strip()
    replaced = table.pattern.sub(lambda m: table.variants[aliases._key(m.group(0))], folded)
    return replaced.rstrip(aliases._TRAILING_PUNCT).strip()


def test_canonical_tries_only_where_a_mention_can_start_and_says_the_same() -> None:
    root = ROOT / "eval" / "capture"
    texts = [
        "ı use ts", "TS and K8S", "前端 uses db and 代码仓库", "node   js", "setup.py", "ts-node",
        "c++ c# .ts", "ſtuff k8s", "K8s on macOS via gh", "ts_x py3 python3 Python-3",
        "数据库数据库", "the Node.js repo", "vs  code or VSCode", "@ts /ts ts/ ts.",
    ]  # fmt: skip
    for path in sorted(root.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            texts += _strings(json.loads(line))
    assert len(texts) > 1000
    assert [canonical(t) for t in texts] == [_every_position(t) for t in texts]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []

"""The public API: `recallnest.__all__` is sorted, and every name in it resolves."""

from __future__ import annotations

import pytest

import recallnest


def test_all_is_sorted_and_unique() -> None:
    assert list(recallnest.__all__) == sorted(recallnest.__all__)
    assert len(set(recallnest.__all__)) == len(recallnest.__all__)


@pytest.mark.parametrize("name", recallnest.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(recallnest, name) is not None


def test_lazy_names_resolve_to_their_modules() -> None:
    from recallnest.core.config import Settings
    from recallnest.engine import Engine, SearchRequest
    from recallnest.store import Store

    assert recallnest.Engine is Engine
    assert recallnest.SearchRequest is SearchRequest
    assert recallnest.Settings is Settings
    assert recallnest.Store is Store


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = recallnest.no_such_name  # type: ignore[attr-defined]

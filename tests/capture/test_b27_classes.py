"""Capture: the classes blind batch b27 missed or kept wrongly, each tested on phrasings of our
own (not the batch's rows): a how-to under a heading ("Renewing the cert: …, then …",
"X goes like this: a, b, and c", 发版：先…再…, …的步骤：…，再…, 我们是这么处理的：先…事后…), a
route every item of a kind goes through, and, the other way, a progress report or a remark
shaped like a heading."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, value: str) -> None:
    assert any(c.category == category and value.lower() in c.text.lower() for c in found), [
        (c.category, c.text) for c in found
    ]


# --------------------------------------------------------------------------- how-to headings


@pytest.mark.parametrize(
    ("said", "role", "value"),
    [
        (
            "Renewing the staging cert: run `make cert-request`, wait for the DNS challenge,"
            " then reload nginx on both edge boxes.",
            "assistant",
            "cert-request",
        ),
        (
            "Cutting a hotfix goes like this: branch off the release tag, bump the patch"
            " number in VERSION, and let the tag pipeline publish it.",
            "assistant",
            "VERSION",
        ),
        (
            "发测试包：先在 Jenkins 上选 release 分支，再把产物传到蒲公英；最后在群里通知测试。",
            "assistant",
            "蒲公英",
        ),
        (
            "加一个新数据源的步骤：在 sources/ 下写适配器，到 loader.py 里登记，再补集成测试。",
            "assistant",
            "loader.py",
        ),
        (
            "数据库告警我们是这么处理的：先看慢查询日志，半小时内压不下来就扩容只读副本，事后补一份分析",
            "user",
            "慢查询",
        ),
    ],
)
def test_a_how_to_under_a_heading_is_a_workflow(said: str, role: str, value: str) -> None:
    previous = "ok" if role == "assistant" else None
    kept(capture(said, role, previous=previous), "patterns", value)


def test_a_route_every_item_of_a_kind_goes_through_is_a_workflow() -> None:
    said = "every schema change on the orders db goes through gh-ost, never a plain ALTER"
    kept(capture(said), "patterns", "gh-ost")


@pytest.mark.parametrize(
    ("said", "role"),
    [
        # progress on the task at hand under a heading: narration, not a how-to
        ("Progress so far: I updated the parser, then reran the suite.", "assistant"),
        ("进展：先改了解析器，再重跑了测试。", "assistant"),
        ("问题：先别动 prod 的配置，再观察一下。", "user"),
    ],
)
def test_a_heading_over_progress_is_not_a_workflow(said: str, role: str) -> None:
    previous = "ok" if role == "assistant" else None
    found = capture(said, role, previous=previous)
    assert not any(c.category == "patterns" for c in found), [(c.category, c.text) for c in found]

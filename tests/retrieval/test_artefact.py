"""What a prompt asks to make (retrieval.artefact): the head noun, not a word modifying it."""

from __future__ import annotations

import pytest

from recallnest.retrieval.artefact import produced


@pytest.mark.parametrize(
    ("prompt", "head"),
    [
        ("Write a new test for the discount code parser", "test"),
        ("I need to add a migration for the new loyalty_points column", "migration"),
        ("Can you write a Dockerfile for the worker?", "dockerfile"),
        ("add tests for the parser", "tests"),
        ("Write a migration guide for the API v2 clients", "guide"),  # a guide, not a migration
        ("帮我写一条统计每个城市订单量的 SQL", "sql"),
        ("帮我写一个统计每日活跃用户的脚本", "脚本"),
        ("给订单表加字段", "字段"),
        # asked for, to be made; the object ends where a new clause starts (round 40)
        ("给我一条命令，把照片目录同步到 NAS", "命令"),
        ("give me a command to rotate the nginx logs", "command"),
        ("写一个脚本把过期的会话删掉", "脚本"),
    ],
)
def test_the_head_of_what_is_made(prompt: str, head: str) -> None:
    assert produced(prompt) == head


@pytest.mark.parametrize(
    "prompt",
    [
        "How do we deploy the storefront to production again?",
        "Make the release notes template friendlier",  # make X Y: nothing is made
        "payments 服务刚才发版出问题了，怎么回滚？",  # 出问题 makes nothing
        "数据库迁移前要做什么？",
        "昨天的分区数据有问题，要重新补一下",
        "给我讲讲这个模块是干什么的",
        "show me the logs from last night",
    ],
)
def test_prompts_that_make_nothing(prompt: str) -> None:
    assert produced(prompt) is None


def test_a_gerund_ends_the_object_once_it_has_a_noun() -> None:
    assert produced("Create a migration adding a status column to orders") == "migration"
    assert produced("Write a logging helper for the importer") == "helper"
    assert produced("Write the tests please") == "tests"


@pytest.mark.parametrize(
    ("prompt", "head"),
    [
        ("数据写入 Hive 的时候报错", None),  # 写入 writes data, makes nothing
        ("页面加载太慢了", None),
        ("有什么建议吗", None),
        ("给 orders 表加个索引", "索引"),
        ("帮我添加一个健康检查接口", "接口"),
        ("新建一个 Airflow DAG", "dag"),
        ("写单测", "单测"),
    ],
)
def test_chinese_verbs_inside_other_words_make_nothing(prompt: str, head: str | None) -> None:
    assert produced(prompt) == head


@pytest.mark.parametrize(
    "prompt",
    [
        "rewrite invoice_export.py so it reads better and send it back",
        "refactor the billing module, it has grown too big",
        "把 coupon 模块整个重构一下",
        "这个函数帮我重写一遍",
    ],
)
def test_a_request_to_change_existing_code_makes_code(prompt: str) -> None:
    """Round 42 (test-blind8): the convention about how code changes come back (diffs, not
    whole files) answers these; before, nothing was made and it was never weighed."""
    assert produced(prompt) == "code"


def test_rewriting_a_text_is_no_code_change() -> None:
    assert produced("rewrite this paragraph so it sounds friendlier") is None


@pytest.mark.parametrize(
    ("prompt", "head"),
    [
        # where or when it goes ends the object (round 43, test-blind9): the object ran on past
        # four words and the request was not read at all
        ("add a comment block above the hold-expiry cron explaining what it does", "comment"),
        ("add a log line before the retry loop", "log"),
        ("put a health check behind the load balancer", None),  # put makes nothing
        ("write a docstring above the public function", "docstring"),
        ("write a fixture next to the parser tests", "fixture"),
        ("write the next chapter of the guide", "chapter"),  # next as a word of the object
    ],
)
def test_where_the_thing_goes_ends_the_object(prompt: str, head: str | None) -> None:
    assert produced(prompt) == head


@pytest.mark.parametrize(
    ("prompt", "head"),
    [
        ("add a comment block for the retry logic", "comment"),
        ("Add a changelog entry for the CSV import fix", "changelog"),
        ("write a test file for the exporter", "test"),
        ("add a file", "file"),  # nothing else names what it holds
        ("Write a migration guide for the API v2 clients", "guide"),  # a guide is no container
    ],
)
def test_a_container_head_makes_what_it_holds(prompt: str, head: str) -> None:
    """A block, an entry, a file or a line holds the thing the conventions are about."""
    assert produced(prompt) == head


@pytest.mark.parametrize(
    ("prompt", "head"),
    [
        # the X to do something is made for it (round 43, test-blind7's class)
        ("give me the command to copy yesterday's backups onto the NAS", "command"),
        ("send me the script to rotate the api keys", "script"),
        ("give me the SQL to find duplicate orders", "sql"),
        # what is there, handed over
        ("give me the logs from last night", None),
        ("give me the link to the dashboard", None),
    ],
)
def test_the_thing_to_do_something_is_made(prompt: str, head: str | None) -> None:
    assert produced(prompt) == head

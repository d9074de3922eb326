"""Capture: the classes blind batch b26 missed or kept wrongly, each tested on phrasings of our
own (not the batch's rows): a routine with its subject and no comma, a release flow said as
"X 是这样的：…", an assistant noting the user's flow, what the user teaches or studies, a
style rule changed ("changed my mind on …"), "keep … lowercase", "那就 X 吧" after options, and,
the other way, someone else's setup and chit-chat shaped like a routine."""

from __future__ import annotations

import pytest
from support.capturing import capture

from recallnest.core.models import Capture


def kept(found: list[Capture], category: str, value: str) -> None:
    assert any(c.category == category and value.lower() in c.text.lower() for c in found), [
        (c.category, c.text) for c in found
    ]


# --------------------------------------------------------------------------- workflows


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("whenever a migration lands we bump the schema version in db/VERSION", "db/VERSION"),
        (
            "each time the api spec changes we regenerate the client with openapi-generator",
            "openapi-generator",
        ),
    ],
)
def test_a_routine_with_its_subject_is_a_workflow(said: str, value: str) -> None:
    kept(capture(said), "patterns", value)


def test_a_flow_said_as_how_it_goes_is_a_workflow() -> None:
    said = "我们提测是这样的：PR 合进 develop，Jenkins 出包，最后在钉钉群里 @ 测试"
    kept(capture(said), "patterns", "Jenkins")


def test_an_assistant_noting_the_users_flow_keeps_it() -> None:
    said = "Noted the hotfix process: branch off the release tag, cherry-pick, then tag a patch."
    kept(capture(said, "assistant", previous="ok"), "patterns", "cherry-pick")


# --------------------------------------------------------------------------- profile


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("i lecture on databases at the uni, this is the course repo", "lecture"),
        ("我现在研二，这是毕业设计", "研二"),
    ],
)
def test_what_the_user_teaches_or_studies_is_their_profile(said: str, value: str) -> None:
    kept(capture(said), "profile", value)


@pytest.mark.parametrize("said", ["I teach you how to use it later", "我在读一本关于 Rust 的书"])
def test_teaching_someone_now_or_reading_a_book_is_no_profile(said: str) -> None:
    assert not [c for c in capture(said) if c.category == "profile"]


# --------------------------------------------------------------------------- preferences


def test_a_style_rule_changed_is_a_preference() -> None:
    said = "i changed my mind on naming — kebab-case for files, camelCase for functions"
    kept(capture(said), "preferences", "kebab-case")


def test_keep_something_lowercase_is_a_preference() -> None:
    kept(capture("keep env var names uppercase"), "preferences", "uppercase")


# --------------------------------------------------------------------------- decisions


def test_picking_one_of_the_offered_options_is_a_decision() -> None:
    offered = "队列可以用 RabbitMQ，也可以直接用 Redis Stream，后者少一个组件。"
    kept(capture("那就 Redis Stream 吧，少运维一个东西", previous=offered), "events", "Redis")


# --------------------------------------------------------------------------- no memory


@pytest.mark.parametrize(
    "said",
    [
        "my friend's startup runs everything on fly.io, looks fun honestly",
        "a colleague's repo uses bazel for the monorepo, builds are crazy fast",
        "我朋友的公司全用 Go 写后端，据说招人很容易",
        "隔壁组的项目是用 Gradle 构建的，我们没用",
    ],
)
def test_someone_elses_setup_is_no_memory(said: str) -> None:
    assert capture(said) == []


def test_our_own_setup_said_after_a_colleague_is_still_kept() -> None:
    kept(capture("my colleague set up the CI: our builds run on buildkite now"), "entities", "")


@pytest.mark.parametrize(
    "said", ["hey! tea first, then we fix stuff", "lunch first, then the rest"]
)
def test_chit_chat_shaped_like_a_routine_is_no_workflow(said: str) -> None:
    assert not [c for c in capture(said) if c.category == "patterns"]


def test_a_real_first_then_routine_stays() -> None:
    kept(capture("first run the migrations, then seed the db with make seed"), "patterns", "seed")

"""Prompt recall, round 43 classes (issue 23): what the prompt asks to make when the object is
followed by where it goes, or named by what holds it (a comment block, a log line)."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit


def _memory(text: str, project: str | None = None, id: str = "m1") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


COMMENTS_ZH = "代码注释统一用英文写，不要写拼音。"


def test_a_comment_block_placed_somewhere_takes_the_comment_convention() -> None:
    """'add a comment block above X' asks for comments: the rule about comments, written in the
    other language, answers it on that one word (test-blind9's class)."""
    prompt = "add a comment block above the retry decorator saying why it waits"
    assert chosen_ids(prompt, [_memory(COMMENTS_ZH)]) == ["m1"]


def test_a_comment_block_does_not_take_a_rule_about_something_else() -> None:
    prompt = "add a comment block above the retry decorator saying why it waits"
    other = "日志统一用英文写，不要写拼音。"
    assert chosen_ids(prompt, [_memory(other)]) == []

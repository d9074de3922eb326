"""Prompt recall (issue 23, decision 0073): more ways of asking for a procedure, and one more way
a note heads its steps. A prompt asking what to do at an occasion in the infinitive ("the list
of what to do before he drives off"), or naming the routine it wants ("what's the routine for
getting results out?", 退货的流程是啥), asks for the procedure; a note headed by its occasion
("After every event: …", "Once a month: …") orders steps. Phrasings of our own; look-alikes
that ask or order nothing."""

from __future__ import annotations

from recallnest.retrieval import relevance


def test_the_infinitive_and_the_routines_name_ask_for_a_procedure() -> None:
    for prompt in (
        "new volunteer is opening up alone on friday, jot down what to do before the doors open",
        "not sure what to check after a hire comes back",
        "what's the routine for closing the till?",
        "what are the steps for a refund on a cancelled lesson",
        "what is the procedure to hand the keys back",
        "退货的流程是啥？",
        "月底对账步骤是什么",
    ):
        assert relevance.asks_procedure(prompt), prompt
        assert relevance.asks_order(prompt), prompt


def test_other_questions_with_the_same_words_ask_no_procedure() -> None:
    for prompt in (
        "what to do about the flaky build?",
        "no idea what to do, the build is red",
        "the routine runs nightly, can you speed it up",
        "anything i should check before saying yes?",
        "流程图画好了吗",
    ):
        assert not relevance.asks_procedure(prompt), prompt


def test_a_note_headed_by_its_occasion_orders_steps() -> None:
    for note in (
        "After every match: collect the bibs, lock the goal nets away and post the score.",
        "Once a month: rotate the keys on the shared laptop and prune old backups.",
        "Each evening: count the float, then email the totals to the owner.",
    ):
        assert relevance.orders_steps(note), note
    for fact in (
        "Every booking records which trailer it is for.",
        "Each van seats three and has a tow bar.",
    ):
        assert not relevance.orders_steps(fact), fact

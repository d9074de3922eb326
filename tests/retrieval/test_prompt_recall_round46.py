"""Prompt recall, round 46 b14 (issue 23, decision 0056): a rule that orders two steps rules on
the later one ("... before anything is published"), so a prompt proposing that step gets the
rule; a name written with a capital inside a sentence in both the prompt and a note (down
Quayside way / Quayside drops) names the same thing; something that did not arrive (never
got, stopped receiving, 没收到) is one word whatever verb says it. Each class with notes of our
own wording it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from support.recall import chosen_ids

from recallnest.core.models import SearchHit
from recallnest.retrieval import relevance
from recallnest.retrieval.relevance import analyse_prompt, forbidden


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


# --- a rule that orders two steps rules on the later one ---------------------------------------

REVIEW = _memory(
    "In every project the user wants copy edits checked by a second editor on the draft "
    "wiki page before anything is published to the handbook.",
    id="review",
    project=None,
)


def test_proposing_the_later_step_gets_the_ordering_rule() -> None:
    """publish and handbook are the step the rule orders last: proposing it is the shortcut
    the rule is there for (before: two shared words of a long prompt, under the bar)."""
    prompt = "small wording tweak on the refunds paragraph, go ahead and publish it to the handbook"
    assert chosen_ids(prompt, [REVIEW]) == ["review"]


def test_the_later_step_is_read_in_both_languages() -> None:
    later = relevance.later_steps
    assert {"handbook", "publish"} <= later(REVIEW.text)
    assert "上线" in later("每次上线之前必须先在预发环境跑一遍回归")
    assert "换刀" in later("必须先停机再换刀")
    assert "发货" in later("付款确认之后才能发货")


def test_words_around_again_and_just_now_are_no_step() -> None:
    """不再 (no longer), 再次 (once more), 刚才 (just now), 人才 hold 再 or 才 and order nothing."""
    later = getattr(relevance, "later_steps", forbidden)
    for text in (
        "我们不再用这个打印机",
        "要求再次确认密码",
        "刚才说的方案必须改",
        "人才库要统一管理",
    ):
        assert not {"打印", "印机", "确认", "密码", "方案", "才库"} & later(text), text


def test_a_question_about_the_later_step_proposes_no_shortcut() -> None:
    """Whether it should be published asks about the step; it proposes taking it at once no
    more than 要不要派人 does."""
    prompt = "small wording tweak on the refunds paragraph, should it be published to the handbook"
    assert chosen_ids(prompt, [REVIEW]) == []


def test_a_prompt_sharing_only_the_earlier_step_gets_nothing_more() -> None:
    """The second editor is the step before: a prompt sharing its words gets no more for them."""
    prompt = "who is the second editor this week for the spring newsletter, can they start today?"
    assert chosen_ids(prompt, [REVIEW]) == []


# --- a name written with a capital inside a sentence -------------------------------------------

AREAS = _memory(
    "Deliveries are split into three areas: Harbour, Quayside and Old Town. Each area has one "
    "driver; Quayside drops go to Priya because only her van has the permit for the cobbles.",
    id="areas",
)


def test_a_shared_name_beside_a_second_word_names_what_the_prompt_asks_about() -> None:
    prompt = (
        "lady rang about a delivery down Quayside way, big oak wardrobe for the second floor, "
        "which of us should take it this afternoon?"
    )
    assert chosen_ids(prompt, [AREAS]) == ["areas"]


def test_names_are_read_inside_sentences_only() -> None:
    """Tom opens the sentence (capitalised for that alone); VPS is an acronym; June is a month."""
    assert relevance.proper_names(
        "Tom says the VPS in June went down near Quayside. Later it was fine"
    ) == {"quayside"}
    assert getattr(analyse_prompt("a parcel for Quayside, who takes it"), "proper", ()) == (
        "quaysid",
    )


def test_a_name_alone_is_one_shared_word() -> None:
    assert chosen_ids("is there parking near Quayside these days?", [AREAS]) == []


def test_a_name_the_note_writes_in_lower_case_is_a_plain_word() -> None:
    """ "the harbour" in the note is a common noun: the prompt's Harbour earns no name bonus."""
    note = _memory("Vans are washed at the harbour tap on fridays after the last delivery round.")
    prompt = "someone on Harbour Street wants a delivery of two chairs and a big oak table today"
    assert chosen_ids(prompt, [note]) == []


# --- something that did not arrive --------------------------------------------------------------

ROTA = _memory(
    "Night porters stopped receiving the weekly rota email in March: the mailing list had been "
    "moved to the new domain and the old address bounced without a warning.",
    id="rota",
)


def test_never_got_is_the_failure_a_past_case_calls_stopped_receiving() -> None:
    prompt = (
        "Dave on the front desk reckons he never got the rota this week, something about his "
        "work address, can you look"
    )
    assert chosen_ids(prompt, [ROTA]) == ["rota"]


def test_the_failure_is_read_in_chinese_too() -> None:
    assert "receiv" in analyse_prompt("夜班的同事说这周没收到排班表的邮件").terms
    assert "receiv" in analyse_prompt("the porters are not getting their rota emails").terms


def test_questions_and_other_gets_are_no_failure() -> None:
    for prompt in (
        "did you get my email about the rota?",
        "get the rota email out to the porters",
        "the visitors never turned up for their slot",
    ):
        assert "receiv" not in analyse_prompt(prompt).terms, prompt


# --- a kind of value in something shown, and a rule on how that kind is written ----------------

AMOUNTS = _memory(
    "The user wants every amount shown to customers written with the currency sign and no "
    "decimals, e.g. €12, never 12.00 EUR, in all projects.",
    id="amounts",
    project=None,
)
CLOCK = _memory(
    "In every project the user wants times shown to the public in 24-hour form such as 18:30, "
    "never am or pm.",
    id="clock",
    project=None,
)
MASK = _memory(
    "用户要求所有项目里对外展示的手机号一律把中间四位换成星号。", id="mask", project=None
)


def test_an_amount_in_an_email_gets_the_rule_on_writing_amounts() -> None:
    """The email shows the deposit; the rule shares no word with the prompt, only the kind."""
    prompt = "write the reminder email for the spring camp and mention the deposit"
    assert chosen_ids(prompt, [AMOUNTS]) == ["amounts"]


def test_kinds_are_read_across_languages() -> None:
    assert chosen_ids("做一张海报，写上周六几点开门、几点关门", [CLOCK]) == ["clock"]
    assert chosen_ids("put the volunteers' mobile numbers on the printed shift sheet", [MASK]) == [
        "mask"
    ]


def test_the_rules_lookup_reads_the_kind_words() -> None:
    """The rule is often not among the ranked hits: the lookup for rules reads the kind too."""
    plan = analyse_prompt("write the reminder email for the spring camp and mention the deposit")
    assert {"金额", "amount"} <= plan.rules_about


def test_a_kind_in_nothing_shown_or_a_fact_about_it_gets_nothing() -> None:
    """A price asked about in the database is shown to no one; a fact about deposits is no
    rule on writing them, and one shared word is not enough."""
    assert chosen_ids("why is the camp price wrong in the database", [AMOUNTS]) == []
    fact = _memory("Deposits are refunded within five working days.", id="fact")
    assert chosen_ids("write the reminder email, mention the deposit", [fact]) == []

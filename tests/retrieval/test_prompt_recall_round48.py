"""Prompt recall, round 48 (issue 23, decision 0064): a weekday the prompt names is a word only
a rule on weekdays says, not a note telling when something recurs; the verb a prompt orders
done meets a standing rule whose never-clause holds it; a returned error or a pop-up is read
by people, and a standing rule on what users are shown rules on how it is shown; a prompt
asking which step comes first is answered, across the languages, by the closest note of the
other language when that note is a procedure. Each class
with notes of our own wording it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from support.recall import chosen_ids

from recallnest.core.models import Memory, SearchHit
from recallnest.engine import Engine
from recallnest.retrieval import relevance, seasons
from recallnest.retrieval.ranking import AcrossLanguage
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


# --- a weekday against a note that only says when something recurs --------------------------

BULLETIN = _memory(
    "The allotment society's bulletin is put together by two volunteers and goes out to "
    "members every Tuesday.",
    id="bulletin",
)
HALL = _memory("The village hall is only available to the society on Wednesdays.", id="hall")


def test_a_recurring_weekday_in_a_fact_is_no_other_weekday() -> None:
    plan = analyse_prompt("can we hold the seed swap on sunday and the plot walk on monday")
    assert seasons.said_in_other_words(plan.times, BULLETIN.text, rule=False) == set()
    assert seasons.said_in_other_words(plan.times, HALL.text, rule=True) == {"sunday", "monday"}


def test_a_bulletin_piece_for_other_days_gets_no_note_on_when_the_bulletin_goes_out() -> None:
    """It shares bulletin with the note; before, sunday and monday were two more words the
    note said (its 'every Tuesday'), and three shared words passed."""
    prompt = "write a bulletin item about the seed swap on sunday, sign-up closes monday"
    assert chosen_ids(prompt, [BULLETIN]) == []


def test_a_rule_on_weekdays_still_answers_another_weekday() -> None:
    assert chosen_ids("can the society book the hall for a friday evening?", [HALL]) == ["hall"]


# --- the verb a prompt orders done, against a rule that rules it out ------------------------

NO_MERGE = _memory(
    "In every repository the user wants to merge pull requests personally; the agent never "
    "merges anything, it only opens the request.",
    id="no-merge",
    project=None,
)
NO_DELETE = _memory(
    "用户要求所有项目里 agent 不要删除任何数据库备份，清理备份由用户自己做。",
    id="no-delete",
    project=None,
)


def test_an_order_s_verb_is_read() -> None:
    assert analyse_prompt("all green now, merge it into main").orders == ("merg",)
    assert analyse_prompt("ok then, deploy the hotfix to staging").orders == ("deploy",)
    assert analyse_prompt("why did the merge take so long yesterday").orders == ()
    assert analyse_prompt("the gate gusts up the valley again").orders == ()


def test_ordering_what_a_rule_never_allows_gets_the_rule() -> None:
    """One shared word (merge), before: relevance 0."""
    assert chosen_ids("all green now, merge it into main", [NO_MERGE]) == ["no-merge"]


def test_the_verb_said_otherwise_orders_nothing() -> None:
    assert chosen_ids("why did the merge into main take so long yesterday", [NO_MERGE]) == []
    assert chosen_ids("all green now, ship it to the testers", [NO_MERGE]) == []


def test_a_rule_whose_never_clause_lacks_the_verb_is_not_met() -> None:
    rule = _memory(
        "In every repository the user wants commits signed; never use a throwaway key.",
        id="signing",
        project=None,
    )
    assert chosen_ids("all green now, merge it into main", [rule]) == []


# --- a returned error is shown to people, and a rule on what users see rules on it ----------

PLAIN_WORDS = _memory(
    "In every project the user wants every message shown to users in plain words, never an "
    "internal status code on its own.",
    id="plain",
    project=None,
)
ZH_TIPS = _memory(
    "用户要求所有项目里展示给顾客看的提示一律用简体中文，日志随意。", id="zh-tips", project=None
)


def test_an_error_returned_or_a_pop_up_is_read_by_people() -> None:
    assert analyse_prompt("add a postcode check to signup and return an error if it fails").presents
    assert analyse_prompt("下单接口加个库存校验，库存不够就返回错误").presents
    assert analyse_prompt("扫码失败的时候弹个提示框").presents
    assert not analyse_prompt("add a postcode check to signup").presents


def test_a_rule_on_what_users_see_answers_a_returned_error() -> None:
    """One shared word (message; 提示), before: 0 and below the bar."""
    prompt = "add a postcode check to signup and show an error message when it is wrong"
    assert chosen_ids(prompt, [PLAIN_WORDS]) == ["plain"]
    assert chosen_ids("下单接口加个库存校验，库存不够就返回错误提示", [ZH_TIPS]) == ["zh-tips"]


def test_a_rule_on_messages_nobody_is_shown_is_not_met() -> None:
    rule = _memory(
        "In every project the user wants log messages written in English, never translated.",
        id="logs",
        project=None,
    )
    prompt = "add a postcode check to signup and show an error message when it is wrong"
    assert chosen_ids(prompt, [rule]) == []


# --- which step first, across the languages: the procedure closest in meaning --------------

KILN = (
    "After every kiln load, run the moisture probe through three boards first and unload "
    "only when all three read under 12 %."
)


def test_a_prompt_asking_which_step_first_or_to_skip_one_asks_for_a_procedure() -> None:
    assert relevance.asks_order("窑里这批板子出来了，先测哪块？")
    assert relevance.asks_order("新补丁打好了，先发哪个区，要等多久再全部推？")
    assert relevance.asks_order("窑刚开，能不能直接卸板？")
    assert relevance.asks_order("which server do we patch first?")
    assert not relevance.asks_order("窑里这批板子的含水率是多少？")
    assert not relevance.asks_order("谁负责窑的维护？")


def test_the_closest_note_of_the_other_language_answers_as_a_procedure() -> None:
    asked = "窑刚开，能不能直接卸板？"
    z = relevance.ACROSS_ORDER_Z
    assert relevance.across_order_passes(z, asked, KILN)
    assert not relevance.across_order_passes(z - 0.01, asked, KILN)
    # a fact orders nothing, and a prompt that asks no order asks for no procedure
    assert not relevance.across_order_passes(z, asked, "The kiln is run by the drying team.")
    assert not relevance.across_order_passes(z, "窑里这批板子的含水率是多少？", KILN)


def _engine_with(text: str) -> SimpleNamespace:
    """What Engine._with_across reads: the index's row of a position and the store's memory."""
    memory = Memory(id="kiln", scope="project:p", category="patterns", text=text)
    return SimpleNamespace(
        index=SimpleNamespace(row=lambda position: ("memory", "kiln")),
        store=SimpleNamespace(memories=lambda ids: [memory] if ids == ["kiln"] else []),
    )


def test_the_search_adds_the_procedure_for_an_order_question_only() -> None:
    found = AcrossLanguage(position=0, cosine=0.82, margin=0.003, z=2.05, pool=150)
    engine = _engine_with(KILN)
    added = Engine._with_across(engine, [], found, "窑刚开，能不能直接卸板？")
    assert [h.id for h in added] == ["kiln"]
    assert relevance.across_language(added[0].explain)
    assert Engine._with_across(engine, [], found, "窑里这批板子的含水率是多少？") == []
    fact = _engine_with("The kiln is run by the drying team.")
    assert Engine._with_across(fact, [], found, "窑刚开，能不能直接卸板？") == []
    few = replace(found, pool=relevance.ACROSS_POOL_MIN - 1)
    assert Engine._with_across(engine, [], few, "窑刚开，能不能直接卸板？") == []

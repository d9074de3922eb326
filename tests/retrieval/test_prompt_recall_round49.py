"""Prompt recall, round 49 (issue 23, decision 0066): a prompt asking what has to be done at an
occasion asks for a procedure, and the closest note of its own language answers it when that
note orders steps and stands out as the other language's closest must; an order to ship the
work orders each step of shipping, so a standing rule against one of them (a push, a merge, a
deploy) answers it and is looked up for it. Each class with notes of our own wording it
reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from support.recall import chosen_ids

from recallnest.core.models import Memory, SearchHit
from recallnest.engine import Engine
from recallnest.retrieval import relevance
from recallnest.retrieval.ranking import AcrossLanguage
from recallnest.retrieval.relevance import analyse_prompt


def _memory(text: str, id: str = "m1", project: str | None = "p") -> SearchHit:
    return SearchHit(kind="memory", id=id, text=text, score=1.0, project=project)


# --- what has to be done at an occasion: the procedure of the prompt's own language ---------

OPENING = (
    "Opening the climbing wall each morning: inspect the auto-belays, sweep the crash mats, "
    "log the rope checks, then unlock the front door."
)
CLOSING_ZH = "每天 22:00 闭馆后：关掉空调和灯光，检查所有储物柜，再把当天的收银单拍照发到群里。"


def test_a_prompt_asking_what_to_do_at_an_occasion_asks_for_a_procedure() -> None:
    asked = [
        "new instructor starts monday, what does he need to do before we open the doors?",
        "what has to happen before the van leaves the depot?",
        "what do the volunteers actually have to do at handover?",
        "what should the night porter do before locking up?",
        "新来的前台问晚上闭馆后都要干啥",
        "交班之前要先做什么？",
        "换新店长了，关门前要做哪几步？",
    ]
    for prompt in asked:
        assert relevance.asks_procedure(prompt), prompt
        assert relevance.asks_order(prompt), prompt
    for prompt in (
        "what do I need to do to fix the flaky build?",
        "what time do we need to be at the depot?",
        "just merge it, no need for a review",  # skipping a step asks no procedure here
        "闭馆时间是几点？",
    ):
        assert not relevance.asks_procedure(prompt), prompt


def test_a_note_with_an_occasion_heading_orders_steps() -> None:
    assert relevance.orders_steps(OPENING)
    assert relevance.orders_steps(CLOSING_ZH)
    assert relevance.orders_steps("每晚关店前跑 close_day.sh：核对当天件数，差异件拍照上传。")
    for fact in (
        "时间：周六和周日的早场",
        "后台配置：用 yaml 文件",
        "前端规范：统一用 pnpm",
        "押金每人 50 元，开场前 6 小时内取消不退。",
    ):
        assert not relevance.orders_steps(fact), fact


def _engine_with(text: str) -> SimpleNamespace:
    """What Engine._with_procedure reads: the index's row of a position and the store's
    memory."""
    memory = Memory(id="proc", scope="project:p", category="patterns", text=text)
    return SimpleNamespace(
        index=SimpleNamespace(row=lambda position: ("memory", "proc")),
        store=SimpleNamespace(memories=lambda ids: [memory] if ids == ["proc"] else []),
    )


def test_the_search_marks_the_procedure_closest_in_meaning_in_its_own_language() -> None:
    """Closest of its language by 0.014 at z 3.6: under the lone cosine margin the gate
    reads (0.034), so before, nothing was injected."""
    found = AcrossLanguage(position=0, cosine=0.85, margin=0.014, z=3.6, pool=150)
    added = Engine._with_procedure(_engine_with(OPENING), [], found)
    assert [h.id for h in added] == ["proc"]
    assert relevance.across_language(added[0].explain)
    # already a candidate: marked, not added twice
    hit = _memory(OPENING, id="proc")
    marked = Engine._with_procedure(_engine_with(OPENING), [hit], found)
    assert [h.id for h in marked] == ["proc"]
    assert relevance.across_language(marked[0].explain)


def test_a_fact_or_a_note_standing_out_too_little_is_not_marked() -> None:
    found = AcrossLanguage(position=0, cosine=0.85, margin=0.014, z=3.6, pool=150)
    fact = _engine_with("The climbing wall opens at 07:00 on weekdays.")
    assert Engine._with_procedure(fact, [], found) == []
    engine = _engine_with(OPENING)
    for weak in (
        replace(found, margin=relevance.ACROSS_MARGIN - 0.001),
        replace(found, z=relevance.ACROSS_Z - 0.1),
        replace(found, pool=relevance.ACROSS_POOL_MIN - 1),
    ):
        assert Engine._with_procedure(engine, [], weak) == []


# --- an order to ship the work, against a rule on a step of shipping ------------------------

NO_PUSH = _memory(
    "In every project the user wants the agent never to run git push; the user pushes after "
    "reading the diff.",
    id="no-push",
    project=None,
)
NO_DEPLOY_ZH = _memory(
    "用户要求所有项目里 agent 不要自己部署到生产环境，部署由用户点按钮。",
    id="no-deploy",
    project=None,
)


def test_an_order_to_ship_the_work_is_read() -> None:
    assert analyse_prompt("CI passed, ship it!").ships == ("ship",)
    assert analyse_prompt("lgtm, just ship it now").ships == ("ship",)
    plan = analyse_prompt("the build is green, ship it")
    assert plan.rules_about >= relevance.SHIP_STEPS
    assert {"push", "merg", "deploy"} <= plan.acts


def test_shipping_something_else_or_to_someone_ships_no_work() -> None:
    for prompt in (
        "the customer paid, ship the order tomorrow",
        "we sold the bike, ship it monday",  # no word of the code's work
        "all green now, ship it to the testers",  # delivered to someone
        "the tests are green, why is shipping so slow?",
    ):
        assert analyse_prompt(prompt).ships == (), prompt
        assert not analyse_prompt(prompt).rules_about >= relevance.SHIP_STEPS, prompt


def test_a_rule_against_a_step_of_shipping_answers_an_order_to_ship() -> None:
    """No word shared (ship against push, 部署): before, relevance 0."""
    assert chosen_ids("tests pass, tidy it up and ship it", [NO_PUSH]) == ["no-push"]
    assert chosen_ids("the build is green, ship it", [NO_DEPLOY_ZH]) == ["no-deploy"]


def test_a_rule_on_something_else_is_not_met_by_an_order_to_ship() -> None:
    signing = _memory(
        "In every repository the user wants commits signed; never use a throwaway key.",
        id="signing",
        project=None,
    )
    assert chosen_ids("tests pass, tidy it up and ship it", [signing]) == []
    assert chosen_ids("the customer paid, ship the order tomorrow", [NO_PUSH]) == []

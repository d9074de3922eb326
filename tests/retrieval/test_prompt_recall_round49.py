"""Prompt recall, round 49 (issue 23, decision 0066): a prompt asking what has to be done at an
occasion asks for a procedure, and the closest note of its own language answers it when that
note orders steps and stands out as the other language's closest must. Each class with notes
of our own wording it reaches, and look-alikes that must get nothing."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from recallnest.core.models import Memory, SearchHit
from recallnest.engine import Engine
from recallnest.retrieval import relevance
from recallnest.retrieval.ranking import AcrossLanguage


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

"""A task and the standing rule about what it makes, when look-alike facts outrank the rule
(issue 23, decision 0033): prompt recall's search adds the rules of its scope that name the
thing the prompt asks to make (Engine._with_rules), and the gate takes such an added memory
only as that rule (relevance.makes), never on other shared words."""

from __future__ import annotations

from pathlib import Path

from support.recall import chosen_ids

from recallnest.core.config import Settings
from recallnest.core.models import Explain, SearchHit
from recallnest.engine import Engine, SearchRequest
from recallnest.retrieval.relevance import RULE_PART, analyse_prompt
from recallnest.server.handlers import dispatch

RULE = "Metrics must be emitted through the statsd client wrapper; never call prometheus directly."
_SUBJECTS = (
    "billing daemon", "search api", "admin console", "mobile gateway", "ingest job",
    "auth proxy", "docs site", "mail relay", "image resizer", "cron runner", "sms sender",
    "report builder", "audit ledger", "audit trail",
)  # fmt: skip


def _engine(home: Path) -> Engine:
    engine = Engine.open(Settings.load(flags={"home": str(home), "embedder": "hash"}, env={}))
    for n, subject in enumerate(_SUBJECTS):
        # a family of facts naming the same thing, more often than the rule does
        engine.remember(
            f"The {subject} sends metrics to graphite; its metrics dashboard is number {n}",
            category="entities",
        )
    engine.remember(RULE, category="preferences")
    while engine.embed_pending():
        pass
    return engine


def test_the_rule_about_what_the_prompt_makes_is_added_to_the_candidates(tmp_path: Path) -> None:
    engine = _engine(tmp_path / "rn")
    try:
        prompt = "Add metrics for the queue depth of the export worker"
        plain, _ = engine.search_with_affinities(SearchRequest(prompt, limit=8, record=False))
        assert RULE not in [h.text for h in plain]  # below the family of look-alike facts
        plan = analyse_prompt(prompt)
        req = SearchRequest(prompt, limit=8, record=False, rules_about=plan.produces)
        hits, _ = engine.search_with_affinities(req)
        added = [h for h in hits if h.explain is not None and RULE_PART in h.explain.parts]
        assert [h.text for h in added] == [RULE]  # the facts naming metrics are no rules
        answer = dispatch(engine, "recall", {"prompt": prompt})  # no session: no resume held it
        assert RULE in answer["text"]
    finally:
        engine.close()


def test_an_added_memory_passes_only_as_a_rule_about_what_is_made() -> None:
    """A rule the lookup added that is about something else of the prompt (the queue, not the
    metrics being added) is not taken on its shared words."""
    plan = analyse_prompt("Add metrics for the queue depth of the export worker")
    why = Explain(ranks={}, parts={RULE_PART: 1.0})
    other = "The export worker must keep its queue depth under 1000 jobs."
    hits = [SearchHit(kind="memory", id="m1", text=other, score=0.0, explain=why)]
    assert chosen_ids(plan, hits) == []
    found = [SearchHit(kind="memory", id="m1", text=other, score=1.0)]  # found by the ranking
    assert chosen_ids(plan, found) == ["m1"]


def test_a_rule_about_what_is_made_may_be_written_in_the_other_language() -> None:
    """What a prompt asks to make is read in both languages: "draft the description" names
    描述 and "写测试" names test, so a standing rule written in the user's other language is a
    rule about it (round 39, blind4: a Chinese PR-description rule for an English prompt)."""
    from recallnest.retrieval.relevance import makes

    zh_rule = "用户要求所有合并请求的描述都写成两段：改了什么、怎么验证的。"
    assert makes(
        analyse_prompt("open a PR for the retry change and draft the description"), zh_rule
    )
    en_rule = "The user wants every new test written as a plain pytest function, never a class."
    assert makes(analyse_prompt("给导出模块写一个测试"), en_rule)
    assert not makes(analyse_prompt("draft the description of the outage"), en_rule)

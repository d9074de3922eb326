"""The EN/ZH developer vocabulary prompt-time recall bridges languages with (issue 23, decision
0033): a prompt and the note that answers it in the other language share words once the
prompt's technical words are read in both languages, in the gate and in the search."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from recallnest.core.bilingual import BILINGUAL_GROUPS, english_glosses
from recallnest.core.config import Settings
from recallnest.engine import Engine, SearchRequest
from recallnest.retrieval.relevance import analyse_prompt, passes, relevance

_CJK = re.compile(r"[\u3400-\u9fff]")


def english_only(terms: Iterable[str]) -> dict[str, float]:
    """A store with no Chinese rows: every Chinese pair weighs 0."""
    return {t: 0.0 if _CJK.match(t) else 1.0 for t in terms}


def chinese_only(terms: Iterable[str]) -> dict[str, float]:
    return {t: 1.0 if _CJK.match(t) else 0.0 for t in terms}


def test_every_group_bridges_both_languages_without_single_characters() -> None:
    for group in BILINGUAL_GROUPS:
        chinese = [w for w in group if _CJK.search(w)]
        english = [w for w in group if not _CJK.search(w)]
        assert chinese and english, group
        assert all(len(w) >= 2 for w in chinese), group  # 表 is in 报表 and 值班表
        assert all(w == w.lower() for w in english), group  # prompts are matched lowered


def test_a_chinese_prompt_matches_an_english_note_on_translated_words() -> None:
    """集群 / cluster and 重启 / restart are in no synonym group of the search: before, the
    note shared no word with the prompt and scored 0."""
    plan = analyse_prompt("集群里的节点半夜总是自动重启，之前查过原因吗？")
    note = "Cluster nodes restarted at night because the kernel auto-update job rebooted them."
    score = relevance(plan, note, english_only)
    assert passes(score, score, "memory")


def test_an_english_prompt_matches_a_chinese_note_on_translated_words() -> None:
    plan = analyse_prompt("How do we encrypt the database backups?")
    note = "备份文件必须加密，密钥放在 KMS 里。"
    score = relevance(plan, note, chinese_only)
    assert passes(score, score, "memory")


def test_one_translated_word_is_still_one_word() -> None:
    """The two-word rule holds across languages: a note sharing only the topic is not an
    answer."""
    plan = analyse_prompt("集群的监控页面打不开了")
    assert relevance(plan, "The cluster is owned by the infra team.", english_only) == 0.0


def test_prompt_recall_search_finds_the_other_language_by_its_words(tmp_path: Path) -> None:
    """Only prompt-time recall's search (`bilingual`) expands through the vocabulary: a
    general search of the same words finds nothing, as before."""
    settings = Settings.load(flags={"home": str(tmp_path / "rn"), "embedder": "hash"}, env={})
    engine = Engine.open(settings)
    try:
        note = "Cluster nodes restarted at night because the kernel auto-update job rebooted them."
        engine.remember(note, category="cases")
        engine.remember("The billing worker runs three replicas.", category="entities")
        query = "集群节点半夜重启"
        general = engine.search(SearchRequest(query, limit=5, record=False, disabled=_NO_VEC))
        assert general == []
        prompt = SearchRequest(query, limit=5, record=False, disabled=_NO_VEC, bilingual=True)
        assert [h.text for h in engine.search(prompt)][:1] == [note]
    finally:
        engine.close()


_NO_VEC = frozenset({"vector"})


def test_format_and_firmware_bridge_both_languages() -> None:
    """格式 was only reached through 格式化 (lint), and firmware / 固件 was in no group: a
    note holding 日期 and 格式, or 网关 and 固件, shared one word with the English prompt."""
    plan = analyse_prompt("what format should dates use in the billing service?")
    score = relevance(plan, "账单服务的日期格式必须是 ISO 8601。", chinese_only)
    assert passes(score, score, "memory")
    plan = analyse_prompt("which firmware version do the gateways run?")
    score = relevance(plan, "所有网关的固件都从 OTA 服务器拉取。", chinese_only)
    assert passes(score, score, "memory")


def test_capture_reads_a_setting_named_in_chinese_in_english() -> None:
    """Capture's use of the vocabulary: 心跳间隔 names heartbeat_interval, 重试 never an
    interval, and a text with no Chinese word of the vocabulary glosses nothing."""
    glossed = english_glosses("心跳间隔改成 60 秒")
    assert {"heartbeat", "interval"} <= glossed
    assert "retry" not in glossed
    assert english_glosses("锁超时改成 30 秒") >= {"lock", "timeout"}
    assert english_glosses("set the heartbeat to 60s") == set()

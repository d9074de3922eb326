"""Coding-agent retrieval evaluation through the real pipeline.

The set lives in `eval/cases/`: `corpus/*.jsonl` holds hand-written coding-agent sessions (one
turn per line: session, project, agent, role, text, ts and a stable turn key `id` such as
`s03-t07`), `queries.jsonl` holds labelled queries (`relevant` lists turn keys) and the
optional `actions.jsonl` holds what the user did to captured memories afterwards (set a tier,
pin). Every session is written out as a Claude Code JSONL transcript (the turn key is the
record `uuid`, and `msg-<key>` the assistant message id), ingested into a fresh temporary home
by the code the daemon runs (so capture runs too), embedded with the configured embedder; the
user actions are then applied through the operation the CLI sends (`memories.flags`), and
every query is asked through `Engine.search`. A turn hit is relevant when its key is listed;
a memory hit is relevant when any of its evidence turns is. Reports hit@1/5/10 and MRR@10
overall, per query type, language and kind, query latency, the queries that missed the top 5,
every query's rank (to compare runs query by query) and the actions applied.

It also reports the promoted-memories measure: for every query whose relevant turns include
the turn of a user action, the same question is asked over memories only (as `recallnest
search --kind memories` and the MCP memory search do) and the rank of the memory the action
marked is recorded, to measure the importance stage's tier floor where it is meant to act.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.errors import RecallnestError
from recallnest.core.models import TIERS, SearchHit
from recallnest.core.project import project_of
from recallnest.engine import Engine, SearchRequest
from recallnest.evaluation.locomo import CachedEmbedder
from recallnest.ingest.pipeline import Source, ingest_file
from recallnest.retrieval.ranking import check_stages
from recallnest.server.handlers import dispatch

DEPTH = 10
FAIL_AT = 5
PROMOTED_DEPTH = 100  # how deep the promoted-memories measure looks (memories only)
KINDS = ("turns", "memories", "all")
ROLES = ("user", "assistant")
TURN_FIELDS = ("session", "project", "agent", "role", "text", "ts", "id")
QUERY_FIELDS = ("id", "query", "kind", "relevant", "type")
ACTION_FIELDS = ("id", "turn")
FLAGS = ("tier", "pinned")  # what an action may set, as `memories tier` and `memories pin` do
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_NAMESPACE = uuid.UUID("6f1c3d52-9a4e-4d8b-b1a7-2c5e8f0d4a61")
_MODEL = "claude-sonnet-4-5"
# The queries are asked as of this moment (the morning after the last session). Every turn is
# moved forward by (now - AS_OF) when written out, so "last week" and memory decay see the
# sessions at the same distance on every run. Engine.search reads the real clock.
AS_OF = datetime(2025, 6, 3, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One query's result: the 1-based rank of its first relevant hit (None: not in the top
    DEPTH), what came back first, and how long the search took."""

    query: dict[str, Any]
    rank: int | None
    top: list[str]
    seconds: float
    returned: int = DEPTH  # hits the search returned (fewer when few rows match)


# ---- the set ------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise RecallnestError(f"{path}:{n}: not JSON: {exc}") from exc
    return rows


def load_corpus(cases_dir: Path) -> list[dict[str, Any]]:
    """Every turn of every `corpus/*.jsonl` file, in file then line order."""
    files = sorted((cases_dir / "corpus").glob("*.jsonl"))
    if not files:
        raise RecallnestError(f"no corpus/*.jsonl files in {cases_dir}")
    return [row for f in files for row in read_jsonl(f)]


def load_queries(cases_dir: Path) -> list[dict[str, Any]]:
    path = cases_dir / "queries.jsonl"
    if not path.exists():
        raise RecallnestError(f"no queries.jsonl in {cases_dir}")
    return read_jsonl(path)


def load_actions(cases_dir: Path) -> list[dict[str, Any]]:
    """The user actions of `actions.jsonl`; none when the file is absent."""
    path = cases_dir / "actions.jsonl"
    return read_jsonl(path) if path.exists() else []


def problems(
    turns: Sequence[dict[str, Any]],
    queries: Sequence[dict[str, Any]],
    actions: Sequence[dict[str, Any]] = (),
) -> list[str]:
    """What is wrong with the set: missing fields, duplicate keys, unknown relevant turns,
    actions on unknown turns or with nothing (or something unknown) to set."""
    out = []
    keys: set[str] = set()
    for turn in turns:
        missing = [f for f in TURN_FIELDS if not turn.get(f)]
        if missing:
            out.append(f"turn {turn.get('id')!r} lacks {', '.join(missing)}")
        if turn.get("role") not in ROLES:
            out.append(f"turn {turn.get('id')!r} has role {turn.get('role')!r}")
        if turn.get("id") in keys:
            out.append(f"turn key {turn.get('id')!r} is used twice")
        keys.add(str(turn.get("id")))
    ids: set[str] = set()
    for q in queries:
        missing = [f for f in QUERY_FIELDS if not q.get(f)]
        if missing:
            out.append(f"query {q.get('id')!r} lacks {', '.join(missing)}")
        if q.get("kind") not in KINDS:
            out.append(f"query {q.get('id')!r} has kind {q.get('kind')!r}")
        if q.get("id") in ids:
            out.append(f"query id {q.get('id')!r} is used twice")
        ids.add(str(q.get("id")))
        unknown = [k for k in q.get("relevant") or [] if k not in keys]
        if unknown:
            out.append(f"query {q.get('id')!r}: unknown relevant turn(s) {', '.join(unknown)}")
    out.extend(_action_problems(actions, keys))
    return out


def _action_problems(actions: Sequence[dict[str, Any]], keys: set[str]) -> list[str]:
    out = []
    ids: set[str] = set()
    for a in actions:
        name = a.get("id")
        missing = [f for f in ACTION_FIELDS if not a.get(f)]
        if missing:
            out.append(f"action {name!r} lacks {', '.join(missing)}")
        if name in ids:
            out.append(f"action id {name!r} is used twice")
        ids.add(str(name))
        if a.get("turn") and a["turn"] not in keys:
            out.append(f"action {name!r}: unknown turn {a['turn']!r}")
        if not any(f in a for f in FLAGS):
            out.append(f"action {name!r} sets nothing (give {' or '.join(FLAGS)})")
        if "tier" in a and a["tier"] not in TIERS:
            out.append(f"action {name!r} has tier {a['tier']!r}")
        if "pinned" in a and not isinstance(a["pinned"], bool):
            out.append(f"action {name!r} has pinned {a['pinned']!r} (true or false)")
    return out


def language(query: dict[str, Any]) -> str:
    """The query's `lang`, else `zh` when the question holds Chinese characters."""
    if query.get("lang"):
        return str(query["lang"])
    return "zh" if _CJK.search(str(query["query"])) else "en"


# ---- transcripts ----------------------------------------------------------------------------


def write_transcripts(
    turns: Sequence[dict[str, Any]], root: Path, shift: timedelta = timedelta(0)
) -> list[Path]:
    """One Claude Code JSONL file per session, under root/projects/<encoded cwd>/, every
    timestamp moved by `shift`."""
    sessions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for turn in turns:
        sessions[str(turn["session"])].append(turn)
    files = []
    for name, rows in sessions.items():
        cwd = str(rows[0]["project"])
        folder = root / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd)
        folder.mkdir(parents=True, exist_ok=True)
        session_id = str(uuid.uuid5(_NAMESPACE, f"cases/{name}"))
        lines, parent = [], None
        for turn in rows:
            record = _record(turn, session_id, parent, shift)
            lines.append(json.dumps(record, ensure_ascii=False))
            parent = str(turn["id"])
        path = folder / f"{session_id}.jsonl"
        path.write_text("\n".join(lines) + "\n", "utf-8")
        files.append(path)
    return files


def _record(
    turn: dict[str, Any], session_id: str, parent: str | None, shift: timedelta
) -> dict[str, Any]:
    key, text = str(turn["id"]), str(turn["text"])
    is_user = turn["role"] == "user"
    message: dict[str, Any] = (
        {"role": "user", "content": text}
        if is_user
        else {
            "role": "assistant",
            "id": f"msg-{key}",
            "model": _MODEL,
            "content": [{"type": "text", "text": text}],
        }
    )
    return {
        "type": "user" if is_user else "assistant",
        "uuid": key,
        "parentUuid": parent,
        "sessionId": session_id,
        "timestamp": _shifted(str(turn["ts"]), shift),
        "cwd": str(turn["project"]),
        "version": "1.0.0",
        "message": message,
    }


def _shifted(ts: str, shift: timedelta) -> str:
    if not shift:
        return ts
    when = datetime.fromisoformat(ts.replace("Z", "+00:00")) + shift
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


# ---- scoring --------------------------------------------------------------------------------


def first_relevant(
    hits: Sequence[SearchHit],
    keys_of: Callable[[SearchHit], set[str]],
    relevant: set[str],
) -> int | None:
    """1-based rank of the first hit whose turn keys meet `relevant`."""
    for rank, hit in enumerate(hits[:DEPTH], 1):
        if keys_of(hit) & relevant:
            return rank
    return None


def metrics(ranks: Iterable[int | None]) -> dict[str, float]:
    values = list(ranks)
    n = len(values)
    if not n:
        return {"n": 0}

    def share(k: int) -> float:
        return round(100 * sum(1 for r in values if r is not None and r <= k) / n, 1)

    mrr = sum(1 / r for r in values if r is not None) / n
    return {
        "n": n,
        "hit@1": share(1),
        "hit@5": share(5),
        "hit@10": share(10),
        "mrr@10": round(mrr, 3),
    }


def _returned(outcomes: Sequence[Outcome]) -> dict[str, float]:
    """How many hits came back (of DEPTH asked) and how many of them were not relevant (the
    measurement that showed the removed relative cutoff trimmed nothing)."""
    if not outcomes:
        return {}
    mean = statistics.fmean(o.returned for o in outcomes)
    found = sum(1 for o in outcomes if o.rank is not None)
    return {
        "mean": round(mean, 2),
        "full": sum(o.returned == DEPTH for o in outcomes),
        "with_relevant": found,
    }


def _grouped(outcomes: Sequence[Outcome], key: Callable[[Outcome], str]) -> dict[str, Any]:
    groups: dict[str, list[int | None]] = defaultdict(list)
    for o in outcomes:
        groups[key(o)].append(o.rank)
    return {name: metrics(ranks) for name, ranks in sorted(groups.items())}


def _short(text: str, size: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else "…" + flat[-(size - 1) :]


# ---- running --------------------------------------------------------------------------------


def run(
    cases_dir: Path,
    settings_for: Callable[[Path], Settings],
    log: Callable[[str], None] = lambda _: None,
    cache_dir: Path | None = None,
    disabled: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Ingest the corpus into a fresh home, ask every query, return the report (JSON-able).
    `disabled` switches retrieval stages off (ablation)."""
    check_stages(disabled)
    turns, queries = load_corpus(cases_dir), load_queries(cases_dir)
    actions = load_actions(cases_dir)
    wrong = problems(turns, queries, actions)
    if wrong:
        raise RecallnestError("invalid case set: " + "; ".join(wrong[:5]))
    with tempfile.TemporaryDirectory(prefix="rn-cases-") as tmp:
        root = Path(tmp)
        files = write_transcripts(turns, root / "claude", datetime.now(UTC) - AS_OF)
        engine = Engine.open(settings_for(root / "home"))
        try:
            t0 = time.perf_counter()
            for path in files:
                ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
            engine.drain_capture()  # a file large enough queues its capture (decision 0009)
            ingest_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            embedder = _embed_all(engine, cache_dir)
            embed_s = time.perf_counter() - t0
            counts = engine.store.counts()
            log(
                f"cases: {counts['turns']} turns and {counts['memories']} memories ingested in "
                f"{ingest_s:.1f}s, embedded in {embed_s:.1f}s"
            )
            applied = apply_actions(engine, actions)
            if applied["unresolved"]:
                log(
                    "cases: no active memory was captured from the turn of action(s) "
                    + ", ".join(applied["unresolved"])
                )
            # As the daemon would in the background: embed whatever the marks left pending.
            applied["embedded_after"] = _embed_pending(engine)
            outcomes = _ask_all(engine, queries, disabled)
            # After the headline queries, so their extra searches cannot touch those figures.
            promoted = promoted_ranks(engine, queries, actions, applied, disabled)
        finally:
            engine.close()
    return _report(outcomes, turns, counts, embedder) | {
        "actions": applied,
        "promoted_memories": promoted,
        "ingest_seconds": round(ingest_s, 2),
        "embed_seconds": round(embed_s, 2),
    }


def apply_actions(engine: Engine, actions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Apply the user's marks after ingestion, as `recallnest memories tier ID TIER` and
    `recallnest memories pin ID` do: the same `memories.flags` operation through
    `ops.dispatch` (what the daemon and the CLI's in-process fallback run). An action names the
    turn a memory was captured from; every active memory citing that turn as evidence gets
    the mark. Actions whose turn produced no active memory are listed as unresolved (capture
    changed since the action was written), never silently dropped."""
    id_of = {rid.removeprefix("msg-"): tid for tid, rid in engine.store.turn_records()}
    applied, unresolved = [], []
    for action in actions:
        turn_id = id_of.get(str(action["turn"]))
        found = engine.store.memories_with_evidence([turn_id]) if turn_id else []
        ids = sorted(m.id for m in found if m.status == "active")
        if not ids:
            unresolved.append(str(action["id"]))
            continue
        changed: set[str] = set()
        for flag in FLAGS:  # one operation per flag, as the two CLI commands send them
            if flag in action:
                result = dispatch(engine, "memories.flags", {"ids": ids, flag: action[flag]})
                changed.update(result["changed"])
        applied.append(
            {"id": action["id"], "turn": action["turn"], "memories": ids, "changed": len(changed)}
        )
    return {"applied": applied, "unresolved": unresolved}


def promoted_ranks(
    engine: Engine,
    queries: Sequence[dict[str, Any]],
    actions: Sequence[dict[str, Any]],
    applied: dict[str, Any],
    disabled: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Where the memories the user marked rank when their questions search memories only.

    A query is measured when its relevant turns include the turn of an applied action (the
    link `apply_actions` resolves: the memories citing that turn as evidence). Its question
    is asked again with kind `memories` (same project filter, same disabled stages, up to
    PROMOTED_DEPTH hits); its rank is the 1-based rank of the first memory those actions
    marked, None when not within PROMOTED_DEPTH. Queries whose linked actions all went
    unresolved are listed apart: no memory exists to rank."""
    flags = {str(a["id"]): {f: a[f] for f in FLAGS if f in a} for a in actions}
    marked: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
    for a in applied["applied"]:
        marked[str(a["turn"])].append((str(a["id"]), list(a["memories"])))
    unresolved = {str(a["turn"]) for a in actions if str(a["id"]) in applied["unresolved"]}
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    ranks: list[int | None] = []  # in query order
    by_type: dict[str, list[int | None]] = defaultdict(list)
    for q in queries:
        linked = [pair for k in q["relevant"] for pair in marked.get(k, [])]
        if not linked:
            if unresolved & set(q["relevant"]):
                skipped.append(str(q["id"]))
            continue
        ids = {m for _, memories in linked for m in memories}
        project = project_of(str(q["project"])) if q.get("project") else None
        request = SearchRequest(
            query=str(q["query"]),
            kind="memories",
            project=project,
            limit=PROMOTED_DEPTH,
            disabled=disabled,
        )
        hits = engine.search(request)
        rank = next((n for n, h in enumerate(hits, 1) if h.id in ids), None)
        rows.append(
            {
                "id": str(q["id"]),
                "type": str(q["type"]),
                "actions": [{"id": a, **flags.get(a, {})} for a, _ in linked],
                "memories": sorted(ids),
                "rank": rank,
            }
        )
        ranks.append(rank)
        by_type[str(q["type"])].append(rank)
    return {
        "depth": PROMOTED_DEPTH,
        "overall": rank_summary(ranks),
        "by_type": {name: rank_summary(group) for name, group in sorted(by_type.items())},
        "queries": rows,
        "unresolved": skipped,
    }


def rank_summary(ranks: Sequence[int | None]) -> dict[str, Any]:
    """The ranks in order, their mean reciprocal rank (a rank beyond the depth counts 0) and
    how many are within the top 1, 5 and 10."""
    n = len(ranks)

    def within(k: int) -> int:
        return sum(1 for r in ranks if r is not None and r <= k)

    mrr = sum(1 / r for r in ranks if r is not None) / n if n else 0.0
    return {
        "n": n,
        "ranks": list(ranks),
        "mrr": round(mrr, 3),
        "top1": within(1),
        "top5": within(5),
        "top10": within(10),
    }


def _embed_all(engine: Engine, cache_dir: Path | None) -> str | None:
    """Embed every row (through the on-disk cache when asked); the model id, if any."""
    if engine.embedder is None:
        return None
    cached = None
    if cache_dir is not None:
        cached = CachedEmbedder(engine.embedder, cache_dir)
        engine.embedder = cached
    while engine.embed_pending(64):
        pass
    if cached is not None:
        cached.save()
    return str(engine.embedder.model_id)


def _embed_pending(engine: Engine) -> int:
    done = 0
    while engine.embedder is not None and (n := engine.embed_pending(64)):
        done += n
    return done


def _ask_all(
    engine: Engine, queries: Sequence[dict[str, Any]], disabled: frozenset[str] = frozenset()
) -> list[Outcome]:
    key_of = {tid: rid.removeprefix("msg-") for tid, rid in engine.store.turn_records()}

    def keys_of(hit: SearchHit) -> set[str]:
        if hit.kind == "memory":
            return {key_of[t] for t in hit.evidence or () if t in key_of}
        return {key_of[hit.id]} if hit.id in key_of else set()

    def label(hit: SearchHit) -> str:
        if hit.kind == "memory":
            evidence = ",".join(sorted(keys_of(hit))) or "-"
            return f"memory[{evidence}] {_short(hit.text, 70)}"
        return "/".join(sorted(keys_of(hit))) or f"turn:{hit.id}"

    out = []
    for q in queries:
        project = project_of(str(q["project"])) if q.get("project") else None
        request = SearchRequest(
            query=str(q["query"]), kind=q["kind"], project=project, limit=DEPTH, disabled=disabled
        )
        t0 = time.perf_counter()
        hits = engine.search(request)
        seconds = time.perf_counter() - t0
        rank = first_relevant(hits, keys_of, set(q["relevant"]))
        out.append(Outcome(q, rank, [label(h) for h in hits[:3]], seconds, len(hits)))
    return out


def _report(
    outcomes: Sequence[Outcome],
    turns: Sequence[dict[str, Any]],
    counts: dict[str, int],
    embedder: str | None,
) -> dict[str, Any]:
    lat = sorted(o.seconds for o in outcomes)
    failures = [
        {
            "id": o.query["id"],
            "type": o.query["type"],
            "lang": language(o.query),
            "kind": o.query["kind"],
            "query": _short(str(o.query["query"])),
            "expected": list(o.query["relevant"]),
            "rank": o.rank,
            "got": o.top,
        }
        for o in outcomes
        if o.rank is None or o.rank > FAIL_AT
    ]
    return {
        "embedder": embedder,
        "corpus": {
            "sessions": len({t["session"] for t in turns}),
            "projects": len({t["project"] for t in turns}),
            "turns": len(turns),
            "turns_stored": counts.get("turns", 0),
            "memories_captured": counts.get("memories", 0),
        },
        "overall": metrics(o.rank for o in outcomes),
        "by_type": _grouped(outcomes, lambda o: str(o.query["type"])),
        "by_lang": _grouped(outcomes, lambda o: language(o.query)),
        "by_kind": _grouped(outcomes, lambda o: str(o.query["kind"])),
        "latency_ms": {
            "p50": round(1000 * statistics.median(lat), 2) if lat else None,
            "p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 2) if lat else None,
            "queries": len(lat),
        },
        "returned": _returned(outcomes),
        "failures": failures,
        "ranks": {str(o.query["id"]): o.rank for o in outcomes},
    }

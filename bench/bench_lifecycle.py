"""A simulated year of use, through the real pipeline, and the memory lifecycle at its end.

    python bench/bench_lifecycle.py [--quick] [--seed N]
    python bench/bench_lifecycle.py --thresholds      # cosine distributions behind consolidation

Year: three projects, two to three sessions a week each, written as Claude Code transcripts
and ingested month by month through Engine.ingest_batch (real capture and admission). The user
restates stable facts in other words, changes preferences (npm → pnpm → bun, pip → uv, squash
→ rebase, English → Chinese replies) and corrects project facts ("actually, the staging port
is 8443 now"). Every session start asks for the resume context and counts its items as reads
(what the hook does once the lead wires `record_access`). At each month's end the daemon's
maintenance runs once (expire, re-tier on conversation time, consolidate with the local
embedding model, retention of turns older than 120 days, compaction when the file exceeds 2x
its live data). At the year's end the simulated user settles any flagged conflict (keeps the
newer statement), and the file is compacted.

Checks (issue 7): no two active memories state the same fact in one scope; every outdated
preference is superseded, not active; the file is within 1.5x of its live data after
compaction (live = the size of a fresh COPY FROM DATABASE of it); the resume context of each
project shows current facts only. Figures are printed as Markdown tables.

--quick: one month-sized year (40 sessions), keyword-only consolidation (no model), for the
smoke test; its figures are not the acceptance figures.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench_settings, fmt, machine_line, note, print_table

YEAR = 2025
PROJECTS = ("/home/dev/src/alpha", "/home/dev/src/beta", "/home/dev/src/gamma")
RETENTION_DAYS = 120
VERBOSE = False


# ---- the facts of the simulated year ----------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    start: date
    value: str
    first: tuple[str, ...]  # how the value is first stated (a correction for entities)
    again: tuple[str, ...]  # later restatements


@dataclass(frozen=True)
class Fact:
    key: str
    scope: str  # "global" or a project path
    kind: str  # preference | profile | entity | event | case
    phases: tuple[Phase, ...]
    weight: float = 1.0

    def phase_at(self, day: date) -> Phase | None:
        current = None
        for phase in self.phases:
            if phase.start <= day:
                current = phase
        return current


def d(month: int, day: int = 1) -> date:
    return date(YEAR, month, day)


def same(*texts: str) -> tuple[str, ...]:
    return texts


RATE_LIMIT = "Redis is only used for rate limiting, sessions are in Postgres."
FACTS: tuple[Fact, ...] = (
    Fact("pm-js", "global", "preference", (
        Phase(d(1), "npm", same("I prefer npm for JavaScript projects."),
              same("I prefer npm for JavaScript projects.")),
        Phase(d(4), "pnpm", same("Use pnpm, not npm."),
              same("use pnpm instead of npm", "Use pnpm, not npm.",
                   "I prefer pnpm for JavaScript projects.")),
        Phase(d(9), "bun", same("From now on use bun instead of pnpm for JavaScript."),
              same("Use bun, not pnpm.", "I prefer bun for JavaScript projects.")),
    ), 1.5),
    Fact("pm-py", "global", "preference", (
        Phase(d(1), "pip", same("Always use pip for Python dependencies."),
              same("Always use pip for Python dependencies.")),
        Phase(d(6), "uv", same("Always use uv instead of pip for Python dependencies."),
              same("always use uv for python deps, never pip install directly",
                   "Always use uv instead of pip for Python dependencies.")),
    ), 1.5),
    Fact("merge", "global", "preference", (
        Phase(d(1), "squash", same("I prefer squash merges for feature branches."),
              same("My preference is squash merges for feature branches so main stays linear.",
                   "I prefer squash merges for feature branches.")),
        Phase(d(8), "rebase", same("I prefer rebase merges for feature branches."),
              same("I prefer rebase merges for feature branches.")),
    )),
    Fact("reply", "global", "preference", (
        Phase(d(1), "english", same("Reply in English."), same("Reply in English.")),
        Phase(d(10), "chinese", same("Please reply in Chinese from now on."),
              same("Please reply in Chinese from now on.")),
    ), 0.6),
    Fact("pathlib", "global", "preference", (
        Phase(d(1), "pathlib", same("Always use pathlib instead of os.path in new code."),
              same("use pathlib instead of os.path in new code",
                   "Please use pathlib rather than os.path in new code.",
                   "Always use pathlib instead of os.path in new code.")),
    )),
    Fact("answers", "global", "preference", (
        Phase(d(1), "short", same("Keep your answers short, bullet points are fine."),
              same("keep answers short; bullet points are fine",
                   "Keep answers short; bullet points are fine, no long essays.")),
    )),
    Fact("force-push", "global", "preference", (
        Phase(d(1), "never", same("Never force-push to shared branches."),
              same("never force push to shared branches", "Never force-push to shared branches.")),
    ), 0.7),
    Fact("role", "global", "profile", (
        Phase(d(1), "backend-go", same("I'm a backend engineer and I mostly write Go."),
              same("I'm a backend engineer who mostly writes Go, some Python scripts.",
                   "I'm a backend engineer and I mostly write Go.")),
    ), 0.5),
    # alpha
    Fact("staging-port", PROJECTS[0], "entity", (
        Phase(d(1), "8080", same("The staging server listens on port 8080."),
              same("The staging server listens on port 8080.")),
        Phase(d(5), "8443", same("Actually, that's wrong. The staging port is 8443."),
              same("The staging port is 8443.", "the staging API port is 8443")),
    )),
    Fact("metrics", PROJECTS[0], "entity", (
        Phase(d(1), "9464", same("The metrics service listens on port 9464."),
              same("the metrics service listens on 9464 and exposes Prometheus metrics",
                   "The metrics service listens on port 9464.")),
    )),
    Fact("rate-limit", PROJECTS[0], "entity", (
        Phase(d(1), "redis", same(RATE_LIMIT),
              same("Redis handles rate limiting, sessions live in Postgres and caching uses "
                   "Memcached.", RATE_LIMIT)),
    ), 0.8),
    Fact("queue", PROJECTS[0], "event", (
        Phase(d(2), "redis-streams", same("We decided to use Redis streams for the job queue."),
              same("We decided to use Redis streams for the job queue.")),
        Phase(d(9), "kafka", same("We decided to move the job queue to Kafka."), same()),
    ), 0.4),
    # beta
    Fact("ci", PROJECTS[1], "entity", (
        Phase(d(1), "github", same("CI runs on GitHub Actions."),
              same("CI runs on GitHub Actions.")),
        Phase(d(7), "buildkite", same("Actually, CI now runs on Buildkite."),
              same("CI runs on Buildkite now.")),
    )),
    Fact("migrations", PROJECTS[1], "entity", (
        Phase(d(1), "db", same("The database migrations live in db/migrations."),
              same("Migrations live in db/migrations.",
                   "The database migrations live in db/migrations.")),
    )),
    # gamma
    Fact("flaky-login", PROJECTS[2], "case", (
        Phase(d(3), "cookie", same("The flaky login test was a race with the session cookie; "
                                   "waiting for the cookie fixed it."), same()),
    ), 0.3),
    Fact("yaml", PROJECTS[2], "case", (
        Phase(d(2), "pyyaml", same("The tests failed with ModuleNotFoundError: No module named "
                                   "'yaml'. I fixed it by adding pyyaml to the dev dependencies, "
                                   "and the suite passes now."), same()),
    ), 0.3),
)  # fmt: skip
ASSISTANT_STATED = frozenset({"case"})
NOISE_USER = (
    "can you run the tests?",
    "what does this function do?",
    "thanks!",
    "ok, let's look at the failing test next",
    "please open the config loader",
    "hmm, try again with verbose output",
)
NOISE_ASSISTANT = (
    "Sure, running them now.",
    "Done. All 214 tests pass.",
    "Here is what it does: it loads the settings, merges the overrides and returns them.",
    "I looked at the traceback; the fixture is missing a temporary directory.",
    "Got it.",
)


# ---- generating transcripts ----------------------------------------------------------------------


@dataclass
class Truth:
    """What each statement turn says: (session, record uuid) -> (fact key, value, scope)."""

    by_turn: dict[str, tuple[str, str, str]]
    said: set[tuple[str, str]]  # (fact, value) pairs stated at least once
    latest: dict[str, str]  # fact -> the value stated last (sessions are written in order)

    def current(self, fact: Fact) -> str | None:
        """The value the user stated last: what the memory should say now."""
        return self.latest.get(fact.key)


def year_sessions(rng: random.Random, quick: bool) -> list[tuple[datetime, str]]:
    """(start, project) of every session, in time order."""
    out = []
    days = range(1, 32) if quick else range(1, 366)
    per_week = 8 if quick else 2.5
    for project in PROJECTS[: 2 if quick else 3]:
        for k in days:
            if rng.random() < per_week / 7:
                day = datetime(YEAR, 1, 1, tzinfo=UTC) + timedelta(days=k - 1)
                out.append((day + timedelta(hours=rng.randint(8, 18)), project))
    return sorted(out)


def session_lines(
    rng: random.Random, start: datetime, project: str, seen: set[tuple[str, str]], quick: bool
) -> list[tuple[str, str, tuple[str, str] | None]]:
    """(role, text, (fact, value) or None) turns of one session."""
    day = start.date()
    if quick:  # squeeze the year's phases into January
        day = date(YEAR, 1, 1) + timedelta(days=(start.date() - date(YEAR, 1, 1)).days * 12)
    facts = [f for f in FACTS if f.scope in ("global", project) and f.phase_at(day)]
    chosen = rng.sample(facts, k=min(len(facts), rng.randint(1, 3)))
    chosen = [f for f in chosen if rng.random() < min(1.0, 0.45 * f.weight)] or chosen[:1]
    lines: list[tuple[str, str, tuple[str, str] | None]] = []
    for fact in chosen:
        phase = fact.phase_at(day)
        assert phase is not None
        fresh = (fact.key, phase.value) not in seen
        options = phase.first if fresh or not phase.again else phase.again
        if not fresh and not phase.again:
            continue
        seen.add((fact.key, phase.value))
        text = rng.choice(options)
        lines.append(("user", rng.choice(NOISE_USER), None))
        if fact.kind in ASSISTANT_STATED:
            lines.append(("assistant", text, (fact.key, phase.value)))
        else:
            lines.append(("assistant", rng.choice(NOISE_ASSISTANT), None))
            lines.append(("user", text, (fact.key, phase.value)))
            lines.append(("assistant", "Got it.", None))
    lines.append(("user", rng.choice(NOISE_USER), None))
    lines.append(("assistant", rng.choice(NOISE_ASSISTANT), None))
    return lines


def write_transcript(
    folder: Path,
    session: str,
    cwd: str,
    start: datetime,
    lines: list[tuple[str, str, tuple[str, str] | None]],
    truth: Truth,
) -> Path:
    from recallnest.core.models import turn_id

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    records, parent = [], None
    for k, (role, text, fact) in enumerate(lines):
        uuid = f"{session}-{k:03d}"
        message: dict[str, Any] = {"role": role, "content": text}
        record_id = uuid
        if role == "assistant":
            record_id = f"msg-{uuid}"
            message = {"role": role, "id": record_id, "model": "claude-test",
                       "content": [{"type": "text", "text": text}]}  # fmt: skip
        records.append(
            {
                "type": role,
                "uuid": uuid,
                "parentUuid": parent,
                "sessionId": session,
                "timestamp": (start + timedelta(minutes=2 * k)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "cwd": cwd,
                "message": message,
            }
        )
        parent = uuid
        if fact is not None:
            scope = next(f.scope for f in FACTS if f.key == fact[0])
            truth.by_turn[turn_id("claude", session, record_id)] = (*fact, scope)
            truth.said.add(fact)
            truth.latest[fact[0]] = fact[1]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


# ---- running the year ---------------------------------------------------------------------------


def ingest(engine: Any, paths: list[Path]) -> int:
    from recallnest.ingest.pipeline import Collector, Source, ingest_file

    collect = Collector(engine.ingest_batch)
    for path in paths:
        ingest_file(Source(str(path), "claude"), engine.store.cursor(str(path)), collect)
    collect.flush()
    engine.drain_capture()  # a month large enough queues its capture (decision 0009)
    return int(collect.new_turns)


def embed_memories(engine: Any) -> None:
    """Vectors for every memory (the daemon's embedding thread does this in the background;
    turns are left out: consolidation reads memory vectors only)."""
    if engine.embedder is None:
        return
    model = engine.embedder.model_id
    sql = (
        "SELECT count(*) FROM memories m WHERE NOT EXISTS "
        "(SELECT 1 FROM vectors v WHERE v.doc = m.doc AND v.model = ?)"
    )
    while engine.store._cur().execute(sql, [model]).fetchone()[0]:
        engine.embed_pending(32)


def true_live_bytes(db: Path) -> int:
    """The size of a fresh copy of the database (the live data, measured, not estimated)."""
    import duckdb

    scratch = Path(tempfile.mkdtemp(prefix="rn-live-"))
    try:
        con = duckdb.connect(str(db))
        name = con.execute("SELECT current_database()").fetchone()[0]
        con.execute(f"ATTACH '{scratch / 'copy.duckdb'}' AS fresh")
        con.execute(f'COPY FROM DATABASE "{name}" TO fresh')
        con.execute("DETACH fresh")
        con.close()
        return (scratch / "copy.duckdb").stat().st_size
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@dataclass
class Year:
    sessions: int = 0
    turns: int = 0
    maintenance_seconds: list[float] | None = None
    ingest_seconds: list[float] | None = None
    consolidation: Counter[str] | None = None
    conflicts_resolved: int = 0
    reads: int = 0


def run_year(home: Path, quick: bool, seed: int) -> tuple[Year, Truth, dict[str, Any]]:
    from recallnest.engine import Engine
    from recallnest.lifecycle.retention import RetentionPolicy, size_report

    rng = random.Random(seed)
    settings = bench_settings(home, embedder="hash" if quick else "local")
    transcripts = home / "transcripts"
    truth = Truth({}, set(), {})
    year = Year(maintenance_seconds=[], ingest_seconds=[], consolidation=Counter())
    seen: set[tuple[str, str]] = set()
    sessions = year_sessions(rng, quick)
    engine = Engine.open(settings)
    retention = RetentionPolicy(max_age_days=RETENTION_DAYS)
    try:
        by_month: dict[int, list[tuple[datetime, str]]] = defaultdict(list)
        for start, project in sessions:
            by_month[start.month if not quick else 1 + (start.day - 1) // 3].append(
                (start, project)
            )
        for month in sorted(by_month):
            paths = []
            for k, (start, project) in enumerate(by_month[month]):
                session = f"s{month:02d}-{k:03d}-{project.rsplit('/', 1)[1]}"
                lines = session_lines(rng, start, project, seen, quick)
                folder = transcripts / project.strip("/").replace("/", "-")
                paths.append(write_transcript(folder, session, project, start, lines, truth))
                # The session-start hook: the resume context, its items counted as reads.
                context = engine.continuity.resume(project, "claude", now=start, record=False)
                engine.record_access(context.items, start)
                year.reads += len(context.items)
                year.sessions += 1
            started = time.perf_counter()
            year.turns += ingest(engine, paths)
            embed_memories(engine)
            year.ingest_seconds.append(time.perf_counter() - started)
            month_end = max(s for s, _ in by_month[month]) + timedelta(hours=12)
            started = time.perf_counter()
            report = engine.maintenance.run_all(month_end, retention)
            year.maintenance_seconds.append(time.perf_counter() - started)
            year.consolidation.update(report.consolidate.stats)
        # The user settles what consolidation flagged for them: the newer statement stands.
        end = datetime(YEAR + 1, 1, 1, tzinfo=UTC)
        for conflict in engine.maintenance.conflicts():
            engine.maintenance.resolve_conflict(conflict["id"], "newer", end)
            year.conflicts_resolved += 1
        final = engine.maintenance.run_all(end, retention)
        year.consolidation.update(final.consolidate.stats)
        storage: dict[str, Any] = {"before": size_report(engine.store)}
        storage["compaction"] = engine.maintenance.compact(if_needed=False)
        resume = {
            p: engine.continuity.resume(p, "claude", now=end, record=False)
            for p in PROJECTS[: 2 if quick else 3]
        }
        memories = engine.store.find_memories({"status": None})
        storage["after"] = size_report(engine.store)
        counts = engine.store.counts()
    finally:
        engine.close()
    storage["live_true"] = true_live_bytes(home / "recallnest.duckdb")
    storage["file_after"] = (home / "recallnest.duckdb").stat().st_size
    return year, truth, {"memories": memories, "resume": resume, "storage": storage,
                         "counts": counts, "end": end}  # fmt: skip


# ---- checking the outcome ---------------------------------------------------------------------


def facts_of(memory: Any, truth: Truth) -> set[tuple[str, str, str]]:
    return {truth.by_turn[e] for e in memory.evidence if e in truth.by_turn}


def check(year: Year, truth: Truth, out: dict[str, Any], quick: bool) -> list[list[object]]:
    memories = out["memories"]
    by_key = {f.key: f for f in FACTS}
    active = [m for m in memories if m.status == "active"]
    holders: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    outdated, mixed, unlabelled = [], [], []
    for m in active:
        facts = facts_of(m, truth)
        if not facts:
            unlabelled.append(m)
            continue
        if len({(k, v) for k, v, _ in facts}) > 1 and len({k for k, _, _ in facts}) == 1:
            mixed.append(m)
        for key, value, scope in facts:
            holders[(scope, key, value)].append(m.id)
        fact = by_key[next(iter(facts))[0]]
        if fact.kind in ("preference", "profile", "entity") and all(
            value != truth.current(by_key[key]) for key, value, _ in facts
        ):
            outdated.append(m)
    duplicates = sum(len(set(ids)) - 1 for ids in holders.values() if len(set(ids)) > 1)
    outdated_prefs = [m for m in outdated if m.category in ("preferences", "profile")]
    by_id = {m.id: m for m in memories}
    stale_in_resume, missing_current = 0, 0
    for project, ctx in out["resume"].items():
        shown = [by_id[i] for i in ctx.items if i in by_id]
        stale_in_resume += sum(1 for m in shown if m in outdated)
        shown_facts = {(k, v) for m in shown for k, v, _ in facts_of(m, truth)}
        for fact in FACTS:
            current = truth.current(fact)
            if fact.scope not in ("global", project) or fact.kind not in ("preference", "entity"):
                continue
            captured = any((fact.key, current) == (k, v) for m in memories
                           for k, v, _ in facts_of(m, truth))  # fmt: skip
            if captured and (fact.key, current) not in shown_facts:
                missing_current += 1
                if VERBOSE:
                    holders_ = [(m.text, m.status, m.superseded_by and by_id[m.superseded_by].text)
                                for m in memories if any(k == fact.key for k, _, _ in
                                facts_of(m, truth))]  # fmt: skip
                    note(f"missing from resume of {project}: {fact.key}={current}: {holders_}")
                    note(ctx.text)
    if VERBOSE:
        for label, rows in (("outdated", outdated), ("mixed", mixed), ("unlabelled", unlabelled)):
            for m in rows:
                facts = sorted((k, v) for k, v, _ in facts_of(m, truth))
                note(f"{label}: [{m.category}, {m.scope}] {m.text!r} {m.id[:8]} facts {facts}")
        for key, ids in holders.items():
            if len(set(ids)) > 1:
                texts = [by_id[i].text for i in dict.fromkeys(ids)]
                note(f"duplicate {key}: {texts}")
    kept = {(k, v) for m in memories for k, v, _ in facts_of(m, truth)}
    uncaptured = sum(
        1 for f in FACTS if truth.current(f) is not None and (f.key, truth.current(f)) not in kept
    )
    storage = out["storage"]
    ratio = storage["file_after"] / storage["live_true"]
    return [
        ["active memories stating the same fact in one scope", "0", duplicates, duplicates == 0],
        ["outdated preferences still active", "0", len(outdated_prefs), not outdated_prefs],
        ["outdated facts (any category) still active", "0", len(outdated), not outdated],
        ["active memories mixing two values of a fact", "0", len(mixed), not mixed],
        ["outdated items in the resume contexts", "0", stale_in_resume, stale_in_resume == 0],
        ["current facts missing from the resume contexts", "0", missing_current,
         missing_current == 0],
        ["file / live data after compaction", "<= 1.5", f"{ratio:.2f}", ratio <= 1.5],
        ["captured memories with no labelled statement", "info", len(unlabelled), True],
        ["facts whose current value capture never kept", "info", uncaptured, True],
    ]  # fmt: skip


def report(year: Year, truth: Truth, out: dict[str, Any], quick: bool) -> None:
    memories = out["memories"]
    status = Counter(m.status for m in memories)
    tiers = Counter(m.tier for m in memories if m.status == "active")
    c = year.consolidation or Counter()
    admission_superseded = status["superseded"] - c["superseded"] - c["merged"]
    print_table(
        "Simulated year" + (" (quick)" if quick else ""),
        ["what", "count"],
        [
            ["sessions", year.sessions],
            ["turns ingested", year.turns],
            [f"turns kept (retention {RETENTION_DAYS} days)", out["counts"]["turns"]],
            ["statements of facts (labelled turns)", len(truth.by_turn)],
            ["memories: active / superseded / archived",
             f"{status['active']} / {status['superseded']} / {status['archived']}"],
            ["active tiers: working / peripheral / core",
             f"{tiers['working']} / {tiers['peripheral']} / {tiers['core']}"],
            ["superseded at capture (admission)", admission_superseded],
            ["merged by consolidation", c["merged"]],
            ["superseded by consolidation (newer wins)", c["superseded"]],
            ["contradictions flagged / settled by the user",
             f"{c['conflicts']} / {year.conflicts_resolved}"],
            ["contradicting events kept both", c["kept_both"]],
            ["stale successor links cleared on live rows", c["relinked"]],
            ["resume items counted as reads", year.reads],
        ],
    )  # fmt: skip
    rows = check(year, truth, out, quick)
    print_table(
        "Acceptance",
        ["check", "target", "result", "pass"],
        [[a, b, r, "yes" if ok else "NO"] for a, b, r, ok in rows],
    )
    s = out["storage"]
    before = s["before"]
    print_table(
        "Storage",
        ["measure", "MB"],
        [
            ["file before the final compaction", fmt(before.file_bytes / 1e6, 2)],
            ["live estimate then (Store.live_bytes)", fmt(before.live_bytes / 1e6, 2)],
            ["file after compaction", fmt(s["file_after"] / 1e6, 2)],
            ["live data (fresh COPY FROM DATABASE)", fmt(s["live_true"] / 1e6, 2)],
            ["live estimate after", fmt(s["after"].live_bytes / 1e6, 2)],
        ],
    )
    ms = [1000 * x for x in year.maintenance_seconds or [0.0]]
    ingest_ms = [1000 * x for x in year.ingest_seconds or [0.0]]
    print_table(
        "Timing (ms per simulated month)",
        ["step", "median", "max"],
        [
            ["ingest + embed memories", fmt(statistics.median(ingest_ms)), fmt(max(ingest_ms))],
            ["maintenance (all tasks)", fmt(statistics.median(ms)), fmt(max(ms))],
        ],
    )


# ---- threshold distributions ---------------------------------------------------------------------


def thresholds() -> None:
    """Cosine distributions behind consolidate.MODEL_THRESHOLDS (local model, eval data)."""
    import itertools

    import numpy as np

    from recallnest.capture.heuristics import capture_turn
    from recallnest.core.models import Turn
    from recallnest.lifecycle.consolidation import MODEL_THRESHOLDS, contradiction, related
    from recallnest.retrieval.embed import make_embedder

    root = Path(__file__).resolve().parent.parent / "eval" / "capture"
    embedder = make_embedder("local")
    t = MODEL_THRESHOLDS[embedder.model_id]

    def turn(role: str, text: str, rid: str) -> Turn:
        return Turn("claude", "s", role, text, None, "", rid, 0, project="/p/eval")  # type: ignore[arg-type]

    caps = []
    for line in (root / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        other = "assistant" if case["role"] == "user" else "user"
        prev = turn(other, case["previous"], "p") if case.get("previous") else None
        caps += capture_turn(turn(case["role"], case["text"], case["id"]), prev, "/p/eval")
    vecs = embedder.embed_passages([c.text for c in caps])
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, c in enumerate(caps):
        groups[(c.scope, c.category)].append(k)
    distinct = []
    for idx in groups.values():
        for a, b in itertools.combinations(idx, 2):
            if caps[a].text != caps[b].text:
                distinct.append((float(vecs[a] @ vecs[b]), caps[a].text, caps[b].text))
    pairs = [json.loads(x) for x in (root / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    pa = embedder.embed_passages([p["a"] for p in pairs])
    pb = embedder.embed_passages([p["b"] for p in pairs])
    for p, x, y in zip(pairs, pa, pb, strict=True):
        p["cos"] = float(x @ y)

    def pct(values: list[float]) -> list[str]:
        arr = np.asarray(values)
        return [f"{np.percentile(arr, q):.3f}" for q in (5, 50, 90, 99)] + [f"{arr.max():.3f}"]

    same = [p["cos"] for p in pairs if p["same"]]
    diff = [p["cos"] for p in pairs if not p["same"]]
    print_table(
        f"Cosine of memory pairs ({embedder.model_id})",
        ["pairs", "n", "p5", "median", "p90", "p99", "max"],
        [
            ["distinct same-scope captures (cases.jsonl)", len(distinct),
             *pct([x[0] for x in distinct])],
            ["restatements (pairs.jsonl same)", len(same), *pct(same)],
            ["different memories (pairs.jsonl not same)", len(diff), *pct(diff)],
        ],
    )  # fmt: skip
    related_distinct = [x for x in distinct if related(x[1], x[2], x[0], t)[0]]
    merged_distinct = [x for x in related_distinct if contradiction(x[1], x[2]) is None]
    rel_same = [p for p in pairs if p["same"] and related(p["a"], p["b"], p["cos"], t)[0]]
    false_contra = [p for p in rel_same if contradiction(p["a"], p["b"])]
    rel_diff = [p for p in pairs if not p["same"] and related(p["a"], p["b"], p["cos"], t)[0]]
    false_merge = [p for p in rel_diff if contradiction(p["a"], p["b"]) is None]
    above = sum(1 for x in distinct if x[0] >= t.related)
    print_table(
        f"Consolidation rule (related: cos >= {t.related} and containment >= 0.70, or cos >= "
        f"{t.contained} and full containment, or keyword Jaccard >= 0.55)",
        ["pairs", "n", "related", "merged", "contradiction", "median cos"],
        [
            ["distinct same-scope captures", len(distinct), len(related_distinct),
             len(merged_distinct), len(related_distinct) - len(merged_distinct),
             f"{statistics.median(x[0] for x in distinct):.3f}"],
            ["restatements", len(same), len(rel_same), len(rel_same) - len(false_contra),
             len(false_contra), f"{statistics.median(same):.3f}"],
            ["different memories", len(diff), len(rel_diff), len(false_merge),
             len(rel_diff) - len(false_merge), f"{statistics.median(diff):.3f}"],
        ],
    )  # fmt: skip
    note(f"distinct pairs with cosine >= {t.related} alone: {above} (cosine alone cannot decide)")
    for cos, a, b in merged_distinct:
        note(f"distinct pair merged (inspect): {cos:.3f} | {a} || {b}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--thresholds", action="store_true", help="cosine distributions only")
    parser.add_argument("--verbose", action="store_true", help="list the failing memories")
    args = parser.parse_args()
    global VERBOSE
    VERBOSE = args.verbose
    note(machine_line())
    if args.thresholds:
        thresholds()
        return
    home = Path(tempfile.mkdtemp(prefix="rn-bench-lifecycle-"))
    try:
        year, truth, out = run_year(home, args.quick, args.seed)
        report(year, truth, out, args.quick)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

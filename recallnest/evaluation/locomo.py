"""LoCoMo retrieval evaluation through the real pipeline.

Each conversation is written out as Claude Code session transcripts (one JSONL file per LoCoMo
session; speaker A as the user, speaker B as the assistant), ingested by the same code the
daemon runs into a fresh temporary home, embedded with the configured embedder, and every
question is asked against that conversation only (`--project` filter). Reports turn-level
evidence recall / any-hit @5/@10 (categories 1-4), session-level any-hit @5/@10 and fractional
session recall @10 (all categories with evidence; sessions ranked by their best turn), and query
latency. Only `session_N` turns and their dates are used (never the dataset's summaries or
observations).
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from recallnest.core.config import Settings
from recallnest.engine import Engine, SearchRequest
from recallnest.ingest.pipeline import Source, ingest_file
from recallnest.retrieval.ranking import check_stages

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
_DIA = re.compile(r"D(\d+):(\d+)")
SESSION_DEPTH = 200


@dataclass
class Scores:
    """Sums and counts per metric (turn metrics exist only for categories 1-4)."""

    n: int = 0
    sums: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, values: dict[str, float]) -> None:
        for key, value in values.items():
            self.sums[key] += value
            self.counts[key] += 1

    def means(self) -> dict[str, float]:
        return {k: round(100 * v / self.counts[k], 1) for k, v in sorted(self.sums.items())}


def normalise_evidence(raw: Sequence[str]) -> list[str]:
    """`D8:6; D9:17` → two ids, `D:11:26` → `D11:26`, `D30:05` → `D30:5`."""
    out = []
    for item in raw:
        for m in _DIA.finditer(str(item).replace("D:", "D")):
            out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return list(dict.fromkeys(out))


def parse_when(text: str) -> datetime:
    """`1:56 pm on 8 May, 2023` → an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def sessions_of(conv: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            out.append((n, parse_when(conv[f"session_{n}_date_time"]), turns))
    return sorted(out)


def write_transcripts(conv: dict[str, Any], name: str, root: Path) -> Path:
    """One Claude Code JSONL file per session under root/projects/<project>/."""
    project_dir = root / "projects" / f"-locomo-{name}"
    project_dir.mkdir(parents=True, exist_ok=True)
    cwd = f"/locomo/{name}"
    for n, when, turns in sessions_of(conv):
        session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{name}/{n}"))
        lines, parent = [], None
        for k, turn in enumerate(turns):
            lines.append(json.dumps(_record(conv, turn, session_id, parent, cwd, when, k)))
            parent = turn["dia_id"]
        (project_dir / f"{session_id}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return project_dir


def _record(
    conv: dict[str, Any],
    turn: dict[str, Any],
    session_id: str,
    parent: str | None,
    cwd: str,
    when: datetime,
    k: int,
) -> dict[str, Any]:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    is_user = turn["speaker"] == conv["speaker_a"]
    stamp = datetime.fromtimestamp(when.timestamp() + 30 * k, UTC).isoformat()
    message: dict[str, Any] = (
        {"role": "user", "content": text}
        if is_user
        else {
            "role": "assistant",
            "id": f"msg-{turn['dia_id']}",
            "model": "locomo",
            "content": [{"type": "text", "text": text}],
        }
    )
    return {
        "type": "user" if is_user else "assistant",
        "uuid": turn["dia_id"],
        "parentUuid": parent,
        "sessionId": session_id,
        "timestamp": stamp,
        "cwd": cwd,
        "message": message,
    }


class CachedEmbedder:
    """Wraps an embedder with an on-disk cache of passage vectors keyed by text hash, so
    repeated evaluation runs (tuning) do not re-embed the same turns. Queries pass through."""

    def __init__(self, inner: Any, directory: Path) -> None:
        self.inner = inner
        self.file = directory / f"{inner.model_id.replace(':', '_').replace('/', '_')}.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.file.exists():
            with np.load(self.file) as data:
                self.cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    @property
    def dimensions(self) -> int:
        return int(self.inner.dimensions)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.inner.embed_query(text))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [k for k, key in enumerate(keys) if key not in self.cache]
        if missing:
            fresh = self.inner.embed_passages([texts[k] for k in missing])
            for k, row in zip(missing, fresh, strict=True):
                self.cache[keys[k]] = row
        return np.stack([self.cache[key] for key in keys]) if keys else np.zeros((0, 0))

    def save(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        keys = sorted(self.cache)
        np.savez(self.file, keys=np.array(keys), vectors=np.stack([self.cache[k] for k in keys]))


def evaluate_file(
    path: Path,
    settings_for: Callable[[Path], Settings],
    log: Callable[[str], None],
    cache_dir: Path | None = None,
    disabled: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    check_stages(disabled)
    conv = json.loads(path.read_text("utf-8"))
    name = path.stem
    with tempfile.TemporaryDirectory(prefix=f"locomo-{name}-") as tmp:
        root = Path(tmp)
        project_dir = write_transcripts(conv, name, root / "claude")
        engine = Engine.open(settings_for(root / "home"))
        try:
            t0 = time.perf_counter()
            for f in sorted(project_dir.glob("*.jsonl")):
                ingest_file(Source(str(f), "claude"), None, engine.ingest_batch)
            engine.drain_capture()  # a file large enough queues its capture (decision 0009)
            ingest_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            cached = None
            if cache_dir is not None and engine.embedder is not None:
                cached = CachedEmbedder(engine.embedder, cache_dir)
                engine.embedder = cached
            while engine.embed_pending(64):
                pass
            if cached is not None:
                cached.save()
            embed_s = time.perf_counter() - t0
            log(f"{name}: ingested in {ingest_s:.1f}s, embedded in {embed_s:.1f}s")
            return _ask_all(engine, conv, f"/locomo/{name}", disabled) | {
                "ingest_seconds": ingest_s,
                "embed_seconds": embed_s,
            }
        finally:
            engine.close()


def _dia_of(engine: Engine) -> dict[str, str]:
    rows = engine.store.turn_records()
    return {tid: rid.removeprefix("msg-") for tid, rid in rows}


def _ask_all(
    engine: Engine, conv: dict[str, Any], project: str, disabled: frozenset[str] = frozenset()
) -> dict[str, Any]:
    dia_of = _dia_of(engine)
    per_cat: dict[str, Scores] = defaultdict(Scores)
    latencies = []
    for qa in conv["qa"]:
        evidence = normalise_evidence(qa.get("evidence") or [])
        if not evidence:
            continue
        t0 = time.perf_counter()
        hits = engine.search(
            SearchRequest(
                query=str(qa["question"]),
                kind="turns",
                project=project,
                limit=SESSION_DEPTH,
                disabled=disabled,
            )
        )
        latencies.append(time.perf_counter() - t0)
        ranked = [dia_of.get(h.id, "") for h in hits]
        cat = int(qa.get("category", 0))
        scores = _session_scores(ranked, evidence)
        if cat in (1, 2, 3, 4):
            scores |= _turn_scores(ranked, evidence)
        for key in (CATEGORY_NAMES.get(cat, str(cat)), "all"):
            per_cat[key].n += 1
            per_cat[key].add(scores)
    return {
        "categories": {k: {"n": v.n, **v.means()} for k, v in sorted(per_cat.items())},
        "raw": per_cat,
        "latencies": latencies,
    }


def _turn_scores(ranked: list[str], evidence: list[str]) -> dict[str, float]:
    out = {}
    for k in (5, 10):
        top = set(ranked[:k])
        found = sum(1 for e in evidence if e in top)
        out[f"turn_recall@{k}"] = found / len(evidence)
        out[f"turn_any@{k}"] = float(found > 0)
    return out


def _session_scores(ranked: list[str], evidence: list[str]) -> dict[str, float]:
    order = list(dict.fromkeys(_session(d) for d in ranked if d))
    wanted = {_session(e) for e in evidence}
    out = {f"session_any@{k}": float(bool(wanted & set(order[:k]))) for k in (5, 10)}
    out["session_recall@10"] = len(wanted & set(order[:10])) / len(wanted)
    return out


def _session(dia: str) -> str:
    return dia.split(":", 1)[0]


def run(
    files: Sequence[Path],
    settings_for: Callable[[Path], Settings],
    log: Callable[[str], None] = lambda _: None,
    cache_dir: Path | None = None,
    disabled: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Evaluate each LoCoMo file; pool the questions of all files for the overall figures.
    `disabled` switches retrieval stages off (ablation; names in retrieve.py)."""
    pooled: dict[str, Scores] = defaultdict(Scores)
    latencies: list[float] = []
    per_file = {}
    for path in files:
        result = evaluate_file(path, settings_for, log, cache_dir, disabled)
        per_file[path.stem] = result["categories"]
        latencies.extend(result["latencies"])
        for cat, scores in result["raw"].items():
            pooled[cat].n += scores.n
            for key, total in scores.sums.items():
                pooled[cat].sums[key] += total
                pooled[cat].counts[key] += scores.counts[key]
    lat = sorted(latencies)
    return {
        "categories": {k: {"n": v.n, **v.means()} for k, v in sorted(pooled.items())},
        "per_conversation": per_file,
        "latency_ms": {
            "p50": round(1000 * statistics.median(lat), 2) if lat else None,
            "p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 2) if lat else None,
            "queries": len(lat),
        },
    }

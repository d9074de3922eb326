"""Prompt-time recall eval (issue 23): labelled prompts over multi-session histories.

Each scenario file (eval/prompt-recall/<split>-*.json, format in eval/prompt-recall/README.md)
holds a history (memories, past turns of other sessions, and a generated background of
memories that fills the session-start resume, as a store of hundreds does) and sessions of
three agents, each a list of prompts labelled with the stored items they need (`needs`), or
none. The runner plays them in a fresh home, through the daemon's own ops: per session the
`resume` a session-start hook gets, then the `recall` of each prompt, rendered by that agent's
hook adapter (what the agent would read).

Reported: hit rate (prompts needing an item the session has not received yet that got one of
them), item recall, precision (injected items that were needed), false injections (prompts
needing nothing that got something, by kind), injected tokens per session, and repeats (an
item sent twice to a session: must be 0).

    python -m recallnest.evaluation.prompt_recall eval/prompt-recall [--split dev|test] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.models import Turn, turn_id
from recallnest.core.tokens import estimate_tokens
from recallnest.engine import Engine
from recallnest.server.handlers import dispatch
from recallnest.store import Batch

Scenario = Mapping[str, Any]


@dataclass
class PromptResult:
    scenario: str
    session: int
    agent: str
    lang: str
    text: str
    kind: str
    needs: list[str]
    needed_now: list[str]
    injected: list[str]
    tokens: int
    skip: str | None
    scores: list[float] = field(default_factory=list)
    candidates: list[tuple[str, float, float | None]] = field(default_factory=list)


def share(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


@dataclass
class Report:
    prompts: int = 0
    positives: int = 0
    already_received: int = 0
    hits: int = 0
    needed_items: int = 0
    recalled_items: int = 0
    injected_items: int = 0
    needed_injected: int = 0
    negatives: int = 0
    false_injections: int = 0
    negatives_by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [n, false]
    sessions: int = 0
    tokens: int = 0
    repeats: int = 0
    by_lang: dict[str, list[int]] = field(default_factory=dict)  # lang -> [positives, hits]

    def summary(self) -> dict[str, Any]:
        return {
            "prompts": self.prompts,
            "hit_rate": share(self.hits, self.positives),
            "positives": self.positives,
            "already_received": self.already_received,
            "item_recall": share(self.recalled_items, self.needed_items),
            "precision": share(self.needed_injected, self.injected_items),
            "injected_items": self.injected_items,
            "false_injection_rate": share(self.false_injections, self.negatives),
            "nothing_when_irrelevant": share(
                self.negatives - self.false_injections, self.negatives
            ),
            "negatives": self.negatives,
            "negatives_by_kind": {
                k: {"n": v[0], "false": v[1]} for k, v in self.negatives_by_kind.items()
            },
            "mean_tokens_per_session": share(self.tokens, self.sessions),
            "sessions": self.sessions,
            "repeats": self.repeats,
            "hit_rate_by_lang": {k: share(v[1], v[0]) for k, v in self.by_lang.items()},
        }


# --- the background: memories that fill the resume ------------------------------------------

BACKGROUND_CATEGORIES = ("entities", "preferences", "cases", "patterns", "events")

_SUBJECTS = (
    "the billing worker",
    "the search api",
    "the admin console",
    "the mobile app",
    "the ingest job",
    "the auth proxy",
    "the docs site",
    "the metrics exporter",
    "the mail relay",
    "the image resizer",
    "the feature flag service",
    "the cron runner",
)
_FACTS = (
    "logs to {sink} in {env}",
    "is owned by the {team} team",
    "reads its config from {cfg}",
    "is deployed from the {branch} branch",
    "keeps its cache in {store}",
    "alerts the {team} channel when it fails",
    "runs {n} replicas in {env}",
)
_FILL = {
    "sink": ("loki", "stdout", "cloudwatch", "a rotating file"),
    "env": ("staging", "production", "the eu cluster", "the test rack"),
    "team": ("platform", "payments", "growth", "infra"),
    "cfg": ("consul", "a yaml file", "env vars", "vault"),
    "branch": ("main", "release", "stable"),
    "store": ("redis", "memcached", "a local sqlite file"),
    "n": ("two", "three", "four"),
}
_ZH_SUBJECTS = ("计费服务", "搜索接口", "后台管理", "消息队列", "日志收集器", "权限网关")
_ZH_FACTS = ("部署在{env}", "由{team}组负责", "配置放在{cfg}", "每天凌晨重启一次")
_ZH_FILL = {
    "env": ("测试环境", "生产环境", "华东机房"),
    "team": ("平台", "支付", "运维"),
    "cfg": ("配置中心", "环境变量", "本地文件"),
}


def background(count: int, seed: int, lang: str) -> list[str]:
    """`count` distinct plausible project facts, deterministic for `seed`."""
    rng = random.Random(seed)
    subjects, facts, fill = (
        (_ZH_SUBJECTS, _ZH_FACTS, _ZH_FILL) if lang == "zh" else (_SUBJECTS, _FACTS, _FILL)
    )
    out: dict[str, None] = {}
    for _ in range(count * 20):
        if len(out) == count:
            break
        fact = rng.choice(facts).format(**{k: rng.choice(v) for k, v in fill.items()})
        sep = "" if lang == "zh" else " "
        out[f"{rng.choice(subjects)}{sep}{fact}".capitalize()] = None
    return list(out)


# --- playing one scenario --------------------------------------------------------------------


def run_scenario(sc: Scenario, root: Path, embedder: str = "hash") -> list[PromptResult]:
    """Play one scenario in a fresh home. `embedder` "local" is the shipped default (its
    cosine joins the gate); "hash" is the deterministic test embedder (lexical gate only)."""
    home = root / sc["id"]
    settings = Settings.load(
        flags={"home": str(home / "rn"), "embedder": embedder}, env={"HOME": str(home / "u")}
    )
    engine = Engine.open(settings)
    try:
        return _play(engine, sc)
    finally:
        engine.close()


def _play(engine: Engine, sc: Scenario) -> list[PromptResult]:
    keys = seed_history(engine, sc)
    lang = str(sc.get("lang", "en"))
    return [
        result
        for number, session in enumerate(sc["sessions"])
        for result in _session(engine, sc, number, session, keys, lang)
    ]


def seed_history(engine: Engine, sc: Scenario) -> dict[str, str]:
    """Store the scenario's background, memories and past turns, every row embedded; the
    stored id of each labelled item by its key."""
    now = datetime.now(UTC)
    projects: Mapping[str, str] = sc["projects"]
    lang = str(sc.get("lang", "en"))
    bg = sc.get("background", {})
    for n, text in enumerate(background(int(bg.get("count", 0)), int(bg.get("seed", 1)), lang)):
        # Every section of the resume gets more than it can hold, in both scopes: the items
        # a prompt needs are the ones a store of hundreds leaves out of it.
        scope = projects[bg["project"]] if bg.get("project") and n % 2 else "global"
        category = BACKGROUND_CATEGORIES[n % len(BACKGROUND_CATEGORIES)]
        engine.remember(text, category=category, scope=scope, importance=0.85 + n % 3 * 0.05)
    keys: dict[str, str] = {}
    for m in sc.get("memories", []):
        scope = projects[m["project"]] if m.get("project") else "global"
        made = engine.remember(m["text"], category=m.get("category"), scope=scope)
        keys[m["key"]] = made.id
    turns = []
    for k, t in enumerate(sc.get("turns", [])):
        session = f"{sc['id']}-{t['session']}"
        record = f"r{k}"
        turns.append(
            Turn(
                agent=t.get("agent", "claude"),
                session_id=session,
                role=t.get("role", "assistant"),
                text=t["text"],
                timestamp=now - timedelta(days=float(t.get("days_ago", 7))),
                path=f"/eval/{session}.jsonl",
                record_id=record,
                offset=k,
                cwd=projects[t["project"]],
                project=projects[t["project"]],
            )
        )
        keys[t["key"]] = turn_id(t.get("agent", "claude"), session, record)
    if turns:
        engine.apply(Batch(turns=turns))
    while engine.embed_pending():  # every row has its vector before the first prompt
        pass
    return keys


def _session(
    engine: Engine,
    sc: Scenario,
    number: int,
    session: Mapping[str, Any],
    keys: Mapping[str, str],
    lang: str,
) -> list[PromptResult]:
    agent = str(session.get("agent", "claude"))
    cwd = sc["projects"][session["project"]]
    session_id = f"{sc['id']}-live-{number}"
    start = dispatch(
        engine,
        "resume",
        {"cwd": cwd, "agent": agent, "source": "startup", "session_id": session_id},
    )
    received = set(start["items"])
    out = []
    for prompt in session["prompts"]:
        needs = [keys[k] for k in prompt.get("needs", [])]
        answer = dispatch(
            engine,
            "recall",
            {
                "prompt": prompt["text"],
                "cwd": cwd,
                "session_id": session_id,
                "explain": True,
                "vector_deadline": None,  # quality, not the machine's load (bench_prompt_hook)
            },
        )
        text = str(answer["text"])
        injected = list(answer["items"])
        out.append(
            PromptResult(
                scenario=sc["id"],
                session=number,
                agent=agent,
                lang=str(prompt.get("lang", lang)),
                text=prompt["text"],
                kind=str(prompt.get("kind", "needs" if needs else "absent")),
                needs=needs,
                needed_now=[i for i in needs if i not in received],
                injected=injected,
                tokens=round(estimate_tokens(text)) if text else 0,
                skip=answer.get("skip"),
                scores=list(answer.get("scores") or []),
                candidates=[
                    (("NEEDED " if c[0] in needs else "") + c[1], c[2], c[3])
                    for c in answer.get("candidates") or []
                ],
            )
        )
        received |= set(injected)
    return out


def _context_of(rendered: str) -> str:
    """The text the agent reads: the additionalContext of the hook's JSON output."""
    doc = json.loads(rendered)
    return str(doc["hookSpecificOutput"]["additionalContext"])


def score(results: Sequence[PromptResult]) -> Report:
    rep = Report()
    sessions: dict[tuple[str, int], set[str]] = {}
    for r in results:
        rep.prompts += 1
        seen = sessions.setdefault((r.scenario, r.session), set())
        rep.repeats += sum(1 for i in r.injected if i in seen)
        seen.update(r.injected)
        rep.tokens += r.tokens
        rep.injected_items += len(r.injected)
        rep.needed_injected += sum(1 for i in r.injected if i in r.needs)
        if r.needs:
            if not r.needed_now:
                rep.already_received += 1
                continue
            rep.positives += 1
            hit = any(i in r.needed_now for i in r.injected)
            rep.hits += hit
            rep.needed_items += len(r.needed_now)
            rep.recalled_items += sum(1 for i in r.needed_now if i in r.injected)
            lang = rep.by_lang.setdefault(r.lang, [0, 0])
            lang[0] += 1
            lang[1] += hit
        else:
            rep.negatives += 1
            rep.false_injections += bool(r.injected)
            kind = rep.negatives_by_kind.setdefault(r.kind, [0, 0])
            kind[0] += 1
            kind[1] += bool(r.injected)
    rep.sessions = len(sessions)
    return rep


def load(path: Path, split: str | None) -> list[dict[str, Any]]:
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    scenarios: list[dict[str, Any]] = []
    for file in files:
        if split and not file.name.startswith(split + "-"):
            continue
        data = json.loads(file.read_text(encoding="utf-8"))
        scenarios.extend(data if isinstance(data, list) else [data])
    return scenarios


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recallnest.evaluation.prompt_recall")
    parser.add_argument("path", type=Path)
    parser.add_argument("--split", choices=("dev", "test"))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="print every prompt's outcome")
    parser.add_argument("--show-candidates", action="store_true", help="and its candidates")
    parser.add_argument("--embedder", choices=("local", "hash"), default="local")
    args = parser.parse_args(argv)
    scenarios = load(args.path, args.split)
    root = Path(tempfile.mkdtemp(prefix="rn-prompt-eval-"))
    try:
        results = [r for sc in scenarios for r in run_scenario(sc, root, args.embedder)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary = score(results).summary()
    if args.show:
        for r in results:
            mark = _mark(r)
            print(
                f"{mark:5} {r.scenario}#{r.session} {r.kind:10} {r.skip or '':10} "
                f"{r.scores} {r.text[:70]!r}"
            )
            if args.show_candidates:
                print("       ", r.candidates[:5])
    if args.json:
        print(json.dumps({"summary": summary, "prompts": [asdict(r) for r in results]}, indent=1))
    else:
        print(json.dumps(summary, indent=1, ensure_ascii=False))
    return 0


def _mark(r: PromptResult) -> str:
    if r.needs and not r.needed_now:
        return "had" if not r.injected else "had+"
    if r.needs:
        return "HIT" if any(i in r.needed_now for i in r.injected) else "MISS"
    return "FALSE" if r.injected else "ok"


if __name__ == "__main__":
    sys.exit(main())

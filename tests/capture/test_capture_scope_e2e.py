"""End to end through ingestion (issue 17 items 3-5): a rule stated inside one project about that
project stays out of the other project's memories while personal style and "for all my
projects" rules reach both; a correction carries its subject and its negation; a pasted
instruction file and test-runner output leave no memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recallnest.core.config import Settings
from recallnest.core.schemas import jsonable
from recallnest.engine import Engine
from recallnest.server.control import backfill

SHOP, BLOG = "/work/shop", "/work/blog"


def _record(n: int, session: str, cwd: str, role: str, text: str) -> dict[str, Any]:
    uuid = f"00000000-0000-4000-8000-{n:012d}"
    parent = f"00000000-0000-4000-8000-{n - 1:012d}" if n else None
    content: Any = text if role == "user" else [{"type": "text", "text": text}]
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message |= {"id": f"msg_{n}", "model": "claude-test"}
    return {
        "type": role, "uuid": uuid, "parentUuid": parent, "sessionId": session,
        "timestamp": f"2026-03-01T10:{n:02d}:00Z", "cwd": cwd, "message": message,
    }  # fmt: skip


def _session(path: Path, session: str, cwd: str, turns: list[tuple[str, str]]) -> None:
    rows = [_record(n, session, cwd, role, text) for n, (role, text) in enumerate(turns)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _memories(tmp: Path) -> list[dict[str, Any]]:
    settings = Settings.load(
        flags={"home": str(tmp / "rn"), "embedder": "hash"}, env={"HOME": str(tmp / "user")}
    )
    backfill(settings, "claude", [str(tmp / "sessions")], None)
    engine = Engine.open(settings)
    try:
        return jsonable(engine.export())
    finally:
        engine.close()


def _visible_in(project: str, rows: list[dict[str, Any]]) -> set[str]:
    return {m["text"] for m in rows if m["scope"] in ("global", project)}


def test_scope_subject_polarity_and_junk_through_ingestion(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    _session(folder / "shop.jsonl", "shop-1", SHOP, [
        ("user", "Never publish the package from a local machine."),
        ("assistant", "Understood."),
        ("user", "Always use uv for Python deps."),
        ("assistant", "I'll point the metrics scraper at port 8080 on the exporter."),
        ("user", "no, the port is 9090 not 8080"),
        ("assistant", "Which database does the orders service use?"),
        ("user", "不是 MySQL，是 PostgreSQL 15。"),
        ("assistant", "OK."),
        ("user", "Here's our CLAUDE.md:\n\n## Rules\n- I prefer tabs\n- Never commit to main"),
        ("assistant", "Thanks."),
        ("user", "✓ src/utils/date.test.ts (12)\n✓ src/api/client.test.ts (8)"),
    ])  # fmt: skip
    _session(folder / "blog.jsonl", "blog-1", BLOG, [
        ("user", "For all my projects, I want commit messages in the imperative mood."),
        ("assistant", "Noted."),
    ])  # fmt: skip
    rows = _memories(tmp_path)
    texts = {m["text"]: m for m in rows}

    publish = texts["Never publish the package from a local machine."]
    assert publish["scope"] == SHOP
    assert publish["text"] not in _visible_in(BLOG, rows)
    assert texts["Always use uv for Python deps."]["scope"] == "global"
    imperative = "For all my projects, I want commit messages in the imperative mood."
    assert texts[imperative]["scope"] == "global" and imperative in _visible_in(SHOP, rows)

    port = [t for t in texts if t.startswith("the port is 9090")]
    assert port and "exporter" in port[0]
    assert any(t.startswith("不是 MySQL") for t in texts)
    assert not any("prefer tabs" in t or "commit to main" in t or "✓" in t for t in texts)

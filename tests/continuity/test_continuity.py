"""Continuity over a long-lived engine: what resume shows follows every write that changes it.

The daemon keeps one Engine (and its Continuity cache) for its whole life, so these tests
resume, write, and resume again on the same engine, never on a fresh one.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from recallnest.core.models import GLOBAL_SCOPE, Memory, Turn
from recallnest.engine import Engine
from recallnest.store import Batch

PROJECT = "/work/app"
T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def session_turns(session: str, start: datetime, ask: str, answer: str) -> list[Turn]:
    texts = [("user", ask), ("assistant", answer)]
    return [
        Turn(
            agent="claude",
            session_id=session,
            role=role,  # type: ignore[arg-type]
            text=text,
            timestamp=start + timedelta(minutes=k),
            path=f"/t/{session}.jsonl",
            record_id=f"{session}-{k}",
            offset=k * 100,
            cwd=PROJECT,
            project=PROJECT,
        )
        for k, (role, text) in enumerate(texts)
    ]


def resume_text(engine: Engine) -> str:
    ctx = engine.continuity.resume(
        PROJECT, "claude", "startup", record=False, now=T0 + timedelta(days=3)
    )
    return ctx.text


def checkpointed(engine: Engine, session: str, start: datetime, ask: str, answer: str) -> None:
    engine.apply(Batch(turns=session_turns(session, start, ask, answer)))
    assert engine.continuity.checkpoint(session, "manual", now=start + timedelta(hours=1))


def test_a_newer_checkpoint_replaces_the_cached_last_session(engine: Engine) -> None:
    checkpointed(
        engine, "s1", T0, "Please fix the flaky upload retry test.", "Fixed the upload retry."
    )
    assert "upload retry" in resume_text(engine)
    checkpointed(
        engine,
        "s2",
        T0 + timedelta(days=1),
        "Add a dark mode toggle to the settings page.",
        "Added the dark mode toggle.",
    )
    text = resume_text(engine)
    assert "dark mode" in text
    assert "upload retry" not in text


def test_every_memory_write_shows_at_the_next_resume(engine: Engine) -> None:
    first = engine.remember("Deploys go through the staging cluster first", scope=PROJECT)
    assert "staging cluster" in resume_text(engine)
    engine.remember("The release train leaves every Tuesday", scope=PROJECT)
    assert "release train" in resume_text(engine)
    engine.maintenance.set_flags([first.id], valid_until=T0)  # expired before the resume
    assert "staging cluster" not in resume_text(engine)
    engine.maintenance.set_flags([first.id], clear_valid_until=True)
    assert "staging cluster" in resume_text(engine)
    engine.forget([first.id])
    assert "staging cluster" not in resume_text(engine)


def test_a_resume_does_not_repeat_what_the_resumed_session_captured(engine: Engine) -> None:
    # Nothing recorded as sent (the daemon restarted since the session began): the resumed
    # session's own captures are known from their evidence, and only they are held back.
    old = session_turns("s1", T0, "Always run the linter before pushing.", "Will do.")
    own = session_turns("s2", T0 + timedelta(days=1), "Fix the tokenizer panic.", "Fixed it.")
    engine.apply(Batch(turns=[*old, *own]))
    earlier = Memory(
        id="m-old", scope=PROJECT, category="preferences", text="Run cargo clippy before pushing",
        evidence=(old[0].id,), created_at=T0, updated_at=T0,
    )  # fmt: skip
    mine = Memory(
        id="m-own", scope=PROJECT, category="events", text="The tokenizer escape reader panics",
        evidence=(own[0].id,), created_at=T0, updated_at=T0 + timedelta(days=1),
    )  # fmt: skip
    engine.apply(Batch(memories=[earlier, mine]))
    later = T0 + timedelta(days=2)
    text = engine.continuity.resume(PROJECT, "codex", "resume", "s2", later, False).text
    assert "cargo clippy" in text and "tokenizer" not in text, text
    text = engine.continuity.resume(PROJECT, "codex", "resume", "s3", later, False).text
    assert "cargo clippy" in text and "tokenizer" in text, text


def test_resuming_an_older_session_shows_the_newest_and_its_own_state(engine: Engine) -> None:
    # Decision 0047: the project's newest session is "Last session"; the resumed one's own
    # checkpoint follows as "Resumed session" (decision 0029 headed the newest "Since this
    # session" and left the resumed one out).
    checkpointed(engine, "s1", T0, "Please fix the flaky upload retry test.", "Fixed the retry.")
    later = T0 + timedelta(days=1)
    checkpointed(engine, "s2", later, "Add a dark mode toggle to settings.", "Added the toggle.")
    now = T0 + timedelta(days=2)
    text = engine.continuity.resume(PROJECT, "claude", "resume", "s1", now, False).text
    last, _, resumed = text.partition("Resumed session (")
    assert "Last session (" in last and "dark mode" in last and "upload retry" not in last, text
    assert "upload retry" in resumed and "dark mode" not in resumed, text
    for source, session in (("startup", "s3"), ("resume", "s2"), ("resume", "s9")):
        text = engine.continuity.resume(PROJECT, "claude", source, session, now, False).text
        assert "Resumed session" not in text, (source, session, text)
    text = engine.continuity.resume(PROJECT, "claude", "startup", "s3", now, False).text
    assert "Last session (" in text and "dark mode" in text, text


@pytest.mark.slow
def test_the_daemon_shows_the_newest_checkpoint(tmp_path: Path) -> None:
    from support.daemon import DaemonProcess, claude_line

    root = Path(tmp_path)
    daemon = DaemonProcess(root)
    daemon.start()
    try:
        for session, asked, k in (
            ("s1", "Please fix the flaky upload retry test in the uploader.", 0),
            ("s2", "Add a dark mode toggle to the settings page of the app.", 600),
        ):
            transcript = daemon.projects / f"{session}.jsonl"
            lines = [
                claude_line(session, k, asked),
                claude_line(session, k + 1, f"Done: {asked.lower()}", role="assistant"),
            ]
            transcript.write_text("\n".join(lines) + "\n")
            daemon.request("ingest", roots=[str(daemon.user / ".claude" / "projects")])
            assert daemon.request("checkpoint", session_id=session, reason="manual")
            shown = daemon.request("resume", cwd=PROJECT, agent="claude", record=False)
            assert ("dark mode" in shown["text"]) == (session == "s2"), shown["text"]
            assert ("upload retry" in shown["text"]) == (session == "s1"), shown["text"]
    finally:
        daemon.stop()


def test_the_generation_moves_on_writes_that_change_a_resume_only(engine: Engine) -> None:
    store = engine.store
    engine.apply(Batch(turns=session_turns("s9", T0, "Rename the CLI flag.", "Renamed it.")))
    engine.remember("The CLI lives in src/cli", scope=PROJECT)
    before = store.generation
    engine.apply(Batch(turns=session_turns("s8", T0, "Rename the flag.", "Renamed.")))
    shown = engine.continuity.resume(PROJECT, "claude", "startup", session_id="s9")
    assert shown.items and engine.maintenance.flush_access() > 0
    assert store.generation == before  # turns and a resume's own read counts: no change
    engine.continuity.checkpoint("s9", "manual", now=T0 + timedelta(hours=1))
    assert store.generation == before + 1
    engine.remember("The CLI flags are kebab-case", scope=PROJECT)
    assert store.generation == before + 2


# ---- candidates at scale: each section draws from its own scope -------------------------------


def pool(scope: str, category: str, n: int, importance: float, word: str) -> list[Memory]:
    return [
        Memory(
            id=f"{word}-{k}",
            scope=scope,
            category=category,
            text=f"{word} fact number {k} about {scope} ({category}) with its own words {k * 7}",
            importance=importance,
            confidence=0.9,
            created_at=T0,
            updated_at=T0 + timedelta(seconds=k),
        )
        for k in range(n)
    ]


def test_a_large_global_pool_does_not_crowd_out_the_project(engine: Engine) -> None:
    crowd = [
        *pool(GLOBAL_SCOPE, "preferences", 300, 0.95, "globalpref"),
        *pool(GLOBAL_SCOPE, "entities", 300, 0.95, "globalfact"),
        *pool("/work/other", "entities", 300, 0.99, "otherfact"),
        *pool(GLOBAL_SCOPE, "cases", 300, 0.95, "globalcase"),
    ]
    own = pool(PROJECT, "entities", 3, 0.4, "ownfact")
    own_case = pool(PROJECT, "cases", 1, 0.3, "owncase")
    own_pref = pool(PROJECT, "preferences", 1, 0.3, "ownpref")
    engine.apply(Batch(memories=[*crowd, *own, *own_case, *own_pref]))
    shown = engine.continuity.resume(PROJECT, "claude", "startup", record=False)
    text = shown.text
    assert "This project:" in text
    assert all(m.id in shown.items for m in [*own, *own_case, *own_pref]), text
    assert "otherfact" not in text  # another project's facts never show here
    assert "You (profile & preferences):" in text and "Past cases & workflows:" in text


def test_a_pinned_project_fact_with_low_importance_is_a_candidate(engine: Engine) -> None:
    crowd = pool(PROJECT, "entities", 400, 0.9, "busyfact")
    pinned = replace(pool(PROJECT, "entities", 1, 0.05, "pinnedfact")[0], pinned=True)
    engine.apply(Batch(memories=[*crowd, pinned]))
    shown = engine.continuity.resume(PROJECT, "claude", "startup", record=False)
    assert pinned.id in shown.items


def test_rewarm_recomputes_the_inputs_a_write_made_stale(engine: Engine) -> None:
    engine.remember("The release train leaves every Tuesday", scope=PROJECT)
    resume_text(engine)
    engine.remember("Deploys go through the canary cluster first", scope=PROJECT)
    assert engine.continuity.rewarm() == 1
    assert engine.continuity.rewarm() == 0  # nothing changed since
    assert "canary cluster" in resume_text(engine)

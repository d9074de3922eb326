"""The web UI clicked through in a real headless Chromium (issue 20), driven by Playwright for
Python and pointed at Debian's `chromium` (nothing is downloaded; skipped when it is absent).

One `recallnest daemon run` process holds transcripts of two sessions (ordinary statements, a
contradiction consolidation flags, Chinese text and hostile text), one `recallnest ui` process
serves it, one browser drives it: every action is a click or a key press, and its effect is
checked where the user would look (the CLI, search, the resume a hook would print).

Set RECALLNEST_UI_SCREENSHOTS=<dir> to keep the screenshots of the main pages (the README's
and docs/'s come from here: RECALLNEST_UI_SCREENSHOTS=docs)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright import sync_api
from support.daemon import WAIT_SECONDS, DaemonProcess, claude_line, start_ui

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium package is not installed"),
]

PROJECT = "/work/app"
# Each payload sets window.__pwned if any of it ever runs as markup or script.
XSS = {
    "script": "I prefer deploys via <script>window.__pwned=1</script> make ship, always.",
    "textarea": 'Remember: the release notes live in </textarea><img src=x onerror="window.'
    '__pwned=2"> docs/notes.md',
    "link": 'We always use the <a href="javascript:window.__pwned=3">runbook</a> for incidents.',
    "terminal": "Remember: the status line prints red \x1b[31mERROR\x1b]0;owned\x07 in the "
    "\u202egnp.exe terminal",
}
SESSION_ONE = [
    "We always rebase feature branches before merging.",
    "Remember: the staging database is called heron.",
    "Remember: the CI cache lives in the ci-cache bucket.",
    *XSS.values(),
]
SESSION_TWO = ["We never rebase feature branches before merging.", "我们用 pnpm 管理依赖，不用 npm"]
# Written after the daemon restarts with review_captures on: these wait in the inbox.
HELD = [
    "Remember: the metrics dashboard lives at grafana.internal/d/app.",
    "Remember: the feature flags live in config/flags.yaml.",
    "Remember: the on-call rota lives in the ops wiki.",
]


@dataclass
class Ui:
    daemon: DaemonProcess
    proc: subprocess.Popen[str]
    login: str
    port: int
    browser: Any
    page: Any
    dialogs: list[str] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def go(self, path: str) -> Any:
        response = self.page.goto(self.url(path))
        assert response is not None and response.status == 200, path
        return self.page

    def cli(self, *args: str) -> str:
        done = self.daemon.cli(*args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def cli_json(self, *args: str) -> Any:
        return json.loads(self.cli(*args, "--json"))

    def memory_id(self, text: str) -> str:
        found = [m["id"] for m in self.cli_json("memories", "list") if m["text"] == text]
        assert len(found) == 1, text
        return str(found[0])

    def memory_id_any(self, text: str) -> str:
        """The id of the memory with this text, whatever its status."""
        found = [
            m["id"]
            for m in self.cli_json("memories", "list", "--status", "any")
            if m["text"] == text
        ]
        assert len(found) == 1, text
        return str(found[0])

    def notice(self) -> str:
        return str(self.page.locator("p.notice").inner_text())

    def shot(self, name: str, full_page: bool = False) -> None:
        shots = Path(os.environ.get("RECALLNEST_UI_SCREENSHOTS") or self.daemon.root)
        target = shots / f"ui-{name}.png"
        # As bytes: with a path Playwright writes from a thread pool left running.
        target.write_bytes(self.page.screenshot(full_page=full_page))
        assert target.stat().st_size > 10_000


def transcript(
    daemon: DaemonProcess, session: str, start: int, texts: list[str], days_ago: int
) -> None:
    """A session `days_ago` days back (so the dashboard's 30-day plots show it)."""
    when = datetime.now(UTC) - timedelta(days=days_ago)
    lines = []
    for i, text in enumerate(texts):
        record = json.loads(claude_line(session, start + i, text))
        record["timestamp"] = (when + timedelta(minutes=i)).isoformat().replace("+00:00", "Z")
        lines.append(json.dumps(record))
    (daemon.projects / f"{session}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def ui() -> Iterator[Ui]:
    root = Path(tempfile.mkdtemp(prefix="uib-", dir="/tmp"))
    daemon = DaemonProcess(root)
    transcript(daemon, "s-one", 0, SESSION_ONE, days_ago=3)
    transcript(daemon, "s-two", 100, SESSION_TWO, days_ago=1)
    daemon.start()
    count = len(SESSION_ONE) + len(SESSION_TWO)
    daemon.wait_for(lambda: daemon.counts().get("active_memories", 0) >= count, "the captures")
    assert "flag 1" in daemon.cli("consolidate").stdout  # always / never rebase
    # The review setting, switched on: what is captured from now on waits to be approved.
    daemon.stop()
    daemon.env["RECALLNEST_REVIEW_CAPTURES"] = "true"
    daemon.start()
    transcript(daemon, "s-three", 200, HELD, days_ago=0)
    daemon.wait_for(lambda: daemon.counts().get("memories", 0) >= count + len(HELD), "held")
    proc, login, port = start_ui(daemon)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",  # root in CI containers; the pages are ours, loopback only
                # DNS rebinding, for real: a foreign name that resolves to loopback.
                "--host-resolver-rules=MAP rebind.test 127.0.0.1",
            ],
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(10_000)
        page = context.new_page()
        page.goto(login)  # signed in, so that each test also runs on its own
        found = Ui(daemon, proc, login, port, browser, page)
        page.on("dialog", lambda d: (found.dialogs.append(d.message), d.accept()))
        try:
            yield found
        finally:
            browser.close()
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=WAIT_SECONDS)
            daemon.stop()
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def dialogs(ui: Ui) -> Iterator[list[str]]:
    """The confirm() dialogs a test's clicks opened (each is accepted)."""
    ui.dialogs.clear()
    yield ui.dialogs


# ---- who may open it ---------------------------------------------------------------------------


def test_only_the_token_opens_it_and_only_under_our_host(ui: Ui) -> None:
    stranger = ui.browser.new_context()
    try:
        page = stranger.new_page()
        response = page.goto(ui.url("/"))
        assert response.status == 403 and "refused: no valid token" in page.inner_text("body")
        assert page.goto(ui.url("/login?token=guess")).status == 403
        rebound = ui.login.replace("127.0.0.1", "rebind.test")
        response = page.goto(rebound)
        assert response.status == 403 and "refused" in page.inner_text("body")
        assert page.context.cookies() == []
    finally:
        stranger.close()
    response = ui.page.goto(ui.login)
    assert response.status == 200 and ui.page.url == ui.url("/")
    assert ui.page.inner_text("h1") == "Dashboard"
    assert ui.page.locator("figure rect").count() > 0  # this week's captures and turns, plotted
    ui.shot("dashboard", full_page=True)


# ---- memories: search, open, edit, forget ------------------------------------------------------


def search(ui: Ui, query: str) -> list[str]:
    """Type a query in the search box, press Enter: the result links' texts."""
    page = ui.go("/memories")
    page.fill("#f-q", query)
    page.press("#f-q", "Enter")
    page.wait_for_url(re.compile(r"/memories\?q="))
    return [str(t) for t in page.locator("table.memories tbody a").all_inner_texts()]


def test_search_then_open_a_memory(ui: Ui) -> None:
    found = search(ui, "rebase feature branches")
    assert "We always rebase feature branches before merging." in found
    ui.page.check("input[name=explain]")
    ui.page.click("form.filters button")
    ui.page.locator("details.explain summary").first.click()
    assert "ranks:" in ui.page.locator("details.explain").first.inner_text()
    ui.shot("search")
    ui.page.click("text=We always rebase feature branches before merging.")
    assert ui.page.inner_text("h1") == "Memory"
    text = ui.page.inner_text("#memory-text")
    assert text == "We always rebase feature branches before merging."
    assert "Where it came from" in ui.page.inner_text("main")  # its source turn, in context
    near = ui.page.locator("table.neighbours tbody a").all_inner_texts()
    assert "We never rebase feature branches before merging." in near
    ui.shot("memory")


def test_an_edit_shows_in_the_cli_and_a_forget_everywhere(ui: Ui, dialogs: list[str]) -> None:
    old = ui.memory_id("the staging database is called heron.")
    assert "heron" in ui.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    ui.go(f"/memory/{old}")
    ui.page.fill("#f-text", "The staging database is called egret.")
    ui.page.click("text=Save edit")
    assert "edited" in ui.notice()
    new = ui.page.url.split("?")[0].rsplit("/", 1)[1]
    assert new != old
    assert ui.cli_json("memories", "show", new)["text"] == "The staging database is called egret."
    assert ui.cli_json("memories", "show", old)["status"] == "superseded"
    assert search(ui, "staging database egret")[0] == "The staging database is called egret."

    ui.page.click("table.memories tbody a >> nth=0")
    ui.page.click("button:has-text('Forget')")
    assert dialogs and "forget" in dialogs[0].lower()
    assert "forgotten: 2 memories" in ui.notice()  # the edit and the version it replaced
    assert "egret" not in " ".join(search(ui, "staging database egret"))
    assert ui.daemon.cli("memories", "show", new).returncode != 0
    assert ui.daemon.cli("memories", "show", old).returncode != 0
    resume = ui.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    assert "egret" not in resume and "heron" not in resume


# ---- review inbox, conflicts -------------------------------------------------------------------


def test_reject_in_the_review_inbox_with_the_keyboard(ui: Ui, dialogs: list[str]) -> None:
    target = "the CI cache lives in the ci-cache bucket."
    doomed = ui.memory_id(target)
    page = ui.go("/review")
    rows = page.locator("form.review-form tbody tr")
    texts = [str(t) for t in rows.all_inner_texts()]
    at = next(i for i, t in enumerate(texts) if target in t)
    page.locator("main h1").click()  # focus on the page, not in a field
    for _ in range(at):
        page.keyboard.press("j")
    assert "cursor" in (rows.nth(at).get_attribute("class") or "")
    page.keyboard.press("x")
    assert rows.nth(at).locator("input[type=checkbox]").is_checked()
    ui.shot("review")
    page.keyboard.press("Shift+R")
    page.wait_for_url(re.compile(r"/review\?msg="))
    assert dialogs and "rejected: 1 forgotten" in ui.notice()
    assert ui.daemon.cli("memories", "show", doomed).returncode != 0
    assert target not in page.inner_text("main")


def test_held_captures_wait_until_approved_with_the_keyboard(ui: Ui) -> None:
    texts = [t.removeprefix("Remember: ") for t in HELD]
    held = {t: ui.memory_id_any(t) for t in texts}
    for text, mem in held.items():
        assert ui.cli_json("memories", "show", mem)["status"] == "pending"
        hits = ui.cli_json("search", text, "--kind", "memories")
        assert hits and mem not in {h["id"] for h in hits}
    assert "grafana" not in ui.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    page = ui.go("/review")
    assert page.inner_text("#held") == "3"
    rows = page.locator("form.review-form tbody tr")
    assert rows.locator(".state").all_inner_texts()[:3] == ["pending"] * 3
    pick = next(i for i in range(3) if texts[0] in rows.nth(i).inner_text())
    page.locator("main h1").click()
    for _ in range(pick):
        page.keyboard.press("j")
    page.keyboard.press("x")
    page.keyboard.press("Shift+A")
    page.wait_for_url(re.compile(r"/review\?msg="))
    assert ui.notice() == "approved: 1"
    assert ui.cli_json("memories", "show", held[texts[0]])["status"] == "active"
    assert ui.cli_json("memories", "show", held[texts[1]])["status"] == "pending"
    assert texts[0] in ui.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    assert search(ui, "metrics dashboard grafana")[0] == texts[0]
    # The other one from its own page: Approve there, then it is found too.
    ui.go(f"/memory/{held[texts[1]]}")
    assert "waits for approval" in ui.page.inner_text("main")
    ui.page.click("#approve")
    assert ui.notice() == "approved"
    assert search(ui, "feature flags config")[0] == texts[1]
    # And from the CLI, for someone without the UI.
    assert ui.cli("memories", "approve", held[texts[2]]) == "approved: 1\n"
    assert ui.go("/review").inner_text("#held") == "0"


def test_settle_a_conflict_side_by_side(ui: Ui) -> None:
    page = ui.go("/conflicts")
    sides = page.locator("article.conflict .sides pre").all_inner_texts()
    assert sides == [
        "We always rebase feature branches before merging.",
        "We never rebase feature branches before merging.",
    ]
    ui.shot("conflicts")
    older = ui.memory_id(sides[0])
    page.click("text=Keep newer (right)")
    assert "settled: kept newer" in ui.notice()
    assert "No open conflicts." in page.inner_text("main")
    assert ui.cli_json("memories", "show", older)["status"] == "superseded"
    assert ui.cli_json("conflicts", "list") == []


# ---- resume preview ----------------------------------------------------------------------------


def test_the_resume_preview_is_what_recallnest_resume_prints(ui: Ui) -> None:
    page = ui.go("/resume")
    page.select_option("#f-project", PROJECT)
    page.select_option("#f-agent", "claude")
    page.click("text=Preview")
    shown = page.locator("#resume-text").text_content()
    cli = ui.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    assert shown == cli and "pnpm" in cli
    ui.shot("resume")


# ---- hostile text ------------------------------------------------------------------------------


def test_hostile_transcript_text_renders_as_text(ui: Ui, dialogs: list[str]) -> None:
    ids = {name: ui.memory_id(text.removeprefix("Remember: ")) for name, text in XSS.items()}
    pages = [
        "/session/s-one",
        f"/memories?q={quote('deploys runbook release notes status line')}&explain=1",
        "/memories",
        "/review",
        "/",
        *(f"/memory/{i}" for i in ids.values()),
    ]
    for path in pages:
        page = ui.go(path)
        assert page.evaluate("window.__pwned") is None, path  # no payload ever ran
        injected = "img[src=x], a[href^='javascript'], script:not([src]), [onerror]"
        assert page.locator(injected).count() == 0, path
    assert dialogs == []
    page = ui.go("/session/s-one")
    shown = page.inner_text("main")
    assert "<script>window.__pwned=1</script>" in shown
    assert '</textarea><img src=x onerror="window.__pwned=2">' in shown
    assert '<a href="javascript:window.__pwned=3">runbook</a>' in shown
    assert "\\u001b[31mERROR" in shown and "\\u202egnp.exe" in shown  # escapes made visible
    assert "\x1b" not in shown and "\u202e" not in shown
    page = ui.go(f"/memory/{ids['textarea']}")  # the payload that tries to leave the edit box
    assert page.locator("textarea").count() == 1
    assert page.input_value("#f-text") == XSS["textarea"].removeprefix("Remember: ")

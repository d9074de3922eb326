"""The web UI (issue 20) over HTTP, against a daemon serving its socket in this process (the
daemon's own threads, the real engine and store): who may talk to it (token, Host, Origin,
CSRF, loopback), that every page answers with the security headers, that stored text renders
inert, and that each action changes what the daemon holds the way the CLI's op does.

The same flows through a `recallnest daemon run` process and `recallnest ui` process, and in
a real headless Chromium, are in test_webui_e2e.py and test_webui_browser.py (slow)."""

from __future__ import annotations

import html
import http.client
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from recallnest.core.config import Settings
from recallnest.core.paths import socket_path
from recallnest.engine import Engine
from recallnest.integrations.harness import for_agent
from recallnest.integrations.webui.render import esc
from recallnest.integrations.webui.security import Gate
from recallnest.integrations.webui.server import UiServer
from recallnest.server.client import DaemonClient
from recallnest.server.daemon import Daemon
from recallnest.server.handlers import OPS

# Attacker-controlled text, as a transcript could carry it.
PAYLOADS = {
    "script": "<script>document.title='pwned'</script>",
    "textarea": "</textarea><img src=x onerror=alert(1)>",
    "link": '<a href="javascript:alert(1)">click</a>',
    "attr": '" autofocus onfocus="alert(1)',
    "terminal": "red \x1b[31mtext\x1b]0;title\x07 \u202egnp.exe",
}


@dataclass
class Ui:
    server: UiServer
    daemon: Daemon
    client: DaemonClient
    cookie: str = ""

    @property
    def gate(self) -> Gate:
        return self.server.gate

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.gate.port}"

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        cookie: bool = True,
    ) -> tuple[int, dict[str, str], str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.gate.port, timeout=30)
        sent = {"Host": self.host} | ({"Cookie": self.cookie} if cookie and self.cookie else {})
        sent |= headers or {}
        data = None
        if body is not None:
            data = urlencode(body, doseq=True)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            return response.status, dict(response.getheaders()), response.read().decode()
        finally:
            conn.close()

    def login(self) -> None:
        status, headers, _ = self.request("GET", f"/login?token={self.gate.token}", cookie=False)
        assert status == 303 and headers["Location"] == "/"
        self.cookie = headers["Set-Cookie"].split(";")[0]

    def get(self, path: str) -> str:
        status, _, body = self.request("GET", path)
        assert status == 200, body
        return body

    def post(self, path: str, **form: Any) -> str:
        status, headers, body = self.request("POST", path, {"csrf": self.gate.csrf, **form})
        assert status == 303, body
        return headers["Location"]

    def call(self, op: str, **args: Any) -> Any:
        return self.client.call(op, args)


@pytest.fixture
def ui(settings: Settings) -> Iterator[Ui]:
    daemon = Daemon(settings, Engine.open(settings))
    daemon.start()
    client = DaemonClient(str(socket_path(settings.home)))
    server = UiServer(0, client.call, lambda: [{"name": "hooks", "ok": True, "detail": "<b>"}])
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="ui-test")
    thread.start()
    try:
        yield Ui(server, daemon, client)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
        daemon.stop()


def remembered(ui: Ui, text: str, **args: Any) -> str:
    return str(ui.call("remember", text=text, **args)["id"])


def pre(page: str, element_id: str) -> str:
    found = re.search(rf'<pre class="text" id="{element_id}">(.*?)</pre>', page, re.S)
    assert found, page[-2000:]
    return html.unescape(found.group(1))


# ---- escaping ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PAYLOADS))
def test_stored_text_becomes_inert_html(name: str) -> None:
    shown = esc(PAYLOADS[name])
    assert "<" not in shown and ">" not in shown and '"' not in shown
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    if name == "terminal":
        assert "\\u001b[31m" in shown and "\\u202e" in shown  # visible, not acted on


def test_chinese_text_is_kept_as_written() -> None:
    assert esc("部署用 make ship，别手动") == "部署用 make ship，别手动"


# ---- who may talk to it ------------------------------------------------------------------------


def test_it_listens_on_loopback_only(ui: Ui) -> None:
    assert ui.server.server_address[0] == "127.0.0.1"
    assert Gate(8080).entry_url().startswith("http://127.0.0.1:8080/login?token=")


def test_no_token_no_page(ui: Ui) -> None:
    for path in ("/", "/memories", "/static/app.js", "/login", "/login?token=wrong"):
        status, _, body = ui.request("GET", path)
        assert status == 403, path
        assert "refused" in body


def test_the_login_sets_a_strict_cookie_and_the_cookie_opens_pages(ui: Ui) -> None:
    status, headers, _ = ui.request("GET", f"/login?token={ui.gate.token}", cookie=False)
    assert status == 303
    cookie = headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and ui.gate.token in cookie
    ui.cookie = cookie.split(";")[0]
    assert "<h1>Dashboard</h1>" in ui.get("/")
    ui.cookie = "recallnest_ui=not-the-token"
    assert ui.request("GET", "/")[0] == 403


def test_the_login_sends_the_browser_on_only_to_our_own_pages(ui: Ui) -> None:
    token = ui.gate.token
    for target, expected in (
        ("/memories?q=a+b&explain=1", "/memories?q=a+b&explain=1"),
        ("//evil.example/", "/"),
        ("/\\evil.example", "/"),
        ("https://evil.example/", "/"),
        ("javascript:alert(1)", "/"),
    ):
        query = urlencode({"token": token, "next": target})
        status, headers, _ = ui.request("GET", f"/login?{query}", cookie=False)
        assert (status, headers["Location"]) == (303, expected), target


def test_a_foreign_host_is_refused_even_with_the_token(ui: Ui) -> None:
    """DNS rebinding: evil.example resolving to 127.0.0.1 sends its own name as Host."""
    ui.login()
    for host in ("evil.example", f"evil.example:{ui.gate.port}", "127.0.0.1:1"):
        assert ui.request("GET", "/", headers={"Host": host})[0] == 403, host
        login = f"/login?token={ui.gate.token}"
        assert ui.request("GET", login, headers={"Host": host}, cookie=False)[0] == 403
    assert ui.request("GET", "/", headers={"Host": f"localhost:{ui.gate.port}"})[0] == 200


def test_a_foreign_origin_is_refused(ui: Ui) -> None:
    ui.login()
    mem = remembered(ui, "The build cache lives in /var/cache/build")
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{ui.gate.port + 1}"):
        status, _, _ = ui.request(
            "POST",
            f"/memory/{mem}/forget",
            {"csrf": ui.gate.csrf},
            headers={"Origin": origin},
        )
        assert status == 403, origin
    cross = ui.request("GET", "/", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross[0] == 403
    assert ui.call("memories.show", id=mem)["status"] == "active"


def test_a_change_needs_the_csrf_token(ui: Ui) -> None:
    ui.login()
    mem = remembered(ui, "The release branch is called train")
    for form in ({}, {"csrf": "0" * 64}, {"csrf": ui.gate.token}):
        status, _, _ = ui.request("POST", f"/memory/{mem}/flags", {"pinned": "yes", **form})
        assert status == 403, form
    assert ui.call("memories.show", id=mem)["pinned"] is False
    ui.post(f"/memory/{mem}/flags", pinned="yes")
    assert ui.call("memories.show", id=mem)["pinned"] is True


def test_every_page_carries_the_security_headers(ui: Ui) -> None:
    ui.login()
    mem = remembered(ui, "We deploy with make ship")
    pages = ["/", "/memories", f"/memory/{mem}", "/review", "/conflicts", "/sessions"]
    for path in [*pages, "/resume", "/doctor", "/static/app.css", "/no-such-page"]:
        status, headers, _ = ui.request("GET", path)
        assert status in (200, 404), path
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Referrer-Policy"] == "same-origin"
        assert headers["Cache-Control"] == "no-store"
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_pages_hold_no_inline_script(ui: Ui) -> None:
    ui.login()
    for path in ("/", "/memories", "/review", "/resume"):
        body = ui.get(path)
        assert re.findall(r"<script[^>]*>", body) == ['<script src="/static/app.js" defer>']
        assert re.search(r"<[^>]+\son\w+=", body) is None  # no inline event handler


# ---- what it shows -----------------------------------------------------------------------------


def test_stored_payloads_show_as_text_on_every_page(ui: Ui) -> None:
    ui.login()
    ids = {name: remembered(ui, f"Note {name}: {p}") for name, p in PAYLOADS.items()}
    pages = [ui.get("/memories"), ui.get("/review"), ui.get("/memories?q=note&explain=1")]
    pages += [ui.get(f"/memory/{i}") for i in ids.values()]
    for body in pages:
        assert "<script>document" not in body and "<img src=x" not in body
        assert 'href="javascript:' not in body and "onfocus=" not in body.replace(
            "onfocus=&quot;", ""
        )
        assert "\x1b" not in body and "\u202e" not in body
    detail = ui.get(f"/memory/{ids['textarea']}")
    # Inside the edit form's textarea too: the payload cannot close it.
    assert detail.count("</textarea>") == 1
    assert pre(detail, "memory-text") == f"Note textarea: {PAYLOADS['textarea']}"


def test_search_is_the_cli_search_with_its_explain(ui: Ui) -> None:
    ui.login()
    remembered(ui, "We deploy with make ship, never by hand")
    remembered(ui, "部署时使用 make ship 命令")
    remembered(ui, "The staging database is called heron")
    body = ui.get("/memories?q=deploy+ship&explain=1")
    hits = ui.call("search", query="deploy ship", kind="memories", limit=50)
    shown = re.findall(r'<a href="/memory/([^"]+)">', body)
    assert shown == [h["id"] for h in hits] and shown
    assert "<summary>why</summary>" in body and "ranks:" in body
    assert "部署时使用" in ui.get("/memories?q=%E9%83%A8%E7%BD%B2")


def test_filters_select_what_memories_find_selects(ui: Ui) -> None:
    ui.login()
    a = remembered(ui, "I prefer tabs over spaces", category="preferences")
    b = remembered(ui, "The API gateway is called kestrel", category="entities")
    body = ui.get("/memories?category=preferences")
    assert f"/memory/{a}" in body and f"/memory/{b}" not in body
    ui.post(f"/memory/{b}/flags", pinned="yes")
    body = ui.get("/memories?pinned=yes")
    assert f"/memory/{b}" in body and f"/memory/{a}" not in body
    c = remembered(ui, "The deploy key rotates monthly", source="capture:codex", scope="/w/app")
    for query, shown in (
        ("agent=codex", {c}),
        ("agent=claude", set()),
        ("scope=/w/app", {c}),
        ("scope=global&category=entities", {b}),
        ("since=1d", {a, b, c}),
        ("until=2000-01-01", set()),
        ("status=pending", set()),
    ):
        body = ui.get(f"/memories?{query}")
        assert {m for m in (a, b, c) if f"/memory/{m}" in body} == shown, query


def test_a_memory_page_shows_its_neighbours(ui: Ui, monkeypatch: pytest.MonkeyPatch) -> None:
    ui.login()
    a = remembered(ui, "The API gateway is called kestrel", category="entities")
    b = remembered(ui, "The API gateway runs behind kestrel on port 8443", category="entities")

    def no_embedding(text: str) -> None:
        raise AssertionError(f"embedded {text!r}: the memory's stored vector is the query")

    monkeypatch.setattr(ui.daemon.engine.embedder, "embed_query", no_embedding)
    neighbours = ui.get(f"/memory/{a}").split("<h2>Neighbours</h2>", 1)[1]
    assert f"/memory/{b}" in neighbours and f"/memory/{a}" not in neighbours
    ui.daemon.engine.maintenance.flush_access()
    assert ui.call("memories.show", id=b)["access_count"] == 0  # not counted as a read


def test_the_dashboard_counts_what_stats_counts(ui: Ui) -> None:
    ui.login()
    for n in range(3):
        remembered(ui, f"Fact number {n} about the kestrel gateway", category="entities")
    body = ui.get("/")
    counts = ui.call("stats")["counts"]
    assert f"<b>{counts['memories']}</b><span>memories</span>" in body
    assert "Memories captured per day, by category" in body and "<rect" in body
    assert f'<progress value="{ui.call("stats")["embedder"]["rows_with_vectors"]}"' in body
    assert "running" in body


# ---- what it changes ---------------------------------------------------------------------------


def test_edit_replaces_the_memory_and_keeps_its_history(ui: Ui) -> None:
    ui.login()
    old = remembered(ui, "The staging database is called heron")
    ui.post(f"/memory/{old}/flags", pinned="yes")
    where = ui.post(f"/memory/{old}/edit", text="The staging database is called egret")
    new = where.split("?")[0].rsplit("/", 1)[1]
    shown = ui.call("memories.show", id=new)
    assert shown["text"] == "The staging database is called egret" and shown["pinned"] is True
    assert ui.call("memories.show", id=old)["status"] == "superseded"
    page = ui.get(where)
    assert "edited" in page and f"/memory/{old}" in page


def test_an_edit_is_redacted_like_any_stored_text(ui: Ui) -> None:
    ui.login()
    old = remembered(ui, "The deploy key is kept in the vault")
    secret = "sk-proj-" + "Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ"
    where = ui.post(f"/memory/{old}/edit", text=f"The deploy key is {secret}")
    new = where.split("?")[0].rsplit("/", 1)[1]
    assert secret not in ui.call("memories.show", id=new)["text"]
    assert secret not in ui.get(where)


def test_forget_removes_it_from_search_and_resume(ui: Ui) -> None:
    ui.login()
    mem = remembered(ui, "Always run the linter with ruff before pushing")
    assert mem in ui.call("resume", cwd="/tmp", agent="claude", record=False)["items"]
    assert ui.post(f"/memory/{mem}/forget").startswith("/memories?msg=forgotten")
    assert not ui.call("search", query="linter ruff pushing", kind="memories")
    assert mem not in ui.call("resume", cwd="/tmp", agent="claude", record=False)["items"]
    assert ui.call("forget.log")[0]["memories"] == 1  # the CLI's audit entry


def test_review_rejects_the_selected_in_bulk(ui: Ui) -> None:
    ui.login()
    ids = [remembered(ui, f"Captured fact {w} about the build") for w in ("one", "two", "three")]
    body = ui.get("/review")
    assert all(f'value="{i}"' in body for i in ids)
    ui.post("/review/reject", ids=ids[:2])
    left = {m["id"] for m in ui.call("memories.find", limit=50)}
    assert ids[2] in left and not left & set(ids[:2])
    assert ui.post("/review/reject") == "/review?msg=nothing+selected"


def test_a_conflict_is_settled_side_by_side(ui: Ui) -> None:
    ui.login()
    a = remembered(ui, "The CI runs on GitHub Actions", scope="/work/app")
    b = remembered(ui, "The CI runs on Buildkite", scope="/work/app")
    ui.daemon.engine.store.add_conflicts(
        [
            {
                "a_id": a,
                "b_id": b,
                "scope": "/work/app",
                "category": "entities",
                "reason": "contradiction",
                "similarity": 0.8,
                "undo_id": None,
            }
        ],
        datetime.now(UTC),
    )
    body = ui.get("/conflicts")
    assert "GitHub Actions" in body and "Buildkite" in body
    conflict = ui.call("conflicts.list")[0]["id"]
    ui.post(f"/conflicts/{conflict}", keep="newer")
    assert ui.call("memories.show", id=a)["status"] == "superseded"
    assert "No open conflicts" in ui.get("/conflicts")


def test_the_resume_preview_is_what_the_hook_would_print(ui: Ui, tmp_path: Path) -> None:
    ui.login()
    project = str(tmp_path)
    remembered(ui, "Run the tests with make check", scope=project)
    body = ui.get(f"/resume?project={project}&agent=codex")
    expected = ui.call("resume", cwd=project, agent="codex", source="startup", record=False)
    assert pre(body, "resume-text") == for_agent("codex").render(expected["text"])
    assert f"<strong id=tokens>{expected['tokens']}</strong>" in body


def test_a_daemon_error_is_a_page_not_a_crash(ui: Ui) -> None:
    ui.login()
    status, _, body = ui.request("GET", "/memory/no-such-memory")
    assert status == 400 and "no memory with id no-such-memory" in body


def test_the_review_setting_holds_new_captures_until_approved(
    settings: Settings, tmp_path: Path
) -> None:
    from support.daemon import claude_line

    from recallnest.ingest.pipeline import Source, ingest_file

    engine = Engine.open(settings.model_copy(update={"review_captures": True}))
    try:
        said = "Remember: the metrics dashboard lives at grafana.internal/d/app."
        path = tmp_path / "s.jsonl"
        lines = [claude_line("s-a", 0, said), claude_line("s-b", 1, said)]  # seen twice
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ingest_file(Source(str(path), "claude"), None, engine.ingest_batch)
        held = engine.list_memories(None, None, "pending", None)
        assert [m.text for m in held] == [said.removeprefix("Remember: ")]
        assert len(held[0].evidence) == 2  # reinforced, still pending
        assert engine.list_memories(None, None, "active", None) == []
        query = {"query": "metrics dashboard grafana", "kind": "memories"}
        assert OPS["search"](engine, query) == []
        assert OPS["memories.approve"](engine, {"ids": [held[0].id]}).approved == [held[0].id]
        assert [h.id for h in OPS["search"](engine, query)] == [held[0].id]
        assert OPS["memories.approve"](engine, {"ids": [held[0].id]}).approved == []
        assert engine.store.memory_events([held[0].id])[0]["kind"] == "approved"
    finally:
        engine.close()


def test_the_dashboard_answer_is_reused_until_the_store_changes(ui: Ui, tmp_path: Path) -> None:
    from support.daemon import claude_line

    from recallnest.ingest.pipeline import Source, ingest_file

    first = ui.call("stats.dashboard", days=30)
    assert ui.call("stats.dashboard", days=30) == first
    assert ui.call("projects.list") == []
    remembered(ui, "The API gateway is called kestrel", category="entities")
    second = ui.call("stats.dashboard", days=30)
    assert second["memories_by_category_status"] == [["entities", "active", 1]]
    path = tmp_path / "s.jsonl"  # turns alone do not bump the store's generation
    path.write_text(claude_line("s-new", 0, "hello there") + "\n", encoding="utf-8")
    ingest_file(Source(str(path), "claude"), None, ui.daemon.engine.ingest_batch)
    third = ui.call("stats.dashboard", days=30)
    assert third["turns_by_agent"] == {"claude": 1} and second["turns_by_agent"] == {}
    assert [p["project"] for p in ui.call("projects.list")] == ["/work/app"]


def test_the_store_size_is_sampled_once_a_day_and_plotted(ui: Ui) -> None:
    from datetime import timedelta

    from recallnest.lifecycle import growth

    ui.login()
    today = datetime.now(UTC)
    maintenance = ui.daemon.engine.maintenance
    first = maintenance.sample_size(now=today - timedelta(days=2))
    remembered(ui, "The API gateway is called kestrel", category="entities")
    again = maintenance.sample_size(now=today - timedelta(days=2))  # the day's last one wins
    assert again["memories"] == first["memories"] + 1
    maintenance.sample_size(now=today - timedelta(days=1))
    history = ui.call("stats.dashboard", days=30)["size_per_day"]
    days = [(today - timedelta(days=k)).date().isoformat() for k in (2, 1)]
    assert [h["day"] for h in history] == days and history[0]["memories"] == again["memories"]
    body = ui.get("/")
    plot = body.split("Database file size over time", 1)[1].split("</figure>", 1)[0]
    assert plot.count("<circle") == 3  # two samples and now
    assert f"<title>{days[0]}: {again['bytes'] / 1e6:,.1f} MB</title>" in plot
    path = ui.daemon.engine.settings.home / growth.HISTORY_NAME
    path.write_text(path.read_text() + "not json\n", encoding="utf-8")  # skipped, not fatal
    assert len(ui.call("stats.dashboard", days=30)["size_per_day"]) == 2


def test_the_list_from_the_index_is_the_list_from_sql(settings: Settings) -> None:
    from datetime import timedelta

    from recallnest.core.models import Memory
    from recallnest.lifecycle.listing import newest_memories
    from recallnest.store import Batch

    engine = Engine.open(settings)
    try:
        start = datetime(2026, 1, 1, tzinfo=UTC)
        rows = [
            Memory(
                id=f"m{k:03d}",
                scope=("global", "/w/a")[k % 2],
                category=("entities", "preferences", "patterns")[k % 3],
                text=f"fact number {k}",
                tier=("working", "core")[k % 5 == 0],
                status=("active", "pending", "superseded")[k % 7 % 3],
                created_at=start,
                updated_at=None if k % 11 == 0 else start + timedelta(minutes=k // 4),  # ties
            )
            for k in range(300)
        ]
        engine.apply(Batch(memories=rows))
        engine.apply_memories([replace(rows[3], status="archived", updated_at=start)])
        for filters in (
            {"status": "active"},
            {"status": "archived"},
            {"status": "pending", "scope": "/w/a"},
            {"scope": "global", "category": "entities", "tier": "core"},
            {"status": None, "scope": None},
        ):
            answered = 0
            for limit in (1, 7, 50, 150):
                sql = engine.store.find_memories(filters, None, None, "updated", limit)
                fast = newest_memories(engine, filters, limit)
                # None only when the rows tied with the last one overflow one key lookup.
                assert fast == sql or (fast is None and len(sql) == limit > 100), filters
                answered += fast is not None
            assert answered >= 3, filters
        assert newest_memories(engine, {"pinned": True}, 10) is None  # not in the index
        assert newest_memories(engine, {"status": "active"}, 151) is None
    finally:
        engine.close()


def test_a_size_sample_that_cannot_be_written_is_a_task_failure(settings: Settings) -> None:
    from recallnest.core.errors import RecallnestError
    from recallnest.lifecycle import growth

    engine = Engine.open(settings)
    try:
        (settings.home / growth.HISTORY_NAME).mkdir()  # the rename over it fails
        with pytest.raises(RecallnestError, match="size history"):
            engine.maintenance.sample_size()
    finally:
        engine.close()

"""The web UI end to end over HTTP (issue 20): a `recallnest daemon run` process holding
transcripts with hostile text, a `recallnest ui` process in front of it, the loopback-only
listener and SIGTERM. The same UI clicked through in a real headless Chromium is
test_webui_browser.py."""

from __future__ import annotations

import html
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from support.daemon import WAIT_SECONDS, DaemonProcess, claude_line, start_ui

pytestmark = pytest.mark.slow

PROJECT = "/work/app"
HOSTILE = "I prefer deploys with <img src=x onerror=\"document.title='pwned'\"> make ship"
SCRIPT = "Remember: the release script is <script>document.title='pwned'</script> tools/release"
CHINESE = "我们用 pnpm 管理依赖，不用 npm"


@dataclass
class Running:
    daemon: DaemonProcess
    proc: subprocess.Popen[str]
    url: str
    port: int
    opener: urllib.request.OpenerDirector

    def open(self, path: str, form: dict[str, Any] | None = None) -> tuple[int, str, str]:
        """(status, final path, body) following redirects, with the cookie."""
        data = urlencode(form, doseq=True).encode() if form is not None else None
        try:
            with self.opener.open(f"http://127.0.0.1:{self.port}{path}", data, 30) as r:
                return r.status, r.url.split(str(self.port), 1)[1], r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, path, exc.read().decode()

    def csrf(self) -> str:
        found = re.search(r'<meta name="csrf" content="([0-9a-f]+)">', self.open("/")[2])
        assert found
        return found.group(1)

    def cli_json(self, *args: str) -> Any:
        done = self.daemon.cli(*args, "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture
def running() -> Iterator[Running]:
    root = Path(tempfile.mkdtemp(prefix="ui-", dir="/tmp"))
    daemon = DaemonProcess(root)
    lines = [
        claude_line("s-ui", 0, HOSTILE),
        claude_line("s-ui", 1, "Noted, deploys go through make ship.", role="assistant"),
        claude_line("s-ui", 2, SCRIPT),
        claude_line("s-ui", 3, CHINESE),
    ]
    (daemon.projects / "s-ui.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    daemon.start()
    daemon.wait_for(lambda: daemon.turns() >= 4, "the transcript to be ingested")
    proc, login, port = start_ui(daemon)
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    try:
        yield Running(daemon, proc, login, port, opener)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=WAIT_SECONDS)
        daemon.stop()
        shutil.rmtree(root, ignore_errors=True)


def listening_addresses(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on `port` (from /proc/net/tcp{,6})."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        if not os.path.exists(table):
            continue
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.split(":")
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.add(address)
    return found


def test_it_listens_on_loopback_only_and_stops_on_sigterm(running: Running) -> None:
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("no /proc/net/tcp on this system")
    assert listening_addresses(running.port) == {"0100007F"}  # 127.0.0.1, nothing else
    running.proc.send_signal(signal.SIGTERM)
    assert running.proc.wait(WAIT_SECONDS) == 0


def test_refused_without_the_token_or_with_a_foreign_host(running: Running) -> None:
    assert running.open("/")[0] == 403
    assert running.open("/login?token=guess")[0] == 403
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
    conn.request("GET", running.url.split(str(running.port), 1)[1], headers={"Host": "evil.test"})
    assert conn.getresponse().status == 403
    conn.close()
    status, where, body = running.open(running.url.split(str(running.port), 1)[1])
    assert (status, where) == (200, "/") and "<h1>Dashboard</h1>" in body


def test_search_edit_forget_against_the_real_daemon(running: Running) -> None:
    running.open(running.url.split(str(running.port), 1)[1])
    running.daemon.cli("remember", "The staging database is called heron")
    status, _, body = running.open("/memories?q=staging+heron")
    assert status == 200
    mem = re.findall(r'<a href="/memory/([^"]+)">', body)[0]
    csrf = running.csrf()
    status, where, page = running.open(
        f"/memory/{mem}/edit", {"csrf": csrf, "text": "The staging database is called egret"}
    )
    assert status == 200 and "edited" in page
    new = where.split("?")[0].rsplit("/", 1)[1]
    shown = running.cli_json("memories", "show", new)
    assert shown["text"] == "The staging database is called egret"
    assert running.open(f"/memory/{new}/forget", {"csrf": csrf})[0] == 200
    assert running.cli_json("search", "staging egret", "--kind", "memories") == []
    resume = running.daemon.cli("resume", "--cwd", "/tmp", "--agent", "claude")
    assert "egret" not in resume.stdout


def test_the_resume_preview_equals_recallnest_resume(running: Running) -> None:
    running.open(running.url.split(str(running.port), 1)[1])
    running.daemon.cli("remember", "Run the tests with make check", "--scope", "global")
    body = running.open(f"/resume?project={quote(PROJECT)}&agent=claude")[2]
    shown = re.search(r'<pre class="text" id="resume-text">(.*?)</pre>', body, re.S)
    assert shown
    cli = running.daemon.cli("resume", "--cwd", PROJECT, "--agent", "claude")
    assert cli.returncode == 0, cli.stderr
    assert html.unescape(shown.group(1)) == cli.stdout and "make check" in cli.stdout


def test_transcript_text_renders_as_text(running: Running) -> None:
    running.open(running.url.split(str(running.port), 1)[1])
    body = running.open("/session/s-ui")[2]
    assert "<script>document" not in body and "<img src=x" not in body
    assert html.escape(SCRIPT, quote=True) in body and CHINESE in body

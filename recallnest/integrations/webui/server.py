"""`recallnest ui`'s HTTP server: the standard library's threading HTTP server on loopback,
routing each request to a page after the checks in `security`.

A thin process (docs/decisions/0023-web-ui.md): it never opens the database; every page asks
the daemon over its Unix socket, like the MCP server. Request lines are not logged (the login
URL carries the token).
"""

from __future__ import annotations

import logging
import re
import signal
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from recallnest.core.config import Settings
from recallnest.core.errors import DaemonError, RecallnestError
from recallnest.core.paths import socket_path
from recallnest.integrations.webui import assets
from recallnest.integrations.webui.pages import Call, Pages, Reply, Request
from recallnest.integrations.webui.render import esc, page
from recallnest.integrations.webui.security import HEADERS, LOOPBACK, Gate
from recallnest.server.client import DaemonClient
from recallnest.server.protocol import ProtocolError

log = logging.getLogger(__name__)
MAX_FORM_BYTES = 1_000_000
STATIC = {
    "/static/app.css": ("text/css; charset=utf-8", assets.CSS),
    "/static/app.js": ("text/javascript; charset=utf-8", assets.JS),
}
# Where the login may send the browser on: one of our own paths, never another site (`//x`).
_LOCAL = re.compile(r"/(?![/\\])[\w\-./%?=&+,]*\Z")
Route = tuple[str, re.Pattern[str], Callable[..., Reply]]


def routes(p: Pages) -> list[Route]:
    table: list[tuple[str, str, Callable[..., Reply]]] = [
        ("GET", r"/", p.dashboard),
        ("GET", r"/memories", p.memories),
        ("GET", r"/memory/([^/]+)", p.memory),
        ("POST", r"/memory/([^/]+)/edit", p.edit),
        ("POST", r"/memory/([^/]+)/flags", p.flags),
        ("POST", r"/memory/([^/]+)/forget", p.forget),
        ("GET", r"/review", p.review),
        ("POST", r"/review/reject", p.reject),
        ("POST", r"/review/approve", p.approve),
        ("POST", r"/memory/([^/]+)/approve", p.approve_one),
        ("POST", r"/undo", p.undo),
        ("GET", r"/conflicts", p.conflicts),
        ("POST", r"/conflicts/(\d+)", p.resolve),
        ("GET", r"/sessions", p.sessions),
        ("GET", r"/session/([^/]+)", p.session),
        ("GET", r"/resume", p.resume),
        ("GET", r"/doctor", p.doctor),
    ]
    return [(m, re.compile(pattern + r"\Z"), fn) for m, pattern, fn in table]


class UiServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, port: int, call: Call, doctor: Callable[[], list[dict[str, Any]]]) -> None:
        # Loopback only, whatever the caller asks: the token is the only other barrier.
        super().__init__((LOOPBACK, port), _Handler)
        self.gate = Gate(self.server_address[1])
        self.pages = Pages(call, self.gate.csrf, doctor)
        self.routes = routes(self.pages)


class _Handler(BaseHTTPRequestHandler):
    server: UiServer
    server_version = "recallnest-ui"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def log_message(self, format: str, *args: Any) -> None:
        return None  # the request line may hold the token; errors are logged in _serve

    def _serve(self, method: str) -> None:
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        gate = self.server.gate
        headers = {k: v for k, v in self.headers.items()}
        if url.path == "/login" and method == "GET":
            self._login(gate, headers, query.get("token"), query.get("next"))
            return
        form = self._form() if method == "POST" else {}
        if form is None:
            self._send_text(HTTPStatus.BAD_REQUEST, "a form must be url-encoded, under 1 MB")
            return
        refused = gate.refusal(method, headers, next(iter(form.get("csrf") or []), None))
        if refused:
            self._send_text(HTTPStatus.FORBIDDEN, f"refused: {refused}")
            return
        if url.path in STATIC and method == "GET":
            kind, body = STATIC[url.path]
            self._send(HTTPStatus.OK, body.encode(), kind)
            return
        self._reply(self._route(Request(method, url.path, query, form)))

    def _login(
        self, gate: Gate, headers: dict[str, str], token: str | None, next_page: str | None
    ) -> None:
        refused = gate.refusal_of_place(headers)
        if refused or not gate.token_matches(token):
            self._send_text(HTTPStatus.FORBIDDEN, f"refused: {refused or 'wrong or missing token'}")
            return
        target = next_page if next_page and _LOCAL.match(next_page) else "/"
        cookie = {"Location": target, "Set-Cookie": gate.cookie_header()}
        self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", cookie)

    def _form(self) -> dict[str, list[str]] | None:
        length = int(self.headers.get("Content-Length") or 0)
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if length > MAX_FORM_BYTES or kind not in ("application/x-www-form-urlencoded", ""):
            return None
        raw = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        return parse_qs(raw, keep_blank_values=True)

    def _route(self, req: Request) -> Reply:
        for method, pattern, fn in self.server.routes:
            match = pattern.match(req.path)
            if match and method == req.method:
                try:
                    return fn(req, *(unquote(g) for g in match.groups()))
                except DaemonError as exc:
                    # The daemon's own answer (no such memory, a bad argument) is the
                    # request's fault; not reaching the daemon is a gateway error.
                    cause = exc.__cause__
                    said = isinstance(cause, ProtocolError) and cause.from_daemon
                    status = HTTPStatus.BAD_REQUEST if said else HTTPStatus.BAD_GATEWAY
                    return self._error(status, str(exc), req)
                except RecallnestError as exc:
                    return self._error(HTTPStatus.BAD_REQUEST, str(exc), req)
        return self._error(HTTPStatus.NOT_FOUND, f"no page {req.path}", req)

    def _error(self, status: HTTPStatus, message: str, req: Request) -> Reply:
        log.info("ui %s %s: %s", req.method, req.path, message)
        hint = ""
        if "not reachable" in message:
            hint = "<p>Start the daemon with <code>recallnest daemon start</code>, then reload.</p>"
        body = f'<p class="notice error" role="alert">{esc(message)}</p>{hint}'
        return Reply(status=status, body=page("Error", body, self.server.gate.csrf))

    def _reply(self, reply: Reply) -> None:
        if reply.location is not None:
            self._send(HTTPStatus(reply.status), b"", "text/plain", {"Location": reply.location})
        else:
            self._send(HTTPStatus(reply.status), reply.body.encode(), "text/html; charset=utf-8")

    def _send_text(self, status: HTTPStatus, text: str) -> None:
        self._send(status, text.encode() + b"\n", "text/plain; charset=utf-8")

    def _send(
        self, status: HTTPStatus, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (HEADERS | {"Content-Type": kind} | (extra or {})).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(settings: Settings, port: int, open_browser: bool, say: Callable[[str], None]) -> None:
    """Serve until Ctrl-C: print (and open) the URL with this run's token. The daemon must
    answer on its socket; every page asks it."""
    from recallnest.integrations.doctor import run_checks

    client = DaemonClient(str(socket_path(settings.home)))
    server = UiServer(port, client.call, lambda: run_checks(settings))
    url = server.gate.entry_url()
    # A service manager's stop exits 0 like Ctrl-C. Set, and caught, from before the URL is
    # printed: whoever reads it may stop the UI at once (a SIGTERM right after the URL killed
    # the process with -15, or, raised inside `say`, exited 1).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        say(f"RecallNest UI: {url}\n(the link holds this run's secret token; Ctrl-C stops the UI)")
        if open_browser:
            webbrowser.open(url)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt

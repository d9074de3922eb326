"""Who may talk to the web UI: the per-run token, the Host and Origin checks, the CSRF token and
the response headers every page carries. Pure functions over header values; no I/O.

The threat model (docs/decisions/0023-web-ui.md): other local users can connect to any loopback
port, and any web site the user visits can make the browser send requests to it (cross-site
form posts, DNS rebinding). So every request needs the secret token (from the URL once, then an
HttpOnly SameSite=Strict cookie), its Host must name this server, a foreign Origin is refused,
and a state-changing request carries the CSRF token that only our own pages contain.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie

LOOPBACK = "127.0.0.1"
COOKIE = "recallnest_ui"
# script-src 'self': our one file, never inline; style the same; no frames, no foreign forms.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # Never a referrer to another site (the entry URL holds the token). Not `no-referrer`: under
    # it Chromium sends `Origin: null` with our own form posts, which the Origin check refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


@dataclass(frozen=True)
class Gate:
    """The secrets of one `recallnest ui` run and the checks that use them."""

    port: int
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))

    @property
    def csrf(self) -> str:
        """Derived from the token, so it needs no state; shown only inside our pages."""
        return hmac.new(self.token.encode(), b"csrf", hashlib.sha256).hexdigest()

    @property
    def hosts(self) -> frozenset[str]:
        return frozenset({f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"})

    @property
    def origins(self) -> frozenset[str]:
        return frozenset(f"http://{h}" for h in self.hosts)

    def entry_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/login?token={self.token}"

    def cookie_header(self) -> str:
        return f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def refusal(self, method: str, headers: Mapping[str, str], form_csrf: str | None) -> str | None:
        """Why a request (other than the login) is refused, or None to serve it."""
        where = self.refusal_of_place(headers)
        if where:
            return where
        if not self.has_token(headers.get("Cookie")):
            return "no valid token: open the URL that `recallnest ui` printed"
        if method != "GET" and not _same(form_csrf, self.csrf):
            return "missing or wrong CSRF token: reload the page and try again"
        return None

    def refusal_of_place(self, headers: Mapping[str, str]) -> str | None:
        """A foreign Host (DNS rebinding) or a foreign Origin / cross-site fetch."""
        if headers.get("Host") not in self.hosts:
            return "foreign Host header"
        origin = headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return "foreign Origin"
        if headers.get("Sec-Fetch-Site") == "cross-site":
            return "cross-site request"
        return None

    def has_token(self, cookie_header: str | None) -> bool:
        if not cookie_header:
            return False
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie_header)
        except CookieError:
            return False
        morsel = jar.get(COOKIE)
        return morsel is not None and _same(morsel.value, self.token)

    def token_matches(self, given: str | None) -> bool:
        return _same(given, self.token)


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())

"""A loopback HTTP server for the real-CLI tests: prints its port on stdout, then serves
until killed. Not a test module.

Every request gets 401 (a wrong API key) at once, so Claude Code and Codex fail their model
request in about a second. One exception: a Gemini streaming generation is held open until
the client goes away. Gemini rolls its recorded history back when a request fails, so a 401
would withdraw the prompt from its chat file; a CLI stopped while it waits (what the tests
do, as a user's Ctrl-C or a dead network would) keeps it, as in the fixtures of
real-cli-2026-12."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOLD_SECONDS = 600.0
BODY = json.dumps(
    {"error": {"message": "invalid api key (recallnest test server)", "code": "invalid_api_key"}}
).encode()


class Refuse(BaseHTTPRequestHandler):
    def _refuse(self) -> None:
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def do_POST(self) -> None:
        if ":streamGenerateContent" not in self.path:
            self._refuse()
            return
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.connection.settimeout(HOLD_SECONDS)
        try:
            while self.connection.recv(65536):  # until the client closes the connection
                pass
        except (TimeoutError, OSError):
            pass
        self.close_connection = True

    do_GET = do_PUT = _refuse

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

"""A loopback HTTP server that answers every request with 401 (a wrong API key), for the
real-CLI tests: prints its port on stdout, then serves until killed. Not a test module."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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

    do_GET = do_POST = do_PUT = _refuse

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

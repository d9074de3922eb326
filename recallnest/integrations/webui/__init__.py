"""`recallnest ui`: a local web app to see, search, correct and forget memories (issue 20).

security (token, Host/Origin, CSRF, headers), render (escaping, HTML, SVG plots), pages (one
method per page, each asking the daemon over its socket), assets (our own CSS and JS), server
(the loopback HTTP server). Standard library only; it never opens the database.

May import `recallnest.core`, the socket client and protocol (`recallnest.server.client`,
`recallnest.server.protocol`), the harness adapters and `doctor`; never the engine or the
store: every page is a client of the daemon's socket.
"""

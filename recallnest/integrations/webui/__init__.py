"""`recallnest ui`: a local web app to see, search, correct and forget memories (issue 20).

security (token, Host/Origin, CSRF, headers), render (escaping, HTML, SVG plots), pages (one
method per page, each asking the daemon over its socket), assets (our own CSS and JS), server
(the loopback HTTP server). Standard library only; it never opens the database.
"""

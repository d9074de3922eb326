"""Shared vocabulary, layer 0: errors, models (Turn, Memory, ...), settings, paths, project
identity, text tokenising, time parsing, token estimates, terminal-safe output, aliases, and the
redactor that every layer above applies before text is kept or shown.

May import only the standard library and its third-party homes (pydantic for config and
schemas); nothing else from recallnest. Modules on the hook's fast path (errors, models, paths,
injected, redact) stay standard-library only.
"""

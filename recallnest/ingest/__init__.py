"""Transcript files to turns, layer 1: `tail` follows files, `transcripts/` holds one parser per
agent (Claude Code, Codex, Gemini) plus the shared rules for our own injected context, and
`pipeline` turns appended bytes into redacted `Batch`es for the engine.

May import `recallnest.core` and `recallnest.store.types` (Batch, Cursor) only.
"""

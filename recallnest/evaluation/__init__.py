"""Eval harnesses over the public API. Imports up to server."""

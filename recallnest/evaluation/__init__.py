"""Measuring quality, layer 5: capture precision and recall on labelled cases, the retrieval
cases, continuity and end-to-end resume scenarios, and LoCoMo. They drive the same engine and
daemon a user runs.

May import layers 0-4; never `recallnest.integrations` or `recallnest.cli`.
"""

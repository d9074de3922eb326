"""Turns to memories, layer 1, with no LLM: `salience` and `chatter` decide what is worth
reading, `rules`, `reply`, `literal_gate` and `polarity` classify sentences, `heuristics` turns a
turn into candidate memories, `admission` decides whether a candidate is new, a duplicate, a
reinforcement, a correction or a contradiction, and `worker` runs capture in a child process
for large backfills.

May import `recallnest.core` only.
"""

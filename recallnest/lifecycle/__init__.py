"""What happens to memories over time, layer 2: `decay` (importance and tiers), `consolidation`
(merges and conflicts), `forgetting`, `retention` (compaction of old turns) and `scheduler`, the
idle-time maintenance loop. They work on a small host protocol, not on the Engine.

May import `recallnest.core` and the layer-1 packages (capture, store, retrieval).
"""

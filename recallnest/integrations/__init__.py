"""Where RecallNest meets the agents, layer 5: `hook` (the session-start and compaction hooks,
standard library only on its fast path), `harness/` (one adapter per agent's hook API),
`install` and `install_mcp` (editing each agent's settings), `trust`, `jsonc`, `service` (the
user service unit), `autostart`, `mcp_server` and `doctor`.

May import layers 0-4; never `recallnest.evaluation` or `recallnest.cli`.
"""

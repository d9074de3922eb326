"""Sync of memories across machines and teams through git or a shared folder (issue 21,
decision 0024): an event log per machine, a hybrid logical clock, and a merge that converges
whatever the order in which logs arrive.

Layer 2: imports `core` and the store (its tables in `store/sync.py`); it reaches the Engine
only through the small `sync.host.SyncHost` protocol. `cryptography` seals the payloads
(`sync.codec`); the git binary is run as a subprocess (`sync.transport`), never by the hook.
"""

"""The daemon and its socket, layer 4: `daemon` watches transcripts and owns the database,
`handlers` is the one dispatcher of socket operations, `protocol` the wire format, `client` and
`control` talk to a running daemon (or start one), `pidfile`, `backup`, `repair` and `audit`
keep the store recoverable and clean, `snapshot_refresh` keeps resume snapshots current.

May import everything below: core, layers 1-2 and `recallnest.engine`.
"""

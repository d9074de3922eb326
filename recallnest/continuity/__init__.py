"""What a new session is told, layer 2: `checkpoint` distils a session into a checkpoint,
`compose` writes the fenced resume context within a token budget, `service` picks its inputs
from a small store protocol, and `snapshot` keeps per-project copies the hook reads when the
daemon is down (standard library only: it is on the hook's fast path).

May import `recallnest.core` and the layer-1 packages (capture, store types); never the engine.
"""

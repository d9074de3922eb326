"""Finding things, layer 1: `index` is the in-memory keyword and vector index, `query` reads
what a query asks for (terms, entities, intent), `ranking` fuses keyword, vector and recency
scores, and `embed` holds the embedders (the bundled local model, HTTP providers, a
deterministic hash embedder for tests).

May import `recallnest.core` and `recallnest.store.types` only.
"""

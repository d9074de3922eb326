"""Search index, query understanding, ranking, embedders. Imports core and store.types."""

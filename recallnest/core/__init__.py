"""Shared vocabulary: errors, models, config, paths, text. Imports nothing else from recallnest."""

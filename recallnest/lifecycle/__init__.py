"""Decay, consolidation, forgetting, retention, the scheduler. Imports core and layer 1."""

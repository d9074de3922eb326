"""Transcript files to Turns: tail, one parser per agent, the ingest pipeline. Imports core and
store.types."""

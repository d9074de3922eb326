"""Checkpoints, the resume composer and service. Imports core and layer 1."""

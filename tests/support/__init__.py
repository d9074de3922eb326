"""Shared test support: paths, the daemon process harness, the eval-cases helpers."""

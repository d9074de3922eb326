"""Turns to candidate memories and the admission decision. Imports core only."""

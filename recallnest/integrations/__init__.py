"""Hook (stdlib fast path), harness adapters, install, MCP, doctor. Imports up to server."""

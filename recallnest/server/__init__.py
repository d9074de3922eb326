"""The daemon, its socket protocol and handlers, control, backups, repair. Imports up to engine."""

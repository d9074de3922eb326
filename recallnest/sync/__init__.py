"""Sync of memories across machines and teams through git or a shared folder (issue 21,
decision 0024): an event log per machine, a hybrid logical clock, and a merge that converges
whatever the order in which logs arrive."""

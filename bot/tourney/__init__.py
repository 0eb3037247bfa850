"""Sit-and-go tournaments (issue 13): the structure (schedule), the state and its SQLite rows
(store), the commands and the hooks into the hands (service), and the audit of their chips."""

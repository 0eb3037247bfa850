"""Chips accounted for: the double-entry ledger and the audit that checks every chip against it."""

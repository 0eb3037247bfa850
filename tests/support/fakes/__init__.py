"""Fakes of the chat platforms, for end-to-end tests on loopback."""

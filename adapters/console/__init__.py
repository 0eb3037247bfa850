"""The local console chat: interactive play against house bots, and a script mode for tests."""

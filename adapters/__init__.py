"""Platform adapters: they turn platform input into bot commands and bot output into messages."""

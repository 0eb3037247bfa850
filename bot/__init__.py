"""The application: tables, seats, wallets, timers, commands, persistence and the ports adapters implement."""

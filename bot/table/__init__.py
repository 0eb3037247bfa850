"""One table's life: its hands and timers (dealer), seats, fairness records, house bots and private deliveries."""

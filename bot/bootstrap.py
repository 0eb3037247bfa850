"""The one place that wires the bot: stores, clocks, messengers and the services that hold each other."""

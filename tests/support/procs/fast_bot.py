"""``python tests/support/procs/fast_bot.py``: the bot's real entry point (adapters.run) at the end-to-end tests' pace.

A bot *process* for tests that run several of them against one fake platform: the same knobs
as the harnesses' fixtures (discord_harness ``fast``, telegram_harness ``Served``), set before
``adapters.run.main`` reads the settings from the environment.
"""

from __future__ import annotations

from adapters.discord import messenger as discord_messenger
from adapters.discord.adapter import DiscordAdapter
from adapters.run import main
from adapters.telegram.adapter import TelegramAdapter


def at_test_pace() -> None:
    """The knobs (only in the bot process: pytest imports this module too, for its doctests)."""
    DiscordAdapter.rate_interval = 0.05
    discord_messenger.LIMIT = 1000
    TelegramAdapter.rate_interval = 0.15
    TelegramAdapter.group_rate = (1000, 60)
    TelegramAdapter.poll_timeout = 1


if __name__ == "__main__":
    at_test_pace()
    main()

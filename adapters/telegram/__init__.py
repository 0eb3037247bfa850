"""Telegram: every table command and action in a group (or forum topic), with python-telegram-bot ~=22.

Thin by design: updates become :class:`~bot.core.ports.Inbound` commands for
:meth:`bot.app.StudBot.handle`, and the bot's boards, lines and private
messages become Telegram messages. No game rule lives here.
"""

from adapters.telegram.adapter import TelegramAdapter, TelegramMessenger

__all__ = ["TelegramAdapter", "TelegramMessenger"]

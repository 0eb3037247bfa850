"""Telegram: every table command and action in a group (or forum topic), with python-telegram-bot ~=22.

Thin by design: updates become :class:`~bot.ports.Inbound` commands for
:meth:`bot.service.StudBot.handle`, and the bot's boards, lines and private
messages become Telegram messages. No game rule lives here.
"""

from .adapter import TelegramAdapter, TelegramMessenger

__all__ = ["TelegramAdapter", "TelegramMessenger"]

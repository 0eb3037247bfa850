"""The Telegram adapter: python-telegram-bot ~=22 in, :class:`~bot.app.StudBot` behind.

This module builds the python-telegram-bot Application and runs it; the rest is split like
the Discord adapter: :mod:`.messenger` (boards, lines and private messages out),
:mod:`.inbound` (commands, button presses, deep links in), :mod:`.commands` (the command
menu, and a slash command's grammar text), :mod:`.codec` (callback data, channels, text).

- Commands: ``/stud <command ...>`` for every command of the grammar, and the short
  forms (``/join``, ``/fold``, ``/call`` ...; ``/join@botname`` too), registered with
  setMyCommands. Privacy mode may stay on: commands reach bots anyway.
- One table per group, or per forum topic (``Inbound.channel`` is ``"chat"`` or
  ``"chat:topic"``; ``Inbound.community`` is the chat id).
- One board message per hand, edited in place, the public lines folded into it, the
  actions as inline buttons; private cards in the player's private chat (see
  :mod:`.messenger`). A user who never started the bot gets a deep link that finishes
  the join there (see :mod:`.inbound`).
- Long polling, or a webhook (aiohttp) when ``TELEGRAM_WEBHOOK_URL`` is set: it listens on
  ``TELEGRAM_WEBHOOK_LISTEN`` (0.0.0.0) port ``TELEGRAM_WEBHOOK_PORT`` (or ``PORT``, or 8443)
  at the URL's path, and checks Telegram's secret token (derived from the bot token).
  Several workers may serve one webhook URL: see :mod:`.webhook` (``update_id`` dedupe in the
  database, ``TELEGRAM_WEBHOOK_REGISTER``, ``TELEGRAM_WEBHOOK_MAX_CONNECTIONS``).
  ``TELEGRAM_BASE_URL`` points the bot at a local Bot API server (``http://host:8081``).
- Rate limits: :class:`~.limiter.StudRateLimiter` (Telegram's documented limits: about 30 messages/s overall,
  private cards first, then boards, then lines; 20/min per group, edits too; 1/s per private chat; a 429
  waits for its own request only), and the bootstrap's outbox flushes a table at most once per
  :attr:`TelegramAdapter.rate_interval`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final, cast

from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    MessageHandler,
    filters,
)

from adapters import logs
from adapters.telegram.commands import SHORT_COMMANDS, command_list, grammar_text, register_commands, split_command
from adapters.telegram.inbound import PLATFORM, TelegramInbound
from adapters.telegram.limiter import OVERALL, StudRateLimiter
from adapters.telegram.messenger import TelegramMessenger
from adapters.telegram.webhook import WebhookWorker, webhook_secret
from bot.app import StudBot
from bot.core.config import Settings
from bot.core.ports import TableAddress
from bot.platform.outbox import Coalescer

__all__ = ["PLATFORM", "SHORT_COMMANDS", "TelegramAdapter", "TelegramMessenger", "command_list", "grammar_text",
           "split_command"]

log = logging.getLogger(__name__)

ALLOWED_UPDATES: Final = ["message", "callback_query"]

AnyApp = Application[Any, Any, Any, Any, Any, Any]


class TelegramAdapter:
    """What adapters/run.py serves: ``connect()``, then ``run(stop)`` until stopped."""

    platform = PLATFORM
    rate_interval: float = 3.5
    """A flush is one board edit (lines are folded in): at most ~17 a minute, plus a final board."""
    group_rate: tuple[float, float] = (20, 60)
    """The per-group budget (messages and edits, seconds)."""
    overall_rate: float = OVERALL
    """Messages a second the token sends at most (Telegram: about 30)."""
    private_rate: tuple[int, float] = (3, 3.0)
    """A private chat's budget (messages, seconds): one a second, bursts of three."""
    poll_timeout: int = 10

    def __init__(self, *, settings: Settings, bot: StudBot) -> None:
        token = settings.telegram_token
        if not token:
            raise ValueError("TELEGRAM_TOKEN is not set")
        logs.hide(token, "TELEGRAM_TOKEN")
        logs.hide(webhook_secret(token), "TELEGRAM_WEBHOOK_SECRET")
        self.settings = settings
        self.bot = bot
        builder = (ApplicationBuilder().token(token)
                   .rate_limiter(StudRateLimiter(overall=self.overall_rate,
                                                 group=(int(self.group_rate[0]), self.group_rate[1]),
                                                 private=self.private_rate,
                                                 max_retries=3))
                   .concurrent_updates(16))
        base = settings.telegram_base_url
        if base:
            api, files = _base_urls(base)
            builder = builder.base_url(api).base_file_url(files)
        self.app: AnyApp = cast(AnyApp, builder.build())
        self.outbox: Coalescer | None = None
        self.messenger = TelegramMessenger(self.app.bot, grace=self.rate_interval + 0.5, language_of=self._language_of)
        self.inbound = TelegramInbound(bot=bot, messenger=self.messenger, tg=self.app.bot,
                                       keyed=bool(settings.telegram_webhook_url))
        self.app.add_handler(MessageHandler(filters.COMMAND, self.inbound.on_command))
        self.app.add_handler(CallbackQueryHandler(self.inbound.on_press))
        self.app.add_error_handler(self.inbound.on_error)
        self._webhook: WebhookWorker | None = None

    # ------------------------------------------------------------------ life cycle

    async def connect(self) -> None:
        await self.app.initialize()
        self.messenger.username = self.app.bot.username
        await register_commands(self.app.bot)

    async def run(self, stop: asyncio.Event) -> None:
        await self.app.start()
        try:
            if self.settings.telegram_webhook_url:
                self._webhook = WebhookWorker(app=self.app, store=self.bot.store, settings=self.settings,
                                              platform=PLATFORM, allowed_updates=ALLOWED_UPDATES)
                await self._webhook.start()
            else:
                assert self.app.updater is not None
                await self.app.updater.start_polling(timeout=self.poll_timeout, allowed_updates=ALLOWED_UPDATES)
            log.info("telegram: serving as @%s", self.messenger.username)
            await stop.wait()
        finally:
            await self._stop()

    async def _stop(self) -> None:
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self._webhook is not None:
            await self._webhook.stop()
        if self.app.running:
            await self.app.stop()
        # What the outbox still holds must go out before the HTTP client closes (see the report:
        # the bootstrap drains the outbox only after run() returns).
        if self.outbox is not None:
            with contextlib.suppress(Exception):
                await self.outbox.drain()
        await self.messenger.drain()
        await self.app.shutdown()

    def _language_of(self, table: TableAddress) -> str | None:
        """The language of the table's public board (English if the table is not known)."""
        return self.bot.table_language(table)


def _base_urls(base: str) -> tuple[str, str]:
    """TELEGRAM_BASE_URL ('http://host:8081' or '.../bot') as PTB's base_url and base_file_url."""
    base = base.rstrip("/")
    if "{token}" in base:
        return base, base.replace("/bot{token}", "/file/bot{token}")
    if not base.endswith("/bot"):
        base += "/bot"
    return base, base[: -len("/bot")] + "/file/bot"


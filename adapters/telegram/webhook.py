"""Telegram's webhook, served by any number of workers behind one URL.

Each worker listens on ``TELEGRAM_WEBHOOK_LISTEN``:``TELEGRAM_WEBHOOK_PORT`` at the path of
``TELEGRAM_WEBHOOK_URL`` (a load balancer in front spreads Telegram's POSTs over them) and checks
Telegram's secret token, derived from the bot token so that every worker knows it. One worker
(``TELEGRAM_WEBHOOK_REGISTER=1``) calls setWebhook at start, with ``TELEGRAM_WEBHOOK_MAX_CONNECTIONS``.

An update is handled *before* the worker answers 200, so a worker that dies mid-update leaves
Telegram to send it again; and every update id is claimed in the database first
(:class:`bot.platform.updates.UpdateLog`), so that a retry of an update already handled, by this worker or
any other, is answered without being applied twice. The player's action an update makes is stored
with the update marked done, in one transaction (``Inbound.update_id``): a worker killed after it
leaves the update done. A retry that arrives while another delivery is still applying it waits for
that one (up to :data:`BUSY_WAIT` seconds, else 503: Telegram tries again later); a worker renews
its claim while it applies the update, so the claim of a dead one is taken over within the lease
(``STUDBOT_LEASE_SECONDS``) and the retry applied then.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from typing import Any, Final
from urllib.parse import urlparse

from aiohttp import web
from telegram import Update
from telegram.ext import Application

from bot.core import killpoints
from bot.core.config import Settings
from bot.platform.updates import Claim, UpdateLog
from bot.store import Store

log = logging.getLogger(__name__)

SECRET_HEADER: Final = "X-Telegram-Bot-Api-Secret-Token"
BUSY_WAIT: Final = 20.0
"""Seconds a duplicate delivery waits for the one applying the update, before asking for a retry."""

AnyApp = Application[Any, Any, Any, Any, Any, Any]


def webhook_secret(token: str) -> str:
    """The secret token Telegram sends with every update: the same for every worker of one bot."""
    return hashlib.sha256(token.encode()).hexdigest()[:32]


class WebhookWorker:
    """One worker's HTTP server: checks, deduplicates and applies the updates POSTed to it."""

    def __init__(self, *, app: AnyApp, store: Store, settings: Settings, platform: str,
                 allowed_updates: list[str]) -> None:
        assert settings.telegram_webhook_url is not None and settings.telegram_token is not None
        self.app = app
        self.settings = settings
        self.url = settings.telegram_webhook_url
        self.secret = webhook_secret(settings.telegram_token)
        self.updates = UpdateLog(store, platform=platform, ttl=float(settings.lease_seconds))
        self.allowed_updates = allowed_updates
        self.applied = 0
        """Updates this worker applied."""
        self.duplicates = 0
        """Deliveries of updates already applied (here or by another worker), not applied again."""
        self._runner: web.AppRunner | None = None
        self._applying: set[int] = set()
        """Updates this worker is applying now (their claims renewed)."""
        self._keeping: asyncio.Task[None] | None = None

    async def start(self) -> None:
        web_app = web.Application()
        web_app.router.add_post(urlparse(self.url).path or "/", self.receive)
        runner = web.AppRunner(web_app, handle_signals=False)
        await runner.setup()
        host, port = self.settings.telegram_webhook_listen, self.settings.telegram_webhook_port
        await web.TCPSite(runner, host, port).start()
        self._runner = runner
        self._keeping = asyncio.get_running_loop().create_task(self._keep(), name="webhook-claims")
        if self.settings.telegram_webhook_register:
            await self.app.bot.set_webhook(url=self.url, secret_token=self.secret,
                                           allowed_updates=self.allowed_updates,
                                           max_connections=self.settings.telegram_webhook_max_connections)
            log.info("telegram: webhook %s registered; listening on %s:%d", self.url, host, port)
        else:
            log.info("telegram: listening on %s:%d for the webhook %s (another worker registers it)",
                     host, port, self.url)

    async def stop(self) -> None:
        if self._keeping is not None:
            self._keeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeping
            self._keeping = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def receive(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode("utf-8", "surrogateescape"), self.secret.encode()):
            return web.Response(status=403)  # compared in constant time: no timing tells the secret
        try:
            data = await request.json()
        except ValueError:
            return web.Response(status=400, text="not JSON")
        update_id = data.get("update_id") if isinstance(data, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            return web.Response(status=400, text="no update_id")
        claim = await self.updates.claim(update_id)
        if claim is Claim.BUSY:  # until the delivery applying it is done, or found dead (its claim not renewed)
            claim = await self.updates.settle(update_id, timeout=BUSY_WAIT)
            if claim is Claim.BUSY:
                return web.Response(status=503, text="being handled; try again")
        if claim is Claim.DONE:
            self.duplicates += 1
            log.info("telegram update %d delivered again: already handled, not applied twice", update_id)
            return web.Response(text="ok")
        killpoints.reached("webhook.claimed")
        self._applying.add(update_id)  # its claim renewed while it is applied
        try:
            await self.app.process_update(Update.de_json(data, self.app.bot))
        except Exception:  # a bug in a handler: logged, and not retried forever
            log.exception("telegram update %d failed", update_id)
        finally:
            self._applying.discard(update_id)
        killpoints.reached("webhook.applied")
        await self.updates.done(update_id)
        self.applied += 1
        return web.Response(text="ok")

    async def _keep(self) -> None:
        """Renew the claims of the updates this worker is applying, every third of their time to live (a
        forwarded command may wait for its table's holder longer than that): only a dead worker's claim
        is ever taken over."""
        while True:
            await asyncio.sleep(self.updates.ttl / 3)
            try:
                await self.updates.keep(set(self._applying))
            except Exception:
                log.exception("renewing the claims of %d telegram updates failed", len(self._applying))

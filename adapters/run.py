"""The bootstrap: read the settings, wire the real ports, run what is configured.

With no platform token set it opens the console table against house bots (on
SQLite). With ``DISCORD_TOKEN`` and/or ``TELEGRAM_TOKEN`` it serves those
platforms from one event loop and one database, and stops cleanly on SIGTERM or
Ctrl-C. ``studbot`` (the console script), ``make run`` and the Procfile all come
here.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import signal
import sys
from pathlib import Path
from typing import Protocol

from adapters import logs
from bot.app import StudBot
from bot.bootstrap import audit_main, build_bot, open_store
from bot.core.clock import RealClock
from bot.core.config import ConfigError, Settings
from bot.core.lifecycle import tune_gc
from bot.core.ports import Messenger
from bot.platform.outbox import Coalescer, Router
from bot.store import Store
from bot.text import images

log = logging.getLogger("studbot")


class StartupError(Exception):
    """The bot could not start: its database would not open or a platform would not let it in. The
    message is one sentence for the operator (``main`` prints it redacted, without a traceback)."""


class PlatformAdapter(Protocol):
    """What a platform adapter offers the bootstrap."""

    platform: str
    messenger: Messenger
    rate_interval: float
    """Seconds between two flushes of a table's board and lines on this platform."""
    outbox: Coalescer | None
    """Set by the bootstrap: the Coalescer in front of ``messenger``. ``run`` drains it
    (``await outbox.drain()``) after it stops taking updates and before it disconnects."""

    async def connect(self) -> None:
        """Log in, so that the messenger can send (called before the bot restores its tables)."""
        ...

    async def run(self, stop: asyncio.Event) -> None:
        """Receive updates and feed them to the bot until ``stop`` is set, then disconnect.

        The bootstrap sets ``stop`` only once the bot has stopped (its answer to what comes
        meanwhile is that it is restarting), so that nothing is cut off on the way out."""
        ...


def build_adapters(settings: Settings, bot: StudBot) -> list[PlatformAdapter]:
    """The adapters of the platforms whose token is set (imported only then)."""
    adapters: list[PlatformAdapter] = []
    for token, module, name in ((settings.discord_token, "adapters.discord.adapter", "DiscordAdapter"),
                                (settings.telegram_token, "adapters.telegram.adapter", "TelegramAdapter")):
        if token:
            adapters.append(getattr(importlib.import_module(module), name)(settings=settings, bot=bot))
    return adapters


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Serve every configured platform from one loop and one database until stopped."""
    stop = stop or asyncio.Event()
    try:
        store = await open_store(settings)
    except Exception as exc:  # whatever the driver raises (sqlite3, asyncpg, OSError): the operator's one line
        log.debug("opening the database failed", exc_info=True)
        where = "STUDBOT_DATABASE_URL" if settings.database_url else settings.db_path
        raise StartupError(f"cannot open the database ({where}): {exc}") from exc
    router = Router()
    bot = build_bot(settings, store=store, messenger=router, clock=RealClock())
    adapters = build_adapters(settings, bot)
    outboxes = []
    for adapter in adapters:
        outbox = Coalescer(adapter.messenger, interval=adapter.rate_interval, moved=bot.board_moved)
        adapter.outbox = outbox
        outboxes.append(outbox)
        router.register(adapter.platform, outbox)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    stopped = asyncio.Event()
    """Set once the bot has stopped: then the adapters stop receiving and disconnect."""

    async def stop_the_bot() -> None:
        await stop.wait()
        log.info("stopping: timers off, new commands refused, waiting for those in flight")
        await bot.close()
        stopped.set()

    stopper: asyncio.Task[None] | None = None
    try:
        await asyncio.to_thread(images.warm_up)  # card tiles and fonts, once, off the event loop
        for adapter in adapters:
            try:
                await adapter.connect()
            except Exception as exc:  # a refused token, no network: the library's words, redacted by main
                log.debug("%s: connecting failed", adapter.platform, exc_info=True)
                raise StartupError(f"{adapter.platform}: cannot connect: {exc}") from exc
        await bot.start()
        tune_gc()
        stopper = asyncio.create_task(stop_the_bot(), name="studbot-stop")
        log.info("serving %s", ", ".join(a.platform for a in adapters))
        await asyncio.gather(*(adapter.run(stopped) for adapter in adapters))
    finally:
        await shut_down(bot=bot, store=store, outboxes=outboxes, stopper=stopper)
        log.info("stopped")


async def shut_down(*, bot: StudBot, store: Store, outboxes: list[Coalescer],
                    stopper: asyncio.Task[None] | None) -> None:
    """In order: the bot stops (timers, house bots, commands in flight), the outboxes send what
    they hold, and only then the database closes."""
    if stopper is not None and not stopper.done():
        stopper.cancel()  # an adapter ended on its own: stop the bot here instead
        with contextlib.suppress(asyncio.CancelledError):
            await stopper
    await bot.close()  # at once if it has already stopped
    for outbox in outboxes:
        try:
            await asyncio.wait_for(outbox.drain(), timeout=10)
        except Exception:
            log.exception("sending the last boards and lines failed")
    await store.close()


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    try:
        settings = Settings.from_env(dotenv=Path(".env"))
    except ConfigError as exc:
        print(f"studbot: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    if args[:1] == ["audit"]:
        sys.exit(audit_main(args[1:], default_db=settings.db_path, settings=settings))
    if not (settings.discord_token or settings.telegram_token):
        from adapters.console.app import main as console_main

        console_main(args)
        return
    logs.configure(settings)
    try:
        asyncio.run(serve(settings))
    except ModuleNotFoundError as exc:
        print(f"studbot: this build cannot serve that platform yet ({exc.name} is missing); "
              "unset its token to play in the console.", file=sys.stderr)
        sys.exit(2)
    except StartupError as exc:
        # not through the logging: one line, with the secrets the logging hides (a token in the
        # library's message, as in python-telegram-bot's InvalidToken) taken out the same way
        print(f"studbot: {logs.redact(str(exc))}", file=sys.stderr)
        sys.exit(1)
    except Exception:  # a bug: its traceback through the logging, whose Redactor hides the secrets in it
        log.critical("studbot stopped on an error", exc_info=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

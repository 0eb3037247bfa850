"""The served bot's logging: one handler on the root logger, and no secret on any line it writes.

Libraries log what they do with the tokens in hand: httpx logs every Bot API URL at INFO, and
that URL holds the Telegram token (``POST .../bot<TOKEN>/getUpdates``); aiohttp's access log
would print the webhook's path. :func:`configure` keeps those request logs below WARNING
quiet, and puts a :class:`Redactor` on every handler of the root logger: a handler's filter sees
the records of every logger (a logger's filter would see only that logger's), so whatever a
library logs later, and however (in the message, its arguments or a traceback), the values
named with :func:`hide` come out as ``<NAME>``.
"""

from __future__ import annotations

import logging
import threading
from typing import Final, TextIO
from urllib.parse import quote, urlsplit

from bot.core.config import Settings

FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
QUIET: Final = ("httpx", "httpcore", "aiohttp.access")
"""Loggers of HTTP requests (their URLs and paths may hold a token or the webhook's secret path)."""
MIN_SECRET: Final = 4
"""Shorter values are not hidden (a webhook path '/' would blank every slash)."""

_secrets: dict[str, str] = {}
_ordered: tuple[tuple[str, str], ...] = ()
"""(value, replacement), the longest values first: what :func:`redact` reads (replaced whole, never changed)."""
_lock = threading.Lock()


def hide(value: str | None, name: str) -> None:
    """From now on no log line shows ``value`` (nor its URL-quoted form): ``<name>`` instead."""
    if not value or len(value) < MIN_SECRET:
        return
    global _ordered
    with _lock:
        for form in {value, quote(value, safe="")}:
            _secrets[form] = f"<{name}>"
        _ordered = tuple(sorted(_secrets.items(), key=lambda item: len(item[0]), reverse=True))


def redact(text: str) -> str:
    """``text`` with every hidden value replaced by its name (the longest values first)."""
    for value, name in _ordered:
        if value in text:
            text = text.replace(value, name)
    return text


class Redactor(logging.Filter):
    """A handler filter that takes the hidden values out of a record: its message with its arguments
    merged in, its traceback and its stack (the record is rewritten, so every handler sees it clean)."""

    _traceback = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        if not _ordered:
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit the message: both, as they are
            message = f"{record.msg} {record.args!r}"
        clean = redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._traceback.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def hide_settings(settings: Settings) -> None:
    """The secrets of the settings: the platform tokens, the webhook's path, the database's password."""
    hide(settings.discord_token, "DISCORD_TOKEN")
    hide(settings.telegram_token, "TELEGRAM_TOKEN")
    if settings.telegram_webhook_url:
        path = urlsplit(settings.telegram_webhook_url).path.rstrip("/")
        hide(path, "TELEGRAM_WEBHOOK_PATH")
    if settings.database_url:
        hide(urlsplit(settings.database_url).password, "DATABASE_PASSWORD")


def configure(settings: Settings, *, stream: TextIO | None = None) -> logging.Handler:
    """Log at ``LOG_LEVEL`` to ``stream`` (stderr) through a :class:`Redactor`; HTTP request logs only
    from WARNING up. Returns the handler added to the root logger."""
    hide_settings(settings)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    for existing in root.handlers:  # ours, and any a host (or a test runner) installed before
        if not any(isinstance(f, Redactor) for f in existing.filters):
            existing.addFilter(Redactor())
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler

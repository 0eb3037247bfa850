"""Settings from the environment (and an optional ``.env`` file); tokens are never shown.

>>> s = Settings.from_env({"TELEGRAM_TOKEN": "123:abc", "STUDBOT_TURN_TIMER": "30"})
>>> s.turn_timer, s.telegram_token is not None
(30, True)
>>> "123:abc" in repr(s)
False
>>> Settings.from_env({"STUDBOT_TURN_TIMER": "soon"})
Traceback (most recent call last):
...
bot.core.config.ConfigError: STUDBOT_TURN_TIMER='soon' is not a whole number of seconds (5 to 3600)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from dotenv.parser import parse_stream

from bot.core.i18n import LANGUAGES
from bot.core.limits import DEFAULT_TIMEBANK, MAX_TIMEBANK


class ConfigError(ValueError):
    """A wrong setting: the message names it and says what is expected."""


@dataclass(frozen=True)
class Settings:
    db_path: str = "studbot.db"
    starting_balance: int = 1000
    turn_timer: int = 60
    next_hand_delay: float = 5.0
    bot_delay: float = 1.0
    time_bank: int = DEFAULT_TIMEBANK
    """A new cash table's time bank in seconds (STUDBOT_TIME_BANK, 0 to 300; ``config timebank=N`` per table)."""
    discord_token: str | None = field(default=None, repr=False)
    discord_guild_id: int | None = None
    discord_api_base: str | None = None
    discord_gateway_url: str | None = None
    telegram_token: str | None = field(default=None, repr=False)
    telegram_base_url: str | None = None
    telegram_webhook_url: str | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = 8443
    # --- several processes: Discord shards (adapters/discord/shards.py), Telegram webhook workers (.../webhook.py)
    discord_shard_count: int | None = None
    """Shards across every process (DISCORD_SHARD_COUNT); None: one unsharded connection."""
    discord_shard_ids: tuple[int, ...] | None = None
    """The shards this process runs (DISCORD_SHARD_IDS); None with a count: all of them."""
    telegram_webhook_register: bool = True
    """This worker calls setWebhook at start (TELEGRAM_WEBHOOK_REGISTER); the others only listen."""
    telegram_webhook_max_connections: int = 40
    """Telegram's simultaneous connections to the webhook (TELEGRAM_WEBHOOK_MAX_CONNECTIONS, 1 to 100)."""
    log_level: str = "INFO"
    language: str = "en"
    """The language for users and tables whose platform tells none (the console): en, ru or pl."""
    # --- the store (bot/store): PostgreSQL when database_url is set, else the SQLite file db_path
    database_url: str | None = field(default=None, repr=False)
    db_pool_size: int = 5
    # --- several processes on one database (bot/cluster/cluster.py)
    instance: str | None = None
    """This process's name among those sharing the database (cluster mode when set); None: one
    process holds every table."""
    lease_seconds: float = 6.0
    """How long a table's lease lasts without renewal (renewed every third of it): a dead
    process's tables are taken over after at most this."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, dotenv: Path | None = None) -> Settings:
        """Read the settings; values in ``env`` win over those of the ``.env`` file."""
        values: dict[str, str] = {}
        if dotenv is not None and dotenv.is_file():
            values.update(read_dotenv(dotenv))
        values.update(os.environ if env is None else env)

        def text(name: str) -> str | None:
            value = values.get(name, "").strip()
            return value or None

        def number(name: str, default: int, low: int, high: int, unit: str) -> int:
            raw = text(name)
            if raw is None:
                return default
            if not _digits(raw) or not low <= int(raw) <= high:
                raise ConfigError(f"{name}={raw!r} is not a whole number of {unit} ({low} to {high})")
            return int(raw)

        guild = text("DISCORD_GUILD_ID")
        if guild is not None and not _digits(guild):
            raise ConfigError(f"DISCORD_GUILD_ID={guild!r} must be a server id (digits)")
        level = (text("LOG_LEVEL") or "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
            raise ConfigError(f"LOG_LEVEL={level!r} must be DEBUG, INFO, WARNING or ERROR")
        language = (text("STUDBOT_LANGUAGE") or "en").lower()
        if language not in LANGUAGES:
            raise ConfigError(f"STUDBOT_LANGUAGE={language!r} must be one of {', '.join(LANGUAGES)}")
        shard_count, shard_ids = _shards(text("DISCORD_SHARD_COUNT"), text("DISCORD_SHARD_IDS"))
        register = (text("TELEGRAM_WEBHOOK_REGISTER") or "1").lower()
        if register not in ("0", "1", "yes", "no", "true", "false"):
            raise ConfigError(f"TELEGRAM_WEBHOOK_REGISTER={register!r} must be 1 (this worker sets the webhook) or 0")
        instance = text("STUDBOT_INSTANCE")
        if instance is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", instance):
            raise ConfigError(f"STUDBOT_INSTANCE={instance!r} must be a name of letters, digits, '.', '_' or '-'")
        telegram_base_url = text("TELEGRAM_BASE_URL")
        return cls(
            db_path=text("STUDBOT_DB") or "studbot.db",
            starting_balance=number("STUDBOT_STARTING_BALANCE", 1000, 1, 10**9, "chips"),
            turn_timer=number("STUDBOT_TURN_TIMER", 60, 5, 3600, "seconds"),
            next_hand_delay=number("STUDBOT_NEXT_HAND_DELAY", 5, 0, 600, "seconds"),
            bot_delay=number("STUDBOT_BOT_DELAY_MS", 1000, 0, 60000, "milliseconds") / 1000,
            time_bank=number("STUDBOT_TIME_BANK", DEFAULT_TIMEBANK, 0, MAX_TIMEBANK, "seconds"),
            discord_token=_token("DISCORD_TOKEN", text("DISCORD_TOKEN")),
            discord_guild_id=int(guild) if guild else None,
            discord_api_base=text("DISCORD_API_BASE"),
            discord_gateway_url=text("DISCORD_GATEWAY_URL"),
            telegram_token=_token("TELEGRAM_TOKEN", text("TELEGRAM_TOKEN")),
            telegram_base_url=telegram_base_url,
            telegram_webhook_url=_webhook_url(text("TELEGRAM_WEBHOOK_URL"), local=telegram_base_url is not None),
            telegram_webhook_listen=text("TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0",
            telegram_webhook_port=number("TELEGRAM_WEBHOOK_PORT", number("PORT", 8443, 1, 65535, "port"), 1, 65535,
                                         "port"),
            log_level=level,
            language=language,
            discord_shard_count=shard_count,
            discord_shard_ids=shard_ids,
            telegram_webhook_register=register in ("1", "yes", "true"),
            telegram_webhook_max_connections=number("TELEGRAM_WEBHOOK_MAX_CONNECTIONS", 40, 1, 100, "connections"),
            database_url=database_url(text("STUDBOT_DATABASE_URL")),
            db_pool_size=number("STUDBOT_DB_POOL_SIZE", 5, 1, 1000, "connections"),
            instance=instance,
            lease_seconds=number("STUDBOT_LEASE_SECONDS", 6, 2, 300, "seconds"),
        )


def _digits(raw: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also takes '²', which ``int`` refuses."""
    return raw.isascii() and raw.isdigit()


def _token(name: str, token: str | None) -> str | None:
    """A platform token: one word of printable ASCII (a pasted space or line break is refused, the
    token never shown)."""
    if token is not None and not (token.isascii() and token.isprintable() and " " not in token):
        raise ConfigError(f"{name} holds a space, a line break or another character no token has "
                          "(write the token alone, on one line)")
    return token


def _webhook_url(url: str | None, *, local: bool) -> str | None:
    """TELEGRAM_WEBHOOK_URL: an https:// URL with a host (Telegram posts to no other); plain http only
    with a local Bot API server (TELEGRAM_BASE_URL). Its path is the webhook's secret: never shown."""
    if url is None:
        return None
    parts = urlsplit(url)
    schemes = ("https", "http") if local else ("https",)
    if parts.scheme not in schemes or not parts.netloc.strip("@:"):
        raise ConfigError(f"TELEGRAM_WEBHOOK_URL must be an {' or '.join(s + '://' for s in schemes)} URL "
                          f"with a host (scheme {parts.scheme or '?'!r}); Telegram posts to HTTPS only")
    return url


def _shards(count: str | None, ids: str | None) -> tuple[int | None, tuple[int, ...] | None]:
    """DISCORD_SHARD_COUNT and DISCORD_SHARD_IDS, checked together.

    >>> _shards("4", "2, 3")
    (4, (2, 3))
    >>> _shards("2", None)
    (2, None)
    >>> _shards(None, "0")
    Traceback (most recent call last):
    ...
    bot.core.config.ConfigError: DISCORD_SHARD_IDS='0' needs DISCORD_SHARD_COUNT (the number of shards of every process)
    """
    if count is None:
        if ids is not None:
            raise ConfigError(f"DISCORD_SHARD_IDS={ids!r} needs DISCORD_SHARD_COUNT "
                              "(the number of shards of every process)")
        return None, None
    if not _digits(count) or not 1 <= int(count) <= 100_000:
        raise ConfigError(f"DISCORD_SHARD_COUNT={count!r} is not a whole number of shards (1 to 100000)")
    total = int(count)
    if ids is None:
        return total, None
    parts = [p.strip() for p in ids.split(",")]
    if not all(_digits(p) for p in parts):
        raise ConfigError(f"DISCORD_SHARD_IDS={ids!r} must be shard numbers separated by commas, such as 0,1")
    chosen = tuple(int(p) for p in parts)
    outside = [i for i in chosen if i >= total]
    if outside:
        raise ConfigError(f"DISCORD_SHARD_IDS={ids!r}: shard {outside[0]} is not below DISCORD_SHARD_COUNT={total} "
                          f"(shards are numbered 0 to {total - 1})")
    if len(set(chosen)) != len(chosen):
        raise ConfigError(f"DISCORD_SHARD_IDS={ids!r} names a shard twice")
    return total, chosen


def database_url(url: str | None) -> str | None:
    """``STUDBOT_DATABASE_URL``, checked and with its user and password percent-encoded, so that a
    password written as it is (with ``#``, ``=``, ``@``, ``/`` or quotes) reaches the server exactly.
    The password is never shown in an error.

    >>> database_url("postgresql://bot:p#s=s'\\"@/x@db.example:5433/studbot")
    'postgresql://bot:p%23s%3Ds%27%22%40%2Fx@db.example:5433/studbot'
    >>> database_url("postgresql://bot:p%23ss@db/studbot")  # already encoded: unchanged
    'postgresql://bot:p%23ss@db/studbot'
    >>> database_url("mysql://bot:secret@db/studbot")
    Traceback (most recent call last):
    ...
    bot.core.config.ConfigError: STUDBOT_DATABASE_URL must be a postgresql://... URL (scheme 'mysql')
    >>> database_url("postgresql://bot:secret@db:port/studbot")
    Traceback (most recent call last):
    ...
    bot.core.config.ConfigError: STUDBOT_DATABASE_URL has a port that is not a number (postgresql://bot:***@db:port/studbot)
    """
    if url is None:
        return None
    expected = "STUDBOT_DATABASE_URL must be a postgresql://... URL"
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgresql", "postgres"):
        raise ConfigError(f"{expected} (scheme {scheme if sep else '?'!r})")
    userinfo, at, location = rest.rpartition("@")
    user, colon, password = userinfo.partition(":")
    shown = f"{scheme}://{user}{':***' if colon else ''}{at}{location}"
    host_port = location.split("/", 1)[0].split("?", 1)[0]
    host, _, port = host_port.rpartition(":") if ":" in host_port.rsplit("]", 1)[-1] else (host_port, "", "")
    if port and not (_digits(port) and int(port) <= 65535):
        raise ConfigError(f"STUDBOT_DATABASE_URL has a port that is not a number ({shown})")
    if not (host or port or host_port) and "host=" not in location:
        raise ConfigError(f"{expected}: no host ({shown})")
    try:
        _ = urlsplit(f"{scheme}://{location}").port  # what the logging's redaction and the driver parse
    except ValueError as exc:
        raise ConfigError(f"STUDBOT_DATABASE_URL is malformed: {exc} ({shown})") from exc
    if not at:
        return url
    encoded = quote(unquote(user), safe="") + (":" + quote(unquote(password), safe="") if colon else "")
    return f"{scheme}://{encoded}@{location}"


def read_dotenv(path: Path) -> dict[str, str]:
    """The ``KEY=value`` lines of a ``.env`` file, read with python-dotenv's parser, exactly as written.

    Quotes, ``#`` inside quotes or values, ``=`` in values, inline comments, ``export`` and escaped
    newlines in double quotes follow python-dotenv; nothing is interpolated (a ``$`` in a password
    stays). A line that is not ``KEY=value`` is a :class:`ConfigError` naming the line, not its text
    (it could hold a token).
    """
    values: dict[str, str] = {}
    with path.open(encoding="utf-8") as stream:
        for binding in parse_stream(stream):
            if binding.error:
                raise ConfigError(f"{path}:{binding.original.line}: expected KEY=value")
            if binding.key is not None:
                values[binding.key] = binding.value if binding.value is not None else ""
    return values

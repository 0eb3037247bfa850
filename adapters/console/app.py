"""Run the console chat: interactive against house bots, or a script from stdin.

Script mode (``--script``) reads ``user: text`` lines and prints every public line
as ``[table] ...`` and every private one as ``[dm user] ...``, flushed at once.
Time is virtual there: it moves only with ``/sleep SECONDS`` lines, house bots act
at once, so a seeded run (``--seed N``) prints the same transcript every time.
Lines starting with ``#`` are comments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from adapters.console.chat import CHANNEL, PLATFORM, ConsoleChat, ConsoleMessenger
from bot.app import StudBot
from bot.bootstrap import build_bot, open_store
from bot.core.clock import ManualClock, RealClock
from bot.core.config import ConfigError, Settings
from bot.store import Store

log = logging.getLogger(__name__)


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def hand_files_dir(db: str) -> Path | None:
    """Where 'verify N' writes the hand file on the console: beside the database (none in memory)."""
    return None if db == ":memory:" else Path(db).resolve().parent


class Input:
    """The lines of stdin, read by a daemon thread (a stop never waits for a line to be typed),
    until the end of stdin or a stop: SIGTERM or Ctrl-C, after which the caller stops the bot
    and closes the store in order."""

    def __init__(self) -> None:
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.stopped = False
        loop = asyncio.get_running_loop()

        def pump() -> None:
            try:
                for raw in iter(sys.stdin.readline, ""):
                    loop.call_soon_threadsafe(self._lines.put_nowait, raw)
                loop.call_soon_threadsafe(self._lines.put_nowait, None)
            except RuntimeError:  # the loop has closed: the session is over
                return

        threading.Thread(target=pump, name="stdin", daemon=True).start()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stop)

    def stop(self) -> None:
        if not self.stopped:
            log.info("stopping")
            self.stopped = True
            self._lines.put_nowait(None)

    async def readline(self) -> str:
        """The next line, with its newline; "" at the end of stdin or once stopped."""
        raw = None if self.stopped else await self._lines.get()
        return "" if raw is None or self.stopped else raw


class ScriptSession:
    """Script mode: a bot on a manual clock, fed one line at a time (``user: text``,
    ``/sleep SECONDS`` or a ``#`` comment); everything it prints goes to ``write``."""

    def __init__(self, *, store: Store, bot: StudBot, clock: ManualClock, chat: ConsoleChat,
                 write: Callable[[str], None]) -> None:
        self.store, self.bot, self.clock, self.chat, self.write = store, bot, clock, chat, write

    @classmethod
    async def open(cls, *, db: str, seed: int | None, settings: Settings,
                   write: Callable[[str], None]) -> ScriptSession:
        clock = ManualClock(start=float(int(time.time())))
        store = await open_store(replace(settings, db_path=db))
        rng = random.Random(seed) if seed is not None else None
        messenger = ConsoleMessenger(write)
        bot = build_bot(replace(settings, bot_delay=0.0), store=store, messenger=messenger, clock=clock, rng=rng,
                        files_dir=hand_files_dir(db))
        await bot.start()
        await clock.settle()
        return cls(store=store, bot=bot, clock=clock, chat=ConsoleChat(bot, messenger, after=clock.settle,
                                                                        files_dir=exports_dir(db)),
                   write=write)

    async def feed(self, raw: str) -> None:
        """Play one line of the script."""
        line = raw.strip()
        if not line or line.startswith("#"):
            return
        if line.startswith("/sleep"):
            parts = line.split()
            try:
                seconds = float(parts[1])
            except (IndexError, ValueError):
                self.write("[error] usage: /sleep SECONDS")
                return
            await self.clock.advance(seconds)
            self.write(f"[ok] {line}")
            return
        user, sep, text = line.partition(":")
        if not sep or not user.strip() or " " in user.strip():
            self.write(f"[error] expected 'user: text', got {line[:60]!r}")
            return
        await self.chat.say(user.strip(), text.strip())
        self.write(f"[ok] {user.strip()}")

    async def close(self) -> None:
        await self.bot.close()
        await self.store.close()


def exports_dir(db: str) -> Path | None:
    """Exports go to 'exports' beside the database file (a temporary directory for ':memory:')."""
    return None if db == ":memory:" or not db else Path(db).resolve().parent / "exports"


async def run_script(*, db: str, seed: int | None, settings: Settings) -> int:
    """Play the script on stdin; return the process status."""
    lines = Input()
    session = await ScriptSession.open(db=db, seed=seed, settings=settings, write=_write)
    _write("[ready]")
    try:
        while True:
            raw = await lines.readline()
            if not raw:
                break
            await session.feed(raw)
    finally:
        await session.close()
    return 0


async def run_interactive(*, db: str, user: str, settings: Settings, bots: int = 3) -> int:
    """Play at the terminal as ``user`` against house bots; ``/as NAME`` or ``NAME: text`` speak as another."""
    lines = Input()
    clock = RealClock()
    store = await open_store(replace(settings, db_path=db))

    def show(line: str) -> None:
        if line.startswith("[dm "):
            _write("  🔒 " + line)
        else:
            _write(line.removeprefix("[table] "))

    messenger = ConsoleMessenger(show, turn_tokens=False)
    bot = build_bot(settings, store=store, messenger=messenger, clock=clock, files_dir=hand_files_dir(db))
    try:
        await bot.start()
        chat = ConsoleChat(bot, messenger, files_dir=exports_dir(db))
        if f"console:{CHANNEL}" not in bot.tables:
            await chat.say(user, "new")
            await chat.say(user, "join")
            for _ in range(bots):
                await chat.say(user, "addbot")
            await chat.say(user, "start")
        else:
            await chat.say(user, "board")
        tr = bot.translator_for(platform=PLATFORM, user=user)
        _write(tr("console.welcome", name=user))
        current = user
        while True:
            raw = await lines.readline()
            if not raw or raw.strip() in ("quit", "exit", "/quit"):
                break
            line = raw.strip()
            if not line:
                continue
            if line.startswith("/as "):
                current = line.split(None, 1)[1].strip() or current
                tr = bot.translator_for(platform=PLATFORM, user=current)
                _write(tr("console.now", name=current))
                continue
            speaker, text = current, line
            head, sep, rest = line.partition(":")
            if sep and head.strip() and " " not in head.strip() and not head.strip().isdigit():
                speaker, text = head.strip(), rest.strip()
            await chat.say(speaker, text)
    finally:
        await bot.close()
        await store.close()
    return 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m adapters.console", description=__doc__.splitlines()[0])
    parser.add_argument("--script", action="store_true", help="read 'user: text' lines from stdin")
    parser.add_argument("--seed", type=int, default=None, help="seed the deck (script mode only)")
    parser.add_argument("--db", default=None, help="the SQLite file (default: PostgreSQL at STUDBOT_DATABASE_URL "
                        "if set, else STUDBOT_DB or studbot.db)")
    parser.add_argument("--user", default=os.environ.get("USER") or "player",
                        help="your name at the table (interactive)")
    args = parser.parse_args(argv)
    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"studbot: configuration error: {exc}", file=sys.stderr)
        sys.exit(2)
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    db = args.db or settings.db_path
    if args.db is not None:  # a file named on the command line is the database, as for 'studbot audit --db'
        settings = replace(settings, database_url=None)
    if not args.script and args.seed is not None:
        parser.error("--seed is for script mode only: play uses a CSPRNG")
    with contextlib.suppress(KeyboardInterrupt):
        try:
            if args.script:
                sys.exit(asyncio.run(run_script(db=db, seed=args.seed, settings=settings)))
            sys.exit(asyncio.run(run_interactive(db=db, user=args.user, settings=settings)))
        except (sqlite3.DatabaseError, OSError) as exc:  # most often: the file cannot be opened
            print(f"studbot: the database ({db}) failed: {exc}", file=sys.stderr)
            sys.exit(1)

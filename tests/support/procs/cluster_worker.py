"""A bot process for the cluster crash test: StudBot on a real clock, commands from stdin.

Each stdin line is ``ID CHANNEL USER: TEXT``; each is handled at once (a forwarded command
waits for its holder without holding up the next line) and answered on stdout as
``[reply ID] ok CODE`` or ``[reply ID] no CODE``. ``[ready]`` once the bot has started (its
own tables taken back, the free ones taken over). The settings come from the environment
(STUDBOT_INSTANCE names the process). End of stdin: a clean stop, leases released.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import threading
from dataclasses import replace

from bot.bootstrap import build_bot, open_store
from bot.core.clock import RealClock
from bot.core.config import Settings
from bot.core.ports import BoardView, Inbound, TableAddress


class QuietMessenger:
    """Every table's output is dropped (the test reads the database); boards get a reference."""

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        return ref or f"board-{table.channel}"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        return None

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def serve(db: str | None) -> None:
    settings = Settings.from_env()  # STUDBOT_DATABASE_URL: PostgreSQL
    store = await open_store(replace(settings, db_path=db) if db else settings)
    bot = build_bot(settings, store=store, messenger=QuietMessenger(), clock=RealClock())
    await bot.start()
    _say("[ready]")
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        for raw in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, raw)
        loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=pump, daemon=True).start()
    running: set[asyncio.Task[None]] = set()

    async def answer(ident: str, channel: str, user: str, text: str) -> None:
        reply = await bot.handle(Inbound(platform="console", community="local", channel=channel, user=user, name=user,
                                         text=text))
        _say(f"[reply {ident}] {'ok' if reply.ok else 'no'} {reply.code or '-'}")
        if not reply.ok:
            logging.getLogger("worker").info("%s %s %r: %s", channel, user, text, reply.text)

    while (raw := await lines.get()) is not None:
        ident, channel, rest = raw.strip().split(" ", 2)
        user, _, text = rest.partition(": ")
        task = loop.create_task(answer(ident, channel, user, text))
        running.add(task)
        task.add_done_callback(running.discard)
    await asyncio.gather(*running)
    await bot.close()
    await store.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", default=None, help="the SQLite file (else STUDBOT_DATABASE_URL)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(args.db))


if __name__ == "__main__":
    main()

"""A process that writes through group commit and says "ack N" once each write's await returned
(for the kill -9 test of tests/store/test_store_backends.py). Usage: store_writer.py DATABASE (a file or a DSN)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from bot.core.model import HandSetup
from bot.schema import MIGRATIONS
from bot.store import open_sqlite
from bot.store.postgres import PostgresStore
from engine import Stakes


async def main(where: str) -> None:
    store = await (PostgresStore.connect(where, schema=MIGRATIONS) if where.startswith("postgresql://")
                   else open_sqlite(where, schema=MIGRATIONS))
    async with store.atomic() as tx:
        table_id = await tx.create_table(platform="p", community="p:c", channel="w", creator="u", stakes=Stakes(),
                                         timer=60, now=1.0)
        hand_id = await tx.begin_hand(table_id=table_id, setup=HandSetup(hand_no=1, stakes=Stakes(), players=[],
                                                                         deck=[]), now=1.0)
    print(f"hand {hand_id}", flush=True)

    async def writer(n: int) -> None:
        for k in range(10_000):
            seq = k * 100 + n
            if n % 2:
                await store.record_action(hand_id=hand_id, seq=seq, action="call", seat_no=0, by_timeout=False,
                                          now=2.0, deadline=3.0)
            else:
                async with store.atomic() as tx:
                    await tx.add_action(hand_id=hand_id, seq=seq, action="bet", seat_no=1, by_timeout=False,
                                        now=2.0, deadline=3.0)
                    await tx.save_user_lang(platform="p", user=str(seq), lang="en", chosen=False)
            sys.stdout.write(f"ack {seq}\n")
            sys.stdout.flush()

    await asyncio.gather(*(writer(n) for n in range(100)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))

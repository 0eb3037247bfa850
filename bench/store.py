"""The store alone under group commit: N tables writing at once, on SQLite and on PostgreSQL.

    python -m bench.store [--tables 1000] [--writes 20] [--no-postgres]

Each table is a task that writes ``--writes`` times, one after the other: ``record_action``
(one INSERT, the hot path of a hand), then ``atomic()`` blocks of two statements (an action
and the hand's deadline, as a timed-out action does). Printed per backend and kind: writes a
second, CPU per write (``time.process_time``, every thread), p50/p99 of one write's await
(which returns after its COMMIT), and the transactions that held them. Beside them, the bare
``INSERT; COMMIT`` rate of each backend, one after the other, in the same run. PostgreSQL is a
throwaway server (bench/pgserver.py, fsync on).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.pgserver import PostgresServer
from bot.core.model import HandSetup
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite
from bot.store.postgres import PostgresStore
from engine import Stakes

Opener = Callable[[], Awaitable[Store]]


async def _hands(store: Store, tables: int, channel: str) -> list[int]:
    async with store.atomic() as tx:
        table_id = await tx.create_table(platform="bench", community="bench:c", channel=channel, creator="u",
                                         stakes=Stakes(), timer=60, now=time.time())
        return [await tx.begin_hand(table_id=table_id, now=time.time(),
                                    setup=HandSetup(hand_no=n, stakes=Stakes(), players=[], deck=[]))
                for n in range(1, tables + 1)]


async def concurrent(store: Store, *, kind: str, tables: int, writes: int) -> str:
    hands = await _hands(store, tables, kind)
    before = store.commit_stats
    waits: list[float] = []

    async def table(i: int) -> None:
        for seq in range(writes):
            start = time.perf_counter()
            if kind == "record_action":
                await store.record_action(hand_id=hands[i], seq=seq, action="call", seat_no=0, by_timeout=False,
                                          now=time.time(), deadline=time.time() + 60)
            else:
                async with store.atomic() as tx:
                    await tx.add_action(hand_id=hands[i], seq=seq, action="call", seat_no=0, by_timeout=True,
                                        now=time.time(), deadline=time.time() + 60)
                    await tx.execute("UPDATE hands SET deadline = ? WHERE id = ?",  # a second statement
                                     (time.time() + 60, hands[i]))
            waits.append(time.perf_counter() - start)

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(table(i) for i in range(tables)))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = tables * writes
    waits.sort()
    transactions = store.commit_stats.transactions - before.transactions
    return (f"  {kind:<14} {n:>7,} writes {n / wall:>9,.0f}/s  cpu/write {cpu / n * 1e3:.3f} ms  "
            f"p50 {waits[n // 2] * 1e3:6.1f} ms  p99 {waits[int(n * 0.99)] * 1e3:6.1f} ms  "
            f"{transactions:,} transactions")


async def bare(store: Store, *, commits: int) -> str:
    """INSERT; COMMIT one after the other: the backend's own commit rate (through the store)."""
    hands = await _hands(store, 1, "bare")
    start = time.perf_counter()
    for seq in range(commits):
        await store.record_action(hand_id=hands[0], seq=seq, action="call", seat_no=0, by_timeout=False,
                                  now=time.time(), deadline=time.time())
    rate = commits / (time.perf_counter() - start)
    return f"  {'INSERT; COMMIT':<14} {commits:>7,} commits {rate:>8,.0f}/s (one at a time)"


async def run(name: str, opener: Opener, *, tables: int, writes: int) -> None:
    store = await opener()
    try:
        print(f"{name}, {tables:,} tables at once, {writes} writes each:")
        for kind in ("record_action", "atomic"):
            print(await concurrent(store, kind=kind, tables=tables, writes=writes), flush=True)
        print(await bare(store, commits=2000), flush=True)
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "store.db")
        asyncio.run(run("sqlite", lambda: open_sqlite(path, schema=MIGRATIONS), tables=args.tables, writes=args.writes))
    if not args.no_postgres:
        with PostgresServer() as pg:
            dsn = pg.create_database("bench")
            asyncio.run(run("postgresql", lambda: PostgresStore.connect(dsn, schema=MIGRATIONS), tables=args.tables,
                            writes=args.writes))


if __name__ == "__main__":
    main()

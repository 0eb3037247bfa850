"""Several processes' costs: a press answered where its table is held, and one forwarded to it.

    python -m bench.cluster [--tables 20] [--presses 40] [--no-postgres]

Two StudBot instances in cluster mode (``w1``, ``w2``, each its own Store) on one database;
every table is opened at ``w1``, so ``w1`` holds them all. Each table is a task pressing the
turn's action (with its token) one after the other, alternately at ``w1`` (held there: fenced
writes) and at ``w2`` (forwarded through the inbox and answered). Beside them, in the same run,
one process without cluster mode plays the same. Printed per backend: presses a second, and
p50/p99 of a press's answer (after its COMMIT) for each way. PostgreSQL is a throwaway server
(bench/pgserver.py).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

from bench.pgserver import PostgresServer
from bot.app import StudBot
from bot.bootstrap import build_bot
from bot.core.clock import RealClock
from bot.core.config import Settings
from bot.core.ports import BoardView, Inbound, TableAddress
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite
from bot.store.postgres import PostgresStore

Opener = Callable[[], Awaitable[Store]]
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=0.0, turn_timer=600, starting_balance=10**6)


class Quiet:
    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        return ref or "board"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        return None

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


def _msg(channel: str, user: str, text: str) -> Inbound:
    return Inbound(platform="bench", community="c", channel=channel, user=user, name=user, text=text)


async def _bots(opener: Opener, names: list[str | None]) -> list[tuple[StudBot, Store]]:
    out = []
    for name in names:
        store = await opener()
        bot = build_bot(replace(SETTINGS, instance=name), store=store, messenger=Quiet(), clock=RealClock(),
                        rng=random.Random(1))
        await bot.start()
        out.append((bot, store))
    return out


async def _run(opener: Opener, *, cluster: bool, tables: int, presses: int) -> dict[str, list[float]]:
    bots = await _bots(opener, ["w1", "w2"] if cluster else [None])
    holder = bots[0][0]
    times: dict[str, list[float]] = {"held": [], "forwarded": []}
    for n in range(tables):
        for user, text in (("ann", "new"), ("ann", "join"), ("bob", "join"), ("ann", "start")):
            assert (await holder.handle(_msg(f"t{n}", user, text))).ok

    async def table(n: int) -> None:
        key = f"bench:t{n}"
        for i in range(presses):
            rt = holder.tables[key]
            deadline = time.monotonic() + 30
            while rt.hand is None or rt.hand.is_over or rt.setup is None or rt.hand.actor is None:
                assert time.monotonic() < deadline, f"table {n}: no hand dealt"
                await asyncio.sleep(0.005)  # the next deal
                rt = holder.tables[key]
            legal = [a.value for a in rt.hand.legal_actions()]
            action = next((a for a in ("check", "call", "bring-in") if a in legal), legal[0])  # nobody busts
            user = rt.setup.players[rt.hand.actor].user
            way = "forwarded" if cluster and i % 2 else "held"
            bot = bots[1][0] if way == "forwarded" else holder
            started = time.perf_counter()
            reply = await bot.handle(_msg(f"t{n}", user, f"{action} @{rt.turn}"))
            times[way].append(time.perf_counter() - started)
            assert reply.ok, reply

    started = time.perf_counter()
    await asyncio.gather(*(table(n) for n in range(tables)))
    times["wall"] = [time.perf_counter() - started]
    for bot, store in bots:
        await bot.close()
        await store.close()
    return times


def _line(backend: str, mode: str, times: dict[str, list[float]]) -> str:
    count = len(times["held"]) + len(times["forwarded"])
    parts = [f"{backend:10} {mode:14} {count / times['wall'][0]:7.0f} presses/s"]
    for way in ("held", "forwarded"):
        if times[way]:
            ms = sorted(t * 1000 for t in times[way])
            parts.append(f"{way}: p50 {statistics.median(ms):6.1f} ms, p99 {ms[int(len(ms) * 0.99) - 1]:6.1f} ms")
    return "  ".join(parts)


async def _backend(name: str, opener: Callable[[str], Opener], *, tables: int, presses: int) -> None:
    for mode, cluster in (("one process", False), ("two instances", True)):
        print(_line(name, mode, await _run(opener(mode), cluster=cluster, tables=tables, presses=presses)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        def sqlite(mode: str) -> Opener:
            path = str(Path(tmp) / f"{mode.replace(' ', '-')}.db")
            return lambda: open_sqlite(path, schema=MIGRATIONS)

        asyncio.run(_backend("sqlite", sqlite, tables=args.tables, presses=args.presses))
    if args.no_postgres:
        return
    with PostgresServer() as pg:
        def postgres(mode: str) -> Opener:
            dsn = pg.create_database(mode.replace(" ", "_"))
            return lambda: PostgresStore.connect(dsn, schema=MIGRATIONS, pool_size=5)

        asyncio.run(_backend("postgresql", postgres, tables=args.tables, presses=args.presses))


if __name__ == "__main__":
    main()

"""Stats queries at size: ``stats`` and ``top net`` over 100,000 stored hands, against references.

``python -m bench.stats`` builds a temporary database through the bot's own migrations
(so with the bot's indexes), fills it with ``--hands`` settled hands (default 100,000)
spread over 90 days across several communities of dozens of players each (2 to 8
players a hand, nets that add up to zero, VPIP, showdowns and halves drawn at
plausible rates), and times, through the bot's :class:`~bot.store.Store`, each query
the commands run: ``stats`` (a player's totals), the chart's net series, ``stats razz``
(one game's totals; hands are Stud Hi-Lo, Stud and Razz at 70/15/15), the line of each
game's hands, and ``top net`` for ``day``, ``week`` and ``all``. References measured in the same run and the
same way: a primary-key lookup of a wallet (what every ``join`` does) and a bare
``SELECT COUNT(*)`` of the rows. Each figure is the median of ``--repeat`` runs over
random players and communities, printed in milliseconds and as a ratio to the
primary-key lookup; then the query plans (``EXPLAIN QUERY PLAN``; on PostgreSQL ``EXPLAIN``)
showing the indexes used. ``--backend postgresql`` runs it all on a throwaway PostgreSQL
server (bench/pgserver.py) instead of a SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

from bot.schema import MIGRATIONS
from bot.stats.book import (
    FIND_SQL,
    GAMES_SQL,
    SERIES_SQL,
    STATS_GAME_SQL,
    STATS_SQL,
    TOP_NET_SQL,
    StatsBook,
    top_net_params,
)
from bot.stats.rows import INSERT
from bot.store import Store, open_sqlite

Opener = Callable[[], Awaitable[Store]]

NOW = 1_800_000_000.0
SPAN_DAYS = 90
PK_SQL = "SELECT balance FROM wallets WHERE community = ? AND user_id = ?"
COUNT_SQL = "SELECT COUNT(*) FROM hand_players"


def _hand_rows(rng: random.Random, hand_id: int, community: str, players: list[str],
               at: float, games: random.Random) -> list[tuple[Any, ...]]:
    """A hand's rows; its game drawn from ``games``, so that the rest is drawn as before the games (the same
    hands, and the same query plans at a small size)."""
    seated = rng.sample(players, rng.randint(2, min(8, len(players))))
    game = games.choices(("stud8", "stud", "razz"), weights=(70, 15, 15))[0]
    paid = [rng.choice((1, 3, 8, 13, 23, 33, 53)) for _ in seated]  # antes, calls and bets of a limit hand
    pot = sum(paid)
    showdown = rng.random() < 0.35
    contenders = [i for i in range(len(seated)) if showdown and (i == 0 or rng.random() < 0.4)] or [0]
    high = rng.choice(contenders)
    low = rng.choice(contenders) if len(contenders) > 1 and rng.random() < 0.5 else None
    won = [0] * len(seated)
    if low is None:
        won[high] = pot
    else:
        won[high] += pot - pot // 2
        won[low] += pot // 2
    rows = []
    for i, user in enumerate(seated):
        vpip = int(i in contenders or rng.random() < 0.3)
        at_showdown = int(showdown and i in contenders and len(contenders) > 1)
        rows.append((hand_id, community, user, user.title(), vpip, at_showdown, int(at_showdown and won[i] > 0),
                     int(at_showdown and i == high), int(at_showdown and i == low),
                     int(at_showdown and i == high and low in (None, high)), won[i] - paid[i], won[i], at, game))
    return rows


async def fill(opener: Opener, *, hands: int, communities: int, players: int,
               seed: int) -> tuple[int, list[tuple[str, str]]]:
    """The database with ``hands`` settled hands; (rows written, every (community, user))."""
    store = await opener()  # the bot's schema and indexes
    rng, games = random.Random(seed), random.Random(seed + 1)
    names = {f"discord:{1000 + c}": [f"player{c}_{p}" for p in range(players)] for c in range(communities)}
    rows = 0
    try:
        async with store.atomic() as tx:
            for c, (community, users) in enumerate(names.items()):
                await tx.execute("INSERT INTO tables (id, platform, community, channel, creator, stakes, timer, "
                                 "created_at) VALUES (?, 'discord', ?, ?, ?, '{}', 30, ?)",
                                 (c + 1, community, str(c), users[0], NOW))
                await tx.executemany("INSERT INTO wallets (community, user_id, name, balance) VALUES (?, ?, ?, 1000)",
                                     [(community, u, u.title()) for u in users])
        communities_list = list(names)
        batch: list[tuple[Any, ...]] = []
        hand_rows: list[tuple[Any, ...]] = []
        for hand_id in range(1, hands + 1):
            c = rng.randrange(len(communities_list))
            at = NOW - rng.random() * SPAN_DAYS * 86_400
            hand_rows.append((hand_id, c + 1, hand_id, at, at))
            batch += _hand_rows(rng, hand_id, communities_list[c], names[communities_list[c]], at, games)
            if len(hand_rows) >= 10_000 or hand_id == hands:
                async with store.atomic() as tx:
                    await tx.executemany("INSERT INTO hands (id, table_id, hand_no, setup, status, started_at, "
                                         "finished_at) VALUES (?, ?, ?, '{}', 'done', ?, ?)", hand_rows)
                    await tx.executemany(INSERT, batch)
                rows += len(batch)
                batch, hand_rows = [], []
        await store.execute("ANALYZE")
    finally:
        await store.close()
    return rows, [(community, user) for community, users in names.items() for user in users]


async def _median_ms(repeat: int, run: Callable[[int], Awaitable[object]]) -> float:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        await run(i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(opener: Opener, players: list[tuple[str, str]], *, repeat: int,
                  seed: int) -> list[tuple[str, float]]:
    store = await opener()
    book = StatsBook(store)
    rng = random.Random(seed)
    picks = [rng.choice(players) for _ in range(repeat)]
    try:
        figures = [
            ("reference: primary-key lookup (a wallet)",
             await _median_ms(repeat, lambda i: store.fetch(PK_SQL, picks[i]))),
            ("reference: SELECT COUNT(*) of the rows", await _median_ms(repeat, lambda i: store.fetch(COUNT_SQL))),
            ("stats (a player's totals)", await _median_ms(repeat, lambda i: book.player(*picks[i]))),
            ("stats by name (find, then totals)", await _median_ms(repeat, lambda i: _by_name(book, *picks[i]))),
            ("stats chart series (net of each hand)", await _median_ms(repeat, lambda i: book.net_series(*picks[i]))),
            ("stats razz (one game's totals)",
             await _median_ms(repeat, lambda i: book.player(*picks[i], game="razz"))),
            ("stats: each game's hands and net", await _median_ms(repeat, lambda i: book.games(*picks[i]))),
        ]
        for period in ("day", "week", "all"):
            figures.append((f"top net {period}", await _median_ms(
                repeat, lambda i, p=period: book.top_net(picks[i][0], period=p, now=NOW))))  # type: ignore[misc]
    finally:
        await store.close()
    return figures


async def _by_name(book: StatsBook, community: str, user: str) -> object:
    found = await book.find(community, user.title())
    assert found is not None
    return await book.player(community, found.user)


async def plans(opener: Opener, community: str, user: str) -> list[tuple[str, str]]:
    store = await opener()
    queries = [("stats", STATS_SQL, (community, user)), ("stats chart series", SERIES_SQL, (community, user)),
               ("stats by name", FIND_SQL, (community, user.title())),
               ("stats razz", STATS_GAME_SQL, (community, user, "razz")), ("stats games", GAMES_SQL, (community, user))]
    queries += [(f"top net {p}", TOP_NET_SQL[p], top_net_params(community, period=p, now=NOW, limit=10))
                for p in ("day", "week", "all")]
    out = []
    try:
        for label, sql, params in queries:
            if store.dialect == "sqlite":
                steps = [str(step[3]) for step in await store.fetch("EXPLAIN QUERY PLAN " + sql, params)]
            else:
                steps = [str(step[0]).strip() for step in await store.fetch("EXPLAIN " + sql, params)]
            out.append((label, " | ".join(steps)))
    finally:
        await store.close()
    return out


@contextlib.contextmanager
def database(backend: str) -> Iterator[tuple[Opener, str]]:
    """An opener of a new database of the backend (a SQLite file, or a throwaway PostgreSQL server), and
    what it is."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "stats.db")
            yield (lambda: open_sqlite(path, schema=MIGRATIONS)), "SQLite (aiosqlite)"
        return
    from bench.pgserver import PostgresServer
    from bot.store.postgres import PostgresStore

    with PostgresServer() as pg:
        dsn = pg.create_database("stats")
        yield (lambda: PostgresStore.connect(dsn, schema=MIGRATIONS, pool_size=2)), "PostgreSQL (asyncpg)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.stats", description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--communities", type=int, default=5)
    parser.add_argument("--players", type=int, default=40, help="players per community")
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), default="sqlite",
                        help="the database: a SQLite file (default) or a throwaway PostgreSQL server")
    args = parser.parse_args(argv)
    with database(args.backend) as (opener, what):
        start = time.perf_counter()
        rows, players = asyncio.run(fill(opener, hands=args.hands, communities=args.communities,
                                         players=args.players, seed=args.seed))
        print(f"{args.hands} hands, {rows} hand_players rows, {args.communities} communities of {args.players} "
              f"players (filled in {time.perf_counter() - start:.1f} s)")
        figures = asyncio.run(measure(opener, players, repeat=args.repeat, seed=args.seed))
        reference = figures[0][1]
        print(f"median of {args.repeat} runs, through the bot's Store on {what}:")
        for label, ms in figures:
            print(f"  {label:<42} {ms:8.3f} ms  {ms / reference:7.1f}x the primary-key lookup")
        print("query plans:")
        for label, plan in asyncio.run(plans(opener, *players[0])):
            print(f"  {label:<20} {plan}")


if __name__ == "__main__":
    main()

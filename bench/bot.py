"""The bot end to end: actions per second, p50/p99 latency per action, memory per idle table.

Every action is a chat command (``"call @3.5"``) sent to :meth:`StudBot.handle`, which
parses it, plays it in the engine, commits it to SQLite (a file on disk, WAL,
``synchronous=NORMAL``), renders the lines and the board and hands them to the
messenger. The messenger keeps nothing (or, with ``--console-actions``, is the console
adapter writing to nowhere); time is a :class:`ManualClock`; the players are seeded
random policies that mostly call and check, so most hands reach the showdown.

1. one table, two players, hands dealt one after the other, every ``handle`` timed;
2. 1,000 tables in one bot, one process and one database, all playing at once
   (1,000 asyncio tasks), every ``handle`` timed: the latency includes the wait for
   the store, which is a single writer;
3. memory per idle table (two seated players, no hand): tracemalloc, and RSS;
4. references measured in the same run: the engine alone (``Hand.act`` on the very
   hands the bot played) and SQLite alone (one INSERT + COMMIT with the bot's PRAGMAs,
   on a file in the same directory; through ``sqlite3`` and through ``aiosqlite``).

Speed is measured, never asserted: the machines are noisy, so the figures are read as
ratios to the references. Run: ``python -m bench.bot`` (``--help`` for the counts).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import logging
import random
import sqlite3
import tempfile
import time
import traceback
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import aiosqlite

from adapters.console.chat import ConsoleMessenger
from bot.clock import ManualClock
from bot.config import Settings
from bot.model import HandSetup
from bot.ports import BoardView, Inbound, Messenger, TableAddress
from bot.service import Runtime, StudBot
from bot.store import Store
from engine import Action, Card, Deck, DeckDealer, Hand

from .policy import Passive

PLATFORM = "console"
COMMUNITY = "bench"
BUY_IN = 1_000_000
"""Deep stacks: nobody goes broke, so every table keeps dealing."""
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=10**9)


# ---------------------------------------------------------------------- helpers


class NullMessenger:
    """The Messenger port that keeps nothing: boards are 'edited' in place, every user is reachable."""

    def __init__(self) -> None:
        self.boards = 0

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        if ref is not None:
            return ref
        self.boards += 1
        return f"board-{self.boards}"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        return None

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


def _discard(line: str) -> None:
    return None


class ErrorLog(logging.Handler):
    """Counts the errors the bot logs (bugs caught by its funnel and its timers), by exception and place."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.kinds: dict[str, int] = {}
        self.example: dict[str, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        kind = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc, frames = record.exc_info[1], traceback.extract_tb(record.exc_info[2])
            place = Path(frames[-1].filename) if frames else None
            where = f" at {place.parent.name}/{place.name}:{frames[-1].lineno}" if place else ""
            kind = f"{type(exc).__name__}: {exc}{where}"
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        self.example.setdefault(kind, record.getMessage())

    @property
    def count(self) -> int:
        return sum(self.kinds.values())

    def lines(self) -> list[str]:
        return [f"  {n} x {kind} (first: {self.example[kind]})" for kind, n in self.kinds.items()]


class _BelowError(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.ERROR


@dataclass
class Stats:
    """Latencies in seconds, and what went wrong."""

    latencies: list[float] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    statements: int = 0
    """SQL statements sent to the store's connection meanwhile (each one a hop to aiosqlite's thread)."""
    commits: int = 0

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    def q(self, fraction: float) -> float:
        return quantile(self.latencies, fraction)

    @property
    def mean(self) -> float:
        return sum(self.latencies) / len(self.latencies) if self.latencies else 0.0


def quantile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank quantile (p50: the median, p99: 99% of the values are at most this)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-round(fraction * 1000) * len(ordered) // 1000))  # ceil(fraction * n), exactly
    return ordered[min(rank, len(ordered)) - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:.1f} ms"


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs"


def rss_bytes() -> int:
    """Resident set size of this process (Linux), 0 elsewhere."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def trim_heap() -> None:
    """Collect garbage and give free malloc pages back, so that an RSS difference means something."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


POLICY = Passive(bring_in_complete=0.1, complete=0.1, bet=0.1, raise_=0.05, fold=0.01)
"""Mostly call and check (hands reach the showdown); now and then bet, raise or complete; rarely fold."""


# ---------------------------------------------------------------------- the bot


class Bench:
    """A StudBot on a fresh database file, a manual clock, and helpers to seat and drive its tables."""

    def __init__(self, db: Path, messenger: Messenger, settings: Settings, *, seed: int) -> None:
        self.db, self.messenger, self.settings, self.seed = db, messenger, settings, seed
        self.clock = ManualClock()

    async def __aenter__(self) -> Bench:
        self.store = await Store.open(str(self.db))
        self.bot = StudBot(store=self.store, messenger=self.messenger, clock=self.clock, settings=self.settings,
                           rng=random.Random(self.seed))
        await self.bot.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bot.close()
        await self.store.close()

    @staticmethod
    def inbound(channel: str, user: str, text: str) -> Inbound:
        return Inbound(platform=PLATFORM, community=COMMUNITY, channel=channel, user=user, name=user, text=text)

    async def say(self, channel: str, user: str, text: str) -> None:
        reply = await self.bot.handle(self.inbound(channel, user, text))
        if not reply.ok:
            raise RuntimeError(f"{text!r} by {user} in {channel} refused: {reply.text}")

    async def start(self, rt: Runtime, user: str) -> None:
        """Deal the first hand; a failure after the hand was dealt is counted (by the log), not fatal."""
        await self.bot.handle(self.inbound(rt.table.channel, user, "start"))
        if rt.hand is None or rt.hand.is_over:
            raise RuntimeError(f"'start' in {rt.table.channel} dealt no hand")

    async def open_table(self, channel: str, players: Sequence[str]) -> Runtime:
        """A table with ``players`` seated (deep stacks) and no hand dealt."""
        await self.say(channel, players[0], "new")
        for user in players:
            await self.say(channel, user, f"join {BUY_IN}")
        return self.bot.tables[f"{PLATFORM}:{channel}"]

    async def play(self, rt: Runtime, n_actions: int, rng: random.Random, stats: Stats,
                   next_hand: Callable[[Runtime], Awaitable[None]],
                   played: list[tuple[HandSetup, list[Action]]] | None = None) -> None:
        """Send ``n_actions`` legal actions to the table, as its players would, timing each ``handle``."""
        channel = rt.table.channel
        handle, perf = self.bot.handle, time.perf_counter
        done = 0
        while done < n_actions:
            hand = rt.hand
            if hand is None or hand.is_over:
                await next_hand(rt)
                continue
            setup, turn = rt.setup, rt.turn
            assert setup is not None and hand.actor is not None and turn is not None
            msg = self.inbound(channel, setup.players[hand.actor][1], f"{POLICY.choose(hand, rng).value} @{turn}")
            started = perf()
            reply = await handle(msg)
            stats.latencies.append(perf() - started)
            done += 1
            if not reply.ok:
                stats.refused.append(f"{msg.text!r}: {reply.text}")
            if played is not None and (hand.is_over or done == n_actions):
                played.append((setup, list(hand.actions)))


# ---------------------------------------------------------------------- 1. one table


async def one_table(tmp: Path, *, actions: int, players: int, seed: int, console: bool = False, trace: bool = False,
                    name: str = "one") -> tuple[Stats, Stats, list[tuple[HandSetup, list[Action]]]]:
    """Hands one after the other at one table; returns the action stats, the deal stats, the hands played.

    ``trace``: count the SQL statements and commits (a trace callback: it slows the run, so not in the timed one).
    """
    messenger: Messenger = ConsoleMessenger(_discard) if console else NullMessenger()
    stats, deals = Stats(), Stats()
    played: list[tuple[HandSetup, list[Action]]] = []
    async with Bench(tmp / f"{name}.db", messenger, SETTINGS, seed=seed) as b:
        rt = await b.open_table("main", [f"p{i}" for i in range(players)])
        await b.start(rt, "p0")

        async def next_hand(rt: Runtime) -> None:
            started = time.perf_counter()
            await b.clock.advance(b.settings.next_hand_delay)
            deals.latencies.append(time.perf_counter() - started)
            if rt.hand is None or rt.hand.is_over:
                raise RuntimeError("no next hand was dealt")

        sql: list[str] = []
        if trace:
            await b.store._db.set_trace_callback(sql.append)  # the store's aiosqlite connection (runs in its thread)
        started = time.perf_counter()
        await b.play(rt, actions, random.Random(seed), stats, next_hand, played)
        stats.elapsed = time.perf_counter() - started
        traced = sql[:]
        stats.statements, stats.commits = len(traced), sum(q.strip().upper() == "COMMIT" for q in traced)
    return stats, deals, played


# ---------------------------------------------------------------------- 2. many tables


@dataclass
class ManyResult:
    stats: Stats
    hands: int
    setup_seconds: float


async def many_tables(tmp: Path, *, tables: int, actions: int, seed: int) -> ManyResult:
    """``tables`` tables in one bot and one database, every one playing at once."""
    settings = replace(SETTINGS, next_hand_delay=0.0)  # time never moves: no turn timer can fire
    stats = Stats()
    async with Bench(tmp / "many.db", NullMessenger(), settings, seed=seed) as b:
        started = time.perf_counter()
        runtimes = [await b.open_table(f"c{i}", [f"a{i}", f"b{i}"]) for i in range(tables)]
        for i, rt in enumerate(runtimes):
            await b.start(rt, f"a{i}")
        setup_seconds = time.perf_counter() - started
        first_hand = {rt.table.channel: rt.table.hand_no for rt in runtimes}

        async def next_hand(rt: Runtime) -> None:
            # Deals are timers due now; any driver's settle() may run any table's deal.
            for _ in range(100_000):
                if rt.hand is not None and not rt.hand.is_over:
                    return
                if rt.table.next_hand_at is None:
                    raise RuntimeError(f"table {rt.table.channel} stopped dealing")
                if await b.clock.settle() == 0:
                    await asyncio.sleep(0.0005)
            raise RuntimeError(f"table {rt.table.channel}: no next hand")

        rngs = [random.Random(seed * 1_000_003 + i) for i in range(tables)]
        started = time.perf_counter()
        await asyncio.gather(*(b.play(rt, actions, rng, stats, next_hand) for rt, rng in zip(runtimes, rngs)))
        stats.elapsed = time.perf_counter() - started
        hands = sum(rt.table.hand_no - first_hand[rt.table.channel] + 1 for rt in runtimes)
    return ManyResult(stats=stats, hands=hands, setup_seconds=setup_seconds)


# ---------------------------------------------------------------------- 3. memory


@dataclass
class Memory:
    traced_per_table: float
    rss_per_table: float
    top: list[tuple[str, float]]


async def idle_memory(tmp: Path, *, tables: int, seed: int) -> Memory:
    """Memory kept per table with two seated players and no hand: RSS, then Python's (tracemalloc).

    Run first, on a fresh heap (freed memory of other parts would be reused and hide the growth): a batch of
    ``tables`` measured by RSS alone (tracemalloc's own bookkeeping would inflate it), then another by tracemalloc.
    RSS includes what SQLite caches in C; tracemalloc sees only Python objects.
    """
    async with Bench(tmp / "memory.db", NullMessenger(), SETTINGS, seed=seed) as b:
        await b.open_table("warm", ["w1", "w2"])  # first-use caches (statements, imports) are not per table
        trim_heap()
        rss_before = rss_bytes()
        for i in range(tables):
            await b.open_table(f"r{i}", [f"u{i}", f"v{i}"])
        trim_heap()
        rss = rss_bytes() - rss_before
        tracemalloc.start(1)
        before = tracemalloc.take_snapshot()
        for i in range(tables):
            await b.open_table(f"m{i}", [f"x{i}", f"y{i}"])
        gc.collect()
        after = tracemalloc.take_snapshot()
        traced = sum(s.size_diff for s in after.compare_to(before, "filename"))
        top = [(f"{s.traceback[0].filename.rsplit('/', 2)[-1]}:{s.traceback[0].lineno}", s.size_diff / tables)
               for s in after.compare_to(before, "lineno")[:4]]
        tracemalloc.stop()
        assert len(b.bot.tables) == 2 * tables + 1
    return Memory(traced_per_table=traced / tables, rss_per_table=rss / tables, top=top)


# ---------------------------------------------------------------------- 4. references


def _build(setup: HandSetup) -> Hand:
    deck = Deck.from_cards([Card.from_str(c) for c in setup.deck])
    return Hand(stakes=setup.stakes, names=[p[2] for p in setup.players], stacks=[p[3] for p in setup.players],
                dealer=DeckDealer(deck))


def engine_reference(played: list[tuple[HandSetup, list[Action]]], *, repeat: int) -> Stats:
    """The same hands and actions through ``Hand.act`` alone, each act timed (``repeat`` passes pooled)."""
    stats = Stats()
    perf = time.perf_counter
    for _ in range(repeat):
        for setup, actions in played:
            hand = _build(setup)
            act = hand.act
            for action in actions:
                started = perf()
                act(action)
                stats.latencies.append(perf() - started)
                stats.elapsed += stats.latencies[-1]
    return stats


_ACTIONS_TABLE = ("CREATE TABLE IF NOT EXISTS actions (hand_id INTEGER NOT NULL, seq INTEGER NOT NULL, "
                  "action TEXT NOT NULL, seat_no INTEGER NOT NULL, by_timeout INTEGER NOT NULL DEFAULT 0, "
                  "at REAL NOT NULL, PRIMARY KEY (hand_id, seq))")
_INSERT = "INSERT INTO actions (hand_id, seq, action, seat_no, by_timeout, at) VALUES (?, ?, ?, ?, ?, ?)"


def sqlite_reference(path: Path, *, commits: int) -> Stats:
    """One INSERT + COMMIT per action with sqlite3 (the bot's PRAGMAs), each transaction timed."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute(_ACTIONS_TABLE)
    stats = Stats()
    perf = time.perf_counter
    try:
        for i in range(commits):
            started = perf()
            db.execute("BEGIN IMMEDIATE")
            db.execute(_INSERT, (i // 10, i % 10, "call", i % 2, 0, 1.7e9 + i))
            db.execute("COMMIT")
            stats.latencies.append(perf() - started)
        stats.elapsed = sum(stats.latencies)
    finally:
        db.close()
    return stats


async def aiosqlite_reference(path: Path, *, commits: int) -> Stats:
    """The same through aiosqlite, as the bot's store does it (each statement a hop to its thread)."""
    stats = Stats()
    perf = time.perf_counter
    async with aiosqlite.connect(path, isolation_level=None) as db:
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA synchronous=NORMAL")
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute(_ACTIONS_TABLE)
        for i in range(commits):
            started = perf()
            await db.execute("BEGIN IMMEDIATE")
            await db.execute(_INSERT, (i // 10, i % 10, "call", i % 2, 0, 1.7e9 + i))
            await db.execute("COMMIT")
            stats.latencies.append(perf() - started)
    stats.elapsed = sum(stats.latencies)
    return stats


# ---------------------------------------------------------------------- report


def _line(label: str, s: Stats) -> str:
    return (f"{label:<34} {s.count:>7,} actions  {s.rate:>9,.0f}/s  p50 {ms(s.q(0.5)):>10}  "
            f"p99 {ms(s.q(0.99)):>10}  mean {ms(s.mean):>10}")


def _ref(label: str, s: Stats, unit: str) -> str:
    return f"{label:<34} {s.count:>7,} {unit:<7}  {s.rate:>9,.0f}/s  p50 {us(s.q(0.5)):>10}  " \
           f"p99 {us(s.q(0.99)):>10}  mean {us(s.mean):>10}"


async def run(args: argparse.Namespace, errors: ErrorLog) -> None:
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-bot-") as tmp_name:
        tmp = Path(tmp_name)
        print(f"StudBot end to end: Inbound -> handle -> engine + SQLite commit (WAL, synchronous=NORMAL, {tmp}) "
              "-> rendering; ManualClock, bot_delay=0")
        mem = await idle_memory(tmp, tables=args.tables, seed=args.seed)  # first: on a fresh heap; printed as 3.

        # 1. one table
        one, deals, played = await one_table(tmp, actions=args.actions, players=args.players, seed=args.seed)
        print(f"\n1. one table, {args.players} players, {len(played)} hands "
              f"({sum(len(a) for _, a in played) / max(1, len(played)):.1f} actions a hand), NullMessenger:")
        print(_line("  end to end (handle)", one))
        traced, _, _ = await one_table(tmp, actions=min(args.actions, 1000), players=args.players, seed=args.seed,
                                       trace=True, name="traced")
        print(f"  SQL per action, deals and hand ends included: {traced.statements / traced.count:.1f} statements, "
              f"{traced.commits / traced.count:.2f} commits (each statement one await on aiosqlite's thread; "
              f"counted in an untimed run)")
        print(f"  {'deal of the next hand (advance)':<32} {deals.count:>7,} deals    {'':>11}  "
              f"p50 {ms(deals.q(0.5)):>10}  p99 {ms(deals.q(0.99)):>10}  mean {ms(deals.mean):>10}")
        console: Stats | None = None
        if args.console_actions:
            console, _, _ = await one_table(tmp, actions=args.console_actions, players=args.players,
                                            seed=args.seed + 1, console=True, name="console")
            print(_line("  end to end, ConsoleMessenger", console))

        # 4. references, on the very hands the bot played, in the same run
        engine = engine_reference(played, repeat=args.engine_repeat)
        bare = sqlite_reference(tmp / "ref-sqlite3.db", commits=one.count)
        hop = await aiosqlite_reference(tmp / "ref-aiosqlite.db", commits=one.count)
        print("\nreferences (same run, same directory):")
        print(_ref("  engine alone: Hand.act", engine, "actions"))
        print(_ref("  sqlite3: INSERT + COMMIT", bare, "commits"))
        print(_ref("  aiosqlite: INSERT + COMMIT", hop, "commits"))
        e50, b50, h50 = engine.q(0.5), bare.q(0.5), hop.q(0.5)
        print(f"  end-to-end p50 {ms(one.q(0.5))} = {one.q(0.5) / e50:,.0f}x engine action, "
              f"{one.q(0.5) / b50:.1f}x bare commit, {one.q(0.5) / h50:.1f}x aiosqlite commit")
        print(f"  end-to-end p99 {ms(one.q(0.99))} = {one.q(0.99) / engine.q(0.99):,.0f}x engine p99, "
              f"{one.q(0.99) / bare.q(0.99):.1f}x bare commit p99, {one.q(0.99) / hop.q(0.99):.1f}x aiosqlite p99")
        if console is not None:
            print(f"  console adapter p50 {ms(console.q(0.5))} = {console.q(0.5) / one.q(0.5):.2f}x NullMessenger")

        # 2. many tables at once
        many = await many_tables(tmp, tables=args.tables, actions=args.table_actions, seed=args.seed)
        m = many.stats
        print(f"\n2. {args.tables:,} tables at once in one bot/process/database, 2 players each, "
              f"{args.table_actions} actions each, {many.hands:,} hands (setup {many.setup_seconds:.1f} s):")
        print(_line(f"  end to end, {args.tables:,} tasks", m))
        print(f"  throughput {m.rate:,.0f} actions/s = {m.rate / one.rate:.2f}x one table; "
              f"p50 {ms(m.q(0.5))} = {m.q(0.5) / one.q(0.5):,.0f}x one table's p50, "
              f"{m.q(0.5) / b50:,.0f}x bare commit")
        print(f"  the wait is the queue for the store's single writer: {args.tables:,} tables acting with no pause "
              f"/ {m.rate:,.0f} actions/s = {ms(args.tables / m.rate) if m.rate else '-'} (Little's law), "
              f"mean latency {ms(m.mean)}")

        # 3. memory per idle table (measured first)
        print(f"\n3. memory per idle table (two seated players, no hand), batches of {args.tables:,} tables, "
              "measured first on a fresh heap:")
        print(f"  tracemalloc (Python objects) {mem.traced_per_table:,.0f} B/table; "
              f"RSS (all, SQLite's cache included) {mem.rss_per_table:,.0f} B/table")
        print("  largest Python allocations per table: "
              + ", ".join(f"{where} {size:,.0f} B" for where, size in mem.top))

        refused = one.refused + m.refused + (console.refused if console else [])
        if refused:
            print(f"\n{len(refused)} actions not ok, e.g. " + "; ".join(refused[:3]))
        if errors.count:
            print(f"\n{errors.count} errors logged by the bot (its bugs; the table went on):")
            print("\n".join(errors.lines()))

    seconds = time.perf_counter() - wall
    print(f"\nsummary: 1 table {one.rate:,.0f} actions/s p50 {ms(one.q(0.5))} p99 {ms(one.q(0.99))} "
          f"({one.q(0.5) / e50:,.0f}x engine, {one.q(0.5) / b50:.1f}x bare commit); "
          f"{args.tables:,} tables {m.rate:,.0f} actions/s p50 {ms(m.q(0.5))} p99 {ms(m.q(0.99))}; "
          f"{mem.traced_per_table / 1024:.1f} KiB traced, {mem.rss_per_table / 1024:.1f} KiB RSS per idle table; "
          f"{len(refused)} actions not ok, {errors.count} bot errors; {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description="StudBot end to end: actions/s, p50/p99 latency, memory per table")
    parser.add_argument("--actions", type=int, default=3000, help="actions at the single table")
    parser.add_argument("--players", type=int, default=2, help="players at the single table (2 to 8)")
    parser.add_argument("--console-actions", type=int, default=1000,
                        help="actions at one more table through the console adapter (0: skip)")
    parser.add_argument("--tables", type=int, default=1000, help="tables playing at once, and for the memory figure")
    parser.add_argument("--table-actions", type=int, default=15, help="actions at each of the --tables tables")
    parser.add_argument("--engine-repeat", type=int, default=5, help="passes of the engine reference (pooled)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    errors = ErrorLog()
    shown = logging.StreamHandler()
    shown.addFilter(_BelowError())
    shown.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[errors, shown])
    asyncio.run(run(args, errors))


if __name__ == "__main__":
    main()

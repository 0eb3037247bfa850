"""The bot under the benchmark (``python -m bench.bot``): tables driven by seeded players.

Every action is a chat command (``"call @3.5"``) sent to :meth:`StudBot.handle`, which
parses it, commits it to the database, plays it in the engine, describes it and hands
the lines and the board to the messenger. As in production, the messenger is an outbox
(:class:`~bot.platform.outbox.Coalescer`, a table's board and lines sent at most once a
``--interval``) in front of a platform that keeps nothing (:class:`NullMessenger`).
Time is a :class:`ManualClock`; the players are seeded random policies that mostly call
and check, so most hands reach the showdown.

Each figure comes with the processor time it cost: ``time.process_time`` over the run,
every thread of the process (the event loop and the database driver's thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import heapq
import logging
import random
import time
import traceback
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from adapters.console.chat import ConsoleMessenger
from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.core.model import HandSetup
from bot.core.ports import BoardView, Clock, Inbound, Messenger, TableAddress, TimerHandle
from bot.platform.outbox import Coalescer
from bot.store import Store
from bot.table.runtime import Runtime
from engine import Action

from .policy import Passive

PLATFORM = "console"
COMMUNITY = "bench"
BUY_IN = 1_000_000
"""Deep stacks: nobody goes broke, so every table keeps dealing."""
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=10**9)
POLICY = Passive(bring_in_complete=0.1, complete=0.1, bet=0.1, raise_=0.05, fold=0.01)
"""Mostly call and check (hands reach the showdown); now and then bet, raise or complete; rarely fold."""

Probe = Callable[[], float]
"""Processor seconds used so far by something outside this process (the PostgreSQL server)."""
StoreOpener = Callable[[str], Awaitable[Store]]
"""Opens a fresh store named after the scenario (a file, or a database of the server)."""
log = logging.getLogger(__name__)


# ---------------------------------------------------------------------- the platform


class NullMessenger:
    """The Messenger port that keeps nothing: boards are 'edited' in place, every user is reachable.

    It counts the boards it is asked to show (each one drawn by the bot: text, and image if any).
    """

    def __init__(self) -> None:
        self.posts = 0
        self.shown = 0

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        self.shown += 1
        if ref is not None:
            return ref
        self.posts += 1
        return f"board-{self.posts}"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        return None

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


def discard(line: str) -> None:
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


# ---------------------------------------------------------------------- figures


@dataclass
class Stats:
    """Latencies in seconds, the run's wall and processor time, and what went wrong."""

    latencies: list[float] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    started_at: float = 0.0
    """Wall-clock time (``time.time``) the run began: runs of several processes are put together by it."""
    cpu: float = 0.0
    """Processor seconds of the whole process (every thread) over the run."""
    loop_cpu: float = 0.0
    """... of them, the event loop's thread (the rest: the database driver's threads)."""
    server_cpu: float | None = None
    """Processor seconds of the database server's processes meanwhile, if it is ours to watch."""
    commits: int = 0
    """Transactions the store committed meanwhile (group commit: many actions in each)."""
    committed: int = 0
    """Blocks and statements in them."""
    boards: int = 0
    """Boards the platform was asked to show meanwhile (each one drawn)."""

    @property
    def count(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    @property
    def cpu_each(self) -> float:
        return self.cpu / self.count if self.count else 0.0

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


class Timed:
    """``with Timed(stats):`` sets the run's wall and processor time (every thread, and the event loop's
    thread alone) on ``stats``; with ``store``, also the transactions it committed meanwhile."""

    def __init__(self, stats: Stats, store: Store | None = None, server: Probe | None = None) -> None:
        self.stats, self.store, self.server = stats, store, server

    def __enter__(self) -> Timed:
        if self.store is not None:
            self._commits = self.store.commit_stats
        if self.server is not None:
            self._server = self.server()
        self._wall, self._cpu, self._loop = time.perf_counter(), time.process_time(), time.thread_time()
        self.stats.started_at = time.time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stats.elapsed = time.perf_counter() - self._wall
        self.stats.cpu = time.process_time() - self._cpu
        self.stats.loop_cpu = time.thread_time() - self._loop
        if self.server is not None:
            self.stats.server_cpu = self.server() - self._server
        if self.store is not None:
            now = self.store.commit_stats
            self.stats.commits = now.transactions - self._commits.transactions
            self.stats.committed = now.items - self._commits.items


# ---------------------------------------------------------------------- time


class _Timer:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FrozenClock:
    """Time stands still (no turn timer ever fires), and a callback due now runs at once as a task
    of its own, as :class:`~bot.core.clock.RealClock` runs a timer: the next deals of many tables go
    together, not one after the other inside whichever task called :meth:`ManualClock.settle`."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self._now = now
        self._tasks: set[asyncio.Task[None]] = set()

    def now(self) -> float:
        return self._now

    def monotonic(self) -> float:
        return self._now

    def call_at(self, when: float, callback: Callable[[], Awaitable[None]]) -> TimerHandle:
        timer = _Timer()
        if when > self._now:
            return timer  # never due

        async def fire() -> None:
            if not timer.cancelled:
                try:
                    await callback()
                except Exception:
                    log.exception("timer callback failed")

        task = asyncio.get_running_loop().create_task(fire())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return timer


async def dealt(rt: Runtime) -> None:
    """Wait for the table's next hand, dealt by its timer (a :class:`FrozenClock`'s task)."""
    for _ in range(1_000_000):
        if rt.hand is not None and not rt.hand.is_over:
            return
        if rt.lock.locked():  # the deal (or the end of the last hand) is in progress
            async with rt.lock:
                pass
        elif rt.table.next_hand_at is None:
            raise RuntimeError(f"table {rt.table.channel} stopped dealing")
        else:
            await asyncio.sleep(0)  # its timer's task is about to take the lock
    raise RuntimeError(f"table {rt.table.channel}: no next hand")


class Beats:
    """The players' thinking in the paced run: each table waits for its next beat here, on one loop timer
    (the earliest beat) and a heap of plain tuples, so that 1,000 simulated players cost the process
    little beside the bot (an ``asyncio.sleep`` each is a timer in the loop's heap, whose comparisons
    are Python calls: ~20 µs an action at 1,000 tables, measured)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._count = 0
        self._timer: asyncio.TimerHandle | None = None

    async def until(self, when: float) -> None:
        """Return at loop time ``when`` (or a moment after)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._count += 1
        heapq.heappush(self._heap, (when, self._count, future))
        if self._heap[0][2] is future:  # the earliest now: the timer goes off for it
            self._arm(loop)
        await future

    def _arm(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(self._heap[0][0], self._wake, loop) if self._heap else None

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        now, heap = loop.time(), self._heap
        while heap and heap[0][0] <= now:
            _, _, future = heapq.heappop(heap)
            if not future.done():
                future.set_result(None)
        self._timer = None
        self._arm(loop)


# ---------------------------------------------------------------------- the bot


class Bench:
    """A StudBot on a fresh store behind an outbox, a manual clock, and helpers to seat and drive its tables."""

    def __init__(self, open_store: StoreOpener, name: str, settings: Settings, *, seed: int,
                 interval: float = 1.0, console: bool = False, clock: Clock | None = None) -> None:
        self.open_store, self.name, self.settings, self.seed = open_store, name, settings, seed
        self.clock: Clock = clock or ManualClock()
        self.platform = NullMessenger()
        self.outbox: Coalescer | None = None
        self.messenger: Messenger
        if console:  # the console shows every board (a terminal cannot edit): no outbox in front
            self.messenger = ConsoleMessenger(discard)
        else:
            self.outbox = Coalescer(self.platform, interval=interval)
            self.messenger = self.outbox

    async def __aenter__(self) -> Bench:
        self.store = await self.open_store(self.name)
        self.bot = build_bot(self.settings, store=self.store, messenger=self.messenger, clock=self.clock,
                             rng=random.Random(self.seed))
        await self.bot.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.bot.close()
        if self.outbox is not None:
            await self.outbox.drain()
        await self.store.close()

    @staticmethod
    def inbound(channel: str, user: str, text: str) -> Inbound:
        return Inbound(platform=PLATFORM, community=COMMUNITY, channel=channel, user=user, name=user, text=text)

    async def say(self, channel: str, user: str, text: str) -> None:
        reply = await self.bot.handle(self.inbound(channel, user, text))
        if not reply.ok:
            raise RuntimeError(f"{text!r} by {user} in {channel} refused: {reply.text}")

    async def start(self, rt: Runtime, user: str) -> None:
        """Deal the first hand, after the table's pause (its commitment is shown first); a failure after the
        hand was dealt is counted (by the log), not fatal."""
        await self.bot.handle(self.inbound(rt.table.channel, user, "start"))
        if isinstance(self.clock, ManualClock):
            await self.clock.advance(self.settings.next_hand_delay)
        else:
            await dealt(rt)
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
                   played: list[tuple[HandSetup, list[Action]]] | None = None,
                   pause: Callable[[], Awaitable[bool]] | None = None) -> None:
        """Send ``n_actions`` legal actions to the table, as its players would, timing each ``handle``
        (``pause``: awaited before each action, a player's thinking; False: the run is over)."""
        channel = rt.table.channel
        handle, perf = self.bot.handle, time.perf_counter
        done = 0
        while done < n_actions:
            hand = rt.hand
            if hand is None or hand.is_over:
                await next_hand(rt)
                continue
            if pause is not None:
                if not await pause():
                    break
                hand = rt.hand
                assert hand is not None and not hand.is_over  # only its player acts, and they were thinking
            setup, turn = rt.setup, rt.turn
            assert setup is not None and hand.actor is not None and turn is not None
            msg = self.inbound(channel, setup.players[hand.actor].user, f"{POLICY.choose(hand, rng).value} @{turn}")
            started = perf()
            reply = await handle(msg)
            stats.latencies.append(perf() - started)
            done += 1
            if not reply.ok:
                stats.refused.append(f"{msg.text!r}: {reply.text}")
            if played is not None and (hand.is_over or done == n_actions):
                played.append((setup, list(hand.actions)))


# ---------------------------------------------------------------------- 1. one table


@dataclass
class OneTable:
    stats: Stats
    deals: Stats
    played: list[tuple[HandSetup, list[Action]]]


async def one_table(open_store: StoreOpener, name: str, *, actions: int, players: int, seed: int,
                    interval: float, console: bool = False, server: Probe | None = None) -> OneTable:
    """Hands one after the other at one table, every ``handle`` timed, and every deal of the next hand."""
    stats, deals = Stats(), Stats()
    played: list[tuple[HandSetup, list[Action]]] = []
    clock = ManualClock()
    async with Bench(open_store, name, SETTINGS, seed=seed, interval=interval, console=console, clock=clock) as b:
        rt = await b.open_table("main", [f"p{i}" for i in range(players)])
        await b.start(rt, "p0")

        async def next_hand(rt: Runtime) -> None:
            started = time.perf_counter()
            await clock.advance(b.settings.next_hand_delay)
            deals.latencies.append(time.perf_counter() - started)
            if rt.hand is None or rt.hand.is_over:
                raise RuntimeError("no next hand was dealt")

        shown = b.platform.shown
        with Timed(stats, b.store, server):
            await b.play(rt, actions, random.Random(seed), stats, next_hand, played)
        stats.boards = b.platform.shown - shown
    return OneTable(stats=stats, deals=deals, played=played)


# ---------------------------------------------------------------------- 2. many tables


@dataclass
class ManyTables:
    flat_out: Stats
    """Every table acting again as soon as its last action is answered: the most the process does."""
    paced: Stats | None
    """Every table acting on a beat, together ``rate`` actions a second offered: the latency at that load."""
    hands: int
    setup_seconds: float
    rate: float


async def many_tables(open_store: StoreOpener, name: str, *, tables: int, actions: int, paced_seconds: float,
                      rate: float, seed: int, interval: float, prefix: str = "",
                      sync: Callable[[str], Awaitable[None]] | None = None, server: Probe | None = None,
                      instance: str | None = None) -> ManyTables:
    """``tables`` tables in one bot and one store: first all flat out, ``actions`` each, then (if
    ``paced_seconds``) paced for that long: every table acting on its beat, ``rate`` actions a second in
    all, and every table stopping at the same moment (no tail of a few tables acting alone).

    ``prefix``: of the tables' channels and players (processes sharing a database each play their own);
    ``sync``: awaited with "started" once the bot has started (restoring the open tables it finds: none
    of another process's, if they all start first), then with "ready" once the tables are seated and dealt,
    before they play (so that processes play together), and with "played" once they have, before the paced
    run and the end (the store still open). ``instance``: the bot runs in cluster mode under that name
    (bot/cluster/cluster.py: its tables' leases taken, and every write fenced by them).
    """
    settings = replace(SETTINGS, next_hand_delay=0.0, instance=instance)  # each next hand dealt at once
    async with Bench(open_store, name, settings, seed=seed, interval=interval, clock=FrozenClock()) as b:
        if sync is not None:
            await sync("started")
        started = time.perf_counter()
        runtimes = [await b.open_table(f"{prefix}c{i}", [f"{prefix}a{i}", f"{prefix}b{i}"]) for i in range(tables)]
        for i, rt in enumerate(runtimes):
            await b.start(rt, f"{prefix}a{i}")
        setup_seconds = time.perf_counter() - started
        if sync is not None:
            await sync("ready")
        first_hand = {rt.table.channel: rt.table.hand_no for rt in runtimes}

        rngs = [random.Random(seed * 1_000_003 + i) for i in range(tables)]
        flat_out = Stats()
        shown = b.platform.shown
        with Timed(flat_out, b.store, server):
            await asyncio.gather(*(b.play(rt, actions, rng, flat_out, dealt) for rt, rng in zip(runtimes, rngs)))
        flat_out.boards = b.platform.shown - shown
        if sync is not None:
            await sync("played")

        paced: Stats | None = None
        if paced_seconds:
            # The players are alike (mostly check and call: ~10.5 actions a hand) and every table has
            # played as many actions: left so, the tables would stay in step and 1,000 hands would end,
            # and be dealt again, within the same second, every ten beats. Tables of real players are
            # not in step: each table first plays 0 to 10 more actions (not measured), at random.
            starts = random.Random(seed)
            await asyncio.gather(*(b.play(rt, starts.randrange(11), rng, Stats(), dealt)
                                   for rt, rng in zip(runtimes, rngs)))
            paced = Stats()
            beat = tables / rate  # each table acts once a beat: together, `rate` actions a second
            loop = asyncio.get_running_loop()
            end = loop.time() + paced_seconds

            beats = Beats()

            def metronome() -> Callable[[], Awaitable[bool]]:
                due = loop.time() + starts.uniform(0, beat)

                async def pause() -> bool:
                    nonlocal due
                    now = loop.time()
                    if due > now:
                        await beats.until(due)
                    due = max(due + beat, now)  # late: act at once, but never in a burst to catch up
                    return loop.time() < end
                return pause

            shown = b.platform.shown
            with Timed(paced, b.store, server):
                await asyncio.gather(*(b.play(rt, 1 << 62, rng, paced, dealt, pause=metronome())
                                       for rt, rng in zip(runtimes, rngs)))
            paced.boards = b.platform.shown - shown
        hands = sum(rt.table.hand_no - first_hand[rt.table.channel] + 1 for rt in runtimes)
    return ManyTables(flat_out=flat_out, paced=paced, hands=hands, setup_seconds=setup_seconds, rate=rate)


# ---------------------------------------------------------------------- 3. memory


@dataclass
class Memory:
    traced_per_table: float
    rss_per_table: float
    top: list[tuple[str, float]]


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


async def idle_memory(open_store: StoreOpener, name: str, *, tables: int, seed: int) -> Memory:
    """Memory kept per table with two seated players and no hand: RSS, then Python's (tracemalloc).

    Run first, on a fresh heap (freed memory of other parts would be reused and hide the growth): a batch of
    ``tables`` measured by RSS alone (tracemalloc's own bookkeeping would inflate it), then another by tracemalloc.
    RSS includes what SQLite caches in C; tracemalloc sees only Python objects.
    """
    async with Bench(open_store, name, SETTINGS, seed=seed) as b:
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

"""Every committed event reaches the table: lines an outbox held when the process died are said after the restart.

The crash is simulated in process: the bot's outbox holds its lines (as the Coalescer
does between two flushes) and the bot is dropped without closing, as a SIGKILL would
leave it; a new bot on the same database file takes over. (The real ``kill -9`` of
the real process is in ``test_hostile_discord.py``.)
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path

import pytest
from test_console import SETTINGS
from test_console import Table as ConsoleTable
from waiting import until

from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.model import HandSetup, Player
from bot.core.ports import BoardView, Inbound, TableAddress
from bot.platform.outbox import Coalescer, Tally
from bot.schema import MIGRATIONS
from bot.store import open_sqlite
from bot.table.delivery import Deliveries
from engine import Stakes

pytestmark = pytest.mark.usefixtures("store_backend")

HEADER = "[table] After a restart, what had not reached the table yet:"
TABLE = TableAddress(platform="console", community="local", channel="main")


class Lines:
    """A messenger that records what it sends."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def publish_board(self, *, table: TableAddress, board: BoardView, ref: str | None) -> str | None:
        return ref or "board-1"

    async def announce(self, *, table: TableAddress, text: str) -> None:
        self.lines += text.splitlines()

    async def send_private(self, *, platform: str, user: str, text: str, image: bytes | None = None) -> bool:
        return True


@pytest.mark.asyncio
async def test_a_tally_confirms_lines_once_they_are_out() -> None:
    tally = Tally()
    assert await tally.wait()  # nothing held
    tally.add(2)
    first = asyncio.ensure_future(tally.wait())
    await asyncio.sleep(0)  # it waits for the two lines announced so far
    tally.add(1)
    second = asyncio.ensure_future(tally.wait())
    await asyncio.sleep(0)
    tally.done(1, ok=True)
    await asyncio.sleep(0)
    assert not first.done()
    tally.done(1, ok=False)
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert first.done() and first.result() is False and not second.done()
    tally.done(1, ok=True)
    assert await second is True  # a later line out: its own position is confirmed


@pytest.mark.asyncio
async def test_the_coalescer_confirms_after_its_flush() -> None:
    inner, clock = Lines(), ManualClock()
    outbox = Coalescer(inner, interval=0.3, clock=clock)
    await outbox.announce(table=TABLE, text="ann brings in 1")
    assert await asyncio.wait_for(outbox.delivered(table=TABLE), 2) is True  # the first line goes at once
    await outbox.announce(table=TABLE, text="ann calls 2")  # the next waits for the interval
    waiting = asyncio.ensure_future(outbox.delivered(table=TABLE))
    await clock.advance(0.05)
    for _ in range(10):  # what can run, runs: time stands still
        await asyncio.sleep(0)
    assert not waiting.done() and inner.lines == ["ann brings in 1"]
    await clock.advance(0.25)  # the interval is over: the flush goes
    assert await asyncio.wait_for(waiting, 2) is True and inner.lines == ["ann brings in 1", "ann calls 2"]
    assert await outbox.delivered(table=TABLE) is True


class Gated(Lines):
    """A messenger holding its lines until let go; counts the confirmations it is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.asked = 0

    async def delivered(self, *, table: TableAddress) -> bool:
        self.asked += 1
        await self.gate.wait()
        return True


@pytest.mark.asyncio
async def test_a_busy_table_has_one_confirmation_in_flight_and_the_next_covers_the_rest(tmp_path: Path) -> None:
    store = await open_sqlite(str(tmp_path / "t.db"), schema=MIGRATIONS)
    try:
        async with store.atomic() as tx:
            table_id = await tx.create_table(platform="console", community="local", channel="main", creator="ann",
                                             stakes=Stakes(), timer=60, now=0.0)
            setup = HandSetup(hand_no=1, stakes=Stakes(), players=[Player(1, "ann", "ann", 100)], deck=[])
            first = await tx.begin_hand(table_id=table_id, setup=setup, now=0.0)
            second = await tx.begin_hand(table_id=table_id, setup=replace(setup, hand_no=2), now=0.0)
        messenger = Gated()
        deliveries = Deliveries(store=store, messenger=messenger, every=0.0)
        deliveries.track(table=TABLE, hand_id=first, events=3, final=False)
        await until(lambda: messenger.asked == 1, what="the first confirmation to wait for the outbox")
        for events in (4, 5, 6):  # an action each, while the first confirmation waits for the outbox
            deliveries.track(table=TABLE, hand_id=first, events=events, final=False)
        deliveries.track(table=TABLE, hand_id=first, events=7, final=True)
        deliveries.track(table=TABLE, hand_id=second, events=2, final=False)
        await asyncio.sleep(0.01)  # nothing is to happen: no second confirmation while the first waits
        assert messenger.asked == 1
        messenger.gate.set()
        await deliveries.close()
        assert messenger.asked == 2  # one more for everything tracked meanwhile, both hands
        rows = await store.fetch("SELECT id, announced FROM hands ORDER BY id")
        assert [(r["id"], r["announced"]) for r in rows] == [(first, None), (second, 2)]
    finally:
        await store.close()


async def crash_after(db: Path, lines: list[str], clock: ManualClock) -> None:
    """Open the bot with an outbox that never flushes, play ``lines`` ('user: text'), and drop it unclosed."""
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    held = Coalescer(Lines(), interval=10_000)
    bot = build_bot(SETTINGS, store=store, messenger=held, clock=clock, rng=random.Random(3))
    await bot.start()
    for line in lines:
        user, _, text = line.partition(": ")
        reply = await bot.handle(Inbound(platform="console", community="local", channel="main", user=user,
                                         name=user, text=text))
        assert reply.ok, (line, reply.text)
    bot.deliveries.abandon()  # a SIGKILL: nothing more runs
    await store.close()


def acted(t: ConsoleTable) -> str:
    hand = t.runtime.hand
    assert hand is not None and hand.actor is not None
    return str(t.runtime.setup.players[hand.actor].user)


async def deal(t: ConsoleTable, players: tuple[str, ...]) -> str:
    """Seat the players, deal, and bring in; who brought in."""
    await t.say(players[0], "new")
    for user in players:
        await t.say(user, "join 100")
    await t.start(players[0])
    first = acted(t)
    await t.say(first, "bring-in")
    return first


@pytest.mark.asyncio
async def test_lines_held_at_a_crash_are_said_after_the_restart(tmp_path: Path) -> None:
    db, clock = tmp_path / "t.db", ManualClock()
    async with ConsoleTable(db, clock=clock) as t:
        await deal(t, ("ann", "bob", "cat"))
        second = acted(t)
    # the next action is committed, but its line dies in the outbox
    await crash_after(db, [f"{second}: call"], clock)
    async with ConsoleTable(db, clock=clock) as t:
        said = [ln for ln in t.out if ln.startswith("[table]")]
        assert HEADER in said
        assert said[said.index(HEADER) + 1].startswith(f"[table] {second} calls"), said
        assert len(t.runtime.hand.actions) == 2  # applied once
    async with ConsoleTable(db, clock=clock) as t:  # said once: the restart after that says nothing again
        assert HEADER not in t.out and not any(" calls" in ln for ln in t.out)


@pytest.mark.asyncio
async def test_the_showdown_held_at_a_crash_is_said_after_the_restart(tmp_path: Path) -> None:
    db, clock = tmp_path / "t.db", ManualClock()
    async with ConsoleTable(db, clock=clock) as t:
        first = await deal(t, ("ann", "bob"))
        last = acted(t)
    # the last decision ends the hand (a fold): committed and finished, its lines held and lost
    await crash_after(db, [f"{last}: fold"], clock)
    async with ConsoleTable(db, clock=clock) as t:
        said = [ln for ln in t.out if ln.startswith("[table]")]
        assert HEADER in said, said
        after = said[said.index(HEADER) + 1:]
        assert after[0] == f"[table] {last} folds" and any(f"{first} wins" in ln or "Pot" in ln for ln in after)
    async with ConsoleTable(db, clock=clock) as t:
        assert HEADER not in t.out
        rows = await t.store.fetch("SELECT COUNT(*) FROM hands WHERE announced IS NOT NULL")
    assert rows[0][0] == 0  # the hand's lines are all out

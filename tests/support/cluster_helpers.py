"""Two StudBot instances on one database, and a single-process reference run to compare them with."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from adapters.console.chat import ConsoleMessenger
from bot.app import StudBot
from bot.bootstrap import build_bot
from bot.core.clock import ManualClock
from bot.core.config import Settings
from bot.core.ports import Inbound, Reply
from bot.store import Store

START = 1_800_000_000.0
SEED = 7
KEY = "console:main"
SETTINGS = replace(Settings(), bot_delay=0.0, next_hand_delay=5.0, turn_timer=60, starting_balance=1000,
                   lease_seconds=6.0, time_bank=0)
HUMANS = ("ann", "bob", "cat")
SETUP = [("ann", "new"), ("ann", "join 300"), ("bob", "join 300"), ("cat", "join 300"), ("ann", "addbot Robo"),
         ("ann", "start")]


def msg(user: str, text: str, channel: str = "main") -> Inbound:
    return Inbound(platform="console", community="local", channel=channel, user=user, name=user, text=text)


@dataclass
class Instance:
    bot: StudBot
    store: Store
    lines: list[str]


Opener = Callable[[], Awaitable[Store]]


async def open_instance(opener: Opener, *, clock: ManualClock, instance: str | None, seed: int = SEED,
                        settings: Settings = SETTINGS) -> Instance:
    """A bot with a Store of its own (its own connections) on the database ``opener`` opens."""
    store = await opener()
    lines: list[str] = []
    bot = build_bot(replace(settings, instance=instance), store=store, messenger=ConsoleMessenger(lines.append),
                    clock=clock, rng=random.Random(seed))
    await bot.start()
    return Instance(bot=bot, store=store, lines=lines)


async def close(*instances: Instance) -> None:
    for inst in instances:
        await inst.bot.close()
    for inst in instances:
        await inst.store.close()


Step = tuple[str | None, str]
"""(user, command), or (None, seconds to wait)."""


async def reference_run(opener: Opener, *, hands: int, policy_seed: int = 11) -> tuple[list[Step], Stored]:
    """One process plays ``hands`` hands: the steps it was fed (to feed the cluster the same) and what it stored."""
    clock = ManualClock(start=START)
    ref = await open_instance(opener, clock=clock, instance=None)
    steps: list[Step] = list(SETUP)
    for user, text in SETUP:
        reply = await ref.bot.handle(msg(user, text))
        assert reply.ok, reply
        await clock.settle()
    policy = random.Random(policy_seed)
    while True:
        rt = ref.bot.tables[KEY]
        hand = rt.hand
        if hand is None or hand.is_over:
            if rt.table.hand_no >= hands:
                break
            steps.append((None, str(SETTINGS.next_hand_delay)))
            await clock.advance(SETTINGS.next_hand_delay)
            continue
        assert hand.actor is not None and rt.setup is not None
        user = rt.setup.players[hand.actor].user
        assert user in HUMANS, user  # house bots act on their timers (settled at once)
        legal = list(hand.legal_actions())
        weights = [0.15 if a.value == "fold" else 0.5 if a.value in ("raise", "bet", "complete") else 1.0
                   for a in legal]
        text = f"{policy.choices(legal, weights)[0].value} @{rt.turn}"
        steps.append((user, text))
        reply = await ref.bot.handle(msg(user, text))
        assert reply.ok, (text, reply)
        await clock.settle()
    result = await stored(ref.store)
    await close(ref)
    return steps, result


Stored = tuple[list[tuple[int, str, str]], list[tuple[int, int, str, int, int]]]


async def stored(store: Store) -> Stored:
    """(hand_no, status, hand_file) of every hand; (hand_no, seq, action, seat, by_timeout) of every action."""
    hands = [(int(r[0]), str(r[1]), str(r[2])) for r in
             await store.fetch("SELECT hand_no, status, hand_file FROM hands ORDER BY hand_no")]
    actions = [(int(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4])) for r in await store.fetch(
        "SELECT h.hand_no, a.seq, a.action, a.seat_no, a.by_timeout FROM actions a JOIN hands h "
        "ON h.id = a.hand_id ORDER BY h.hand_no, a.seq")]
    return hands, actions


async def feed(steps: list[Step], a: Instance, b: Instance, *, clock: ManualClock, both: bool) -> list[Reply]:
    """The steps to two instances: alternately (``both`` False) or each to both at once."""
    accepted: list[Reply] = []
    for i, (user, text) in enumerate(steps):
        if user is None:
            await clock.advance(float(text))
            continue
        if both:
            replies = await asyncio.gather(a.bot.handle(msg(user, text)), b.bot.handle(msg(user, text)))
            ok = [r for r in replies if r.ok]
            assert len(ok) == 1, (user, text, replies)
            accepted.extend(ok)
        else:
            reply = await (a if i % 2 == 0 else b).bot.handle(msg(user, text))
            assert reply.ok, (user, text, reply)
            accepted.append(reply)
        await clock.settle()
    return accepted

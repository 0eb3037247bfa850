"""bot/platform/updates.py: an update id claimed once across stores on one database; retries, dead workers, pruning.

On each backend (``opener``: a SQLite file, or a fresh PostgreSQL database), with two stores on
the one database standing for two workers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
import pytest_asyncio
from cluster_helpers import KEY, START, close, msg, open_instance
from store_fixtures import Opener, opener

from bot.core.clock import ManualClock
from bot.platform.updates import CLAIM_TTL, PRUNE_EVERY, RETENTION, Claim, UpdateLog
from bot.store import Store

pytestmark = pytest.mark.asyncio
__all__ = ["opener"]  # the fixture, used by name


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def stores(opener: Opener) -> AsyncIterator[tuple[Store, Store]]:
    """Two stores on one database: two workers."""
    first = await opener()
    second = await opener()
    yield first, second
    await first.close()
    await second.close()


async def test_an_update_is_claimed_once_and_its_retries_are_told_apart(stores: tuple[Store, Store]) -> None:
    clock = Clock()
    a, b = (UpdateLog(s, platform="telegram", clock=clock) for s in stores)
    assert await a.claim(7) is Claim.NEW
    assert await b.claim(7) is Claim.BUSY  # the other worker is applying it
    assert not await b.wait_done(7, timeout=0.1)
    waiting = asyncio.create_task(b.wait_done(7, timeout=5))
    await a.done(7)
    assert await waiting
    assert await b.claim(7) is Claim.DONE and await a.claim(7) is Claim.DONE
    other = UpdateLog(stores[1], platform="discord", clock=clock)
    assert await other.claim(7) is Claim.NEW  # ids are per platform
    assert [c.apply for c in Claim] == [True, True, False, False]


async def test_concurrent_claims_of_one_update_have_one_winner(stores: tuple[Store, Store]) -> None:
    clock = Clock()
    logs = [UpdateLog(s, platform="telegram", clock=clock) for s in stores for _ in range(3)]
    claims = await asyncio.gather(*(log.claim(100 + i % 2) for i, log in enumerate(logs * 2)))
    for update in (100, 101):
        mine = [c for i, c in enumerate(claims) if 100 + i % 2 == update]
        assert mine.count(Claim.NEW) == 1 and mine.count(Claim.BUSY) == len(mine) - 1


async def test_a_dead_workers_claim_is_taken_over_after_the_ttl(stores: tuple[Store, Store]) -> None:
    clock = Clock()
    a, b = (UpdateLog(s, platform="telegram", clock=clock) for s in stores)
    assert await a.claim(9) is Claim.NEW  # ... and the worker dies before it is done
    clock.now += CLAIM_TTL - 1
    assert await b.claim(9) is Claim.BUSY
    clock.now += 2
    assert await b.claim(9) is Claim.RETAKEN
    assert await a.claim(9) is Claim.BUSY  # taken over just now: busy again
    await b.done(9)
    clock.now += CLAIM_TTL * 2
    assert await a.claim(9) is Claim.DONE  # a done update is never taken over


async def test_old_update_ids_are_pruned(stores: tuple[Store, Store]) -> None:
    clock = Clock()
    log = UpdateLog(stores[0], platform="telegram", clock=clock)
    for update in range(5):
        await log.claim(update)
        await log.done(update)
    clock.now += RETENTION + 1
    assert await log.claim(5) is Claim.NEW  # pruned at this claim: the last was over PRUNE_EVERY ago
    rows = await stores[0].fetch("SELECT update_id FROM platform_updates ORDER BY update_id")
    assert [int(r[0]) for r in rows] == [5]
    clock.now += PRUNE_EVERY / 2
    assert await log.claim(6) is Claim.NEW
    assert len(await stores[0].fetch("SELECT update_id FROM platform_updates")) == 2


async def test_item14_an_action_marks_its_update_done_in_its_own_transaction_and_a_done_update_never_acts(
        opener: Opener) -> None:
    clock = ManualClock(start=START)
    inst = await open_instance(opener, clock=clock, instance=None)
    for user, text in (("ann", "new"), ("ann", "join 300"), ("bob", "join 300"), ("ann", "start")):
        assert (await inst.bot.handle(msg(user, text))).ok
        await clock.settle()
    await clock.advance(inst.bot.settings.next_hand_delay)  # the first deal, after the commitment's pause
    log = UpdateLog(inst.store, platform="console")

    def turn() -> tuple[str, str, int]:
        rt = inst.bot.tables[KEY]
        assert rt.hand is not None and rt.hand.actor is not None and rt.setup is not None
        action = next(a.value for a in rt.hand.legal_actions() if a.value != "fold")
        return rt.setup.players[rt.hand.actor].user, action, len(rt.hand.actions)

    user, action, seq = turn()
    assert await log.claim(41) is Claim.NEW
    assert (await inst.bot.handle(replace(msg(user, action), update_id=41))).ok
    assert await log.is_done(41)  # with the action, before the webhook marks it done after handling it
    assert len(inst.bot.tables[KEY].hand.actions) == seq + 1  # type: ignore[union-attr]

    # an update an earlier delivery applied (its done mark stored with its action): refused, nothing stored
    user, action, seq = turn()
    assert await log.claim(42) is Claim.NEW
    await log.done(42)
    reply = await inst.bot.handle(replace(msg(user, action), update_id=42))
    assert not reply.ok and reply.code == "applied_already" and "already" in reply.text
    assert turn() == (user, action, seq)
    rows = await inst.store.fetch("SELECT COUNT(*) FROM actions")
    assert int(rows[0][0]) == seq

    # an update nobody claimed (long polling): acted on, nothing marked
    assert (await inst.bot.handle(replace(msg(user, action), update_id=43))).ok
    assert await inst.store.fetch("SELECT 1 FROM platform_updates WHERE update_id = 43") == []
    await close(inst)


async def test_item14_a_live_workers_renewed_claim_is_not_taken_over_and_a_waiting_retry_settles(
        stores: tuple[Store, Store]) -> None:
    clock = Clock()
    a, b = (UpdateLog(s, platform="telegram", clock=clock, ttl=2.0) for s in stores)
    assert await a.claim(5) is Claim.NEW
    for _ in range(3):  # a works on it for 4.5 s, renewing its claim every 1.5 s
        clock.now += 1.5
        await a.keep({5, 6})
        assert await b.claim(5) is Claim.BUSY
    clock.now += 2.5  # ... then dies: within its ttl the retry is applied elsewhere
    assert await b.settle(5, timeout=1) is Claim.RETAKEN
    assert await a.settle(5, timeout=0.2) is Claim.BUSY  # b applies it now
    await b.done(5)
    assert await a.settle(5, timeout=1) is Claim.DONE


async def test_item14_an_addbot_marks_its_update_done_with_the_bots_seat_and_a_retry_seats_no_second_bot(
        opener: Opener) -> None:
    """A typed 'addbot' carries no turn: a retry of it after its worker died (the bot seated and committed,
    the update not yet marked done by the webhook) used to seat a second house bot."""
    clock = ManualClock(start=START)
    inst = await open_instance(opener, clock=clock, instance=None)
    for user, text in (("ann", "new"), ("ann", "join 300")):
        assert (await inst.bot.handle(msg(user, text))).ok
    log = UpdateLog(inst.store, platform="console")
    assert await log.claim(51) is Claim.NEW
    assert (await inst.bot.handle(replace(msg("ann", "addbot"), update_id=51))).ok
    assert await log.is_done(51)  # with the bot's seat, before the webhook marks it done after handling it
    reply = await inst.bot.handle(replace(msg("ann", "addbot"), update_id=51))  # the platform's retry
    assert not reply.ok and reply.code == "applied_already", reply.text
    assert sorted(s.is_bot for s in inst.bot.tables[KEY].table.seats.values()) == [False, True]
    rows = await inst.store.fetch("SELECT COUNT(*) FROM seats WHERE is_bot = 1")
    assert int(rows[0][0]) == 1
    assert (await inst.bot.handle(replace(msg("ann", "addbot"), update_id=52))).ok  # a new update: a second bot
    assert sum(s.is_bot for s in inst.bot.tables[KEY].table.seats.values()) == 2
    await close(inst)


async def test_item14_a_sit_and_gos_addbot_registers_one_bot_however_often_its_update_comes(opener: Opener) -> None:
    clock = ManualClock(start=START)
    inst = await open_instance(opener, clock=clock, instance=None)
    for user, text in (("ann", "tourney new seats=4"), ("ann", "register")):
        assert (await inst.bot.handle(msg(user, text))).ok, text
    log = UpdateLog(inst.store, platform="console")
    assert await log.claim(61) is Claim.NEW
    assert (await inst.bot.handle(replace(msg("ann", "addbot"), update_id=61))).ok
    assert await log.is_done(61)
    reply = await inst.bot.handle(replace(msg("ann", "addbot"), update_id=61))
    assert not reply.ok and reply.code == "applied_already", reply.text
    rows = await inst.store.fetch("SELECT COUNT(*) FROM tourney_players")
    assert int(rows[0][0]) == 2  # ann and one bot
    await close(inst)

"""The previous release's database, on each backend, opens with the code of today: a hand in progress.

A database at ``RELEASED_SCHEMA`` (``MIGRATIONS[:RELEASED_SCHEMA]``) holding the rows the released
bot left (tests/support/released_schema.py: a settled hand and one in progress) is opened with every
migration since; the bot restores the table and the hand is played to its end, chips conserved and
the audit (replaying every hand) passing. When migrations are appended this still starts from the
release; on a release, RELEASED_SCHEMA and the data file move together.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from released_schema import DATA, load
from store_fixtures import Opener, opener
from test_console import Table

from bot.bootstrap import AUDIT_CHECKS
from bot.chips import wallets
from bot.chips.audit import audit
from bot.chips.ledger import HOUSE, Transfer, seat_account, wallet_account
from bot.core.clock import ManualClock
from bot.schema import MIGRATIONS, RELEASED_SCHEMA

__all__ = ["opener"]  # the fixture, used by name


def test_the_released_schema_is_a_version_of_today() -> None:
    assert 1 <= RELEASED_SCHEMA <= len(MIGRATIONS)
    assert DATA.is_file()


@pytest.mark.asyncio
async def test_the_released_database_migrates_with_a_hand_in_progress(opener: Opener) -> None:
    store = await opener(schema=MIGRATIONS[:RELEASED_SCHEMA])
    try:
        assert store.schema_version == RELEASED_SCHEMA
        await load(store)
        chips = await wallets.chip_total(store)
        playing = await store.fetch("SELECT hand_no FROM hands WHERE status = 'playing'")
        assert [tuple(r) for r in playing] == [(2,)]
    finally:
        await store.close()
    clock = ManualClock()  # the released database's times are of this clock
    async with Table(Path("unused"), clock=clock, opener=opener) as t:
        assert t.store.schema_version == len(MIGRATIONS)
        hand = t.runtime.hand
        assert hand is not None and t.runtime.table.hand_no == 2 and len(hand.actions) == 1  # the bring-in
        assert await wallets.chip_total(t.store) == chips
        await t.call_down()
        assert t.runtime.hand is None or t.runtime.hand.is_over
        await t.wait(6)  # and the next hand deals on the new schema
        assert t.runtime.table.hand_no == 3
        await t.call_down()
        assert await wallets.chip_total(t.store) == chips
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.replayed >= 3, report.summary()
        assert [tuple(r) for r in await t.store.fetch("SELECT COUNT(DISTINCT hand_id) FROM hand_players")] == [(3,)]
    async with Table(Path("unused"), clock=clock, opener=opener) as t:  # and it reopens at the latest version
        assert t.store.schema_version == len(MIGRATIONS) and t.runtime.table.hand_no == 3


@pytest.mark.asyncio
async def test_item8_the_released_house_bots_wallets_move_into_the_house_bankroll(opener: Opener) -> None:
    """The released bot gave every house bot a wallet of 1,000 chips: Robo sat down with 200 of its
    own during hand #2 (800 left in its wallet), Farm was kicked with its 200 back. Today's schema
    closes both wallets into the community's bankroll: the audit passes, the chips are the same, ``top``
    lists the players alone, and Robo's kick now cashes out into the bankroll."""
    store = await opener(schema=MIGRATIONS[:RELEASED_SCHEMA])
    robo, farm = wallet_account("console:local", "bot:robo"), wallet_account("console:local", "bot:farm")
    try:
        await load(store)
        async with store.atomic() as tx:  # what the released addbot and kick wrote
            await tx.execute("INSERT INTO wallets (community, user_id, name, balance) VALUES "
                             "('console:local', 'bot:robo', 'Robo', 800), ('console:local', 'bot:farm', 'Farm', 1000)")
            await tx.execute("INSERT INTO seats (table_id, seat_no, user_id, name, stack, is_bot) "
                             "VALUES (1, 2, 'bot:robo', 'Robo', 200, 1)")
            robo_seat, farm_seat = seat_account(1, "bot:robo"), seat_account(1, "bot:farm")
            await wallets.post(tx, [Transfer("grant", HOUSE, robo, 1000), Transfer("buy-in", robo, robo_seat, 200),
                           Transfer("grant", HOUSE, farm, 1000), Transfer("buy-in", farm, farm_seat, 200),
                           Transfer("kick", farm_seat, farm, 200)], now=1_700_000_006.0)
        chips = await wallets.chip_total(store)
        assert chips == 4000
    finally:
        await store.close()
    async with Table(Path("unused"), clock=ManualClock(), opener=opener) as t:
        assert t.store.schema_version == len(MIGRATIONS)
        assert [r[0] for r in await t.store.fetch("SELECT user_id FROM wallets ORDER BY user_id")] == ["ann", "bob"]
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.issued == 4000 and report.bankroll == 1800, report.summary()
        assert await wallets.chip_total(t.store) == chips
        assert (await t.say("ann", "top")).splitlines() == ["[dm ann] 1. ann 1000", "[dm ann] 2. bob 1000"]
        assert "Robo" in await t.say("ann", "kick Robo")  # not dealt into hand #2: removed at once
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 4000 and report.bankroll == 2000, report.summary()
        await t.call_down()
        assert (await audit(t.store, checks=AUDIT_CHECKS, replay=True)).ok

"""Rebuys, host approvals and sitting a player out (issue 22), as chat transcripts through the console:
every chip of a rebuy through the ledger, the refusals, approvals by the host alone, and what waits
(a rebuy for the hand's end, a request for the host) kept across a restart."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_console import Table

from bot.bootstrap import AUDIT_CHECKS
from bot.chips.audit import audit
from bot.chips.ledger import seat_account, wallet_account
from bot.core.clock import ManualClock

pytestmark = pytest.mark.usefixtures("store_backend")
COMMUNITY = "console:local"
BROKE_SEED = 3
"""A deck on which bob, all in with 10 chips against ann's bets, loses."""


async def _two_players(t: Table) -> None:
    await t.say("ann", "new")
    await t.say("ann", "join 100")
    await t.say("bob", "join 100")


async def _rebuys(t: Table, user: str) -> list[int]:
    """The chips of every 'rebuy' transfer from the user's wallet to their seat, in order."""
    rows = await t.store.fetch(
        "SELECT e.amount FROM ledger_transfers x JOIN ledger_entries e ON e.transfer_id = x.id "
        "WHERE x.kind = 'rebuy' AND e.account = ? ORDER BY x.id", (seat_account(t.runtime.table.id, user),))
    sources = await t.store.fetch(
        "SELECT e.account FROM ledger_transfers x JOIN ledger_entries e ON e.transfer_id = x.id "
        "WHERE x.kind = 'rebuy' AND e.amount < 0")
    assert {r["account"] for r in sources} <= {wallet_account(COMMUNITY, u) for u in ("ann", "bob", "cat")}
    return [int(r["amount"]) for r in rows]


async def _stack(t: Table, user: str) -> int:
    rows = await t.store.fetch("SELECT stack FROM seats WHERE user_id = ?", (user,))
    return int(rows[0]["stack"])


async def _balance(t: Table, user: str) -> int:
    rows = await t.store.fetch("SELECT balance FROM wallets WHERE user_id = ?", (user,))
    return int(rows[0]["balance"])


@pytest.mark.asyncio
async def test_a_rebuy_during_a_hand_applies_from_the_next_hand_through_the_ledger(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.start()
        out = await t.say("bob", "rebuy 150")
        assert "bob rebuys 150 chips from the next hand." in out
        assert "[dm bob] Done: 150 chips will be added when this hand ends." in out
        assert await _rebuys(t, "bob") == [] and await _stack(t, "bob") == 100  # nothing moved yet
        assert await _balance(t, "bob") == 900
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok
        await t.call_down()
        hand = t.runtime.hand
        assert hand is not None and hand.is_over
        end = hand.stacks[t.runtime.engine_seat("bob") or 0]
        assert "[table] bob's rebuy of 150 chips is added." in t.out
        assert await _rebuys(t, "bob") == [150]
        assert await _stack(t, "bob") == end + 150 and await _balance(t, "bob") == 750
        assert (await audit(t.store, checks=AUDIT_CHECKS, replay=True)).ok
        out = await t.wait(5)  # the next hand deals bob in with the chips
        assert "Hand #2" in out
        assert t.runtime.setup is not None
        assert [p.stack for p in t.runtime.setup.players if p.user == "bob"] == [end + 150]


@pytest.mark.asyncio
async def test_a_rebuy_between_hands_applies_at_once_and_tops_up_without_an_amount(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        out = await t.say("ann", "rebuy")  # back to the usual buy-in: 20 big bets, 200 chips
        assert "ann rebuys 100 chips and now has 200 chips." in out
        assert "[dm ann] Done: 100 chips added to your stack." in out
        assert await _rebuys(t, "ann") == [100] and await _stack(t, "ann") == 200 and await _balance(t, "ann") == 800
        assert "You have 200 chips here already" in await t.say("ann", "rebuy")
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_rebuys_past_the_maximum_or_the_wallet_or_unseated_are_refused(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        out = await t.say("bob", "rebuy 901")  # the table's maximum buy-in: 100 big bets, 1000 chips
        assert "over the table's maximum buy-in of 1000 chips: you can add at most 900 chips" in out
        assert "You are not seated" in await t.say("cat", "rebuy 10")
        assert "usage: rebuy" in (await t.say("ann", "rebuy 0")).lower()
        await t.say("ann", "config small=10 big=20")  # the maximum: 2000 chips now
        assert "Your wallet has only 900 chips." in await t.say("ann", "rebuy 901")
        await t.start()
        assert "bob rebuys 600 chips from the next hand." in await t.say("bob", "rebuy 600")
        # the rebuy waiting counts, in the wallet (900 - 600) as at the table (100 + 600 of 2000)
        assert "Your wallet has only 300 chips." in await t.say("bob", "rebuy 301")
        assert "bob rebuys 300 chips from the next hand." in await t.say("bob", "rebuy 300")  # 900 in all
        assert await _stack(t, "bob") == 100 and await _balance(t, "bob") == 900
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_approvals_by_anyone_but_the_host_are_refused(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        assert "Only the table's creator or an admin" in await t.say("bob", "config approve=on")
        assert "joining and rebuying need the host's approval" in await t.say("ann", "config approve=on")
        out = await t.say("cat", "join 100")
        assert "cat asks to sit down with 100 chips. Host: approve cat or deny cat." in out
        assert "[dm cat] Asked: the table's host has to approve it." in out
        assert "Only the table's creator or an admin" in await t.say("bob", "approve cat")
        assert "Only the table's creator or an admin" in await t.say("cat", "approve cat")
        assert "Only the table's creator or an admin" in await t.say("bob", "deny #1")
        assert "Only the table's creator or an admin" in await t.say("bob", "sitout ann")
        assert t.runtime.table.seat_of("cat") is None
        assert "already waiting" in await t.say("cat", "join")


@pytest.mark.asyncio
async def test_approve_and_deny_tell_the_requester_privately(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("ann", "config approve=on")
        await t.say("cat", "join 100")
        out = await t.say("ann", "deny cat")
        assert "[dm cat] The host denied your request to sit down." in out and "[dm ann] Denied: cat is told." in out
        assert t.runtime.table.seat_of("cat") is None
        assert "cat's request was denied already." in await t.say("ann", "approve cat")
        await t.say("cat", "join 100")
        out = await t.say("ann", "approve cat")
        assert "cat sits down with 100 chips." in out and "[dm cat] You are seated" in out
        assert "[dm ann] Approved: cat is told." in out
        assert "cat's request was approved already." in await t.say("ann", "deny cat")
        assert "Nobody called dan" in await t.say("ann", "approve dan")
        # a rebuy asks too; the host's own does not; a house bot needs no approval
        out = await t.say("bob", "rebuy 50")
        assert "bob asks to rebuy 50 chips." in out and await _stack(t, "bob") == 100
        assert "ann rebuys 50 chips" in await t.say("ann", "rebuy 50")
        out = await t.say("ann", "approve bob")
        assert "bob rebuys 50 chips and now has 150 chips." in out
        assert "[dm bob] The host approved your rebuy: 50 chips added to your stack." in out
        assert "Bot" in await t.say("ann", "addbot")
        # a request whose requester left is answered so
        await t.say("cat", "rebuy 10")
        await t.say("cat", "leave")
        assert "no longer open" in await t.say("ann", "approve cat")
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.asyncio
async def test_a_pending_request_and_a_pending_rebuy_survive_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    async with Table(tmp_path / "t.db", clock=clock) as t:
        await _two_players(t)
        await t.say("ann", "config approve=on")
        await t.say("cat", "join 100")
        await t.start()
        await t.say("ann", "rebuy 70")  # the host's own: waits for the hand to end
        await t.say("bob", "rebuy 40")  # a request
    async with Table(tmp_path / "t.db", clock=clock) as t:  # a new process on the same database
        assert t.runtime.playing
        out = await t.say("ann", "approve bob")
        assert "bob rebuys 40 chips from the next hand." in out
        assert "[dm bob] The host approved your rebuy: 40 chips will be added when this hand ends." in out
        out = await t.say("ann", "approve cat")
        assert "cat sits down with 100 chips." in out
        assert "dan asks to sit down" in await t.say("dan", "join")  # the mode survived: dan asks too
        assert t.runtime.table.seat_of("dan") is None
    async with Table(tmp_path / "t.db", clock=clock) as t:  # and again, with both rebuys waiting
        hand = t.runtime.hand
        assert hand is not None
        await t.call_down()
        stacks = {p.user: hand.stacks[i] for i, p in enumerate(t.runtime.setup.players)}  # type: ignore[union-attr]
        assert await _rebuys(t, "ann") == [70] and await _rebuys(t, "bob") == [40]
        assert await _stack(t, "ann") == stacks["ann"] + 70 and await _stack(t, "bob") == stacks["bob"] + 40
        assert not await t.store.fetch("SELECT 1 FROM rebuys")
        assert (await audit(t.store, checks=AUDIT_CHECKS, replay=True)).ok


@pytest.mark.asyncio
async def test_the_host_sits_a_player_out_until_they_say_back(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _two_players(t)
        await t.say("cat", "join 100")
        out = await t.say("ann", "sitout bob")
        assert "The host puts bob out from the next hand, until they say back." in out
        assert "[dm bob] The host put you out" in out and "[dm ann] Done: bob sits out" in out
        assert "bob is already sitting out." in await t.say("ann", "sitout bob")
        assert "Nobody called 'zed'" in await t.say("ann", "sitout zed")
        out = await t.start()
        assert "Hand #1: ann, cat." in out
        await t.call_down()
        assert "bob is back." in await t.say("bob", "back")
        assert "Hand #2: ann, bob, cat." in await t.wait(5)


async def _ann_presses(t: Table) -> None:
    """Play the hand out, ann betting and raising what she can, everyone else calling."""
    for _ in range(80):
        hand = t.runtime.hand
        if hand is None or hand.is_over:
            return
        player, legal, _ = t.to_act()
        words = ("complete", "bet", "raise", "call", "check") if player == "ann" else \
            ("bring-in", "call", "check")
        await t.say(player, next(w for w in words if w in legal))
    raise AssertionError("the hand does not end")


@pytest.mark.asyncio
async def test_a_player_who_goes_broke_with_a_rebuy_waiting_keeps_the_seat(tmp_path: Path) -> None:
    """Broke at the hand's end (all in, and lost): the rebuy waiting keeps them seated, with its chips."""
    async with Table(tmp_path / "t.db", seed=BROKE_SEED) as t:
        await t.say("ann", "new")
        await t.say("ann", "join 500")
        await t.say("bob", "join 10")
        await t.start()
        await t.say("bob", "rebuy 100")
        await _ann_presses(t)
        hand = t.runtime.hand
        assert hand is not None and hand.stacks[t.runtime.engine_seat("bob") or 0] == 0  # bob lost it all
        assert "[table] bob leaves the table, out of chips." not in t.out
        seat = t.runtime.table.seat_of("bob")
        assert seat is not None and seat.stack == 100 and await _stack(t, "bob") == 100
        assert await _rebuys(t, "bob") == [100]
        assert (await audit(t.store, checks=AUDIT_CHECKS, replay=True)).ok
        assert "Hand #2: ann, bob." in await t.wait(5)

"""The night's ledger and settle-up at a cash table (bot/table/session.py, bot/table/settling.py), as a chat
transcript through the console: the ledger is the chip ledger's, a settle-up settles it, payments are marked
by their payer or payee, and a restart shows the same."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from test_console import SETTINGS, Table

from bot.chips.settle import settle
from bot.table.session import HOUSE_BOTS, read_ledger
from bot.text.render import chips

pytestmark = [pytest.mark.usefixtures("store_backend"), pytest.mark.asyncio]
START = SETTINGS.starting_balance


async def _night(t: Table) -> None:
    """Four at the table (ann, bob, cat and a house bot), a hand; cat leaves and bob is kicked between
    hands; dan sits down; a second hand."""
    await t.say("ann", "new")
    for user in ("ann", "bob", "cat"):
        await t.say(user, "join")
    await t.say("ann", "addbot")
    await t.start()
    await t.call_down()
    await t.say("cat", "leave")
    await t.say("ann", "kick bob")
    await t.say("dan", "join 150")
    await t.wait(SETTINGS.next_hand_delay)
    await t.call_down()


async def _chip_ledger(t: Table, table_id: int) -> dict[str, dict[str, int]]:
    """Per user, from the chip ledger directly: chips bought in, cashed out, and the seat's balance."""
    out: dict[str, dict[str, int]] = {}
    prefix = f"seat:{table_id}:"
    for r in await t.store.fetch("SELECT e.account AS account, t.kind AS kind, e.amount AS amount "
                                 "FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id "
                                 "WHERE e.account LIKE ?", (prefix + "%",)):
        user = str(r["account"])[len(prefix):]
        row = out.setdefault(user, {"bought": 0, "cashed": 0, "balance": 0})
        amount = int(r["amount"])
        if r["kind"] in ("buy-in", "rebuy"):
            row["bought"] += amount
        if r["kind"] in ("cash-out", "kick", "closed"):
            row["cashed"] -= amount
        row["balance"] += amount
    return out


async def _wallets(t: Table) -> dict[str, int]:
    return {str(r["user_id"]): int(r["balance"]) for r in await t.store.fetch("SELECT user_id, balance FROM wallets")}


async def test_the_session_ledger_is_the_chip_ledger_for_each_player(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _night(t)
        table = t.runtime.table
        ledger = await read_ledger(t.store.fetch, table_id=table.id, community=table.community, now=t.clock.now())
        ledgered = await _chip_ledger(t, table.id)
        wallets = await _wallets(t)
        seats = {s.user: s.stack for s in table.seats.values()}
        by_user = {line.user: line for line in ledger.lines}
        assert set(by_user) == {"ann", "bob", "cat", "dan", HOUSE_BOTS}
        for user in ("ann", "bob", "cat", "dan"):
            line = by_user[user]
            assert (line.bought, line.cashed, line.stack) == (ledgered[user]["bought"], ledgered[user]["cashed"],
                                                              ledgered[user]["balance"])
            assert line.stack == seats.get(user, 0)
            assert line.net == wallets[user] + seats.get(user, 0) - START  # what the player's chips say
            assert line.buy_ins == 1
        assert (by_user["bob"].stack, by_user["cat"].stack) == (0, 0) and by_user["bob"].cashed > 0
        bots = [u for u in ledgered if u.startswith("bot:")]
        house = by_user[HOUSE_BOTS]
        assert house.bought == sum(ledgered[u]["bought"] for u in bots) and house.stack == sum(
            ledgered[u]["balance"] for u in bots)
        assert sum(line.net for line in ledger.lines) == 0  # the players' nets: minus what the house bots won
        assert any(line.net for line in ledger.lines)
        out = await t.say("ann", "ledger")
        assert "[dm ann] Session 1 ledger" in out and "house bots" in out
        for user in ("ann", "bob", "cat", "dan"):
            net = by_user[user].net
            shown = f"{net:+d}" if net else "0"
            assert re.search(rf"\[dm ann\] {user} .* {re.escape(shown)}$", out,
                             re.MULTILINE), (user, out)


async def test_stop_posts_the_final_ledger_and_the_fewest_payments_which_a_restart_shows_again(
        tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        await _night(t)
        table = t.runtime.table
        ledger = await read_ledger(t.store.fetch, table_id=table.id, community=table.community, now=t.clock.now())
        nets = ledger.nets()
        out = await t.say("ann", "stop")
        assert "[table] Session 1: final ledger" in out and "[table] Settle-up of session 1:" in out
        expected = settle(nets)
        names = {line.user: line.name for line in ledger.lines} | {HOUSE_BOTS: "house bots"}
        for p in expected:
            pays = "pay" if p.payer == HOUSE_BOTS else "pays"
            assert f"{names[p.payer]} {pays} {names[p.payee]} {chips(p.chips)}" in out
        assert len(expected) <= sum(1 for v in nets.values() if v) - 1
        stored = await t.store.fetch("SELECT payer, payee, chips, paid_by FROM session_payments ORDER BY seq")
        assert [(r["payer"], r["payee"], r["chips"]) for r in stored] == [(p.payer, p.payee, p.chips)
                                                                         for p in expected]
        assert all((r["paid_by"] is not None) == (HOUSE_BOTS in (r["payer"], r["payee"])) for r in stored)
        after_stop = await t.say("ann", "ledger")
    async with Table(db) as t:  # the database reopened: the same settle-up, the same payments open
        assert await t.say("ann", "ledger") == after_stop
        assert "Session 1 ledger" in after_stop


async def _settled(t: Table) -> tuple[str, str, str, str]:
    """ann and bob play a hand (bob calls ann down), ann settles: (payer, payee, chips, the settle-up)."""
    await t.say("ann", "new")
    await t.say("ann", "join")
    await t.say("bob", "join")
    await t.say("cat", "join")
    await t.start()
    await t.call_down()
    out = await t.say("ann", "settle")
    m = re.search(r"\[table\] • (\w+) pays (\w+) (\d+) chips?", out)
    assert m is not None, out
    return m.group(1), m.group(2), chips(int(m.group(3))), out


async def test_paid_by_the_payer_or_payee_only_stale_and_duplicate_answered(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with Table(db) as t:
        payer, payee, amount, out = await _settled(t)
        assert "[dm ann] Session 1 settled; a new session begins." in out
        third = next(u for u in ("ann", "bob", "cat") if u not in (payer, payee))
        assert "Only" in await t.say(third, f"paid {payer} {payee}")
        button = re.search(rf"{payer} paid {payee} \((paid @\d+\.\d+)\)", out)
        assert button is not None, out
        marked = await t.say(payee, button.group(1))  # the settle-up's button
        assert f"[table] {payee} marked paid: {payer} pays {payee} {amount}." in marked
        assert f"✓ {payer} pays {payee} {amount} (paid)" in marked and "edited" in marked
        assert "marked paid already" in await t.say(payer, f"paid {payer} {payee}")  # a duplicate
        assert "marked paid already" in await t.say(payer, button.group(1))  # a stale button
        assert "not in an open settle-up" in await t.say(payer, "paid @999.1")
        assert "No payment" in await t.say(payer, f"paid {payee} {payer}")  # the other way round: none
    async with Table(db) as t:  # marks survive a restart
        shown = await t.say("ann", "ledger")
        assert "Session 2 ledger" in shown
        assert f"✓ {payer} pays {payee} {amount} (paid)" in shown or "All paid" in shown or \
            "Still open" in shown


async def test_a_settle_starts_a_new_session_carrying_the_stacks(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await _settled(t)
        table = t.runtime.table
        ledger = await read_ledger(t.store.fetch, table_id=table.id, community=table.community, now=t.clock.now())
        assert ledger.no == 2 and all(line.net == 0 for line in ledger.lines)
        assert {line.user: line.bought for line in ledger.lines} == {s.user: s.stack for s in table.seats.values()}
        await t.wait(SETTINGS.next_hand_delay)
        await t.call_down()
        ledger = await read_ledger(t.store.fetch, table_id=table.id, community=table.community, now=t.clock.now())
        assert sum(line.net for line in ledger.lines) == 0 and any(line.net for line in ledger.lines)
        assert "Nothing to settle" not in await t.say("ann", "settle")


async def test_settle_is_the_hosts_and_between_hands(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        assert "nobody has bought in" in await t.say("ann", "settle")
        await t.say("ann", "join")
        await t.say("bob", "join")
        assert "creator" in (await t.say("bob", "settle")).lower() or "admin" in await t.say("bob", "settle")
        await t.start()
        assert "between hands" in await t.say("ann", "settle")


async def test_ledger_csv_and_money(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        await t.say("ann", "join")
        await t.say("bob", "join")
        await t.start()
        await t.call_down()
        assert "a chip is worth 0.05 EUR" in await t.say("ann", "config chip_value=0.05 currency=EUR")
        shown = await t.say("bob", "ledger")
        assert "EUR)" in shown
        out = await t.say("bob", "ledger csv")
        path = re.search(r"File saved: (\S+\.csv)", out)
        assert path is not None, out
        rows = list(csv.reader(io.StringIO(Path(path.group(1)).read_text())))
        assert rows[0] == ["player", "player id", "session start", "session end", "buy-ins", "buy-out", "stack", "net"]
        assert {r[0] for r in rows[1:]} == {"ann", "bob"} and sum(int(r[7]) for r in rows[1:]) == 0
        assert "not a whole" not in await t.say("ann", "config chip_value=off")
        assert "EUR" not in await t.say("bob", "ledger")


async def test_the_settle_up_in_the_tables_language(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "new")
        await t.say("ann", "join")
        await t.say("bob", "join")
        await t.start()
        await t.call_down()
        await t.say("ann", "config lang=pl")
        out = await t.say("ann", "stop")
        assert "Rozliczenie sesji 1:" in out and " płaci " in out


async def test_a_sit_and_go_has_no_session_ledger(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db") as t:
        await t.say("ann", "tourney new seats=2")
        assert "sit-and-go has no session ledger" in await t.say("ann", "ledger")
        assert "sit-and-go has no session ledger" in await t.say("ann", "settle")
        assert "No payment 'bob ann' here" in await t.say("ann", "paid bob ann")

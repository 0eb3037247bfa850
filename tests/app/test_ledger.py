"""Every chip accounted for: leaving or sitting down during a hand, the ledger, the audit.

The two transcripts are issue 11's scripts (on decks of ``SEED``), played through the console
chat, with every wallet and seat exact at the end.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from backends import Backend, execute, rows
from store_fixtures import drop_tables_after
from test_console import Table

from bot.bootstrap import AUDIT_CHECKS, audit_file
from bot.chips import wallets as chip_wallets
from bot.chips.audit import audit
from bot.chips.ledger import HOUSE, Transfer, hand_transfers, net_by_account, seat_account, wallet_account
from bot.core.ports import Inbound
from bot.schema import MIGRATIONS
from bot.stats import rows as stats_rows
from bot.store import open_sqlite

# The tests of the store run on both backends (store_backend); the pure ones once.

ROOT = Path(__file__).resolve().parents[2]
SEED = 5
"""The script seed of issue 11's transcripts: decks where ann brings in (and completes), as they need."""
THREE_AT_THE_TABLE = """
    ann: new
    ann: join
    bob: join
    cat: join
    ann: start
    ann: complete
"""
"""Both of issue 11's scripts start so (--seed SEED): ann completes to 5."""


async def _script(t: Table, lines: str) -> list[str]:
    """Play ``user: text`` and ``/sleep N`` lines; the transcript they caused."""
    start = len(t.out)
    for line in lines.strip().splitlines():
        line = line.strip()
        if line.startswith("/sleep"):
            await t.wait(float(line.split()[1]))
        elif line.partition(":")[2].strip() == "start":  # the deck's commitment, then the deal after the pause
            await t.start(line.partition(":")[0].strip())
        else:
            user, _, text = line.partition(":")
            await t.say(user.strip(), text.strip())
    return t.out[start:]


async def _chips(t: Table) -> dict[str, tuple[int, int]]:
    """user -> (wallet, seat stack), from the database."""
    wallets = {r["user_id"]: r["balance"] for r in await t.store.fetch("SELECT user_id, balance FROM wallets")}
    seats = {r["user_id"]: r["stack"] for r in await t.store.fetch("SELECT user_id, stack FROM seats")}
    return {user: (balance, seats.get(user, 0)) for user, balance in sorted(wallets.items())}


def _in_order(transcript: list[str], *expected: str) -> None:
    """Each expected line appears in the transcript, in this order."""
    it = iter(transcript)
    for line in expected:
        assert any(got == line for got in it), f"{line!r} missing or out of order in:\n" + "\n".join(transcript)


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_leaving_after_folding_cashes_out_what_is_left_when_the_hand_ends(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        out = await _script(t, THREE_AT_THE_TABLE + """
            bob: call
            cat: call
            bob: check
            cat: bet
            ann: fold
            ann: leave
            bob: fold
            /sleep 3
        """)
        _in_order(out,
                  "[table] ann completes to 5", "[table] bob calls 5", "[table] cat calls 5",
                  "[table] bob checks", "[table] cat bets 5", "[table] ann folds",
                  "[table] ann leaves after this hand.",
                  "[dm ann] Your chips go back to the wallet when the hand ends.",
                  "[table] bob folds", "[table] 5 chips uncalled back to cat",
                  "[table] Pot 18: cat wins 18, uncontested",
                  "[table] ann leaves the table with 194 chips.")
        assert not any("leaves with 200" in line for line in out)
        # ann put 1 + 5 in the pot: 800 + 194 in her wallet; nothing created, nothing lost.
        assert await _chips(t) == {"ann": (994, 0), "bob": (800, 194), "cat": (800, 212)}
        assert (await t.say("ann", "top")).splitlines() == [
            "[dm ann] 1. cat 1012", "[dm ann] 2. ann 994", "[dm ann] 3. bob 994"]
        assert await chip_wallets.chip_total(t.store) == 3000
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 3000 and report.hands == 1, report.summary()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_a_seat_taken_during_a_hand_starts_with_its_own_buy_in(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        out = await _script(t, THREE_AT_THE_TABLE + """
            bob: call
            cat: fold
            cat: leave
            dave: join
        """)
        start = len(t.out)
        await t.call_down()  # ann and bob check it down
        await t.wait(6)
        out += t.out[start:]
        _in_order(out,
                  "[table] Hand #1: ann, bob, cat.", "[table] cat folds", "[table] cat leaves after this hand.",
                  "[table] dave sits down with 200 chips.")
        assert [line for line in out if line.startswith("[table] bob shows")]  # a showdown of ann and bob
        _in_order(out, "[table] cat leaves the table with 199 chips.", "[table] Hand #2: ann, bob, dave.")
        assert not any(line.startswith("[dm dave] Hand #1") for line in out)  # dealt in from the next hand only
        hand2 = t.runtime.setup
        assert hand2 is not None and hand2.hand_no == 2
        # dave's own 200; ann and bob share the 400 they brought and cat's ante; cat's 199 went to cat.
        (ann, a), (bob, b), (dave, d) = [(p[1], p[3]) for p in hand2.players]
        assert (ann, bob, dave, d) == ("ann", "bob", "dave", 200) and a + b == 401
        assert await _chips(t) == {"ann": (800, a), "bob": (800, b), "cat": (999, 0), "dave": (800, 200)}
        assert await chip_wallets.chip_total(t.store) == 4000
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 4000, report.summary()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_leaving_twice_during_a_hand_cashes_out_once(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _script(t, "ann: new\nann: join\nbob: join\ncat: join\nann: start\nann: complete\nbob: fold")
        assert "bob leaves after this hand." in await t.say("bob", "leave")
        again = await t.say("bob", "leave")
        assert "leaves" not in again and "[dm bob] Your chips go back to the wallet" in again
        assert "removed from the table after this hand" in await t.say("ann", "kick cat")
        await t.call_down()
        chips = await _chips(t)
        assert chips["bob"] == (999, 0) and chips["cat"][1] == 0 and sum(map(sum, chips.values())) == 3000
        assert (await audit(t.store, checks=AUDIT_CHECKS)).ok


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_every_movement_is_a_balanced_transfer_in_its_transaction(tmp_path: Path) -> None:
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _script(t, "ann: new\nann: join 300\nbob: join\nann: start")
        await t.call_down()
        await t.say("ann", "stop")
        rows = await t.store.fetch(
            "SELECT t.kind, SUM(e.amount) AS total, COUNT(*) AS n FROM ledger_transfers t "
            "JOIN ledger_entries e ON e.transfer_id = t.id GROUP BY t.id")
        assert {r["kind"] for r in rows} >= {"grant", "buy-in", "ante", "bring-in", "win", "closed"}
        assert all(r["total"] == 0 and r["n"] == 2 for r in rows)
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 2000
        chips = await _chips(t)
        assert all(seat == 0 for _, seat in chips.values()) and sum(w for w, _ in chips.values()) == 2000


@pytest.mark.parametrize("seed", range(40))
def test_a_hands_transfers_take_every_seat_from_start_to_end_stack(seed: int) -> None:
    import random

    from engine import Deck, DeckDealer, Hand, Stakes

    rng = random.Random(seed)
    names = ["ann", "bob", "cat", "dan"][: rng.randint(2, 4)]
    hand = Hand(stakes=Stakes(), names=names, stacks=[rng.choice([3, 9, 40, 200]) for _ in names],
                dealer=DeckDealer(Deck.shuffled(rng=rng)))
    while not hand.is_over:
        hand.act(rng.choice(hand.legal_actions()))
    transfers = hand_transfers(hand, hand_id=9, account=lambda es: hand.names[es])
    net = net_by_account(transfers)
    assert net.pop("pot:9") == 0
    assert {n: hand.starting_stacks[s] + net.get(n, 0) for s, n in enumerate(names)} == dict(zip(names, hand.stacks))
    with pytest.raises(ValueError):
        Transfer("bet", "a", "a", 5)


async def _corrupt(db: Path, sql: str, backend: Backend) -> tuple[int, str]:
    """Change the database behind the bot's back, then ``studbot audit`` it (in a process of its own)."""
    await execute(db, sql)
    args, env = backend.db_args(db)
    proc = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "adapters.run", "audit", *args], cwd=ROOT, capture_output=True,
        text=True, timeout=60, check=False, env={**os.environ, "DISCORD_TOKEN": "", "TELEGRAM_TOKEN": "", **env})
    return proc.returncode, proc.stdout


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_the_audit_names_a_corrupted_balance_its_account_and_hand(tmp_path: Path,
                                                                        store_backend: Backend) -> None:
    db = tmp_path / "t.db"
    async with Table(db, seed=SEED) as t:
        await _script(t, "ann: new\nann: join\nbob: join\nann: start")
        await t.call_down()
        await t.wait(6)  # hand #2 starts
        table_id = t.runtime.table.id
    assert (await audit_file(str(db))).ok
    status, out = await _corrupt(db, "UPDATE seats SET stack = stack + 1 WHERE user_id = 'bob'", store_backend)
    assert status == 1
    assert out.startswith(f"audit FAILED: seat:{table_id}:bob (table {table_id} hand #1): seat 2 stack ")
    status, out = await _corrupt(db, "UPDATE seats SET stack = stack - 1 WHERE user_id = 'bob'", store_backend)
    assert (status, out.split(":")[0]) == (0, "audit passed")
    status, out = await _corrupt(db, "UPDATE wallets SET balance = 5000 WHERE user_id = 'ann'", store_backend)
    assert status == 1 and out.startswith("audit FAILED: wallet:console:local:ann: wallet balance 5000, ledger 800")
    status, out = await _corrupt(db, "UPDATE wallets SET balance = 800 WHERE user_id = 'ann'", store_backend)
    assert status == 0
    # A payout changed in the ledger itself: the transfer no longer balances, and the hand is named;
    # on the winner's side the seat disagrees, on the pot's side the pot is not empty.
    win = "transfer_id = (SELECT MAX(id) FROM ledger_transfers WHERE kind = 'win')"
    status, out = await _corrupt(db, f"UPDATE ledger_entries SET amount = amount + 2 WHERE amount > 0 AND {win}",
                                 store_backend)
    assert status == 1 and f"(table {table_id} hand #1): transfer " in out and "add up to +2, not 0" in out
    report = await audit_file(str(db))
    assert [(d.account.split(":")[0], d.hand) for d in report.discrepancies[1:]] == [
        ("seat", f"table {table_id} hand #1")]
    await _corrupt(db, f"UPDATE ledger_entries SET amount = amount - 2 WHERE amount > 0 AND {win}", store_backend)
    status, out = await _corrupt(db, f"UPDATE ledger_entries SET amount = amount - 3 WHERE amount < 0 AND {win}",
                                 store_backend)
    assert status == 1 and "add up to -3, not 0" in out
    report = await audit_file(str(db))
    assert any(d.account.startswith("pot:") and d.hand == f"table {table_id} hand #1"
               and "-3 chips left in its pot" in d.problem for d in report.discrepancies), report.discrepancies


def test_studbot_audit_on_a_missing_database_says_so(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "adapters.run", "audit", "--db", str(tmp_path / "none.db")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2 and "no database at" in proc.stderr and not (tmp_path / "none.db").exists()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
@pytest.mark.sqlite_only(reason="takes the file back to version 4 with sqlite3 (both backends: "
                                 "test_store_backends.py::test_a_database_before_the_ledger_gets_opening_balances)")
async def test_an_existing_database_opens_its_ledger_with_what_it_holds(tmp_path: Path,
                                                                          caplog: pytest.LogCaptureFixture) -> None:
    """A version-4 database with wallets, seats and a hand in progress: after the migration the
    audit passes, and again once the hand is settled."""
    db = tmp_path / "old.db"
    async with Table(db, seed=SEED) as t:
        await _script(t, "ann: new\nann: join 300\nbob: join\ncat: join\nann: start\nann: complete\nbob: call")
    with sqlite3.connect(db) as con:  # what the build before the ledger left: schema version 4
        con.executescript(f"{drop_tables_after(MIGRATIONS.index(stats_rows.migrate) + 1)}"
                          "DROP TABLE ledger_entries; DROP TABLE ledger_transfers; DROP TABLE pending_answers; "
                          "ALTER TABLE hands DROP COLUMN announced; DROP TABLE tourney_players; "
                          "DROP TABLE tournaments; DROP TABLE fair_seeds; DROP TABLE fair_player_seeds; "
                          "DROP TABLE fair_tables; DROP TABLE hand_players; PRAGMA user_version = 4;")
    caplog.set_level("INFO")
    async with Table(db, seed=SEED) as t:
        assert "audit passed: 7 accounts, 1 transfers, 0 settled hands, 3000 chips issued" in caplog.text
        assert (await t.store.fetch("PRAGMA user_version"))[0][0] == t.store.schema_version
        await t.call_down()
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 3000 and report.hands == 1, report.summary()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_a_discrepancy_is_logged_when_the_bot_starts(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "t.db"
    store = await open_sqlite(str(db), schema=MIGRATIONS)
    async with store.atomic() as tx:  # chips from nowhere: a wallet with no grant behind it
        await tx.execute("INSERT INTO wallets (community, user_id, name, balance) VALUES ('c', 'u', 'u', 7)")
        await chip_wallets.post(tx, [Transfer("test", HOUSE, wallet_account("c", "v"), 3)], now=0.0)
    await store.close()
    async with Table(db):
        pass
    assert "audit FAILED: wallet:c:u: wallet balance 7, ledger 0 (and 2 more)" in caplog.text
    assert seat_account(3, "u") == "seat:3:u"


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_no_refill_when_the_wallet_is_short_of_the_stakes_but_not_of_the_starting_balance(
        tmp_path: Path) -> None:
    """Stakes above the starting balance: a refill would not raise the wallet (it would set it
    down to the starting balance, destroying what was above): the join is refused, nothing moves."""
    from dataclasses import replace

    from test_console import SETTINGS

    async with Table(tmp_path / "t.db", settings=replace(SETTINGS, starting_balance=100)) as t:
        await t.say("ann", "new")
        await t.say("ann", "config ante=5 bring_in=10 small=100 big=200")
        assert "The smallest buy-in here is 200 (the big bet); you have 100 chips" in await t.say("ann", "join")
        assert await _chips(t) == {}  # the refusal rolled the new wallet back with everything else
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 0


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_the_replaying_audit_catches_a_payout_to_the_wrong_player_that_balances(tmp_path: Path,
                                                                                      store_backend: Backend) -> None:
    """A pot share credited to the wrong seat, with the stacks moved to match, balances
    everywhere; only replaying the hand file shows it, and --replay names both seats and the hand."""
    db = tmp_path / "t.db"
    async with Table(db, seed=SEED) as t:
        await _script(t, "ann: new\nann: join\nbob: join\nann: start")
        await t.call_down()
        table_id = t.runtime.table.id
    [(win, winner, chips)] = await rows(
        db, "SELECT t.id, e.account, e.amount FROM ledger_transfers t JOIN ledger_entries e ON e.transfer_id = t.id "
        "WHERE t.kind = 'win' AND e.amount > 0 ORDER BY t.id LIMIT 1")
    user = winner.rsplit(":", 1)[1]
    other = "bob" if user == "ann" else "ann"
    await execute(db, "UPDATE ledger_entries SET account = ? WHERE transfer_id = ? AND account = ?",
                  (seat_account(table_id, other), win, winner))
    await execute(db, "UPDATE seats SET stack = stack - ? WHERE user_id = ?", (chips, user))
    await execute(db, "UPDATE seats SET stack = stack + ? WHERE user_id = ?", (chips, other))
    assert (await audit_file(str(db))).ok
    args, env = store_backend.db_args(db)
    command = [sys.executable, "-m", "adapters.run", "audit", *args, "--replay"]
    proc = await asyncio.to_thread(subprocess.run, command, cwd=ROOT, capture_output=True, text=True, timeout=60,
                                   check=False, env={**os.environ, **env})
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"audit FAILED: seat:{table_id}:ann (table {table_id} hand #1): the ledger moved ")
    report = await audit_file(str(db), replay=True)
    assert [d.account for d in report.discrepancies] == [seat_account(table_id, "ann"), seat_account(table_id, "bob")]
    assert report.replayed == 1


async def _house(t: Table) -> int:
    """What the house bots' bankroll at the console's community holds."""
    [(total,)] = [tuple(r) for r in await t.store.fetch(
        "SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account = 'house:console:local'")]
    return int(total)


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_item8_twenty_rounds_of_addbot_and_kick_issue_no_chips(tmp_path: Path) -> None:
    """Issue 19 item 8: each new house bot was given a 1,000-chip wallet of its own. A bot buys in from
    the house bots' bankroll and is cashed out back into it: nothing is issued, whatever the names."""
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _script(t, "ann: new\nann: join")
        for n in range(20):
            assert "Farm" in await t.say("ann", f"addbot Farm{n}")
            report = await audit(t.store, checks=AUDIT_CHECKS)
            assert report.ok and report.issued == 1000, report.summary()  # ann's wallet, nothing more
            assert await _house(t) == -200  # the bot's buy-in is out of the bankroll while it sits
            assert "removed" in await t.say("ann", f"kick Farm{n}")
            report = await audit(t.store, checks=AUDIT_CHECKS)
            assert report.ok and report.issued == 1000, report.summary()
            assert await chip_wallets.chip_total(t.store) == 1000 and await _house(t) == 0
        assert await _chips(t) == {"ann": (800, 200)}  # no bot has a wallet
        assert (await t.say("ann", "top")).splitlines() == ["[dm ann] 1. ann 1000"]


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_item8_a_house_bots_winnings_go_to_the_house_and_never_to_a_leaderboard(tmp_path: Path) -> None:
    """Hands against a house bot count for the player's own net; what the bot wins is the house's."""
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _script(t, "ann: new\nann: join\nann: addbot Robo\nann: start")
        for _ in range(3):
            await t.call_down()
            await t.wait(6)
        rt = t.runtime
        await t.say("ann", "stop")  # during the next hand: the table closes once it is played out
        await t.call_down(rt)
        assert rt.closed
        [(wallet,)] = [tuple(r) for r in await t.store.fetch("SELECT balance FROM wallets WHERE user_id = 'ann'")]
        net = wallet - 1000
        assert net != 0 and await _house(t) == -net  # what ann lost the house won, and the other way round
        assert (await t.say("ann", "top")).splitlines() == [f"[dm ann] 1. ann {wallet}"]
        top_net = (await t.say("ann", "top net all")).splitlines()
        assert top_net[1:] == [f"[dm ann] 1. ann {'+' if net > 0 else '-'}{abs(net)} chips"], top_net
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.issued == 1000 and report.bankroll == -net, report.summary()
        assert "house bots' bankrolls" in report.summary()


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_item8_the_audit_refuses_house_chips_moved_to_a_players_seat(tmp_path: Path) -> None:
    """The bankroll may only move chips with house bots: a player's buy-in from it is chips from nothing
    for the player, and the audit names it, though every account balances."""
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _script(t, "ann: new\nann: join")
        async with t.store.atomic() as tx:
            await tx.execute("UPDATE seats SET stack = stack + 50 WHERE user_id = 'ann'")
            await chip_wallets.post(tx, [Transfer("buy-in", "house:console:local",
                                                  seat_account(t.runtime.table.id, "ann"), 50)], now=0.0)
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert [d.account for d in report.discrepancies] == ["house:console:local"], report.summary()
        assert "no house bot's" in report.summary()


async def _in(t: Table, channel: str, user: str, text: str) -> str:
    """``user`` says ``text`` in another channel of the console's community; the answer."""
    reply = await t.bot.handle(Inbound(platform="console", community="local", channel=channel, user=user, name=user,
                                       text=text))
    await t.clock.settle()
    return reply.text


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_item10_no_refill_while_the_wallet_is_parked_in_a_sit_and_go_buy_in(tmp_path: Path) -> None:
    """Issue 19 item 10: the whole wallet registered in a sit-and-go, a cash table refilled it (the
    player was not broke: the buy-in comes back on unregistering), 2,000 chips out of 1,000."""
    async with Table(tmp_path / "t.db", seed=SEED) as t:
        await _in(t, "sng", "ann", "tourney new seats=3 buyin=1000")
        assert "registered" in (await _in(t, "sng", "ann", "register")).lower()
        assert await _chips(t) == {"ann": (0, 0)}
        await t.say("ann", "new")
        assert "The smallest buy-in here is 10 (the big bet); you have 0 chips" in await t.say("ann", "join")
        assert await _chips(t) == {"ann": (0, 0)}
        assert "1000 chips back" in await _in(t, "sng", "ann", "unregister")
        assert await _chips(t) == {"ann": (1000, 0)}
        report = await audit(t.store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 1000, report.summary()


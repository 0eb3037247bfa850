"""The chip ledger: every movement of chips, double-entry, in the transaction that makes it.

A *transfer* moves ``amount`` chips from one account to another; it is stored as
one ``ledger_transfers`` row and two ``ledger_entries`` rows, the source's
``-amount`` and the destination's ``+amount``: the entries of every transfer add
up to zero, so chips can only move, never appear or vanish. An account's balance
is the sum of its entries. The audit (:mod:`bot.chips.audit`) checks every wallet and
seat against its account.

Accounts are named by what holds the chips:

- ``house``: the issuer. Starting wallets and daily refills of players come from it, so its
  balance is minus every chip ever issued. House bots are never issued chips.
- ``house:<community>``: the house bots' bankroll at a community, like a bank account that may
  be overdrawn: every house bot's buy-in comes from it and its cash-out goes back to it (and a
  bot's sit-and-go buy-ins, refunds and prizes likewise). It starts at zero, so its balance
  plus the chips its bots hold at cash tables is the house's net result there; adding and
  kicking bots moves chips out and back, never issues any.
- ``wallet:<community>:<user>``: a wallet (``wallets.balance``).
- ``seat:<table id>:<user>``: a player's chips at a table (``seats.stack``, the
  start stack while a hand runs).
- ``pot:<hand id>``: the pots of one hand; zero once the hand is settled.
- ``tournament:<id>``: a tournament's prize pool (buy-ins in, prizes out), and
  ``tournament:<id>:<user>``: a player's tournament chips, when tournaments come.

Movements at a table are recorded when the hand is settled, in the transaction
that commits the settlement (that is when ``seats.stack`` changes): each ante,
bring-in, bet and call from the seat to the pot, chips nobody called back, and
each share of each pot to its winner.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from bot.core.model import HandSetup
from bot.store import Tx
from engine import Hand
from engine.events import ActionTaken, AntePosted, PotAwarded, UncalledReturned

log = logging.getLogger(__name__)

HOUSE = "house"
HOUSE_BANKROLL = "house:"
"""The prefix of the house bots' bankrolls (:func:`house_account`)."""
BOT_WALLET = "bot-wallet"
"""The kind of the transfer that closed a house bot's wallet into its community's bankroll (schema 12)."""

SCHEMA = """
CREATE TABLE ledger_transfers (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, hand_id INTEGER REFERENCES hands (id),
    memo TEXT NOT NULL DEFAULT '', at REAL NOT NULL
);
CREATE TABLE ledger_entries (
    transfer_id INTEGER NOT NULL REFERENCES ledger_transfers (id), account TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount != 0),
    PRIMARY KEY (transfer_id, account)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account);
CREATE INDEX ledger_transfers_hand ON ledger_transfers (hand_id) WHERE hand_id IS NOT NULL
"""

_TRANSFER = "INSERT INTO ledger_transfers (id, kind, hand_id, memo, at) VALUES (?, ?, ?, ?, ?)"
_ENTRY = "INSERT INTO ledger_entries (transfer_id, account, amount) VALUES (?, ?, ?)"


async def migrate(tx: Tx) -> None:
    """The schema version that opens the ledger: existing wallets and seats get opening balances
    (from the house), so that an existing database passes the audit after the migration."""
    await tx.script(SCHEMA)
    held = [(wallet_account(r["community"], r["user_id"]), int(r["balance"]))
            for r in await tx.all("SELECT community, user_id, balance FROM wallets WHERE balance != 0 "
                                  "ORDER BY community, user_id")]
    held += [(seat_account(int(r["table_id"]), r["user_id"]), int(r["stack"]))
             for r in await tx.all("SELECT table_id, user_id, stack FROM seats WHERE stack != 0 "
                                   "ORDER BY table_id, seat_no")]
    if not held:
        return
    (first,) = await tx.new_ids("ledger_transfers", 1)
    await tx.execute(_TRANSFER, (first, "opening", None, "balances when the ledger began", time.time()))
    await tx.executemany(_ENTRY, [(first, account, chips) for account, chips in held]
                         + [(first, HOUSE, -sum(chips for _, chips in held))])


async def close_bot_wallets(tx: Tx) -> None:
    """The schema version that gives the house bots one bankroll per community (:func:`house_account`):
    each house bot's wallet (``bot:<name>``, never seated as a player) is closed and what it held moves
    into its community's bankroll, so that no bot has a wallet, ``top`` lists none, and the chips the
    house issued for them stay accounted for (the audit passes before and after)."""
    bots = await tx.all(
        "SELECT community, user_id, balance FROM wallets w WHERE user_id LIKE 'bot:%' "
        "AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.user_id = w.user_id AND s.is_bot = 0) "
        "AND NOT EXISTS (SELECT 1 FROM tourney_players p WHERE p.user_id = w.user_id AND p.is_bot = 0) "
        "ORDER BY community, user_id")
    await post(tx, [Transfer(BOT_WALLET, wallet_account(r["community"], r["user_id"]), house_account(r["community"]),
                             int(r["balance"]), memo="a house bot's wallet, closed into the house bots' bankroll")
                    for r in bots if r["balance"]], at=time.time())
    await tx.executemany("DELETE FROM wallets WHERE community = ? AND user_id = ?",
                         [(r["community"], r["user_id"]) for r in bots])


def wallet_account(community: str, user: str) -> str:
    """A wallet's account (a community is 'platform:id').

    >>> wallet_account("discord:42", "7")
    'wallet:discord:42:7'
    """
    return f"wallet:{community}:{user}"


def house_account(community: str) -> str:
    """The house bots' bankroll at a community.

    >>> house_account("discord:42")
    'house:discord:42'
    """
    return f"{HOUSE_BANKROLL}{community}"


def seat_account(table_id: int, user: str) -> str:
    return f"seat:{table_id}:{user}"


def pot_account(hand_id: int) -> str:
    return f"pot:{hand_id}"


def tournament_account(tournament_id: int, user: str | None = None) -> str:
    """A tournament's prize pool, or (with ``user``) a player's chips in it."""
    return f"tournament:{tournament_id}" if user is None else f"tournament:{tournament_id}:{user}"


@dataclass(frozen=True, slots=True)
class Transfer:
    """``amount`` chips (> 0) from ``source`` to ``dest``."""

    kind: str
    """'grant' (a new wallet), 'refill', 'buy-in', 'rebuy' (more chips to a seat, bot/table/rebuys.py),
    'cash-out', 'kick', 'closed' (table stopped),
    'ante' and the actions ('bring-in', 'complete', 'bet', 'raise', 'call'), 'uncalled', 'win';
    'bot-wallet' (schema 12: a house bot's wallet closed into the house bots' bankroll)."""
    source: str
    dest: str
    amount: int
    hand_id: int | None = None
    memo: str = ""

    def __post_init__(self) -> None:
        if self.amount <= 0 or self.source == self.dest:
            raise ValueError(f"a transfer moves a positive amount between two accounts: {self}")


async def post(tx: Tx, transfers: Iterable[Transfer], *, at: float) -> None:
    """Write ``transfers`` inside the caller's transaction (three statements however many)."""
    rows = list(transfers)
    if not rows:
        return
    ids = await tx.new_ids("ledger_transfers", len(rows))
    await tx.executemany(_TRANSFER, [(i, t.kind, t.hand_id, t.memo, float(at)) for i, t in zip(ids, rows)])
    await tx.executemany(_ENTRY, [entry for i, t in zip(ids, rows)
                                  for entry in ((i, t.source, -t.amount), (i, t.dest, t.amount))])


def hand_transfers(hand: Hand, *, hand_id: int, account: Callable[[int], str]) -> list[Transfer]:
    """Every movement of a finished hand, from its events; ``account(engine_seat)`` names a seat's account."""
    pot = pot_account(hand_id)
    seats = [account(seat) for seat in range(hand.seat_count)]  # each seat's account named once
    out: list[Transfer] = []
    add = out.append
    for e in hand.events:  # the most frequent kinds first (they exclude one another)
        if isinstance(e, ActionTaken):
            if e.amount:
                add(Transfer(e.action.value, seats[e.seat], pot, e.amount, hand_id, f"street {e.street}"))
        elif isinstance(e, AntePosted):
            if e.amount:
                add(Transfer("ante", seats[e.seat], pot, e.amount, hand_id))
        elif isinstance(e, UncalledReturned):
            if e.amount:
                add(Transfer("uncalled", pot, seats[e.seat], e.amount, hand_id))
        elif isinstance(e, PotAwarded):
            for seat, chips in sorted(e.shares.items()):
                if chips:
                    add(Transfer("win", pot, seats[seat], chips, hand_id, f"pot {e.index}"))
    return out


def net_by_account(transfers: Sequence[Transfer]) -> dict[str, int]:
    """What ``transfers`` change, account by account.

    >>> net_by_account([Transfer("bet", "a", "pot:1", 5), Transfer("win", "pot:1", "b", 5)])
    {'a': -5, 'pot:1': 0, 'b': 5}
    """
    net: dict[str, int] = {}
    for t in transfers:
        net[t.source] = net.get(t.source, 0) - t.amount
        net[t.dest] = net.get(t.dest, 0) + t.amount
    return net


def check_hand_transfers(hand: Hand, transfers: list[Transfer], *, setup: HandSetup, table_id: int) -> None:
    """The hand's movements must take each seat from its start stack to its end stack and leave
    the pot empty; a mismatch is a bug (logged; the audit names the hand and the account)."""
    net = net_by_account(transfers)
    for player, dealt in enumerate(setup.players):
        account = seat_account(table_id, dealt.user)
        if dealt.stack + net.get(account, 0) != hand.stacks[player]:
            log.error("table %s hand #%s: %s moved %+d chips but its stack went %d -> %d", table_id,
                      setup.hand_no, account, net.get(account, 0), dealt.stack, hand.stacks[player])
    left = sum(v for k, v in net.items() if k.startswith("pot:"))
    if left:
        log.error("table %s hand #%s: %d chips left in the pot", table_id, setup.hand_no, left)

"""The audit: every chip in the database against the ledger (:mod:`bot.chips.ledger`).

It checks that every transfer's entries add up to zero; that every wallet's balance and
every seat's stack equal the sum of their account's entries, and that no account holds
chips without a wallet or seat behind it; that every hand's pot is empty (its payouts
equal what went into it) once the hand is over; that the house bots' bankrolls
(``house:<community>``) move chips only with house bots; and that the chips in wallets,
seats, pots, tournament pools and the bankrolls are exactly what the house has issued.
With ``replay`` it also replays every settled hand's hand file and checks each player's
movements in the ledger against it. The parts that hold chips of their own (the sit-and-gos'
pools) audit them with the checks the caller hands in (:data:`Check`).
``studbot audit`` (:func:`bot.bootstrap.audit_main`) prints the first discrepancy, naming the
account and the hand, and exits 1; the bot logs the audit when it starts.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.chips.ledger import BOT_WALLET, HOUSE, HOUSE_BANKROLL, pot_account, seat_account
from bot.store import Store
from engine import HandFile, ReplayError, replay_hand, result_of

Check = Callable[[Store], Awaitable[tuple[list[tuple[str, str]], int]]]
"""A part's own audit of the chips it holds (the sit-and-gos': :func:`bot.tourney.audit.tournament_problems`):
(account, problem) for each discrepancy, and how many of its things (tournaments) it checked."""

_BALANCES = "SELECT account, SUM(amount) AS total FROM ledger_entries GROUP BY account"
_HOLDERS = """
    SELECT 'wallet:' || community || ':' || user_id AS account, balance AS chips, 'wallet balance' AS what
    FROM wallets
    UNION ALL
    SELECT 'seat:' || table_id || ':' || user_id, stack, 'seat ' || (seat_no + 1) || ' stack' FROM seats
"""
"""Every wallet and seat, with its account (the names of :mod:`bot.chips.ledger`) and its chips."""


@dataclass(frozen=True, slots=True)
class Discrepancy:
    account: str
    hand: str | None
    """The hand concerned (or the last hand that moved the account's chips), as 'table 3 hand #12'."""
    problem: str

    def __str__(self) -> str:
        where = f" ({self.hand})" if self.hand else ""
        return f"{self.account}{where}: {self.problem}"


@dataclass(frozen=True, slots=True)
class AuditReport:
    discrepancies: tuple[Discrepancy, ...]
    accounts: int
    transfers: int
    issued: int
    """Chips the house has issued (minus its balance)."""
    hands: int
    """Settled hands whose pots were checked."""
    replayed: int = 0
    """Settled hands replayed through the engine (``replay=True``)."""
    tournaments: int = 0
    """Sit-and-go tournaments checked (by the caller's :data:`Check`, bot/tourney/audit.py)."""
    bankrolls: int = 0
    """Communities whose house bots have moved chips (a ``house:<community>`` account each)."""
    bankroll: int = 0
    """What those accounts hold together: below zero while the bots' buy-ins are out of them."""

    @property
    def ok(self) -> bool:
        return not self.discrepancies

    def summary(self) -> str:
        figures = (f"{self.accounts} accounts, {self.transfers} transfers, {self.hands} settled hands"
                   + (f" ({self.replayed} replayed)" if self.replayed else "")
                   + (f", {self.tournaments} tournaments" if self.tournaments else "")
                   + f", {self.issued} chips issued by the house"
                   + (f", house bots' bankrolls {self.bankroll:+d} at {self.bankrolls} communities"
                      if self.bankrolls else ""))
        if self.ok:
            return f"audit passed: {figures}"
        more = len(self.discrepancies) - 1
        return (f"audit FAILED: {self.discrepancies[0]}" + (f" (and {more} more)" if more else "")
                + f"; {figures}")


async def audit(store: Store, *, checks: Sequence[Check] = (), replay: bool = False) -> AuditReport:
    """Check the database against its ledger; the report lists every discrepancy, the first first.

    ``checks`` are the other parts' own audits, run after the chips' (their counts add up in
    ``tournaments``). With ``replay``, also replay every settled hand's stored hand file through the
    engine and check that the ledger moved each player's chips by what the replayed hand says."""
    found: list[Discrepancy] = []

    async def last_hand(account: str) -> str | None:
        rows = await store.fetch(
            "SELECT h.table_id, h.hand_no FROM ledger_entries e JOIN ledger_transfers t ON t.id = e.transfer_id "
            "JOIN hands h ON h.id = t.hand_id WHERE e.account = ? ORDER BY t.id DESC LIMIT 1", (account,))
        return _hand_name(rows[0]["table_id"], rows[0]["hand_no"]) if rows else None

    for r in await store.fetch(
            "SELECT t.id, t.kind, t.hand_id, h.table_id, h.hand_no, SUM(e.amount) AS total "
            "FROM ledger_transfers t "
            "LEFT JOIN ledger_entries e ON e.transfer_id = t.id LEFT JOIN hands h ON h.id = t.hand_id "
            "GROUP BY t.id, t.kind, t.hand_id, h.table_id, h.hand_no HAVING COALESCE(SUM(e.amount), 0) != 0 "
            "ORDER BY t.id"):
        hand = _hand_name(r["table_id"], r["hand_no"]) if r["hand_id"] is not None else None
        accounts = ", ".join(a["account"] for a in await store.fetch(
            "SELECT account FROM ledger_entries WHERE transfer_id = ? ORDER BY account", (r["id"],)))
        found.append(Discrepancy(accounts or f"transfer {r['id']}", hand,
                                 f"transfer {r['id']} ({r['kind']}) entries add up to {int(r['total']):+d}, not 0"))
    held = {r["account"]: int(r["total"]) for r in await store.fetch(_BALANCES)}
    known: set[str] = {HOUSE}
    bankrolls = {account: total for account, total in held.items() if account.startswith(HOUSE_BANKROLL)}
    known.update(bankrolls)
    found += await _bankroll_problems(store)
    in_play = sum(bankrolls.values())  # may be below zero: the house bots' buy-ins are out of it
    for r in await store.fetch(_HOLDERS):
        account = r["account"]
        known.add(account)
        in_play += r["chips"]
        if held.get(account, 0) != r["chips"]:
            found.append(Discrepancy(account, await last_hand(account),
                                     f"{r['what']} {r['chips']}, ledger {held.get(account, 0)}"))
    pots = {f"pot:{r['id']}": r for r in await store.fetch("SELECT id, table_id, hand_no, status FROM hands")}
    settled = 0
    for account, total in sorted(held.items()):
        if account in known:
            continue
        pot = pots.get(account)
        if pot is not None:
            settled += pot["status"] == "done"
            if total:
                found.append(Discrepancy(account, _hand_name(pot["table_id"], pot["hand_no"]),
                                         f"the hand is {pot['status']} with {total} chips left in its pot "
                                         "(its payouts differ from what went in)"))
        elif total and account.startswith(("wallet:", "seat:", "pot:")):
            found.append(Discrepancy(account, await last_hand(account),
                                     f"the ledger holds {total} chips for an account with no "
                                     f"{account.split(':')[0]} in the database"))
    in_play += sum(total for account, total in held.items() if account not in known)
    issued = -held.get(HOUSE, 0)
    if in_play != issued:
        found.append(Discrepancy(HOUSE, None, f"the house issued {issued} chips; wallets, seats, pots and the house "
                                              f"bots' bankrolls hold {in_play}"))
    tournaments = 0
    for check in checks:
        problems_of_part, counted = await check(store)
        found += [Discrepancy(account, None, problem) for account, problem in problems_of_part]
        tournaments += counted
    replayed = 0
    if replay:
        problems, replayed = await _replayed(store)
        found += problems
    transfers = await store.fetch("SELECT COUNT(*) FROM ledger_transfers")
    return AuditReport(discrepancies=tuple(found), accounts=len(held), transfers=int(transfers[0][0]),
                       issued=issued, hands=settled, replayed=replayed, tournaments=tournaments,
                       bankrolls=len(bankrolls), bankroll=sum(bankrolls.values()))


async def _bankroll_problems(store: Store) -> list[Discrepancy]:
    """Every transfer into or out of a house bots' bankroll (``house:<community>``) must be a house
    bot's: with the seat, at a table of that community, of a player with no wallet there (a house
    bot has none), with the pool of a sit-and-go of that community that a house bot entered, or
    (schema 12) the balance of a house bot's wallet of that community, closed into the bankroll."""
    tables = {int(r["id"]): r["community"] for r in await store.fetch("SELECT id, community FROM tables")}
    wallets = {(r["community"], r["user_id"]) for r in await store.fetch("SELECT community, user_id FROM wallets")}
    with_bots = {int(r["id"]): r["community"] for r in await store.fetch(
        "SELECT id, community FROM tournaments t WHERE EXISTS "
        "(SELECT 1 FROM tourney_players p WHERE p.tournament_id = t.id AND p.is_bot = 1)")}
    found: list[Discrepancy] = []
    for r in await store.fetch(
            "SELECT x.id, x.kind, h.account AS house, o.account AS other FROM ledger_entries h "
            "JOIN ledger_transfers x ON x.id = h.transfer_id "
            "JOIN ledger_entries o ON o.transfer_id = h.transfer_id AND o.account != h.account "
            f"WHERE h.account LIKE '{HOUSE_BANKROLL}%' ORDER BY x.id"):
        community = r["house"][len(HOUSE_BANKROLL):]
        kind, _, rest = r["other"].partition(":")
        if kind == "seat":
            table, _, user = rest.partition(":")
            ok = table.isdigit() and tables.get(int(table)) == community and (community, user) not in wallets
        elif kind == "tournament":
            ok = rest.isdigit() and with_bots.get(int(rest)) == community
        elif kind == "wallet" and r["kind"] == BOT_WALLET:
            ok = rest.startswith(f"{community}:") and (community, rest[len(community) + 1:]) not in wallets
        else:
            ok = False
        if not ok:
            found.append(Discrepancy(r["house"], None, f"transfer {r['id']} ({r['kind']}) moves the house bots' "
                                                       f"chips to or from {r['other']}, which is no house bot's"))
    return found


async def _replayed(store: Store) -> tuple[list[Discrepancy], int]:
    """Every settled hand that moved chips in the ledger, replayed: each player's net there
    must be what the engine makes of the hand file (hands settled before the ledger are skipped)."""
    moved: dict[int, dict[str, int]] = {}
    for r in await store.fetch(
            "SELECT t.hand_id, e.account, SUM(e.amount) AS net FROM ledger_transfers t "
            "JOIN ledger_entries e ON e.transfer_id = t.id WHERE t.hand_id IS NOT NULL GROUP BY t.hand_id, e.account"):
        moved.setdefault(r["hand_id"], {})[r["account"]] = int(r["net"])
    found: list[Discrepancy] = []
    replayed = 0
    for r in await store.fetch("SELECT id, table_id, hand_no, setup, hand_file FROM hands "
                               "WHERE status = 'done' AND hand_file IS NOT NULL ORDER BY id"):
        nets = moved.get(r["id"])
        if nets is None:
            continue
        name = _hand_name(r["table_id"], r["hand_no"])
        replayed += 1
        try:
            stacks = result_of(replay_hand(HandFile.from_json(r["hand_file"])))["stacks"]
        except ReplayError as exc:
            found.append(Discrepancy(pot_account(r["id"]), name, f"its hand file does not replay: {exc}"))
            continue
        for _, user, player, start in json.loads(r["setup"])["players"]:
            account = seat_account(r["table_id"], user)
            if nets.get(account, 0) != stacks[player] - start:
                found.append(Discrepancy(account, name, f"the ledger moved {nets.get(account, 0):+d} chips, "
                                                        f"the replayed hand {stacks[player] - start:+d}"))
    return found, replayed


def _hand_name(table_id: int, hand_no: int) -> str:
    return f"table {table_id} hand #{hand_no}"

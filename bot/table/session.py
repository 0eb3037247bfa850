"""A cash table's session ledger and its settle-ups, read from the chip ledger and stored.

A **session** runs from the table's opening (or its last settle-up) to ``settle`` or ``stop``. Its
ledger is read from the chip ledger (:mod:`bot.chips.ledger`): the transfers of the accounts
``seat:<table id>:<user>`` with ids after the last settle-up's last transfer (ids only grow), so it
says exactly what the chip ledger says. For each player:

- buy-ins: the transfers of kind 'buy-in' (the first join) and 'rebuy' into the seat, their count and
  chips; a player still seated when the session before was settled brings that stack as one buy-in;
- cash-outs: 'cash-out' (a leave, a bust), 'kick' and 'closed' (the table stopped) out of the seat;
- the stack now (the seat account's balance; a hand in progress counts at its start, as the seat does);
- the net: cash-outs + stack - buy-ins.

The house bots are one line (:data:`HOUSE_BOTS`). Every other transfer of a seat (antes, bets, wins)
goes between seats and pots, so the nets of the players and the house bots' add up to zero.

A **settle-up** stores the session's final ledger (its players' lines) and the fewest payments that settle
it (:func:`bot.chips.settle.settle`) with their marks (who said it was paid), so that a restart shows the
same. The house bots take part as one participant (so that every net is settled exactly), but their chips
are the house's play chips: a payment to or from them is nothing to pay, stored as paid at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from bot.chips.ledger import seat_account
from bot.chips.settle import settle
from bot.store import Row, Tx

MIGRATION = """
CREATE TABLE table_sessions (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables (id), no INTEGER NOT NULL,
    started_at REAL NOT NULL, ended_at REAL NOT NULL, after_transfer INTEGER NOT NULL,
    last_transfer INTEGER NOT NULL, ended_by TEXT NOT NULL, chip_value TEXT, currency TEXT, notice_ref TEXT,
    UNIQUE (table_id, no)
);
CREATE TABLE session_players (
    session_id INTEGER NOT NULL REFERENCES table_sessions (id), user_id TEXT NOT NULL, name TEXT NOT NULL,
    buy_ins INTEGER NOT NULL, bought INTEGER NOT NULL, cashed INTEGER NOT NULL, stack INTEGER NOT NULL,
    PRIMARY KEY (session_id, user_id)
);
CREATE TABLE session_payments (
    session_id INTEGER NOT NULL REFERENCES table_sessions (id), seq INTEGER NOT NULL, payer TEXT NOT NULL,
    payee TEXT NOT NULL, chips INTEGER NOT NULL CHECK (chips > 0), paid_by TEXT, paid_at REAL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE table_money (
    table_id INTEGER PRIMARY KEY REFERENCES tables (id), chip_value TEXT NOT NULL, currency TEXT NOT NULL
);
"""
"""Sessions settled (each with its final ledger and its payments) and a table's chip value (``config
chip_value=0.05 currency=EUR``)."""

HOUSE_BOTS = "house:bots"
"""The user id of the house bots' one line (no player's id holds 'house:')."""
BOT_PREFIX = "bot:"
"""A house bot's user id starts so (bot/table/seating.py)."""
BUY_KINDS = frozenset({"buy-in", "rebuy"})
OUT_KINDS = frozenset({"cash-out", "kick", "closed"})

Read = Callable[[str, Sequence[Any]], Awaitable[list[Row]]]
"""``tx.all`` or ``store.fetch``: rows of a read."""


@dataclass(frozen=True, slots=True)
class Line:
    """One player's session (or the house bots' together)."""

    user: str
    name: str
    buy_ins: int
    """How many buy-ins (the first join, each rebuy, a stack brought from the session before)."""
    bought: int
    cashed: int
    stack: int

    @property
    def net(self) -> int:
        return self.cashed + self.stack - self.bought

    @property
    def is_house(self) -> bool:
        return self.user == HOUSE_BOTS


@dataclass(frozen=True, slots=True)
class Ledger:
    """A session's ledger: its lines (players by name, the house bots last) and its range."""

    table_id: int
    no: int
    """The session's number at its table (1 for the first)."""
    started_at: float
    ended_at: float | None
    """None: the session runs."""
    after: int
    """The last transfer of the session before (0: none): this session's transfers come after it."""
    lines: tuple[Line, ...]

    def nets(self) -> dict[str, int]:
        return {line.user: line.net for line in self.lines if line.net}

    def name_of(self, user: str) -> str:
        return next((line.name for line in self.lines if line.user == user), user)


@dataclass(frozen=True, slots=True)
class Due:
    """One payment of a settle-up and its mark."""

    seq: int
    payer: str
    payee: str
    chips: int
    paid_by: str | None = None

    @property
    def paid(self) -> bool:
        return self.paid_by is not None

    @property
    def house(self) -> bool:
        """A payment to or from the house bots: nothing to pay."""
        return HOUSE_BOTS in (self.payer, self.payee)


@dataclass(frozen=True, slots=True)
class SettleUp:
    """A settled session: its final ledger, its payments, how it ended ('settle' or 'stop'), the money."""

    id: int
    ledger: Ledger
    dues: tuple[Due, ...]
    ended_by: str
    money: Money | None
    notice_ref: str | None = None
    """The message that shows it in the channel (edited as payments are marked), once posted."""

    @property
    def open(self) -> tuple[Due, ...]:
        return tuple(d for d in self.dues if not d.paid)


@dataclass(frozen=True, slots=True)
class Money:
    """What a chip is worth (``config chip_value=0.05 currency=EUR``): shown next to chips, never moved."""

    chip_value: Decimal
    currency: str

    def of(self, chips: int) -> str:
        """'1.75 EUR' for 35 chips at 0.05; '0.125 EUR' for 5 at 0.025.

        >>> Money(Decimal("0.05"), "EUR").of(35), Money(Decimal("0.025"), "EUR").of(5), Money(Decimal("2"), "").of(3)
        ('1.75 EUR', '0.125 EUR', '6.00')
        """
        amount = self.chip_value * chips
        cents = amount.quantize(Decimal("0.01"))
        text = f"{cents:f}" if cents == amount else f"{amount.normalize():f}"
        return f"{text} {self.currency}".strip()


# ------------------------------------------------------------------ reading the chip ledger


async def read_ledger(read: Read, *, table_id: int, community: str, upto: int | None = None,
                      now: float) -> Ledger:
    """The table's running session, from the chip ledger (up to transfer ``upto``, else every transfer)."""
    last = await read("SELECT no, last_transfer, ended_at FROM table_sessions WHERE table_id = ? "
                      "ORDER BY no DESC LIMIT 1", (table_id,))
    if last:
        no, after, started = int(last[0]["no"]) + 1, int(last[0]["last_transfer"]), float(last[0]["ended_at"])
    else:
        opened = await read("SELECT created_at FROM tables WHERE id = ?", (table_id,))
        no, after, started = 1, 0, float(opened[0]["created_at"]) if opened else now
    pattern = seat_account(table_id, "%")
    top = upto if upto is not None else (1 << 62)
    carried: dict[str, int] = {}
    if after:
        for r in await read("SELECT account, SUM(amount) AS chips FROM ledger_entries WHERE account LIKE ? "
                            "AND transfer_id <= ? GROUP BY account", (pattern, after)):
            if int(r["chips"]):
                carried[_user_of(str(r["account"]), table_id)] = int(r["chips"])
    rows = await read(
        "SELECT e.account AS account, t.kind AS kind, SUM(e.amount) AS chips, COUNT(*) AS n FROM ledger_entries e "
        "JOIN ledger_transfers t ON t.id = e.transfer_id WHERE e.account LIKE ? AND e.transfer_id > ? "
        "AND e.transfer_id <= ? GROUP BY e.account, t.kind", (pattern, after, top))
    totals: dict[str, list[int]] = {user: [1, chips, 0, chips] for user, chips in carried.items()}
    for r in rows:
        user, kind, chips = _user_of(str(r["account"]), table_id), str(r["kind"]), int(r["chips"])
        t = totals.setdefault(user, [0, 0, 0, 0])  # buy-ins, bought, cashed, stack
        if kind in BUY_KINDS:
            t[0] += int(r["n"])
            t[1] += chips
        elif kind in OUT_KINDS:
            t[2] -= chips
        t[3] += chips
    names = await _names(read, table_id=table_id, community=community, users=sorted(totals))
    players: list[Line] = []
    house = [0, 0, 0, 0]
    for user, (count, bought, cashed, stack) in totals.items():
        if user.startswith(BOT_PREFIX):
            house = [house[0] + count, house[1] + bought, house[2] + cashed, house[3] + stack]
        else:
            players.append(Line(user=user, name=names.get(user, user), buy_ins=count, bought=bought, cashed=cashed,
                                stack=stack))
    players.sort(key=lambda line: (line.name.lower(), line.user))
    if any(house):
        players.append(Line(user=HOUSE_BOTS, name="", buy_ins=house[0], bought=house[1], cashed=house[2],
                            stack=house[3]))
    return Ledger(table_id=table_id, no=no, started_at=started, ended_at=None, after=after, lines=tuple(players))


def _user_of(account: str, table_id: int) -> str:
    return account[len(seat_account(table_id, "")):]


async def _names(read: Read, *, table_id: int, community: str, users: Sequence[str]) -> dict[str, str]:
    """Each user's name: their seat's at the table, else their wallet's."""
    if not users:
        return {}
    marks = ", ".join("?" for _ in users)
    names = {str(r["user_id"]): str(r["name"]) for r in await read(
        f"SELECT user_id, name FROM wallets WHERE community = ? AND user_id IN ({marks})", (community, *users))}
    names |= {str(r["user_id"]): str(r["name"]) for r in await read(
        "SELECT user_id, name FROM seats WHERE table_id = ?", (table_id,))}
    return names


# ------------------------------------------------------------------ settle-ups


async def settle_session(tx: Tx, *, table_id: int, community: str, ended_by: str, now: float) -> SettleUp:
    """Close the running session in ``tx``: its ledger up to the last transfer now, its payments stored."""
    top = await tx.one("SELECT COALESCE(MAX(id), 0) AS top FROM ledger_transfers", ())
    last = int(top["top"]) if top is not None else 0
    ledger = await read_ledger(tx.all, table_id=table_id, community=community, upto=last, now=now)
    ledger = Ledger(table_id=table_id, no=ledger.no, started_at=ledger.started_at, ended_at=now, after=ledger.after,
                    lines=ledger.lines)
    money = await read_money(tx.all, table_id=table_id)
    (session_id,) = await tx.new_ids("table_sessions", 1)
    await tx.execute(
        "INSERT INTO table_sessions (id, table_id, no, started_at, ended_at, after_transfer, last_transfer, ended_by, "
        "chip_value, currency) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (session_id, table_id, ledger.no, ledger.started_at, now, ledger.after, last, ended_by,
         str(money.chip_value) if money else None, money.currency if money else None))
    await tx.executemany(
        "INSERT INTO session_players (session_id, user_id, name, buy_ins, bought, cashed, stack) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(session_id, ln.user, ln.name, ln.buy_ins, ln.bought, ln.cashed, ln.stack) for ln in ledger.lines])
    dues = tuple(Due(seq=i, payer=p.payer, payee=p.payee, chips=p.chips,
                     paid_by=HOUSE_BOTS if HOUSE_BOTS in (p.payer, p.payee) else None)
                 for i, p in enumerate(settle(ledger.nets()), 1))
    await tx.executemany(
        "INSERT INTO session_payments (session_id, seq, payer, payee, chips, paid_by, paid_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(session_id, d.seq, d.payer, d.payee, d.chips, d.paid_by, now if d.paid else None) for d in dues])
    return SettleUp(id=session_id, ledger=ledger, dues=dues, ended_by=ended_by, money=money)


async def load_settle_up(read: Read, session_id: int) -> SettleUp | None:
    """A stored settle-up, as it was settled and marked since."""
    rows = await read("SELECT id, table_id, no, started_at, ended_at, after_transfer, ended_by, chip_value, currency, "
                      "notice_ref FROM table_sessions WHERE id = ?", (session_id,))
    if not rows:
        return None
    s = rows[0]
    lines = [Line(user=str(r["user_id"]), name=str(r["name"]), buy_ins=int(r["buy_ins"]), bought=int(r["bought"]),
                  cashed=int(r["cashed"]), stack=int(r["stack"]))
             for r in await read("SELECT user_id, name, buy_ins, bought, cashed, stack FROM session_players "
                                 "WHERE session_id = ?", (session_id,))]
    lines.sort(key=lambda line: (line.is_house, line.name.lower(), line.user))
    dues = tuple(Due(seq=int(r["seq"]), payer=str(r["payer"]), payee=str(r["payee"]), chips=int(r["chips"]),
                     paid_by=None if r["paid_by"] is None else str(r["paid_by"]))
                 for r in await read("SELECT seq, payer, payee, chips, paid_by FROM session_payments "
                                     "WHERE session_id = ? ORDER BY seq", (session_id,)))
    ledger = Ledger(table_id=int(s["table_id"]), no=int(s["no"]), started_at=float(s["started_at"]),
                    ended_at=float(s["ended_at"]), after=int(s["after_transfer"]), lines=tuple(lines))
    money = Money(Decimal(str(s["chip_value"])), str(s["currency"])) if s["chip_value"] is not None else None
    return SettleUp(id=int(s["id"]), ledger=ledger, dues=dues, ended_by=str(s["ended_by"]), money=money,
                    notice_ref=None if s["notice_ref"] is None else str(s["notice_ref"]))


async def save_notice(tx: Tx, *, session_id: int, ref: str) -> None:
    """The message that shows the settle-up (posted after its commit)."""
    await tx.execute("UPDATE table_sessions SET notice_ref = ? WHERE id = ?", (ref, session_id))


async def settle_ups_open(read: Read, table_ids: Sequence[int]) -> list[int]:
    """The settle-ups of these tables with a payment still open, oldest first."""
    if not table_ids:
        return []
    marks = ", ".join("?" for _ in table_ids)
    rows = await read("SELECT DISTINCT s.id AS id FROM table_sessions s "
                      "JOIN session_payments p ON p.session_id = s.id "
                      f"WHERE s.table_id IN ({marks}) AND p.paid_by IS NULL ORDER BY s.id", tuple(table_ids))
    return [int(r["id"]) for r in rows]


async def mark_paid(tx: Tx, *, session_id: int, seq: int, by: str, now: float) -> bool:
    """Mark one payment paid; False if it was already."""
    row = await tx.one("SELECT paid_by FROM session_payments WHERE session_id = ? AND seq = ?", (session_id, seq))
    if row is None or row["paid_by"] is not None:
        return False
    await tx.execute("UPDATE session_payments SET paid_by = ?, paid_at = ? WHERE session_id = ? AND seq = ? "
                     "AND paid_by IS NULL", (by, now, session_id, seq))
    return True


# ------------------------------------------------------------------ the chip's value


async def read_money(read: Read, *, table_id: int) -> Money | None:
    rows = await read("SELECT chip_value, currency FROM table_money WHERE table_id = ?", (table_id,))
    if not rows:
        return None
    return Money(Decimal(str(rows[0]["chip_value"])), str(rows[0]["currency"]))


async def save_money(tx: Tx, *, table_id: int, money: Money | None) -> None:
    await tx.execute("DELETE FROM table_money WHERE table_id = ?", (table_id,))
    if money is not None:
        await tx.execute("INSERT INTO table_money (table_id, chip_value, currency) VALUES (?, ?, ?)",
                         (table_id, str(money.chip_value), money.currency))


def day_time(at: float) -> str:
    """A moment as the ledger shows it (UTC): '2026-12-02 17:32'."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M")

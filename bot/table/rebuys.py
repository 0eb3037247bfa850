"""Rebuys and host approvals at cash tables: what is stored of them, and a rebuy's chips moved.

A ``rebuy`` made while its player is dealt into the hand in progress waits (a row of
``rebuys``) and is applied by that hand's settlement, in its transaction, before the next deal
(:func:`apply_pending`); otherwise it is applied at once (:func:`move_rebuy`). Its chips go from the
wallet to the seat as one ledger transfer of kind :data:`REBUY`, when it is applied: a pending
rebuy holds no chips, so a restart finds it as it was and the audit passes meanwhile.

With ``config approve=on`` a ``join`` or a ``rebuy`` is a request (a row of ``seat_requests``) that
the creator or an admin answers with ``approve NAME`` / ``deny NAME`` (or the buttons under the
request's message: the command with ``#id``). The commands are :class:`~bot.table.hosting.Hosting`'s.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.chips import wallets
from bot.chips.ledger import Transfer, seat_account, wallet_account
from bot.core.limits import BUY_IN_BIG_BETS, MAX_BUY_IN_BIG_BETS
from bot.core.model import Seat, Table
from bot.core.names import plain
from bot.core.ports import Button, Messenger, prompting
from bot.store import Row, Store, Tx
from bot.table.runtime import Runtime
from bot.text import render

log = logging.getLogger(__name__)

REBUY = "rebuy"
"""The ledger transfer's kind: chips from a wallet to the seat of a player already seated."""

MIGRATION = """
CREATE TABLE table_hosting (
    table_id INTEGER PRIMARY KEY REFERENCES tables (id), approve INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE rebuys (
    table_id INTEGER NOT NULL REFERENCES tables (id), user_id TEXT NOT NULL,
    amount INTEGER NOT NULL CHECK (amount > 0), at REAL NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
CREATE TABLE seat_requests (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables (id), user_id TEXT NOT NULL,
    name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('join', 'rebuy')), amount INTEGER,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'denied', 'gone')),
    at REAL NOT NULL, answered_by TEXT, answered_at REAL, message_ref TEXT
);
CREATE INDEX seat_requests_open ON seat_requests (table_id, user_id) WHERE status = 'open'
"""
"""Schema: whether a table asks for approval, the rebuys waiting for the hand to end, the requests."""


def max_buy_in(table: Table) -> int:
    """The most chips a seat may hold after a rebuy: :data:`MAX_BUY_IN_BIG_BETS` big bets."""
    return MAX_BUY_IN_BIG_BETS * table.stakes.big_bet


def default_buy_in(table: Table) -> int:
    """What a rebuy without an amount tops the stack up to (join's default buy-in)."""
    return BUY_IN_BIG_BETS * table.stakes.big_bet


# ---------------------------------------------------------------- approval mode


async def approving(store: Store, rt: Runtime) -> bool:
    """Whether the table's joins and rebuys need the host's approval (read once, then kept on ``rt``)."""
    if rt.approve is None:
        rows = await store.fetch("SELECT approve FROM table_hosting WHERE table_id = ?", (rt.table.id,))
        rt.approve = bool(rows and rows[0]["approve"])
    return rt.approve


async def set_approving(tx: Tx, rt: Runtime, *, on: bool) -> None:
    await tx.execute("DELETE FROM table_hosting WHERE table_id = ?", (rt.table.id,))
    await tx.execute("INSERT INTO table_hosting (table_id, approve) VALUES (?, ?)", (rt.table.id, int(on)))


# ---------------------------------------------------------------- rebuys


async def pending(store: Store, rt: Runtime) -> dict[str, int]:
    """The table's rebuys waiting for the hand in progress to end: user -> chips (read once, kept on ``rt``)."""
    if rt.rebuys is None:
        rows = await store.fetch("SELECT user_id, amount FROM rebuys WHERE table_id = ?", (rt.table.id,))
        rt.rebuys = {r["user_id"]: int(r["amount"]) for r in rows}
    return rt.rebuys


async def store_pending(tx: Tx, rt: Runtime, *, user: str, amount: int, now: float) -> None:
    """Add ``amount`` to the user's rebuy waiting for the hand to end (the caller updates ``rt.rebuys`` once
    committed)."""
    await tx.execute("DELETE FROM rebuys WHERE table_id = ? AND user_id = ?", (rt.table.id, user))
    await tx.execute("INSERT INTO rebuys (table_id, user_id, amount, at) VALUES (?, ?, ?, ?)",
                     (rt.table.id, user, amount, now))


async def wallet_of(tx: Tx, *, community: str, user: str) -> int:
    row = await tx.one("SELECT balance FROM wallets WHERE community = ? AND user_id = ?", (community, user))
    return 0 if row is None else int(row["balance"])


async def move_rebuy(tx: Tx, *, table: Table, user: str, amount: int, now: float) -> None:
    """``amount`` chips from the user's wallet to their seat's account (the seat row is the caller's to save)."""
    await wallets.move_wallet(tx, community=table.community, user=user, delta=-amount)
    await wallets.post(tx, [Transfer(REBUY, wallet_account(table.community, user), seat_account(table.id, user),
                                     amount)], now=now)


@dataclass(frozen=True, slots=True)
class Applied:
    """A pending rebuy the settlement dealt with: the chips added (0: dropped, the wallet or the room gone)."""

    name: str
    chips: int


async def apply_pending(tx: Tx, rt: Runtime, *, held: Sequence[Seat], now: float,
                        drop: bool = False) -> tuple[list[Seat], list[Applied]]:
    """In a hand's settlement transaction: every pending rebuy applied to the seats ``held`` (their stacks at
    the hand's end), at most up to the maximum buy-in and what the wallet holds now; a seat leaving or kicked
    drops its rebuy, and ``drop`` (the table closes) drops them all, silently. Returns the seats (with the
    chips added) and what was done. Nothing read or written if none waits."""
    waiting = rt.rebuys
    if not waiting:
        return list(held), []
    if drop:
        await tx.execute("DELETE FROM rebuys WHERE table_id = ?", (rt.table.id,))
        return list(held), []
    out: list[Seat] = []
    done: list[Applied] = []
    table = rt.table
    for seat in held:
        amount = waiting.get(seat.user)
        if amount is None:
            out.append(seat)
            continue
        if seat.leaving or seat.kicked:
            chips = 0
        else:
            chips = max(0, min(amount, max_buy_in(table) - seat.stack,
                               await wallet_of(tx, community=table.community, user=seat.user)))
        if chips:
            await move_rebuy(tx, table=table, user=seat.user, amount=chips, now=now)
            seat = replace(seat, stack=seat.stack + chips)
        done.append(Applied(name=seat.name, chips=chips))
        out.append(seat)
    await tx.execute("DELETE FROM rebuys WHERE table_id = ?", (table.id,))
    return out, done


def settled(rt: Runtime) -> None:
    """After the settlement committed: no rebuy waits any more."""
    if rt.rebuys:
        rt.rebuys = {}


# ---------------------------------------------------------------- requests


@dataclass(frozen=True, slots=True)
class Request:
    """A join or a rebuy waiting for the host (or answered)."""

    id: int
    table_id: int
    user: str
    name: str
    kind: str
    """'join' or 'rebuy'."""
    amount: int | None
    status: str
    """'open', 'approved', 'denied' or 'gone' (the requester left first)."""
    message_ref: str | None = None
    """The request's message with its buttons (closed when it is answered), where the platform has one."""


_COLUMNS = "id, table_id, user_id, name, kind, amount, status, message_ref"


def _request(r: Row) -> Request:
    return Request(id=int(r["id"]), table_id=int(r["table_id"]), user=str(r["user_id"]), name=str(r["name"]),
                   kind=str(r["kind"]), amount=None if r["amount"] is None else int(r["amount"]),
                   status=str(r["status"]), message_ref=None if r["message_ref"] is None else str(r["message_ref"]))


async def open_request_of(store: Store, *, table_id: int, user: str) -> Request | None:
    rows = await store.fetch(f"SELECT {_COLUMNS} FROM seat_requests WHERE table_id = ? AND user_id = ? "
                             "AND status = 'open'", (table_id, user))
    return _request(rows[0]) if rows else None


async def request_by_id(store: Store, *, table_id: int, request_id: int) -> Request | None:
    rows = await store.fetch(f"SELECT {_COLUMNS} FROM seat_requests WHERE table_id = ? AND id = ?",
                             (table_id, request_id))
    return _request(rows[0]) if rows else None


async def latest_request_named(store: Store, *, table_id: int, name: str) -> Request | None:
    """The newest request of the table by a player of that name (open ones first)."""
    rows = await store.fetch(f"SELECT {_COLUMNS} FROM seat_requests WHERE table_id = ? ORDER BY "
                             "CASE WHEN status = 'open' THEN 0 ELSE 1 END, id DESC LIMIT 500", (table_id,))
    wanted = plain(name).lstrip("@").lower()
    for row in rows:
        if plain(row["name"]).lower() == wanted or row["user_id"] == name:
            return _request(row)
    return None


async def add_request(tx: Tx, *, table_id: int, user: str, name: str, kind: str, amount: int | None,
                      now: float) -> int:
    (request_id,) = await tx.new_ids("seat_requests", 1)
    await tx.execute("INSERT INTO seat_requests (id, table_id, user_id, name, kind, amount, status, at) "
                     "VALUES (?, ?, ?, ?, ?, ?, 'open', ?)", (request_id, table_id, user, name, kind, amount, now))
    return request_id


async def answer_request(tx: Tx, *, request_id: int, status: str, by: str | None, now: float) -> None:
    await tx.execute("UPDATE seat_requests SET status = ?, answered_by = ?, answered_at = ? WHERE id = ?",
                     (status, by, now, request_id))


async def drop_requests(tx: Tx, *, table_id: int, user: str, now: float) -> None:
    """The user left the table: their open request (a rebuy) is gone."""
    await tx.execute("UPDATE seat_requests SET status = 'gone', answered_at = ? WHERE table_id = ? AND user_id = ? "
                     "AND status = 'open'", (now, table_id, user))


async def post_request(messenger: Messenger, store: Store, *, rt: Runtime, request_id: int, name: str, kind: str,
                       amount: int | None) -> None:
    """The request's message in the table's language, with its Approve and Deny buttons where the platform
    shows buttons (:class:`~bot.core.ports.Prompting`; each sends ``approve #id`` or ``deny #id``; the
    message's reference is stored, to close it once answered); a public line elsewhere (the console:
    answered by typing ``approve NAME``)."""
    tr = rt.tr
    chips = render.chips(amount, tr) if amount else tr("approval.default_chips")
    text = tr("approval.line_join" if kind == "join" else "approval.line_rebuy", name=name, chips=chips)
    buttons = (Button(tr("approval.button_approve"), f"approve #{request_id}"),
               Button(tr("approval.button_deny"), f"deny #{request_id}"))
    try:
        if prompting(messenger):
            ref = await messenger.post_prompt(table=rt.address, text=text, buttons=buttons)
            if ref is not None:
                async with store.atomic() as tx:
                    await tx.execute("UPDATE seat_requests SET message_ref = ? WHERE id = ?", (ref, request_id))
        else:
            await messenger.announce(table=rt.address, text=text)
    except Exception:  # output never stops the table: the request is stored, 'approve NAME' answers it
        log.exception("table %s: posting a request failed", rt.table.id)


async def close_request(messenger: Messenger, *, rt: Runtime, request: Request, text: str) -> None:
    """The request's message, if it has one, says how it was answered (``text``), its buttons gone."""
    if request.message_ref is None or not prompting(messenger):
        return
    try:
        await messenger.close_prompt(table=rt.address, ref=request.message_ref, text=text)
    except Exception:  # output never stops the table: a press on a button left is answered as answered
        log.exception("table %s: closing request %s failed", rt.table.id, request.id)

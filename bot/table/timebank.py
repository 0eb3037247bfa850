"""A cash table's time bank and pause: what is stored of them, and the arithmetic of a turn's clock.

Every player at a cash table has a bank of seconds (``config timebank=N``), used when their turn timer runs
out: the turn goes on for what is left in it, and whatever of it they use is spent (stored with the action
that ends the turn, in its transaction). ``config timebank_refill=S/H`` gives S seconds back every H hands,
up to the bank's size. A sit-and-go has none: its clocks are as they always were.

A ``pause`` stops every clock of the table: the time it stands still is never spent, and ``resume`` gives
each clock what it had left (the stored deadline of the turn moves on by the pause). Nothing here is
in memory only: a restart finds the banks, the pause and the deadline exactly as they were.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from bot.core.model import HandSetup, Seat, TableClocks
from bot.store import Store, Tx
from bot.table.runtime import Runtime, TableHooks

MIGRATION: Final = """
CREATE TABLE table_clocks (
    table_id INTEGER NOT NULL REFERENCES tables (id), timebank INTEGER NOT NULL,
    refill_seconds INTEGER NOT NULL, refill_hands INTEGER NOT NULL, paused_by TEXT, paused_at REAL,
    PRIMARY KEY (table_id)
);
CREATE TABLE time_banks (
    table_id INTEGER NOT NULL REFERENCES tables (id), user_id TEXT NOT NULL, bank REAL NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
"""
"""The table's time bank settings and pause (a table without a row has the defaults and runs), and each
player's bank (a player without a row has a full bank)."""


async def load(store: Store, table_id: int, *, default: TableClocks) -> TableClocks:
    """The table's clocks as stored (``default`` if it never changed them)."""
    rows = await store.fetch("SELECT timebank, refill_seconds, refill_hands, paused_by, paused_at FROM table_clocks "
                             "WHERE table_id = ?", (table_id,))
    banks = {str(r["user_id"]): float(r["bank"])
             for r in await store.fetch("SELECT user_id, bank FROM time_banks WHERE table_id = ?", (table_id,))}
    if not rows:
        return TableClocks(timebank=default.timebank, refill_seconds=default.refill_seconds,
                           refill_hands=default.refill_hands, banks=banks)
    row = rows[0]
    return TableClocks(timebank=int(row["timebank"]), refill_seconds=int(row["refill_seconds"]),
                       refill_hands=int(row["refill_hands"]), banks=banks,
                       paused_by=None if row["paused_by"] is None else str(row["paused_by"]),
                       paused_at=None if row["paused_at"] is None else float(row["paused_at"]))


async def save_clocks(tx: Tx, table_id: int, clocks: TableClocks) -> None:
    """The table's time bank settings and pause."""
    await tx.execute(
        "INSERT INTO table_clocks (table_id, timebank, refill_seconds, refill_hands, paused_by, paused_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_id) DO UPDATE SET timebank = excluded.timebank, "
        "refill_seconds = excluded.refill_seconds, refill_hands = excluded.refill_hands, "
        "paused_by = excluded.paused_by, paused_at = excluded.paused_at",
        (table_id, clocks.timebank, clocks.refill_seconds, clocks.refill_hands, clocks.paused_by, clocks.paused_at))


async def save_bank(tx: Tx, table_id: int, user: str, bank: float) -> None:
    """What is left in one player's bank."""
    await tx.execute("INSERT INTO time_banks (table_id, user_id, bank) VALUES (?, ?, ?) "
                     "ON CONFLICT (table_id, user_id) DO UPDATE SET bank = excluded.bank",
                     (table_id, user, float(bank)))


async def fill_banks(tx: Tx, table_id: int) -> None:
    """Every bank full (a new bank size)."""
    await tx.execute("DELETE FROM time_banks WHERE table_id = ?", (table_id,))


async def move_deadline(tx: Tx, *, hand_id: int, actions: int, deadline: float) -> None:
    """The stored deadline of the turn in progress (the last action's, else the deal's), moved by a resume."""
    if actions:
        await tx.execute("UPDATE actions SET deadline = ? WHERE hand_id = ? AND seq = ?",
                         (float(deadline), hand_id, actions - 1))
    else:
        await tx.execute("UPDATE hands SET deadline = ? WHERE id = ?", (float(deadline), hand_id))


def has_bank(rt: Runtime, seat: Seat | None) -> bool:
    """Whether the seat's player has a time bank (a person at a cash table)."""
    return seat is not None and not seat.is_bot and rt.table.tournament is None and rt.clocks.timebank > 0


def clock_now(rt: Runtime, now: float) -> float:
    """The table's time: ``now``, or the moment it was paused (its clocks stand still since)."""
    paused_at = rt.clocks.paused_at
    return now if paused_at is None else paused_at


def spent(rt: Runtime, seat: Seat | None, now: float) -> float:
    """Seconds of the seat's bank used so far in the turn in progress (past its deadline, at most the bank)."""
    if seat is None or rt.deadline is None or not has_bank(rt, seat):
        return 0.0
    return min(rt.clocks.bank(seat.user), max(0.0, clock_now(rt, now) - rt.deadline))


def left(rt: Runtime, seat: Seat | None, now: float) -> float:
    """Seconds left in the seat's bank during the turn in progress."""
    if seat is None or not has_bank(rt, seat):
        return 0.0
    return rt.clocks.bank(seat.user) - spent(rt, seat, now)


class TimeBankRefill(TableHooks):
    """Every ``refill_hands`` hands of a cash table, each seated player's bank gets ``refill_seconds`` back
    (up to the bank's size), in the settlement's transaction."""

    async def settled(self, rt: Runtime, tx: Tx, *, setup: HandSetup, stacks: Sequence[int],
                      now: float) -> Callable[[], Awaitable[None]] | None:
        clocks = rt.clocks
        if rt.table.tournament is not None or clocks.timebank <= 0 or setup.hand_no % clocks.refill_hands:
            return None
        refilled: dict[str, float] = {}
        for seat in rt.table.seats.values():
            bank = clocks.bank(seat.user)
            if seat.user in clocks.banks and bank < clocks.timebank:
                refilled[seat.user] = min(float(clocks.timebank), bank + clocks.refill_seconds)
                await save_bank(tx, rt.table.id, seat.user, refilled[seat.user])

        async def after() -> None:
            clocks.banks.update(refilled)

        return after if refilled else None

"""Wallet movements: chips between the house, a player's wallet and a seat, each with its ledger transfer."""

from __future__ import annotations

from bot.chips import ledger
from bot.chips.ledger import HOUSE, HOUSE_BANKROLL, Transfer, house_account, seat_account, wallet_account
from bot.store import Store, Tx


async def ensure_wallet(tx: Tx, *, community: str, user: str, name: str, balance: int, now: float) -> int:
    """The user's balance, creating the wallet with ``balance`` (from the house) if it does not exist."""
    row = await tx.one("SELECT balance FROM wallets WHERE community = ? AND user_id = ?", (community, user))
    if row is not None:
        await tx.execute("UPDATE wallets SET name = ? WHERE community = ? AND user_id = ?", (name, community, user))
        return int(row["balance"])
    await tx.execute("INSERT INTO wallets (community, user_id, name, balance) VALUES (?, ?, ?, ?)",
                     (community, user, name, balance))
    await post(tx, [Transfer("grant", HOUSE, wallet_account(community, user), balance)], now=now)
    return balance


async def refilled_on(tx: Tx, *, community: str, user: str) -> str | None:
    row = await tx.one("SELECT refilled_on FROM wallets WHERE community = ? AND user_id = ?", (community, user))
    return None if row is None else row["refilled_on"]


async def refill(tx: Tx, *, community: str, user: str, balance: int, day: str, now: float) -> None:
    """Top the wallet up to ``balance`` (from the house)."""
    row = await tx.one("SELECT balance FROM wallets WHERE community = ? AND user_id = ?", (community, user))
    assert row is not None and row["balance"] < balance
    await tx.execute(
        "UPDATE wallets SET balance = ?, refilled_on = ? WHERE community = ? AND user_id = ?",
        (balance, day, community, user),
    )
    await post(tx, [Transfer("refill", HOUSE, wallet_account(community, user), balance - row["balance"])], now=now)


async def buy_in(tx: Tx, *, table_id: int, community: str, user: str, amount: int, now: float,
                 house: bool = False) -> None:
    """Take ``amount`` from the wallet to the seat's account (the seat row is the caller's to save);
    the CHECK refuses a negative balance. A house bot (``house``) has no wallet: its buy-in
    comes from the house's bankroll at the community (:func:`~bot.chips.ledger.house_account`)."""
    if house:
        source = house_account(community)
    else:
        await move_wallet(tx, community=community, user=user, delta=-amount)
        source = wallet_account(community, user)
    await post(tx, [Transfer("buy-in", source, seat_account(table_id, user), amount)], now=now)


async def leave_seat(tx: Tx, *, table_id: int, community: str, seat_no: int, user: str, amount: int, kind: str,
                     now: float) -> None:
    """A seat leaves the table: its chips back to their wallet (:func:`cash_out`) and its row removed."""
    await cash_out(tx, table_id=table_id, community=community, user=user, amount=amount, kind=kind, now=now)
    await tx.remove_seat(table_id, seat_no)


async def cash_out(tx: Tx, *, table_id: int, community: str, user: str, amount: int, kind: str, now: float) -> None:
    """Give a seat's ``amount`` back to the wallet (the seat row is the caller's to remove, after
    this: a house bot's seat, as its row says, goes back to the house's bankroll instead).
    ``kind``: 'cash-out' (leaving, or busted), 'kick', or 'closed' (the table stopped)."""
    if amount:
        seat = await tx.one("SELECT is_bot FROM seats WHERE table_id = ? AND user_id = ?", (table_id, user))
        if seat is not None and seat["is_bot"]:
            dest = house_account(community)
        else:
            await move_wallet(tx, community=community, user=user, delta=amount)
            dest = wallet_account(community, user)
        await post(tx, [Transfer(kind, seat_account(table_id, user), dest, amount)], now=now)


async def move_wallet(tx: Tx, *, community: str, user: str, delta: int) -> None:
    """The wallet's balance alone, moved by ``delta``: the caller posts the transfer that says where they went."""
    await tx.execute(
        "UPDATE wallets SET balance = balance + ? WHERE community = ? AND user_id = ?", (delta, community, user))


async def post(tx: Tx, transfers: list[Transfer], *, now: float) -> None:
    """Record movements of chips in this transaction (see :mod:`bot.chips.ledger`)."""
    await ledger.post(tx, transfers, at=now)


async def chip_total(store: Store) -> int:
    """Every chip the database knows: wallets and table stacks (hands in progress count at their start),
    and the house bots' bankrolls (below zero while their buy-ins are at the tables): what was issued."""
    rows = await store.fetch(
        "SELECT (SELECT COALESCE(SUM(balance), 0) FROM wallets) + (SELECT COALESCE(SUM(stack), 0) FROM seats) "
        "+ (SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account IN "
        f"(SELECT DISTINCT '{HOUSE_BANKROLL}' || community FROM tables))")
    return int(rows[0][0])

"""The audit of tournaments (a :data:`~bot.chips.audit.Check` that its callers hand to
:func:`bot.chips.audit.audit`): for every sit-and-go, its prize pool holds exactly the buy-ins of its
players until it ends and nothing after; its chips in play are players x starting stack, all at its
table while it runs and all returned when it ends (finished, or cancelled after its start); and every
prize recorded was paid once, to its winner (a house bot's to the house's bankroll), and none before
the end (none at all when it is cancelled)."""

from __future__ import annotations

from bot.chips.ledger import house_account, wallet_account
from bot.store import Store
from bot.tourney.store import chips_account, pool_account


async def tournament_problems(store: Store) -> tuple[list[tuple[str, str]], int]:
    """(account, problem) for each discrepancy, and how many tournaments were checked."""
    found: list[tuple[str, str]] = []
    tournaments = await store.fetch("SELECT * FROM tournaments ORDER BY id")
    for t in tournaments:
        tid, status = t["id"], t["status"]
        pool, mint = pool_account(tid), chips_account(tid)
        players = await store.fetch("SELECT user_id, is_bot, place, prize FROM tourney_players "
                                    "WHERE tournament_id = ?", (tid,))
        count = len(players)

        async def balance(account: str) -> int:
            rows = await store.fetch("SELECT COALESCE(SUM(amount), 0) FROM ledger_entries WHERE account = ?",
                                     (account,))
            return int(rows[0][0])

        async def moved(kind: str, account: str) -> list[tuple[str, int]]:
            """(the other account, amount) of every ``kind`` transfer that touched ``account``."""
            rows = await store.fetch(
                "SELECT o.account, o.amount FROM ledger_transfers x JOIN ledger_entries e ON e.transfer_id = x.id "
                "JOIN ledger_entries o ON o.transfer_id = x.id AND o.account != e.account "
                "WHERE x.kind = ? AND e.account = ?", (kind, account))
            return [(r[0], int(r[1])) for r in rows]

        held = await balance(pool)
        want = 0 if status in ("finished", "cancelled") else t["buyin"] * count
        if held != want:
            found.append((pool, f"tournament {tid} ({status}, {count} players, buy-in {t['buyin']}) holds {held} "
                                f"in its prize pool, not {want}"))
        issued = sum(a for _, a in await moved("tourney-chips", mint))
        started = status in ("running", "finished") or (status == "cancelled" and t["started_at"] is not None)
        if issued != (t["stack"] * count if started else 0):
            found.append((mint, f"tournament {tid} issued {issued} chips to {count} players of {t['stack']}"))
        out = -await balance(mint)
        seats = await store.fetch("SELECT COALESCE(SUM(stack), 0), COUNT(*) FROM seats WHERE table_id = ?",
                                  (t["table_id"],))
        at_table = int(seats[0][0])
        if status == "running" and at_table != out:
            found.append((mint, f"tournament {tid} has {out} chips in play but {at_table} at its table"))
        if status != "running" and (out or seats[0][1]):
            found.append((mint, f"tournament {tid} is {status} with {out} chips in play and {seats[0][1]} seats"))
        paid = await moved("prize", pool)  # (wallet, +amount) per prize paid
        if status != "finished" and paid:
            found.append((pool, f"tournament {tid} is {status} but paid {len(paid)} prizes"))
        if status == "finished":
            by_wallet: dict[str, list[int]] = {}
            for wallet, amount in paid:
                by_wallet.setdefault(wallet, []).append(amount)
            owed: dict[str, list[int]] = {}  # a house bot's prize goes to the house's bankroll, one for all bots
            for p in players:
                wallet = house_account(t["community"]) if p["is_bot"] else wallet_account(t["community"], p["user_id"])
                prize = p["prize"] or 0
                owed.setdefault(wallet, []).extend([prize] if prize else [])
                if p["place"] is None:
                    found.append((wallet, f"tournament {tid}: {p['user_id']} has no place"))
            for wallet, prizes_owed in owed.items():
                got = by_wallet.pop(wallet, [])
                if sorted(got) != sorted(prizes_owed):
                    found.append((wallet, f"tournament {tid}: places with prizes {sorted(prizes_owed)} "
                                          f"were paid {sorted(got)}"))
            for wallet, got in by_wallet.items():
                found.append((wallet, f"tournament {tid} paid {got} to a wallet with no place"))
            if sum(p["prize"] or 0 for p in players) != t["buyin"] * count:
                found.append((pool, f"tournament {tid}'s prizes do not add up to its pool"))
    return found, len(tournaments)

"""A tournament's state in memory and its rows in the database (its own repository over the Store).

Ledger accounts (see :mod:`bot.chips.ledger`): ``tournament:<id>`` is the prize pool, in wallet
chips (buy-ins in, refunds and prizes out; a house bot's from and to ``house:<community>``).
Tournament chips are another unit: they are issued at the start from ``tournament-chips:<id>``
(whose balance is minus the chips in play) to the players' seats at the tournament's table
(``seat:<table>:<user>``), move through the hands' pots like any chips, and go back to it from
the winner's seat when it ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.chips import wallets
from bot.chips.ledger import Transfer, house_account, wallet_account
from bot.core.model import TABLE_GAMES
from bot.store import Store, Tx

TOURNEY_MIGRATION = """
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables (id), platform TEXT NOT NULL,
    community TEXT NOT NULL, channel TEXT NOT NULL, creator TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
    seats INTEGER NOT NULL, stack INTEGER NOT NULL, buyin INTEGER NOT NULL, unit TEXT NOT NULL,
    length INTEGER NOT NULL, pace TEXT NOT NULL, payout TEXT NOT NULL, level INTEGER NOT NULL DEFAULT 1,
    started_at REAL, started_hand INTEGER, created_at REAL NOT NULL, finished_at REAL
);
CREATE INDEX tournaments_channel ON tournaments (platform, channel);
CREATE TABLE tourney_players (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id), user_id TEXT NOT NULL, name TEXT NOT NULL,
    is_bot INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL, place INTEGER, shared INTEGER, prize INTEGER,
    out_hand INTEGER, start_chips INTEGER,
    PRIMARY KEY (tournament_id, user_id)
)
"""

GAME_MIGRATION = "ALTER TABLE tournaments ADD COLUMN game TEXT NOT NULL DEFAULT 'stud8'"
"""A sit-and-go's game (``tourney new game=``): stud8, stud, razz or mix (G8: the game changes with each level).
Sit-and-gos before it dealt Stud Hi-Lo."""

STATUSES = ("registering", "running", "finished", "cancelled")


def pool_account(tid: int) -> str:
    return f"tournament:{tid}"


def chips_account(tid: int) -> str:
    """Where a tournament's chips are issued from (minus the chips in play)."""
    return f"tournament-chips:{tid}"


@dataclass
class Entrant:
    user: str
    name: str
    is_bot: bool
    seq: int
    place: int | None = None
    shared: int | None = None
    prize: int | None = None
    out_hand: int | None = None
    start_chips: int | None = None
    """The chips they started their last hand with (when they went out)."""


@dataclass
class Tournament:
    id: int
    table_id: int
    platform: str
    community: str
    channel: str
    creator: str
    status: str
    seats: int
    stack: int
    buyin: int
    unit: str
    length: int
    pace: str
    payout: str
    level: int = 1
    game: str = "stud8"
    """One of :data:`~bot.core.model.TABLE_GAMES`; ``mix`` deals each level's game (G8, :func:`level_game`)."""
    started_at: float | None = None
    started_hand: int | None = None
    entrants: dict[str, Entrant] = field(default_factory=dict)

    @property
    def pool(self) -> int:
        return self.buyin * len(self.entrants)

    def alive(self) -> list[Entrant]:
        return [e for e in self.entrants.values() if e.place is None]


class TourneyRepo:
    """The queries of tournaments: reads on the Store, writes inside its transactions."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def load(self, where: str, params: tuple[object, ...]) -> list[Tournament]:
        out = []
        for r in await self.store.fetch(f"SELECT * FROM tournaments WHERE {where} ORDER BY id", params):
            t = Tournament(id=r["id"], table_id=r["table_id"], platform=r["platform"], community=r["community"],
                           channel=r["channel"], creator=r["creator"], status=r["status"], seats=r["seats"],
                           stack=r["stack"], buyin=r["buyin"], unit=r["unit"], length=r["length"], pace=r["pace"],
                           payout=r["payout"], level=r["level"],
                           game=r["game"] if r["game"] in TABLE_GAMES else "stud8", started_at=r["started_at"],
                           started_hand=r["started_hand"])
            for p in await self.store.fetch("SELECT * FROM tourney_players WHERE tournament_id = ? ORDER BY seq",
                                            (t.id,)):
                t.entrants[p["user_id"]] = Entrant(
                    user=p["user_id"], name=p["name"], is_bot=bool(p["is_bot"]), seq=p["seq"], place=p["place"],
                    shared=p["shared"], prize=p["prize"], out_hand=p["out_hand"], start_chips=p["start_chips"])
            out.append(t)
        return out

    async def active(self) -> list[Tournament]:
        return await self.load("status IN ('registering', 'running')", ())

    async def last_in(self, platform: str, channel: str) -> Tournament | None:
        rows = await self.store.fetch("SELECT MAX(id) AS id FROM tournaments WHERE platform = ? AND channel = ?",
                                      (platform, channel))
        if not rows or rows[0]["id"] is None:
            return None
        found = await self.load("id = ?", (rows[0]["id"],))
        return found[0] if found else None

    @staticmethod
    async def create(tx: Tx, t: Tournament, *, now: float) -> int:
        return await tx.insert(
            "INSERT INTO tournaments (table_id, platform, community, channel, creator, status, seats, stack, buyin, "
            "unit, length, pace, payout, game, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (t.table_id, t.platform, t.community, t.channel, t.creator, t.status, t.seats, t.stack, t.buyin, t.unit,
             t.length, t.pace, t.payout, t.game, float(now)))

    @staticmethod
    async def save(tx: Tx, t: Tournament, *, now: float) -> None:
        await tx.execute(
            "UPDATE tournaments SET status = ?, level = ?, started_at = ?, started_hand = ?, "
            "finished_at = CASE WHEN ? IN ('finished', 'cancelled') THEN ? ELSE finished_at END WHERE id = ?",
            (t.status, t.level, t.started_at, t.started_hand, t.status, now, t.id))

    @staticmethod
    async def save_entrant(tx: Tx, tid: int, e: Entrant) -> None:
        await tx.execute(
            "INSERT INTO tourney_players (tournament_id, user_id, name, is_bot, seq, place, shared, prize, out_hand, "
            "start_chips) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id, user_id) DO UPDATE SET "
            "place = excluded.place, shared = excluded.shared, prize = excluded.prize, out_hand = excluded.out_hand, "
            "start_chips = excluded.start_chips",
            (tid, e.user, e.name, int(e.is_bot), e.seq, e.place, e.shared, e.prize, e.out_hand, e.start_chips))

    @staticmethod
    async def remove_entrant(tx: Tx, tid: int, user: str) -> None:
        await tx.execute("DELETE FROM tourney_players WHERE tournament_id = ? AND user_id = ?", (tid, user))

    @staticmethod
    async def move_wallet(tx: Tx, *, t: Tournament, user: str, amount: int, kind: str, now: float,
                          memo: str = "", house: bool = False) -> None:
        """``amount`` wallet chips between the user's wallet and the prize pool: positive from the
        wallet into the pool (a buy-in), negative back out (a refund, a prize). The wallet's
        CHECK refuses a balance below zero. A house bot (``house``) has no wallet: its chips
        come from and go back to the house's bankroll at the community."""
        if not amount:
            return
        if house:
            wallet = house_account(t.community)
        else:
            await tx.execute("UPDATE wallets SET balance = balance - ? WHERE community = ? AND user_id = ?",
                             (amount, t.community, user))
            wallet = wallet_account(t.community, user)
        pool = pool_account(t.id)
        transfer = Transfer(kind, wallet, pool, amount, memo=memo) if amount > 0 \
            else Transfer(kind, pool, wallet, -amount, memo=memo)
        await wallets.post(tx, [transfer], now=now)

"""Persistence in SQLite (aiosqlite, WAL): a versioned schema, one writer, atomic units.

Every change the application acknowledges is committed first: an ``atomic()``
block is one transaction, committed when the block ends. Blocks are serialised
(SQLite has one writer; interleaved tables must not share a transaction).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import aiosqlite

from engine import Stakes

from . import fairness, ledger, updates
from .i18n import DEFAULT_LANGUAGE, language_of
from .ledger import HOUSE, Transfer, seat_account, wallet_account
from .model import VIEWS, HandSetup, Seat, Table
from .stats import rows as stats_rows
from .tourney.store import TOURNEY_MIGRATION

Migration = str | Callable[[aiosqlite.Connection], Awaitable[None]]
"""A schema version: SQL statements, or a function that runs in the migration's transaction."""

MIGRATIONS: list[Migration] = [
    # 1: the first schema
    """
    CREATE TABLE wallets (
        community TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL,
        balance INTEGER NOT NULL CHECK (balance >= 0), refilled_on TEXT,
        PRIMARY KEY (community, user_id)
    );
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY, platform TEXT NOT NULL, community TEXT NOT NULL, channel TEXT NOT NULL,
        creator TEXT NOT NULL, stakes TEXT NOT NULL, timer INTEGER NOT NULL, running INTEGER NOT NULL DEFAULT 0,
        hand_no INTEGER NOT NULL DEFAULT 0, board_ref TEXT, next_hand_at REAL, open INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL
    );
    CREATE UNIQUE INDEX tables_open_channel ON tables (platform, channel) WHERE open = 1;
    CREATE TABLE seats (
        table_id INTEGER NOT NULL REFERENCES tables (id), seat_no INTEGER NOT NULL, user_id TEXT NOT NULL,
        name TEXT NOT NULL, stack INTEGER NOT NULL CHECK (stack >= 0), is_bot INTEGER NOT NULL DEFAULT 0,
        sitting_out INTEGER NOT NULL DEFAULT 0, leaving INTEGER NOT NULL DEFAULT 0,
        timeouts INTEGER NOT NULL DEFAULT 0, unreachable INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (table_id, seat_no), UNIQUE (table_id, user_id)
    );
    CREATE TABLE hands (
        id INTEGER PRIMARY KEY, table_id INTEGER NOT NULL REFERENCES tables (id), hand_no INTEGER NOT NULL,
        setup TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('playing', 'done', 'void')),
        deadline REAL, hand_file TEXT, summary TEXT, started_at REAL NOT NULL, finished_at REAL,
        UNIQUE (table_id, hand_no)
    );
    CREATE INDEX hands_playing ON hands (status) WHERE status = 'playing';
    CREATE TABLE actions (
        hand_id INTEGER NOT NULL REFERENCES hands (id), seq INTEGER NOT NULL, action TEXT NOT NULL,
        seat_no INTEGER NOT NULL, by_timeout INTEGER NOT NULL DEFAULT 0, at REAL NOT NULL,
        PRIMARY KEY (hand_id, seq)
    );
    """,
    # 2: each action carries the deadline of the turn after it, so that recording an
    # action is one INSERT (one round trip, a transaction of its own) instead of four.
    """
    ALTER TABLE actions ADD COLUMN deadline REAL;
    """,
    # 3: how the table's board is shown: 'image' (a PNG with the text beside it) or 'text'.
    """
    ALTER TABLE tables ADD COLUMN view TEXT NOT NULL DEFAULT 'image';
    """,
    # 4: languages: the table's (its public board and lines) and each user's (private
    # messages sent later, such as their cards): the platform's locale last seen, or the
    # language they chose with 'lang' (chosen = 1, which a locale does not override).
    """
    ALTER TABLE tables ADD COLUMN lang TEXT NOT NULL DEFAULT 'en';
    CREATE TABLE user_langs (
        platform TEXT NOT NULL,
        user_id TEXT NOT NULL,
        lang TEXT NOT NULL,
        chosen INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (platform, user_id)
    );
    """,
    # 5: the chip ledger (bot/ledger.py), opened with the wallets and seats as they are.
    ledger.MIGRATION,
    # 6: what reached the table: how many of a hand's events are known to be announced (0 for
    # a new hand; NULL once all are, and for the hands before this); on start the rest is
    # announced again (bot/delivery.py). And each platform request (a Discord interaction) in
    # flight, so that one cut off by a crash is still answered after the restart.
    """
    ALTER TABLE hands ADD COLUMN announced INTEGER DEFAULT 0;
    UPDATE hands SET announced = NULL;
    CREATE TABLE pending_answers (
        platform TEXT NOT NULL, id TEXT NOT NULL, token TEXT NOT NULL, user_id TEXT NOT NULL, locale TEXT,
        channel TEXT NOT NULL, command TEXT NOT NULL, received_at REAL NOT NULL,
        PRIMARY KEY (platform, id)
    );
    """,
    # 7: sit-and-go tournaments, their players, places and prizes (bot/tourney/store.py).
    TOURNEY_MIGRATION,
    # 8: provably fair decks (bot/fairness.py): server seeds per table and hand, player seeds, reveal setting.
    fairness.MIGRATION,
    # 9: per-player rows of settled hands for the stats (bot/stats/rows.py), backfilled from the hand files.
    stats_rows.migrate,
    # 10 (11 after the cluster's): update ids a platform delivered, each applied once (bot/updates.py).
    updates.MIGRATION,
]


@dataclass
class PlayingHand:
    id: int
    table_id: int
    setup: HandSetup
    actions: list[str]
    deadline: float | None


class Store:
    """The SQLite database of tables, seats, wallets and hands."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str) -> Store:
        db = await aiosqlite.connect(path, isolation_level=None)
        db.row_factory = aiosqlite.Row
        await db.execute("PRAGMA journal_mode=WAL")
        await db.execute("PRAGMA synchronous=NORMAL")  # durable against a killed process
        await db.execute("PRAGMA foreign_keys=ON")
        await db.execute("PRAGMA busy_timeout=5000")
        store = cls(db)
        await store._migrate()
        return store

    async def close(self) -> None:
        await self._db.close()

    async def _migrate(self) -> None:
        async with self._db.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        version = int(row[0]) if row else 0
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                if callable(script):
                    await script(self._db)
                for statement in script.split(";") if isinstance(script, str) else ():
                    if statement.strip():
                        await self._db.execute(statement)
                await self._db.execute(f"PRAGMA user_version={number}")
                await self._db.execute("COMMIT")
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        return len(MIGRATIONS)

    @asynccontextmanager
    async def atomic(self) -> AsyncIterator[Tx]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        async with self._lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(self._db)
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[aiosqlite.Row]:
        async with self._lock, self._db.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def execute(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        """One statement, autocommitted (durable when this returns)."""
        async with self._lock:
            await self._db.execute(sql, params)

    # ---------------------------------------------------------------- reads

    async def open_tables(self) -> list[Table]:
        tables = []
        for row in await self.fetch("SELECT * FROM tables WHERE open = 1 ORDER BY id"):
            table = _table(row)
            for s in await self.fetch("SELECT * FROM seats WHERE table_id = ? ORDER BY seat_no", (table.id,)):
                table.seats[s["seat_no"]] = _seat(s)
            tables.append(table)
        return tables

    async def user_langs(self) -> dict[tuple[str, str], tuple[str, bool]]:
        """(platform, user) -> (language, chosen with 'lang') for every user seen with a language."""
        rows = await self.fetch("SELECT platform, user_id, lang, chosen FROM user_langs")
        return {(r["platform"], r["user_id"]): (language_of(r["lang"]) or DEFAULT_LANGUAGE, bool(r["chosen"]))
                for r in rows}

    async def playing_hand(self, table_id: int) -> PlayingHand | None:
        rows = await self.fetch("SELECT * FROM hands WHERE table_id = ? AND status = 'playing'", (table_id,))
        if not rows:
            return None
        row = rows[0]
        recorded = await self.fetch("SELECT action, deadline FROM actions WHERE hand_id = ? ORDER BY seq",
                                    (row["id"],))
        deadline = recorded[-1]["deadline"] if recorded and recorded[-1]["deadline"] is not None else row["deadline"]
        return PlayingHand(id=row["id"], table_id=table_id, setup=HandSetup.from_json(json.loads(row["setup"])),
                           actions=[r["action"] for r in recorded], deadline=deadline)

    async def record_action(self, *, hand_id: int, seq: int, action: str, seat_no: int, by_timeout: bool,
                            now: float, deadline: float) -> None:
        """One action as one autocommitted INSERT: durable when this returns."""
        async with self._lock:
            await self._db.execute(
                "INSERT INTO actions (hand_id, seq, action, seat_no, by_timeout, at, deadline) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (hand_id, seq, action, seat_no, int(by_timeout), now, deadline),
            )

    async def wallet(self, community: str, user: str) -> tuple[int, str | None] | None:
        rows = await self.fetch("SELECT balance, refilled_on FROM wallets WHERE community = ? AND user_id = ?",
                                (community, user))
        return (rows[0]["balance"], rows[0]["refilled_on"]) if rows else None

    async def leaderboard(self, community: str, limit: int = 10) -> list[tuple[str, int]]:
        rows = await self.fetch(
            """SELECT w.name AS name, w.balance + COALESCE((SELECT SUM(s.stack) FROM seats s JOIN tables t
                   ON t.id = s.table_id WHERE t.open = 1 AND t.community = w.community AND s.user_id = w.user_id), 0)
                   AS total
               FROM wallets w WHERE w.community = ? ORDER BY total DESC, name LIMIT ?""",
            (community, limit),
        )
        return [(r["name"], r["total"]) for r in rows]

    async def recent_hands(self, table_id: int, limit: int) -> list[tuple[int, str]]:
        rows = await self.fetch(
            "SELECT hand_no, summary FROM hands WHERE table_id = ? AND status = 'done' ORDER BY hand_no DESC LIMIT ?",
            (table_id, limit),
        )
        return [(r["hand_no"], r["summary"]) for r in rows]

    async def hand_file(self, table_id: int, hand_no: int) -> str | None:
        rows = await self.fetch("SELECT hand_file FROM hands WHERE table_id = ? AND hand_no = ?", (table_id, hand_no))
        return rows[0]["hand_file"] if rows else None

    async def chip_total(self) -> int:
        """Every chip the database knows: wallets and table stacks (hands in progress count at their start)."""
        rows = await self.fetch(
            "SELECT (SELECT COALESCE(SUM(balance), 0) FROM wallets) + (SELECT COALESCE(SUM(stack), 0) FROM seats)")
        return int(rows[0][0])


class Tx:
    """Writes inside one :meth:`Store.atomic` transaction."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int | None:
        """One statement of a feature's own repository in this transaction; the new row's id."""
        cur = await self._db.execute(sql, params)
        return cur.lastrowid

    async def _one(self, sql: str, params: tuple[Any, ...]) -> aiosqlite.Row | None:
        async with self._db.execute(sql, params) as cur:
            return await cur.fetchone()

    # For the feature modules' own small repositories (fairness, tourney ...): their queries in this transaction.
    async def one(self, sql: str, params: tuple[Any, ...] = ()) -> aiosqlite.Row | None:
        return await self._one(sql, params)

    async def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[aiosqlite.Row]:
        async with self._db.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Write rows of a feature's own table (its module holds the SQL) in this transaction."""
        await self._db.executemany(sql, rows)

    async def create_table(self, *, platform: str, community: str, channel: str, creator: str, stakes: Stakes,
                           timer: int, now: float, lang: str = DEFAULT_LANGUAGE) -> int:
        cur = await self._db.execute(
            "INSERT INTO tables (platform, community, channel, creator, stakes, timer, created_at, lang) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (platform, community, channel, creator, json.dumps(stakes.to_dict()), timer, now, lang),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def save_table(self, table: Table) -> None:
        await self._db.execute(
            "UPDATE tables SET stakes = ?, timer = ?, running = ?, hand_no = ?, board_ref = ?, next_hand_at = ?, "
            "view = ?, lang = ? WHERE id = ?",
            (json.dumps(table.stakes.to_dict()), table.timer, int(table.running), table.hand_no, table.board_ref,
             table.next_hand_at, table.view, table.lang, table.id),
        )

    async def save_user_lang(self, *, platform: str, user: str, lang: str, chosen: bool) -> None:
        await self._db.execute(
            "INSERT INTO user_langs (platform, user_id, lang, chosen) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, user_id) DO UPDATE SET lang = excluded.lang, chosen = excluded.chosen",
            (platform, user, lang, int(chosen)))

    async def close_table(self, table_id: int) -> None:
        await self._db.execute("UPDATE tables SET open = 0, running = 0 WHERE id = ?", (table_id,))

    async def save_seat(self, table_id: int, seat: Seat) -> None:
        await self._db.execute(
            "INSERT INTO seats (table_id, seat_no, user_id, name, stack, is_bot, sitting_out, leaving, timeouts, "
            "unreachable) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, seat_no) DO UPDATE SET "
            "user_id = excluded.user_id, name = excluded.name, stack = excluded.stack, is_bot = excluded.is_bot, "
            "sitting_out = excluded.sitting_out, leaving = excluded.leaving, timeouts = excluded.timeouts, "
            "unreachable = excluded.unreachable",
            (table_id, seat.seat_no, seat.user, seat.name, seat.stack, int(seat.is_bot), int(seat.sitting_out),
             int(seat.leaving), seat.timeouts, int(seat.unreachable)),
        )

    async def remove_seat(self, table_id: int, seat_no: int) -> None:
        await self._db.execute("DELETE FROM seats WHERE table_id = ? AND seat_no = ?", (table_id, seat_no))

    async def ensure_wallet(self, *, community: str, user: str, name: str, balance: int, now: float) -> int:
        """The user's balance, creating the wallet with ``balance`` (from the house) if it does not exist."""
        row = await self._one("SELECT balance FROM wallets WHERE community = ? AND user_id = ?", (community, user))
        if row is not None:
            await self._db.execute("UPDATE wallets SET name = ? WHERE community = ? AND user_id = ?",
                                   (name, community, user))
            return int(row["balance"])
        await self._db.execute("INSERT INTO wallets (community, user_id, name, balance) VALUES (?, ?, ?, ?)",
                               (community, user, name, balance))
        await self.post([Transfer("grant", HOUSE, wallet_account(community, user), balance)], now=now)
        return balance

    async def refilled_on(self, *, community: str, user: str) -> str | None:
        row = await self._one("SELECT refilled_on FROM wallets WHERE community = ? AND user_id = ?", (community, user))
        return None if row is None else row["refilled_on"]

    async def refill(self, *, community: str, user: str, balance: int, day: str, now: float) -> None:
        """Top the wallet up to ``balance`` (from the house)."""
        row = await self._one("SELECT balance FROM wallets WHERE community = ? AND user_id = ?", (community, user))
        assert row is not None and row["balance"] < balance
        await self._db.execute(
            "UPDATE wallets SET balance = ?, refilled_on = ? WHERE community = ? AND user_id = ?",
            (balance, day, community, user),
        )
        await self.post([Transfer("refill", HOUSE, wallet_account(community, user), balance - row["balance"])],
                        now=now)

    async def buy_in(self, *, table_id: int, community: str, user: str, amount: int, now: float) -> None:
        """Take ``amount`` from the wallet to the seat's account (the seat row is the caller's to save);
        the CHECK refuses a negative balance."""
        await self._move_wallet(community=community, user=user, delta=-amount)
        await self.post([Transfer("buy-in", wallet_account(community, user), seat_account(table_id, user), amount)],
                        now=now)

    async def cash_out(self, *, table_id: int, community: str, user: str, amount: int, kind: str, now: float) -> None:
        """Give a seat's ``amount`` back to the wallet (the seat row is the caller's to remove).
        ``kind``: 'cash-out' (leaving, or busted), 'kick', or 'closed' (the table stopped)."""
        if amount:
            await self._move_wallet(community=community, user=user, delta=amount)
            await self.post([Transfer(kind, seat_account(table_id, user), wallet_account(community, user), amount)],
                            now=now)

    async def _move_wallet(self, *, community: str, user: str, delta: int) -> None:
        await self._db.execute(
            "UPDATE wallets SET balance = balance + ? WHERE community = ? AND user_id = ?", (delta, community, user))

    async def post(self, transfers: list[Transfer], *, now: float) -> None:
        """Record movements of chips in this transaction (see :mod:`bot.ledger`)."""
        await ledger.post(self._db, transfers, at=now)

    async def begin_hand(self, *, table_id: int, setup: HandSetup, now: float) -> int:
        cur = await self._db.execute(
            "INSERT INTO hands (table_id, hand_no, setup, status, started_at) VALUES (?, ?, ?, 'playing', ?)",
            (table_id, setup.hand_no, json.dumps(setup.to_json()), now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    async def add_action(self, *, hand_id: int, seq: int, action: str, seat_no: int, by_timeout: bool,
                         now: float, deadline: float) -> None:
        await self._db.execute(
            "INSERT INTO actions (hand_id, seq, action, seat_no, by_timeout, at, deadline) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (hand_id, seq, action, seat_no, int(by_timeout), now, deadline),
        )

    async def set_deadline(self, *, hand_id: int, deadline: float | None) -> None:
        await self._db.execute("UPDATE hands SET deadline = ? WHERE id = ?", (deadline, hand_id))

    async def finish_hand(self, *, hand_id: int, hand_file: str, summary: str, now: float) -> None:
        await self._db.execute(
            "UPDATE hands SET status = 'done', hand_file = ?, summary = ?, finished_at = ?, deadline = NULL "
            "WHERE id = ?",
            (hand_file, summary, now, hand_id),
        )

    async def void_hand(self, *, hand_id: int, now: float) -> None:
        await self._db.execute(
            "UPDATE hands SET status = 'void', finished_at = ?, deadline = NULL WHERE id = ?", (now, hand_id))


def _table(row: aiosqlite.Row) -> Table:
    return Table(
        id=row["id"], platform=row["platform"], community=row["community"], channel=row["channel"],
        creator=row["creator"], stakes=Stakes.from_dict(json.loads(row["stakes"])), timer=row["timer"],
        running=bool(row["running"]), hand_no=row["hand_no"], board_ref=row["board_ref"],
        next_hand_at=row["next_hand_at"], view=row["view"] if row["view"] in VIEWS else "image",
        lang=language_of(row["lang"]) or DEFAULT_LANGUAGE,
    )


def _seat(row: aiosqlite.Row) -> Seat:
    return Seat(
        seat_no=row["seat_no"], user=row["user_id"], name=row["name"], stack=row["stack"], is_bot=bool(row["is_bot"]),
        sitting_out=bool(row["sitting_out"]), leaving=bool(row["leaving"]), timeouts=row["timeouts"],
        unreachable=bool(row["unreachable"]),
    )

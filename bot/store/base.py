"""The store port: what the application asks of its database, written once in portable SQL.

:class:`Store` is the port (the application codes against it); :mod:`bot.store.sqlite`
(aiosqlite, a file) and :mod:`bot.store.postgres` (asyncpg) implement its few primitives: a
writing connection (:class:`Conn`) behind group commit (:mod:`bot.store.batch`), reads, and
notifications. Every change the application acknowledges is committed first: an ``atomic()``
block returns only after the COMMIT of the transaction it joined.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

from bot.core.i18n import DEFAULT_LANGUAGE, language_of
from bot.core.limits import VIEWS
from bot.core.model import TABLE_GAMES, HandSetup, Seat, Table, UserLanguage
from bot.store import fence
from bot.store.batch import CommitStats, Committer, StoreConflict
from engine import Stakes

T = TypeVar("T")

MAX_INTEGER = 2 ** 63 - 1
"""The largest whole number an INTEGER column holds (SQLite's, PostgreSQL's BIGINT): a number typed past it
(``hand 99999999999999999999``) names no row, and is never sent to the database (which refuses it)."""


class Row(Protocol):
    """A result row: ``row["column"]`` and ``row[0]`` (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: Any, /) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __len__(self) -> int: ...


class Conn(Protocol):
    """A backend's writing connection, inside the transaction its committer opened."""

    dialect: str

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...
    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...
    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...
    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int: ...
    async def new_ids(self, table: str, count: int) -> list[int]: ...
    async def script(self, sql: str) -> None: ...


Listener = Callable[[str], object]
"""Called with a notification's payload (a coroutine it returns is run as a task)."""

Migration = str | Callable[["Tx"], Awaitable[None]]
"""A schema version: SQL statements (portable DDL), or a function that runs in the migration's transaction."""

INSERT_ACTION = ("INSERT INTO actions (hand_id, seq, action, seat_no, by_timeout, at, deadline) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")


@dataclass
class PlayingHand:
    id: int
    table_id: int
    setup: HandSetup
    actions: list[str]
    deadline: float | None


class Store(ABC):
    """The database of tables, seats, wallets and hands (the port; see the module)."""

    dialect: str = ""

    def __init__(self, writer: Conn, committer: Committer) -> None:
        self._writer = writer
        self._group = committer
        self._listeners: dict[str, list[Listener]] = {}
        self._tasks: set[asyncio.Future[Any]] = set()
        self._schema_version = 0

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of a read (of committed data)."""

    @property
    def schema_version(self) -> int:
        """The version the database is at: the length of the schema it was opened with."""
        return self._schema_version

    @property
    def commit_stats(self) -> CommitStats:
        """Transactions committed so far and the blocks and statements in them."""
        return self._group.stats

    def atomic(self) -> _Atomic:
        """One unit of work: rolled back if it raises; when the block ends it is committed (with
        whatever else arrived with it) before this returns (``async with store.atomic() as tx:``)."""
        return _Atomic(self)

    async def run_atomic(self, work: Callable[[Tx], Awaitable[T]], *, attempts: int = 3) -> T:
        """``work`` in an :meth:`atomic` block, run again (up to ``attempts`` times) when another
        process's transaction conflicted with it (:class:`StoreConflict`)."""
        for attempt in range(1, attempts + 1):
            try:
                async with self.atomic() as tx:
                    return await work(tx)
            except StoreConflict:
                if attempt == attempts:
                    raise
                await asyncio.sleep(0.01 * attempt)
        raise AssertionError("unreachable")

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """One statement, committed when this returns."""
        await self._group.statement(sql, tuple(params))

    async def _close_group(self) -> None:
        await self._group.close()

    # ---------------------------------------------------------------- migrations

    @abstractmethod
    async def _lock_schema(self, tx: Tx) -> int:
        """Hold the schema for this transaction (other processes wait); the version it is at."""

    @abstractmethod
    async def _set_version(self, tx: Tx, version: int) -> None: ...

    async def _migrated(self, schema: Sequence[Migration]) -> Self:
        """This store once its database is at the last version of ``schema`` (closed again if a migration
        fails): the last step of opening either backend."""
        try:
            await self._migrate(schema)
        except BaseException:
            await self.close()
            raise
        self._schema_version = len(schema)
        return self

    async def _migrate(self, schema: Sequence[Migration]) -> None:
        while True:
            async with self.atomic() as tx:
                version = await self._lock_schema(tx)
                if version >= len(schema):
                    return
                script = schema[version]
                if callable(script):
                    await script(tx)
                else:
                    await tx.script(script)
                await self._set_version(tx, version + 1)

    # ---------------------------------------------------------------- notifications

    async def notify(self, channel: str, payload: str = "") -> None:
        """Tell the listeners of ``channel`` (on SQLite: those of this Store object only)."""
        self._dispatch(channel, payload)

    async def listen(self, channel: str, callback: Listener) -> None:
        """Call ``callback(payload)`` for each notification on ``channel`` from now on."""
        self._listeners.setdefault(channel, []).append(callback)

    async def unlisten(self, channel: str, callback: Listener) -> None:
        callbacks = self._listeners.get(channel, [])
        if callback in callbacks:
            callbacks.remove(callback)

    def _dispatch(self, channel: str, payload: str) -> None:
        loop = asyncio.get_running_loop()
        for callback in list(self._listeners.get(channel, ())):
            loop.call_soon(self._call, callback, payload)

    def _call(self, callback: Listener, payload: str) -> None:
        result = callback(payload)
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------- reads

    async def open_tables(self, *, table_id: int | None = None) -> list[Table]:
        """Every open table with its seats (or the one of ``table_id``, if it is open)."""
        tables = []
        only = "" if table_id is None else " AND id = ?"
        for row in await self.fetch(f"SELECT * FROM tables WHERE open = 1{only} ORDER BY id",
                                    () if table_id is None else (table_id,)):
            table = _table(row)
            for s in await self.fetch("SELECT * FROM seats WHERE table_id = ? ORDER BY seat_no", (table.id,)):
                table.seats[s["seat_no"]] = _seat(s)
            tables.append(table)
        return tables

    async def user_langs(self) -> dict[tuple[str, str], UserLanguage]:
        """(platform, user) -> (language, chosen with 'lang') for every user seen with a language."""
        rows = await self.fetch("SELECT platform, user_id, lang, chosen FROM user_langs")
        return {(r["platform"], r["user_id"]):
                UserLanguage(language_of(r["lang"]) or DEFAULT_LANGUAGE, bool(r["chosen"])) for r in rows}

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
        """One action as one INSERT in the next group commit: durable when this returns."""
        if fence.is_fenced():  # cluster mode: in a block that checks the table's lease first
            async with self.atomic() as tx:
                await tx.add_action(hand_id=hand_id, seq=seq, action=action, seat_no=seat_no, by_timeout=by_timeout,
                                    now=now, deadline=deadline)
            return
        await self._group.statement(INSERT_ACTION, (hand_id, seq, action, seat_no, int(by_timeout), float(now),
                                                    float(deadline)))

    async def wallet(self, community: str, user: str) -> tuple[int, str | None] | None:
        rows = await self.fetch("SELECT balance, refilled_on FROM wallets WHERE community = ? AND user_id = ?",
                                (community, user))
        return (rows[0]["balance"], rows[0]["refilled_on"]) if rows else None

    async def leaderboard(self, community: str, limit: int = 10) -> list[tuple[str, int]]:
        """``top``: the players' wallets (house bots have none), with the chips they have at open cash
        tables; tournament chips are not wallet chips, and a sit-and-go's buy-ins are in its pool."""
        rows = await self.fetch(
            """SELECT w.name AS name, w.balance + COALESCE((SELECT SUM(s.stack) FROM seats s JOIN tables t
                   ON t.id = s.table_id WHERE t.open = 1 AND t.community = w.community AND s.user_id = w.user_id
                   AND NOT EXISTS (SELECT 1 FROM tournaments u WHERE u.table_id = t.id)), 0)
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
        if not 0 <= hand_no <= MAX_INTEGER:
            return None
        rows = await self.fetch("SELECT hand_file FROM hands WHERE table_id = ? AND hand_no = ?", (table_id, hand_no))
        return rows[0]["hand_file"] if rows else None


class _Atomic:
    """A :meth:`Store.atomic` block (a class, not a generator: it runs for every write)."""

    __slots__ = ("block", "store", "tx")

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tx = Tx(store._writer)
        self.block = store._group.block()

    async def __aenter__(self) -> Tx:
        await self.block.__aenter__()
        try:
            await fence.check(self.tx)  # cluster mode: still this process's table, in this transaction
        except BaseException as exc:
            await self.block.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self.tx

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.block.__aexit__(kind, exc, tb)
        if exc is None:
            for channel, payload in self.tx.notices:  # committed: now the listeners may look
                await self.store.notify(channel, payload)


class Tx:
    """Writes (and reads) inside one :meth:`Store.atomic` block."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn
        self.notices: list[tuple[str, str]] = []
        """Notifications to send once this block is committed (:meth:`notify`)."""

    def notify(self, channel: str, payload: str = "") -> None:
        """:meth:`Store.notify` once this block is committed (not if it is rolled back)."""
        self.notices.append((channel, payload))

    @property
    def dialect(self) -> str:
        """'sqlite' or 'postgresql'."""
        return self._conn.dialect

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """One statement of a feature's own repository in this transaction. The backend may hold it
        back to send with the next statement that returns rows, or at the end of the block (PostgreSQL
        does: one round trip for all of them; SQLite runs it at once): its error is raised there, and the
        block is rolled back all the same. Use :meth:`one` (``RETURNING``) to see a statement's outcome at once."""
        await self._conn.execute(sql, params)

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """An INSERT into a table with an ``id INTEGER PRIMARY KEY``: the new row's id."""
        return await self._conn.insert(sql, params)

    async def new_ids(self, table: str, count: int) -> list[int]:
        """``count`` ids for rows of ``table`` that the caller inserts with their ids (several at once)."""
        return await self._conn.new_ids(table, count) if count else []

    async def script(self, sql: str) -> None:
        """Schema statements (portable DDL, ``;``-separated) in this transaction."""
        await self._conn.script(sql)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self._conn.one(sql, params)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._conn.all(sql, params)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Write rows of a feature's own table (its module holds the SQL) in this transaction."""
        await self._conn.executemany(sql, rows)

    async def create_table(self, *, platform: str, community: str, channel: str, creator: str, stakes: Stakes,
                           timer: int, now: float, lang: str = DEFAULT_LANGUAGE) -> int:
        return await self.insert(
            "INSERT INTO tables (platform, community, channel, creator, stakes, timer, created_at, lang) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (platform, community, channel, creator, _stakes_json(stakes), timer, float(now), lang),
        )

    async def save_table(self, table: Table) -> None:
        await self.execute(
            "UPDATE tables SET stakes = ?, timer = ?, running = ?, hand_no = ?, board_ref = ?, next_hand_at = ?, "
            "view = ?, lang = ?, closing = ?, game = ?, mix_hands = ?, mix_start = ? WHERE id = ?",
            (_stakes_json(table.stakes), table.timer, int(table.running), table.hand_no, table.board_ref,
             table.next_hand_at, table.view, table.lang, int(table.closing), table.game, table.mix_hands,
             table.mix_start, table.id),
        )

    async def save_board_ref(self, table_id: int, ref: str | None) -> None:
        """The table's board message alone (the rest of the table may be mid-change in memory)."""
        await self.execute("UPDATE tables SET board_ref = ? WHERE id = ?", (ref, table_id))

    async def save_user_lang(self, *, platform: str, user: str, lang: str, chosen: bool) -> None:
        await self.execute(
            "INSERT INTO user_langs (platform, user_id, lang, chosen) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (platform, user_id) DO UPDATE SET lang = excluded.lang, chosen = excluded.chosen",
            (platform, user, lang, int(chosen)))

    async def close_table(self, table_id: int) -> None:
        await self.execute("UPDATE tables SET open = 0, running = 0 WHERE id = ?", (table_id,))

    async def save_seat(self, table_id: int, seat: Seat) -> None:
        await self.execute(
            "INSERT INTO seats (table_id, seat_no, user_id, name, stack, is_bot, sitting_out, leaving, timeouts, "
            "unreachable, kicked) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, seat_no) DO UPDATE "
            "SET user_id = excluded.user_id, name = excluded.name, stack = excluded.stack, is_bot = excluded.is_bot, "
            "sitting_out = excluded.sitting_out, leaving = excluded.leaving, timeouts = excluded.timeouts, "
            "unreachable = excluded.unreachable, kicked = excluded.kicked",
            (table_id, seat.seat_no, seat.user, seat.name, seat.stack, int(seat.is_bot), int(seat.sitting_out),
             int(seat.leaving), seat.timeouts, int(seat.unreachable), int(seat.kicked)),
        )

    async def remove_seat(self, table_id: int, seat_no: int) -> None:
        await self.execute("DELETE FROM seats WHERE table_id = ? AND seat_no = ?", (table_id, seat_no))

    async def begin_hand(self, *, table_id: int, setup: HandSetup, now: float, deadline: float | None = None) -> int:
        """A hand in progress (its first turn's ``deadline`` with it: one statement for the deal)."""
        return await self.insert(
            "INSERT INTO hands (table_id, hand_no, setup, status, started_at, deadline) "
            "VALUES (?, ?, ?, 'playing', ?, ?)",
            (table_id, setup.hand_no, json.dumps(setup.to_json()), float(now),
             None if deadline is None else float(deadline)),
        )

    async def add_action(self, *, hand_id: int, seq: int, action: str, seat_no: int, by_timeout: bool,
                         now: float, deadline: float) -> None:
        await self.execute(INSERT_ACTION, (hand_id, seq, action, seat_no, int(by_timeout), float(now),
                                           float(deadline)))

    async def finish_hand(self, *, hand_id: int, hand_file: str, summary: str, now: float) -> None:
        await self.execute(
            "UPDATE hands SET status = 'done', hand_file = ?, summary = ?, finished_at = ?, deadline = NULL "
            "WHERE id = ?",
            (hand_file, summary, now, hand_id),
        )

    async def void_hand(self, *, hand_id: int, now: float) -> None:
        await self.execute(
            "UPDATE hands SET status = 'void', finished_at = ?, deadline = NULL WHERE id = ?", (now, hand_id))


@functools.lru_cache(maxsize=256)
def _stakes_json(stakes: Stakes) -> str:
    """A table's stakes as stored (written at each deal and settlement; a table's stakes rarely change)."""
    return json.dumps(stakes.to_dict())


def _table(row: Row) -> Table:
    return Table(
        id=row["id"], platform=row["platform"], community=row["community"], channel=row["channel"],
        creator=row["creator"], stakes=Stakes.from_dict(json.loads(row["stakes"])), timer=row["timer"],
        running=bool(row["running"]), hand_no=row["hand_no"], board_ref=row["board_ref"],
        next_hand_at=row["next_hand_at"], view=row["view"] if row["view"] in VIEWS else "image",
        lang=language_of(row["lang"]) or DEFAULT_LANGUAGE, closing=bool(row["closing"]),
        game=row["game"] if row["game"] in TABLE_GAMES else "stud8", mix_hands=row["mix_hands"],
        mix_start=row["mix_start"],
    )


def _seat(row: Row) -> Seat:
    return Seat(
        seat_no=row["seat_no"], user=row["user_id"], name=row["name"], stack=row["stack"], is_bot=bool(row["is_bot"]),
        sitting_out=bool(row["sitting_out"]), leaving=bool(row["leaving"]), timeouts=row["timeouts"],
        unreachable=bool(row["unreachable"]), kicked=bool(row["kicked"]),
    )

"""The store on SQLite (aiosqlite, WAL): one writing connection behind group commit, one for reads.

Each aiosqlite call is a hop to the connection's thread, so the writing connection sends
what it can together: transaction control (BEGIN, SAVEPOINT, RELEASE) waits for the next
statement and goes with it, and a batch of queued statements (``record_action``) runs in one
hop, each in its own savepoint. Reads of a file go through a second connection (WAL lets
them run beside the writer and see only committed data); an in-memory database has one
connection, so its reads wait for the writer's turn.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import aiosqlite

from . import dialect
from .base import Row, Store, Tx

T = TypeVar("T")

PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",  # durable against a killed process
           "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000")


class SqliteConn:
    """The writing connection (see the module): statements that return nothing are held back and
    sent with the next one that does, or when the block ends (:meth:`flush`), in one hop."""

    dialect = "sqlite"
    begin = "BEGIN IMMEDIATE"

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self._pending: list[tuple[str, Any, bool]] = []
        """(sql, parameters or rows, many) not yet sent; transaction control has no parameters."""

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        pending, self._pending = self._pending, []
        raw = self.db

        def run() -> T:
            con: sqlite3.Connection = raw._conn
            for sql, params, many in pending:
                if many:
                    con.executemany(sql, params)
                else:
                    con.execute(sql, params)
            return fn(con)

        result: T = await raw._execute(run)  # type: ignore[no-untyped-call]  # its thread, as every aiosqlite call
        return result

    async def ready(self) -> None:
        """A file stays open."""

    async def control(self, sql: str, *, now: bool = False) -> None:
        self._pending.append((sql, (), False))
        if now:
            await self.flush()

    async def flush(self) -> None:
        if self._pending:
            await self._call(lambda con: None)

    async def rollback_to(self, savepoint: str) -> None:
        opened = (f"SAVEPOINT {savepoint}", (), False)
        if opened in self._pending:  # never sent: nothing to undo on the database
            del self._pending[self._pending.index(opened):]
            return
        self._pending = [(f"ROLLBACK TO SAVEPOINT {savepoint}", (), False),
                         (f"RELEASE SAVEPOINT {savepoint}", (), False)]  # what was held back was the block's
        await self.flush()

    async def statements(self, jobs: Sequence[tuple[str, Sequence[Any]]], savepoint: str, *,
                         commit: bool) -> list[BaseException | None]:
        def run(con: sqlite3.Connection) -> list[BaseException | None]:
            errors: list[BaseException | None] = []
            for n, (sql, params) in enumerate(jobs):
                name = f"{savepoint}_{n}"
                con.execute(f"SAVEPOINT {name}")
                try:
                    con.execute(sql, params)
                except sqlite3.DatabaseError as exc:
                    con.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    errors.append(exc)
                else:
                    errors.append(None)
                con.execute(f"RELEASE SAVEPOINT {name}")
            if commit:
                con.execute("COMMIT")
            return errors

        return await self._call(run)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._pending.append((sql, params, False))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._pending.append((sql, list(rows), True))

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        row: Row | None = await self._call(lambda con: con.execute(sql, params).fetchone())
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = await self._call(lambda con: con.execute(sql, params).fetchall())
        return rows

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        new = await self._call(lambda con: con.execute(sql, params).lastrowid)
        assert new is not None
        return new

    async def new_ids(self, table: str, count: int) -> list[int]:
        # the writing transaction (BEGIN IMMEDIATE) holds the database: nobody else takes these
        row = await self.one(f"SELECT COALESCE(MAX(id), 0) FROM {table}")
        first = int(row[0]) + 1 if row is not None else 1
        return list(range(first, first + count))

    async def script(self, sql: str) -> None:
        statements = dialect.split(sql)

        self._pending += [(statement, (), False) for statement in statements]
        await self.flush()


class SqliteStore(Store):
    """The store on a SQLite file (or ``:memory:``)."""

    dialect = "sqlite"

    def __init__(self, db: aiosqlite.Connection, reader: aiosqlite.Connection | None) -> None:
        self._db = db
        """The writing connection (aiosqlite); the bench traces its statements."""
        self._reader = reader
        super().__init__(SqliteConn(db))

    @classmethod
    async def connect(cls, path: str) -> SqliteStore:
        db = await _connect(path)
        reader = None
        if path and path != ":memory:" and not path.startswith("file:"):
            reader = await _connect(path)
            await reader.execute("PRAGMA query_only=ON")
        return await cls(db, reader)._migrated()

    async def close(self) -> None:
        await self._close_group()
        if self._reader is not None:
            await self._reader.close()
        await self._db.close()

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._reader is not None:
            async with self._reader.execute(sql, tuple(params)) as cur:
                return list(await cur.fetchall())
        async with self.atomic() as tx:  # one connection: read in the writer's turn
            return await tx.all(sql, params)

    async def _lock_schema(self, tx: Tx) -> int:
        row = await tx.one("PRAGMA user_version")  # BEGIN IMMEDIATE already holds the database
        return int(row[0]) if row is not None else 0

    async def _set_version(self, tx: Tx, version: int) -> None:
        await tx.execute(f"PRAGMA user_version={int(version)}")


async def _connect(path: str) -> aiosqlite.Connection:
    db = await aiosqlite.connect(path, isolation_level=None)
    db.row_factory = aiosqlite.Row
    for pragma in PRAGMAS:
        await db.execute(pragma)
    return db

"""The store on SQLite (WAL): the writing connection in the event loop's thread behind group commit
(:mod:`bot.store.inline`), reads and checkpoints on aiosqlite's threads.

A write on a file in WAL mode takes microseconds, far less than a hop to another thread, so the
writer runs its statements where they are called; whatever is written in the same turn of the
loop shares one COMMIT, and each writer resumes after it. Reads of a file go through a second
connection (WAL lets them run beside the writer and see only committed data), so a long read (the
stats, a history) never holds up the tables; an in-memory database has one connection, so its
reads take the writer's turn. A third connection checkpoints the WAL into the database file now and
then, in its thread: the fsync of a checkpoint never stops the loop.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import aiosqlite

from bot.store import dialect
from bot.store.base import Migration, Row, Store, Tx
from bot.store.batch import StoreDuplicate
from bot.store.inline import InlineCommit

log = logging.getLogger(__name__)

PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",  # durable against a killed process
           "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000")


def _if_duplicate(exc: sqlite3.IntegrityError) -> None:
    """Raise a unique or primary key violation as :class:`StoreDuplicate` (the caller re-raises the others).
    A try statement, not a context manager, around each statement: it costs nothing until one fails."""
    if "UNIQUE" in str(exc) or "PRIMARY KEY" in str(exc):
        raise StoreDuplicate(str(exc)) from exc


class SqliteConn:
    """The writing connection, in the event loop's thread: each statement runs when it is called
    (microseconds on a file in WAL mode; see :mod:`bot.store.inline`), so a block's reads and
    inserts cost no round trip and its errors come at once."""

    dialect = "sqlite"

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def run(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.con.execute(sql, params)

    def in_transaction(self) -> bool:
        return self.con.in_transaction

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        try:
            self.con.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self.con.executemany(sql, rows)
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        try:
            row: Row | None = self.con.execute(sql, params).fetchone()
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        try:
            return list(self.con.execute(sql, params).fetchall())
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        try:
            new = self.con.execute(sql, params).lastrowid
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise
        assert new is not None
        return new

    async def new_ids(self, table: str, count: int) -> list[int]:
        # the writing transaction (BEGIN IMMEDIATE) holds the database: nobody else takes these
        row = self.con.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()
        first = int(row[0]) + 1 if row is not None else 1
        return list(range(first, first + count))

    async def script(self, sql: str) -> None:
        try:
            for statement in dialect.split(sql):  # one by one: executescript would COMMIT first
                self.con.execute(statement)
        except sqlite3.IntegrityError as exc:
            _if_duplicate(exc)
            raise


class SqliteStore(Store):
    """The store on a SQLite file (or ``:memory:``): the writer in the loop's thread (see
    :mod:`bot.store.inline`), reads and WAL checkpoints through aiosqlite's threads."""

    dialect = "sqlite"
    checkpoint_every = 1000
    """Writes committed between two checkpoints of the WAL into the database file (in a thread:
    a checkpoint syncs the file to disk, which the loop must not wait for)."""

    def __init__(self, con: sqlite3.Connection, *, reader: aiosqlite.Connection | None,
                 checkpointer: aiosqlite.Connection | None) -> None:
        self._con = con
        self._reader = reader
        self._checkpointer = checkpointer
        self._checkpoint: asyncio.Task[None] | None = None
        self._written = 0
        """Writes committed since the last checkpoint began."""
        conn = SqliteConn(con)
        self._inline = InlineCommit(run=conn.run, in_transaction=conn.in_transaction, committed=self._committed)
        super().__init__(conn, self._inline)

    @classmethod
    async def connect(cls, path: str, *, schema: Sequence[Migration]) -> SqliteStore:
        """The database at ``path`` (created if need be), migrated to the last version of ``schema``."""
        # Never waits for a lock (see InlineCommit); every statement the bot writes stays prepared.
        con = sqlite3.connect(path, isolation_level=None, timeout=0, cached_statements=512)
        try:
            con.row_factory = sqlite3.Row
            for pragma in (*PRAGMAS, "PRAGMA busy_timeout=0", "PRAGMA cache_size=-65536"):
                con.execute(pragma)
            reader = checkpointer = None
            if path and path != ":memory:" and not path.startswith("file:"):
                con.execute("PRAGMA wal_autocheckpoint=0")  # checkpointed in a thread instead (_committed)
                reader = await _connect(path)
                await reader.execute("PRAGMA query_only=ON")
                checkpointer = await _connect(path)
        except BaseException:
            con.close()
            raise
        return await cls(con, reader=reader, checkpointer=checkpointer)._migrated(schema)

    def _committed(self) -> None:
        items = self._inline.stats.items
        if self._checkpointer is None or items - self._written < self.checkpoint_every:
            return
        if self._checkpoint is None or self._checkpoint.done():
            self._written = items
            self._checkpoint = asyncio.get_running_loop().create_task(self._run_checkpoint())

    async def _run_checkpoint(self) -> None:
        assert self._checkpointer is not None
        try:
            await self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except Exception:  # the next one tries again; the WAL only grows meanwhile
            log.exception("checkpointing the SQLite WAL failed")

    async def close(self) -> None:
        await self._close_group()
        if self._checkpoint is not None:
            await self._checkpoint
        for other in (self._checkpointer, self._reader):
            if other is not None:
                await other.close()
        self._con.close()  # the last connection: SQLite checkpoints the WAL into the file and removes it

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

"""The store on PostgreSQL (asyncpg): a pool for reads, one writing connection behind group commit,
one connection for LISTEN.

The portable SQL is translated by :mod:`bot.store.dialect`. Several processes may share the
database: each writes through its own connection, PostgreSQL's row locks order them; a block
that waits on another process's lock holds up only this process's batch, and a deadlock or
serialization failure rolls back that block alone and raises :class:`StoreConflict` (retry it
with :meth:`Store.run_atomic`). Migrations take an advisory lock, so processes starting together
migrate once. ``SUM`` of integers comes back as ``int`` (numeric without a fraction), as on SQLite.
"""

from __future__ import annotations

import asyncio
import decimal
from collections.abc import Iterable, Sequence
from typing import Any

import asyncpg

from bot.store import dialect
from bot.store.base import Listener, Migration, Row, Store, Tx
from bot.store.batch import GroupCommit, StoreConflict, StoreDuplicate

SCHEMA_LOCK = 0x5374_7564  # pg_advisory_xact_lock key held while migrating ('Stud')
_CONFLICTS = (  # raised as the store's own errors (_conflict)
    asyncpg.exceptions.DeadlockDetectedError, asyncpg.exceptions.SerializationError,
    asyncpg.exceptions.UniqueViolationError)


def _numeric(text: str) -> int | float:
    value = decimal.Decimal(text)
    return int(value) if value == value.to_integral_value() and "." not in text else float(value)


async def _setup(con: asyncpg.Connection) -> None:
    await con.set_type_codec("numeric", encoder=str, decoder=_numeric, schema="pg_catalog", format="text")


def _conflict(exc: BaseException) -> BaseException:
    if isinstance(exc, asyncpg.exceptions.UniqueViolationError):
        return StoreDuplicate(str(exc))
    if isinstance(exc, _CONFLICTS):
        return StoreConflict(f"conflict with another transaction, rolled back: {exc}")
    return exc


class PostgresConn:
    """The writing connection."""

    dialect = "postgresql"
    begin = "BEGIN"

    def __init__(self, con: asyncpg.Connection, dsn: str) -> None:
        self.con = con
        self.dsn = dsn
        self._pending: list[str] = []

    async def ready(self) -> None:
        """A connection the server closed (a restart, an administrator) is opened again."""
        if self.con.is_closed():
            self._pending.clear()
            con = await asyncpg.connect(self.dsn)
            await _setup(con)
            self.con = con

    async def close(self) -> None:
        await self.con.close()

    async def _flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            await self.con.execute("; ".join(pending))

    async def control(self, sql: str, *, now: bool = False) -> None:
        self._pending.append(sql)
        if now:
            await self._flush()

    async def flush(self) -> None:
        """Statements are sent as they come (their errors raised there); control waits for the next."""

    async def rollback_to(self, savepoint: str) -> None:
        await self.control(f"ROLLBACK TO SAVEPOINT {savepoint}")
        await self.control(f"RELEASE SAVEPOINT {savepoint}", now=True)

    async def statements(self, jobs: Sequence[tuple[str, Sequence[Any]]], savepoint: str, *,
                         commit: bool) -> list[BaseException | None]:
        errors = await self._statements(jobs, savepoint)
        if commit:
            await self.control("COMMIT", now=True)
        return errors

    async def _statements(self, jobs: Sequence[tuple[str, Sequence[Any]]],
                          savepoint: str) -> list[BaseException | None]:
        """Transaction control rides with the next round trip: BEGIN and SAVEPOINT go together, and
        RELEASE with the COMMIT."""
        if len({sql for sql, _ in jobs}) == 1:  # the usual batch: the same INSERT, all at once
            await self.control(f"SAVEPOINT {savepoint}", now=True)
            try:
                await self.con.executemany(dialect.placeholders(jobs[0][0]), [tuple(p) for _, p in jobs])
            except asyncpg.PostgresError:
                await self.rollback_to(savepoint)
            else:
                await self.control(f"RELEASE SAVEPOINT {savepoint}")
                return [None] * len(jobs)
        errors: list[BaseException | None] = []
        for n, (sql, params) in enumerate(jobs):  # one failed: each alone, in its own savepoint
            name = f"{savepoint}_{n}"
            await self.control(f"SAVEPOINT {name}", now=True)
            try:
                await self.con.execute(dialect.placeholders(sql), *params)
            except asyncpg.PostgresError as exc:
                await self.rollback_to(name)
                errors.append(_conflict(exc))
            else:
                await self.control(f"RELEASE SAVEPOINT {name}")
                errors.append(None)
        return errors

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        await self._flush()
        try:
            await self.con.execute(dialect.placeholders(sql), *params)
        except _CONFLICTS as exc:
            raise _conflict(exc) from exc

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(r) for r in rows]
        if not batch:
            return
        await self._flush()
        try:
            await self.con.executemany(dialect.placeholders(sql), batch)
        except _CONFLICTS as exc:
            raise _conflict(exc) from exc

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        await self._flush()
        try:
            row: Row | None = await self.con.fetchrow(dialect.placeholders(sql), *params)
        except _CONFLICTS as exc:
            raise _conflict(exc) from exc
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        await self._flush()
        try:
            rows: list[Row] = await self.con.fetch(dialect.placeholders(sql), *params)
        except _CONFLICTS as exc:
            raise _conflict(exc) from exc
        return rows

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        row = await self.one(sql.rstrip().rstrip(";") + " RETURNING id", params)
        assert row is not None
        return int(row[0])

    async def new_ids(self, table: str, count: int) -> list[int]:
        rows = await self.all(f"SELECT nextval(pg_get_serial_sequence('{table}', 'id')) "
                              "FROM generate_series(1, ?)", (count,))
        return sorted(int(r[0]) for r in rows)

    async def script(self, sql: str) -> None:
        await self._flush()
        for statement in dialect.split(sql):
            try:
                await self.con.execute(dialect.ddl(dialect.placeholders(statement)))
            except _CONFLICTS as exc:
                raise _conflict(exc) from exc


class PostgresStore(Store):
    """The store on a PostgreSQL database."""

    dialect = "postgresql"

    def __init__(self, *, writer: asyncpg.Connection, pool: asyncpg.Pool, dsn: str) -> None:
        self._conn = PostgresConn(writer, dsn)
        self._pool = pool
        self._dsn = dsn
        self._listen_con: asyncpg.Connection | None = None
        self._closing = False
        super().__init__(self._conn, GroupCommit(self._conn))

    @property
    def listen_pid(self) -> int | None:
        """The server process of the LISTEN connection, if one is open."""
        con = self._listen_con
        return None if con is None or con.is_closed() else int(con.get_server_pid())

    @property
    def writer_pid(self) -> int:
        """The server process of the writing connection (for tests and operators)."""
        return int(self._conn.con.get_server_pid())

    @classmethod
    async def connect(cls, dsn: str, *, schema: Sequence[Migration], pool_size: int = 5) -> PostgresStore:
        """The database at ``dsn``, migrated to the last version of ``schema``."""
        writer = await asyncpg.connect(dsn)
        try:
            await _setup(writer)
            pool = await asyncpg.create_pool(dsn, min_size=1, max_size=max(1, pool_size), init=_setup)
        except BaseException:
            await writer.close()
            raise
        return await cls(writer=writer, pool=pool, dsn=dsn)._migrated(schema)

    async def close(self) -> None:
        self._closing = True
        await self._close_group()
        if self._listen_con is not None:
            await self._listen_con.close()
            self._listen_con = None
        await self._pool.close()
        await self._conn.close()

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = await self._pool.fetch(dialect.placeholders(sql), *params)
        return rows

    async def _lock_schema(self, tx: Tx) -> int:
        await tx.execute(f"SELECT pg_advisory_xact_lock({SCHEMA_LOCK})")
        await tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = await tx.one("SELECT MAX(version) FROM schema_version")
        return int(row[0]) if row is not None and row[0] is not None else 0

    async def _set_version(self, tx: Tx, version: int) -> None:
        await tx.execute("DELETE FROM schema_version")
        await tx.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        # ids written explicitly (the ledger's opening transfer) move the identity sequences past them
        for row in await tx.all("SELECT table_name FROM information_schema.columns WHERE table_schema = "
                                "current_schema() AND column_name = 'id' AND is_identity = 'YES'"):
            table = row["table_name"]
            await tx.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), m) FROM (SELECT MAX(id) AS m FROM {table}) x "
                "WHERE m > COALESCE((SELECT last_value FROM pg_sequences WHERE schemaname = current_schema() "
                f"AND sequencename = '{table}_id_seq'), 0)")

    # ---------------------------------------------------------------- LISTEN / NOTIFY

    async def notify(self, channel: str, payload: str = "") -> None:
        """NOTIFY ``channel``: every process listening on the database hears it (this one too)."""
        await self._pool.execute("SELECT pg_notify($1, $2)", channel, payload)

    async def listen(self, channel: str, callback: Listener) -> None:
        first = not self._listeners.get(channel)
        await super().listen(channel, callback)
        if first:
            con = await self._listening()
            await con.add_listener(channel, self._heard)

    async def unlisten(self, channel: str, callback: Listener) -> None:
        await super().unlisten(channel, callback)
        if not self._listeners.get(channel) and self._listen_con is not None and not self._listen_con.is_closed():
            await self._listen_con.remove_listener(channel, self._heard)

    async def _listening(self) -> asyncpg.Connection:
        """The LISTEN connection, opened (again, with every channel listened to) if need be."""
        if self._listen_con is None or self._listen_con.is_closed():
            con = await asyncpg.connect(self._dsn)
            con.add_termination_listener(self._listen_lost)
            for channel, callbacks in self._listeners.items():
                if callbacks:
                    await con.add_listener(channel, self._heard)
            self._listen_con = con
        return self._listen_con

    def _listen_lost(self, connection: object) -> None:
        """The server ended the LISTEN connection: listen again (notifications meanwhile are lost;
        listeners also poll). Tried again every second until it works."""
        if self._closing:
            return

        async def again() -> None:
            while not self._closing:
                try:
                    await self._listening()
                    return
                except (OSError, asyncpg.PostgresError):
                    await asyncio.sleep(1.0)

        task = asyncio.get_running_loop().create_task(again())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _heard(self, connection: object, pid: int, channel: str, payload: object) -> None:
        self._dispatch(channel, str(payload))

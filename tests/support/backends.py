"""Every test that exercises the store runs on both backends: the ``store_backend`` fixture.

A module opts in with ``pytestmark = pytest.mark.usefixtures("store_backend")`` (or a test asks for
the fixture by name); ``pytest_generate_tests`` in conftest.py runs each of its tests twice, as
``[sqlite]`` and ``[postgresql]``. On PostgreSQL the fixture stands in for ``SqliteStore.connect``
(:func:`bot.store.open_sqlite`), through which the tests' tables, the console's script mode and the
adapters' bootstrap all open a file path: each distinct path is a fresh PostgreSQL database of its
own, and the same path opened again is the same database, so a restart test still restarts on the
data it left.

A test that needs the SQLite file itself (``sqlite3`` on the path, a PRAGMA, a copy of the file),
or a module whose subject is not the store (the words of each language, what public lines show),
says so: ``@pytest.mark.sqlite_only(reason=...)``, and runs only as ``[sqlite]``. A test that runs
the bot in a subprocess passes it :meth:`Backend.env` so that the process opens the same database.

The databases come from :class:`Databases`: a thread of its own keeps a few clones of a migrated
template ready (``CREATE DATABASE ... TEMPLATE``: cheaper than an empty one plus the migrations) and
drops each test's databases after it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import os
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.schema import MIGRATIONS
from bot.store import Migration, open_sqlite
from bot.store.postgres import PostgresStore

T = TypeVar("T")
BACKENDS = ("sqlite", "postgresql")
READY = 2
"""Migrated databases kept ready ahead of the tests."""


def dsn_of(server_dsn: str, database: str) -> str:
    return urlunsplit(urlsplit(server_dsn)._replace(path="/" + database))


class Databases:
    """Fresh databases on one PostgreSQL server, made and dropped by a thread of their own."""

    def __init__(self, server_dsn: str) -> None:
        self.server_dsn = server_dsn
        self._names = (f"b{os.getpid()}_{n}" for n in itertools.count(1))
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="pg-databases", daemon=True)
        self._thread.start()
        self._template = f"b{os.getpid()}_template"
        self._ready: asyncio.Queue[str] | None = None
        self._filler: asyncio.Task[None] | None = None
        self._admin: asyncpg.Connection | None = None
        self._failure: BaseException | None = None
        self._call(self._start())

    def _call(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def _submit(self, work: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(work, self._loop)

    async def _admin_execute(self, sql: str) -> None:
        """One statement on the server's ``postgres`` database (one at a time: one connection)."""
        assert self._admin is not None
        async with self._lock:
            await self._admin.execute(sql)

    async def _start(self) -> None:
        self._lock = asyncio.Lock()
        self._admin = await asyncpg.connect(self.server_dsn)
        await self._admin_execute(f'CREATE DATABASE "{self._template}"')
        store = await PostgresStore.connect(dsn_of(self.server_dsn, self._template), schema=MIGRATIONS, pool_size=1)
        await store.close()  # migrated; nobody is connected to it any more, so it can be cloned
        self._ready = asyncio.Queue(maxsize=READY)
        self._filler = asyncio.get_running_loop().create_task(self._fill())

    async def _fill(self) -> None:
        assert self._ready is not None
        try:
            while True:
                name = next(self._names)
                await self._admin_execute(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
                await self._ready.put(name)
        except Exception as exc:  # the tests waiting for a database get this instead of waiting forever
            self._failure = exc
            raise

    async def _take(self, *, migrated: bool) -> str:
        assert self._ready is not None
        if not migrated:
            name = next(self._names)
            await self._admin_execute(f'CREATE DATABASE "{name}"')
            return name
        while self._failure is None:
            try:
                return await asyncio.wait_for(self._ready.get(), timeout=1.0)
            except TimeoutError:
                continue
        raise RuntimeError(f"no PostgreSQL database for the test: {self._failure!r}") from self._failure

    async def take(self, *, migrated: bool = True) -> str:
        """The DSN of a new database: migrated to the latest version, or empty."""
        name = await asyncio.wrap_future(self._submit(self._take(migrated=migrated)))
        return dsn_of(self.server_dsn, name)

    def take_now(self, *, migrated: bool = True) -> str:
        """:meth:`take` from outside an event loop."""
        return dsn_of(self.server_dsn, self._call(self._take(migrated=migrated)))

    def drop(self, dsns: Sequence[str]) -> None:
        """Drop these databases (in the background; their connections are ended)."""
        async def drop() -> None:
            for dsn in dsns:
                await self._admin_execute(f'DROP DATABASE IF EXISTS "{urlsplit(dsn).path[1:]}" WITH (FORCE)')

        self._submit(drop())

    def close(self) -> None:
        async def stop() -> None:
            if self._filler is not None:
                self._filler.cancel()
            if self._admin is not None:
                async with self._lock:  # the drops queued before
                    await self._admin.close()

        try:
            self._call(stop())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)


@dataclass
class Backend:
    """The backend a test runs on; on PostgreSQL, the databases that stand for its file paths."""

    name: str
    databases: Databases | None = None
    dsns: dict[str, str] = field(default_factory=dict)
    """The database of each path opened so far (a path's absolute form)."""

    @property
    def postgresql(self) -> bool:
        return self.name == "postgresql"

    @staticmethod
    def _key(path: str | os.PathLike[str]) -> str | None:
        text = str(path)
        return None if text in ("", ":memory:") or text.startswith("file:") else os.path.abspath(text)

    async def open(self, path: str, *, schema: Sequence[Migration]) -> PostgresStore:
        """``open_sqlite(path, schema=schema)`` on this backend: the path's database (a new one the first
        time: a clone of the migrated template if ``schema`` is today's, else an empty one)."""
        assert self.databases is not None, "SQLite opens its files itself"
        key = self._key(path)
        dsn = self.dsns.get(key) if key is not None else None
        if dsn is None:
            dsn = await self.databases.take(migrated=len(schema) == len(MIGRATIONS))
            self.dsns[key if key is not None else f":memory:{len(self.dsns)}"] = dsn
        return await PostgresStore.connect(dsn, schema=schema, pool_size=2)

    def dsn(self, path: str | os.PathLike[str]) -> str | None:
        """The PostgreSQL database that stands for ``path`` (made now if need be); None on SQLite."""
        if self.databases is None:
            return None
        key = self._key(path)
        assert key is not None, "a subprocess cannot share an in-memory database"
        if key not in self.dsns:
            self.dsns[key] = self.databases.take_now()
        return self.dsns[key]

    def db_args(self, path: str | os.PathLike[str]) -> tuple[list[str], dict[str, str]]:
        """The arguments and environment of a command (``studbot audit``) that reads the database at ``path``:
        ``--db path`` on SQLite, ``STUDBOT_DATABASE_URL`` on PostgreSQL."""
        dsn = self.dsn(path)
        return (["--db", str(path)], {}) if dsn is None else ([], {"STUDBOT_DATABASE_URL": dsn})

    def env(self, path: str | os.PathLike[str]) -> dict[str, str]:
        """What a bot process started on ``path`` needs in its environment to open the same database."""
        dsn = self.dsn(path)
        return {"STUDBOT_DB": str(path)} | ({"STUDBOT_DATABASE_URL": dsn} if dsn is not None else {})


async def rows(path: str | os.PathLike[str], sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of a read of the database at ``path`` (on the test's backend), as tuples."""
    store = await open_sqlite(str(path), schema=MIGRATIONS)
    try:
        return [tuple(r) for r in await store.fetch(sql, params)]
    finally:
        await store.close()


async def execute(path: str | os.PathLike[str], sql: str, params: Sequence[Any] = ()) -> None:
    """One statement on the database at ``path`` (on the test's backend), committed."""
    store = await open_sqlite(str(path), schema=MIGRATIONS)
    try:
        await store.execute(sql, params)
    finally:
        await store.close()


def now(work: Coroutine[Any, Any, T]) -> T:
    """The result of ``work``, waited for here: from a test that is not a coroutine, or a predicate polled
    in one (it runs in a thread with a loop of its own, so it blocks the caller's loop for a short read)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, work).result()


def rows_now(path: str | os.PathLike[str], sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """:func:`rows`, waited for here (see :func:`now`)."""
    return now(rows(path, sql, params))



async def snapshot(path: str | os.PathLike[str], *, leave_out: frozenset[tuple[str, str]] = frozenset()
                   ) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the database at ``path`` (on the test's backend), in a stable order;
    ``leave_out`` names (table, column) pairs to leave out."""
    store = await open_sqlite(str(path), schema=MIGRATIONS)
    try:
        names = ("SELECT name FROM sqlite_master WHERE type = 'table'" if store.dialect == "sqlite" else
                 "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        out: dict[str, list[tuple[Any, ...]]] = {}
        for (name,) in sorted(tuple(r) for r in await store.fetch(names)):
            found = await store.fetch(f"SELECT * FROM {name}")
            out[name] = sorted((tuple(v for k, v in zip(r.keys(), r) if (name, k) not in leave_out)  # type: ignore[attr-defined]
                                for r in found), key=repr)
        return out
    finally:
        await store.close()

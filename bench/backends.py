"""The stores ``python -m bench.bot`` measures the bot on: SQLite files, PostgreSQL databases.

Each scenario gets a fresh database (a file in the run's directory; a new database on the
PostgreSQL server: the one ``--pg-dsn`` names, which must allow CREATE DATABASE, else a
throwaway server of :mod:`bench.pgserver`, durable: fsync on). Each backend also measures
its reference, the least a durable action can cost there: one bare ``INSERT`` + ``COMMIT``
at a time.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import asyncpg

from bot.bootstrap import open_store
from bot.core.config import Settings
from bot.store import Store

from . import references
from .pgserver import PostgresServer
from .tables import Probe, Stats, StoreOpener, Timed

POOL_SIZE = 10
"""Connections of each bot process to PostgreSQL."""


@dataclass
class Backend:
    name: str
    """'sqlite' or 'postgres' (the label of its figures)."""
    where: str
    """Where its databases live, for the report."""
    new_database: Callable[[str], Awaitable[str]]
    """A fresh database for a scenario: its file path or DSN."""
    references: Callable[[int], Awaitable[list[tuple[str, Stats]]]]
    """Its bare INSERT + COMMIT references, ``n`` commits each: (label, figures)."""
    cleanup: list[Callable[[], Awaitable[None]]] = field(default_factory=list)
    server_cpu: Probe | None = None
    """The processor time of its server's processes, when the server is ours (PostgreSQL started here)."""

    def opener(self) -> StoreOpener:
        async def open_(name: str) -> Store:
            return await open_store(self.settings(await self.new_database(name)))
        return open_

    def settings(self, database: str) -> Settings:
        if self.name == "postgres":
            return replace(Settings(), database_url=database, db_pool_size=POOL_SIZE)
        return replace(Settings(), db_path=database, database_url=None)

    async def close(self) -> None:
        for step in reversed(self.cleanup):
            await step()


def sqlite_backend(directory: Path) -> Backend:
    async def new_database(name: str) -> str:
        return str(directory / f"{name}.db")

    async def refs(commits: int) -> list[tuple[str, Stats]]:
        return [("sqlite3: INSERT + COMMIT",  # as the bot's store writes: in the loop's thread
                 references.sqlite_bare(directory / "ref-sqlite3.db", commits=commits)),
                ("aiosqlite: INSERT + COMMIT",
                 await references.aiosqlite_bare(directory / "ref-aiosqlite.db", commits=commits))]

    return Backend(name="sqlite", where=f"a file in {directory} (WAL, synchronous=NORMAL: durable at COMMIT "
                   "against a crash of the process)", new_database=new_database, references=refs)


def postgres_backend(dsn: str | None, stack: contextlib.ExitStack) -> Backend:
    """PostgreSQL at ``dsn`` (databases created on it, dropped at the end), or on a throwaway server."""
    made: list[str] = []
    server: PostgresServer | None = None
    if dsn is None:
        server = stack.enter_context(PostgresServer())
        admin, where = server.dsn, f"a throwaway server (bench.pgserver, fsync on) at {server.dsn}"
    else:
        admin, where = dsn, f"the server of --pg-dsn ({_without_password(dsn)})"
    prefix = f"bench_{os.getpid()}_"

    async def new_database(name: str) -> str:
        database = f"{prefix}{name}"
        if server is not None:
            return server.create_database(database)
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(f'CREATE DATABASE "{database}"')
        finally:
            await conn.close()
        made.append(database)
        return _with_database(admin, database)

    async def drop() -> None:
        if not made:
            return
        conn = await asyncpg.connect(admin)
        try:
            for database in made:
                await conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        finally:
            await conn.close()

    async def refs(commits: int) -> list[tuple[str, Stats]]:
        return [("asyncpg: INSERT (its own transaction)",
                 await postgres_bare(await new_database("reference"), commits=commits))]

    return Backend(name="postgres", where=where, new_database=new_database, references=refs, cleanup=[drop],
                   server_cpu=None if server is None else lambda: server_seconds(server))


def server_seconds(server: PostgresServer) -> float:
    """Processor seconds (user + system) used so far by the server's postmaster and every process under it
    (Linux /proc; a backend that has ended is no longer counted, so connections are kept open meanwhile)."""
    assert server.base is not None
    postmaster = int((server.base / "data" / "postmaster.pid").read_text().split()[0])
    children: dict[int, list[int]] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after the name: state, ppid, ...
        except OSError:
            continue  # ended meanwhile
        pid = int(stat.parent.name)
        children.setdefault(int(fields[1]), []).append(pid)
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
    ours, todo = set(), [postmaster]
    while todo:
        pid = todo.pop()
        ours.add(pid)
        todo += children.get(pid, [])
    return sum(ticks.get(pid, 0) for pid in ours) / os.sysconf("SC_CLK_TCK")


async def postgres_bare(dsn: str, *, commits: int) -> Stats:
    """One INSERT at a time, each its own transaction (committed, flushed to disk, before the answer),
    with asyncpg on one connection: one round trip each."""
    stats = Stats()
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(references.ACTIONS_TABLE.replace("REAL", "DOUBLE PRECISION"))
        statement = await conn.prepare(references.INSERT_PG)
        perf = time.perf_counter
        with Timed(stats):
            for i in range(commits):
                started = perf()
                await statement.fetch(*references.row(i))
                stats.latencies.append(perf() - started)
    finally:
        await conn.close()
    return stats


def _with_database(dsn: str, database: str) -> str:
    """The DSN with its database replaced."""
    head, _, tail = dsn.partition("?")
    base = head.rsplit("/", 1)[0] if head.count("/") > 2 else head
    return f"{base}/{database}" + (f"?{tail}" if tail else "")


def _without_password(dsn: str) -> str:
    return re.sub(r"(//[^:/@]+):[^@]*@", r"\1:***@", dsn)

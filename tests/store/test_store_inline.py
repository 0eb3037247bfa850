"""The SQLite writer in the event loop's thread (bot/store/inline.py): group commit without a thread hop.

What the shared tests (test_store_commit.py, on both backends) cannot show: the loop never waits
for another process's lock (a BEGIN refused is tried again after a sleep, while the loop goes
on), a block that fails leaves no transaction holding the database, a COMMIT that fails fails
every writer of its transaction and the next one commits, a writer cancelled while waiting for
the connection holds nobody up, and the WAL is checkpointed in a thread.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.schema import MIGRATIONS
from bot.store import StoreError, open_sqlite
from bot.store.inline import InlineCommit
from bot.store.sqlite import SqliteStore


class Boom(Exception):
    pass


@pytest.mark.asyncio
async def test_a_store_waits_for_another_writer_without_stopping_the_loop(tmp_path: Path) -> None:
    """Another process's transaction holds the database: our BEGIN is refused (no busy timeout on the
    loop), tried again after sleeps while the loop runs other tasks, and goes through once it ends."""
    path = str(tmp_path / "x.db")
    store = await open_sqlite(path, schema=MIGRATIONS)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO user_langs (platform, user_id, lang) VALUES ('p', 'other', 'en')")
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.001)
                ticks += 1

        async def write() -> None:
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user="ours", lang="en", chosen=False)

        running = asyncio.create_task(ticker())
        writing = asyncio.create_task(write())
        await asyncio.sleep(0.1)  # a fixed time on purpose: the write is not to end, the loop is to run on
        assert not writing.done() and ticks > 20, "the loop stood still while the database was locked"
        other.execute("COMMIT")
        await asyncio.wait_for(writing, 5)
        running.cancel()
        rows = await store.fetch("SELECT user_id FROM user_langs ORDER BY user_id")
        assert [r[0] for r in rows] == ["other", "ours"]
    finally:
        other.close()
        await store.close()


@pytest.mark.asyncio
async def test_a_locked_database_fails_the_write_after_the_busy_timeout(tmp_path: Path) -> None:
    path = str(tmp_path / "x.db")
    store = await SqliteStore.connect(path, schema=MIGRATIONS)
    store._inline.busy_timeout = 0.05
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="database is locked"):
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user="ours", lang="en", chosen=False)
        other.execute("ROLLBACK")
        async with store.atomic() as tx:  # the store is fine afterwards
            await tx.save_user_lang(platform="p", user="ours", lang="en", chosen=False)
        assert len(await store.fetch("SELECT * FROM user_langs")) == 1
    finally:
        other.close()
        await store.close()


@pytest.mark.asyncio
async def test_a_failed_block_leaves_no_transaction_holding_the_database(tmp_path: Path) -> None:
    """A block that raises (nothing else written with it) must not keep BEGIN IMMEDIATE's lock: another
    connection can write at once afterwards."""
    path = str(tmp_path / "x.db")
    store = await open_sqlite(path, schema=MIGRATIONS)
    try:
        with pytest.raises(Boom):
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user="gone", lang="en", chosen=False)
                raise Boom
        await asyncio.sleep(0)  # the transaction's end is due in the next turn of the loop
        await asyncio.sleep(0)
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            other.execute("BEGIN IMMEDIATE")  # raises 'database is locked' if the store still held it
            other.execute("ROLLBACK")
        finally:
            other.close()
        assert await store.fetch("SELECT * FROM user_langs") == []
    finally:
        await store.close()


class _Connection:
    """A stand-in connection: records statements, and fails the COMMITs it is told to."""

    def __init__(self, *, fail_commits: int = 0) -> None:
        self.sent: list[str] = []
        self.open = False
        self.fail_commits = fail_commits

    def run(self, sql: str, params: Sequence[Any]) -> None:
        self.sent.append(sql)
        if sql.startswith("BEGIN"):
            self.open = True
        elif sql in ("COMMIT", "ROLLBACK"):
            if sql == "COMMIT" and self.fail_commits:
                self.fail_commits -= 1
                raise sqlite3.OperationalError("disk I/O error")
            self.open = False

    def in_transaction(self) -> bool:
        return self.open


@pytest.mark.asyncio
async def test_a_failed_commit_fails_every_writer_of_the_transaction_and_the_next_one_commits() -> None:
    conn = _Connection(fail_commits=1)
    group = InlineCommit(run=conn.run, in_transaction=conn.in_transaction)

    async def block() -> None:
        async with group.block():
            conn.run("UPDATE t", ())

    first = await asyncio.gather(block(), group.statement("INSERT", ()), block(), return_exceptions=True)
    assert all(isinstance(r, StoreError) for r in first), first
    assert conn.sent[-1] == "ROLLBACK" and group.stats.transactions == 0
    second = await asyncio.gather(block(), group.statement("INSERT", ()), return_exceptions=True)
    assert second == [None, None]
    assert group.stats.transactions == 1 and group.stats.items == 2
    assert conn.sent.count("BEGIN IMMEDIATE") == 2  # one transaction each time, for everyone
    await group.close()


@pytest.mark.asyncio
async def test_a_writer_cancelled_while_waiting_holds_nobody_up() -> None:
    conn = _Connection()
    group = InlineCommit(run=conn.run, in_transaction=conn.in_transaction)
    release = asyncio.Event()

    async def slow() -> None:
        async with group.block():
            await release.wait()  # keeps the connection across an await

    async def quick(n: int) -> int:
        async with group.block():
            conn.run(f"INSERT {n}", ())
        return n

    holder = asyncio.create_task(slow())
    await asyncio.sleep(0)
    waiters = [asyncio.create_task(quick(n)) for n in range(3)]
    await asyncio.sleep(0)
    waiters[1].cancel()
    release.set()
    results = await asyncio.wait_for(asyncio.gather(holder, *waiters, return_exceptions=True), 5)
    assert results[0] is None and results[1] == 0 and results[3] == 2
    assert isinstance(results[2], asyncio.CancelledError)
    assert "INSERT 1" not in conn.sent and group.stats.items == 3
    await group.close()


async def _wal_after_writes(path: Path, *, checkpoint_every: int) -> int:
    store = await SqliteStore.connect(str(path), schema=MIGRATIONS)
    store.checkpoint_every = checkpoint_every
    try:
        for n in range(300):
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user=f"u{n}", lang="en", chosen=False)
            if store._checkpoint is not None:
                await store._checkpoint  # as if the thread were quick: the next writes start the WAL again
        assert len(await store.fetch("SELECT * FROM user_langs")) == 300
        return Path(f"{path}-wal").stat().st_size
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_the_wal_is_checkpointed_in_a_thread_as_writes_accumulate(tmp_path: Path) -> None:
    """The writer's own automatic checkpoint is off (its fsync would stop the loop): the store's
    checkpoints keep the WAL from growing (compared with the same writes and none)."""
    never = await _wal_after_writes(tmp_path / "never.db", checkpoint_every=10**9)
    often = await _wal_after_writes(tmp_path / "often.db", checkpoint_every=20)
    assert often * 4 < never, (often, never)


@pytest.mark.asyncio
async def test_after_crowded_transactions_the_next_one_waits_for_more_writers_but_a_lone_writer_does_not() -> None:
    conn = _Connection()
    group = InlineCommit(run=conn.run, in_transaction=conn.in_transaction, linger=0.05)
    await asyncio.gather(*(group.statement(f"INSERT {n}", ()) for n in range(20)))  # many tables at once
    assert group.stats.transactions == 1

    async def later(n: int) -> None:
        for _ in range(n):
            await asyncio.sleep(0)
        await group.statement(f"INSERT late {n}", ())

    await asyncio.gather(later(0), later(3), later(6))  # a few turns of the loop apart: one COMMIT still
    assert group.stats.transactions == 2
    for n in range(20):  # one writer, each write waiting for the last one's COMMIT
        await group.statement(f"INSERT alone {n}", ())
    assert group.stats.transactions >= 2 + 18, "a lone writer was held back to wait for others"
    await group.close()

"""Group commit, notifications and several processes, on both backends (see test_store_backends.py).

Many blocks share fewer transactions, each durable when its ``async with`` returns (reopened, and
after SIGKILL of a writer process); a failing block is rolled back alone; a broken connection
fails its batch and nobody hangs. On PostgreSQL: row locks between two stores, a deadlock
retried, a lost connection reopened, processes starting together migrate once.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from store_fixtures import T0, Opener, new_table, opener, stakes

from bot.core.model import HandSetup
from bot.schema import MIGRATIONS
from bot.store import StoreError, Tx
from bot.store.postgres import PostgresStore

__all__ = ["opener"]  # the fixture, used by name
STORE_WRITER = Path(__file__).parents[1] / "support" / "procs" / "store_writer.py"

# ---------------------------------------------------------------- group commit


@pytest.mark.asyncio
async def test_blocks_that_arrive_together_share_a_transaction_and_are_durable(opener: Opener) -> None:
    store = await opener()
    blocks = 300
    try:
        await new_table(store)
        before = store.commit_stats
        returned: list[int] = []

        async def block(n: int) -> None:
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user=f"u{n}", lang="en", chosen=False)
                if n % 3 == 0:
                    await asyncio.sleep(0)  # a block that awaits something else meanwhile
                await tx.execute("UPDATE tables SET hand_no = hand_no + 1")
            returned.append(n)

        await asyncio.gather(*(block(n) for n in range(blocks)))
        stats = store.commit_stats
        transactions = stats.transactions - before.transactions
        assert stats.items - before.items == blocks
        assert transactions < blocks / 10, f"{transactions} transactions for {blocks} blocks"
        print(f"{store.dialect}: {blocks} concurrent blocks in {transactions} transactions")
        assert sorted(returned) == list(range(blocks))
    finally:
        await store.close()
    store = await opener()  # reopened: every block whose await returned is there
    try:
        rows = await store.fetch("SELECT COUNT(*) FROM user_langs WHERE platform = 'p'")
        assert rows[0][0] == blocks
        assert (await store.fetch("SELECT hand_no FROM tables"))[0][0] == blocks
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_actions_recorded_together_share_a_transaction(opener: Opener) -> None:
    store = await opener()
    actions = 400
    try:
        table_id = await new_table(store)
        async with store.atomic() as tx:
            hand_ids = [await tx.begin_hand(table_id=table_id, now=T0,
                                            setup=HandSetup(hand_no=n, stakes=stakes(), players=[], deck=[]))
                        for n in range(1, 41)]
        before = store.commit_stats
        await asyncio.gather(*(store.record_action(hand_id=hand_ids[n % 40], seq=n // 40, action="call",
                                                   seat_no=n % 7, by_timeout=False, now=T0 + n, deadline=T0 + 60)
                               for n in range(actions)))
        transactions = store.commit_stats.transactions - before.transactions
        print(f"{store.dialect}: {actions} concurrent record_action in {transactions} transactions")
        assert transactions <= 3
        results = await asyncio.gather(*(  # seq 0 of hand 0 is taken: that one alone is refused
            store.record_action(hand_id=hand_ids[0], seq=seq, action="fold", seat_no=0, by_timeout=False, now=T0,
                                deadline=T0) for seq in (10, 0, 11)), return_exceptions=True)
        assert results[0] is None and results[2] is None and isinstance(results[1], Exception), results
    finally:
        await store.close()
    store = await opener()
    try:
        assert (await store.fetch("SELECT COUNT(*) FROM actions"))[0][0] == actions + 2
        assert (await store.fetch("SELECT action FROM actions WHERE hand_id = ? AND seq = 0",
                                  (hand_ids[0],)))[0][0] == "call"
    finally:
        await store.close()


class Boom(Exception):
    pass


@pytest.mark.asyncio
async def test_a_failing_block_rolls_back_only_itself(opener: Opener) -> None:
    store = await opener()
    try:
        await new_table(store)
        before = store.commit_stats

        async def block(n: int) -> str:
            async with store.atomic() as tx:
                await tx.save_user_lang(platform="p", user=f"u{n}", lang="en", chosen=False)
                if n == 5:
                    raise Boom("block 5 fails after writing")
                if n == 7:  # a statement the database refuses: a duplicate key
                    await tx.execute("INSERT INTO user_langs (platform, user_id, lang) VALUES ('p', 'u7', 'en')")
            return "ok"

        results = await asyncio.gather(*(block(n) for n in range(12)), return_exceptions=True)
        assert isinstance(results[5], Boom)
        assert isinstance(results[7], Exception) and not isinstance(results[7], Boom)
        assert [r for n, r in enumerate(results) if n not in (5, 7)] == ["ok"] * 10
        assert store.commit_stats.transactions - before.transactions < 12
        users = [r[0] for r in await store.fetch("SELECT user_id FROM user_langs ORDER BY user_id")]
        assert users == sorted(f"u{n}" for n in range(12) if n not in (5, 7))
        async with store.atomic() as tx:  # the connection is fine afterwards
            await tx.save_user_lang(platform="p", user="u5", lang="en", chosen=False)
        assert len(await store.fetch("SELECT user_id FROM user_langs")) == 11
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_refused_commit_fails_every_block_of_the_batch(opener: Opener) -> None:
    """A deferred constraint the COMMIT refuses: none of the blocks that shared it is acknowledged."""
    store = await opener()
    try:
        table_id = await new_table(store)
        async with store.atomic() as tx:
            await tx.script("CREATE TABLE deferred (t INTEGER REFERENCES tables (id) DEFERRABLE INITIALLY DEFERRED)")

        async def block(n: int) -> None:
            async with store.atomic() as tx:
                await tx.execute("INSERT INTO deferred (t) VALUES (?)", (table_id if n else 999_999,))

        results = await asyncio.gather(*(block(n) for n in range(5)), return_exceptions=True)
        assert all(isinstance(r, StoreError) for r in results), results
        assert (await store.fetch("SELECT COUNT(*) FROM deferred"))[0][0] == 0
        await block(1)  # and the next batch commits
        assert (await store.fetch("SELECT COUNT(*) FROM deferred"))[0][0] == 1
    finally:
        await store.close()



# ---------------------------------------------------------------- notifications


@pytest.mark.asyncio
async def test_notify_reaches_listeners(opener: Opener) -> None:
    store = await opener()
    try:
        heard: asyncio.Queue[str] = asyncio.Queue()
        await store.listen("tables", heard.put_nowait)
        await store.notify("tables", "7")
        await store.notify("other", "x")
        assert await asyncio.wait_for(heard.get(), 5) == "7"
        if store.dialect == "postgresql":  # another process (another Store on the database) hears it too
            other = await opener()
            try:
                async def later(payload: str) -> None:
                    await heard.put(f"other:{payload}")

                await other.listen("tables", later)
                await store.notify("tables", "8")
                got = {await asyncio.wait_for(heard.get(), 5) for _ in range(2)}
                assert got == {"8", "other:8"}
            finally:
                await other.close()
        with pytest.raises(Boom):  # a block's notices go out after its COMMIT, and not if it is rolled back
            async with store.atomic() as tx:
                tx.notify("tables", "rolled back")
                raise Boom
        async with store.atomic() as tx:
            tx.notify("tables", "committed")
            await tx.save_user_lang(platform="p", user="n", lang="en", chosen=False)
        assert await asyncio.wait_for(heard.get(), 5) == "committed"
        await store.unlisten("tables", heard.put_nowait)
        await store.notify("tables", "9")
        await asyncio.sleep(0.2)  # nothing is to happen: no notice for a listener gone
        assert heard.empty()
    finally:
        await store.close()


# ---------------------------------------------------------------- several processes on PostgreSQL


@asynccontextmanager
async def two_processes(dsn: str) -> AsyncIterator[tuple[PostgresStore, PostgresStore]]:
    """Two stores on one database, each with its own connections, as two bot processes have."""
    a = await PostgresStore.connect(dsn, schema=MIGRATIONS)
    try:
        b = await PostgresStore.connect(dsn, schema=MIGRATIONS)
        try:
            yield a, b
        finally:
            await b.close()
    finally:
        await a.close()


@pytest.mark.asyncio
async def test_two_stores_on_one_postgresql_wait_for_each_others_row_locks(pg_database: str) -> None:
    async with two_processes(pg_database) as (a, b):
        table_id = await new_table(a)
        locked = asyncio.Event()
        release = asyncio.Event()

        async def holder() -> None:
            async with a.atomic() as tx:
                await tx.execute("UPDATE tables SET hand_no = hand_no + 1 WHERE id = ?", (table_id,))
                locked.set()
                await release.wait()

        async def waiter() -> None:
            async with b.atomic() as tx:
                await tx.execute("UPDATE tables SET hand_no = hand_no + 10 WHERE id = ?", (table_id,))

        held = asyncio.ensure_future(holder())
        await locked.wait()
        waiting = asyncio.ensure_future(waiter())
        await asyncio.sleep(0.2)  # nothing is to happen: b waits for a's row lock
        assert not waiting.done()  # b waits for a's row lock
        release.set()
        await asyncio.gather(held, waiting)
        assert (await a.fetch("SELECT hand_no FROM tables"))[0][0] == 11


@pytest.mark.asyncio
async def test_a_deadlock_between_processes_rolls_back_one_block_which_can_be_retried(pg_database: str) -> None:
    async with two_processes(pg_database) as (a, b):
        async with a.atomic() as tx:
            await tx.save_user_lang(platform="p", user="x", lang="en", chosen=False)
            await tx.save_user_lang(platform="p", user="y", lang="en", chosen=False)
        both = asyncio.Barrier(2)
        attempts: list[str] = []

        def work(first: str, second: str, name: str) -> Callable[[Tx], Awaitable[None]]:
            async def run(tx: Tx) -> None:
                attempts.append(name)
                await tx.execute("UPDATE user_langs SET chosen = chosen + 1 WHERE user_id = ?", (first,))
                if len(attempts) <= 2:
                    await both.wait()
                await tx.execute("UPDATE user_langs SET chosen = chosen + 1 WHERE user_id = ?", (second,))
            return run

        await asyncio.gather(a.run_atomic(work("x", "y", "a")), b.run_atomic(work("y", "x", "b")))
        assert len(attempts) == 3  # one of them was rolled back (deadlock) and run again
        rows = await a.fetch("SELECT user_id, chosen FROM user_langs ORDER BY user_id")
        assert [tuple(r) for r in rows] == [("x", 2), ("y", 2)]



@pytest.mark.asyncio
async def test_a_lost_postgresql_connection_is_opened_again(pg_database: str) -> None:
    """The server ends the writing connection: the next transaction reconnects (or, if the loss is
    noticed only inside it, that one fails and the next reconnects); whatever was acknowledged is there."""
    store = await PostgresStore.connect(pg_database, schema=MIGRATIONS)
    try:
        acknowledged = []
        for n in range(3):
            first = store.writer_pid
            await store.fetch("SELECT pg_terminate_backend(?)", (first,))
            while await store.fetch("SELECT 1 FROM pg_stat_activity WHERE pid = ?", (first,)):
                await asyncio.sleep(0.01)  # until the server process is gone
            for attempt in ("a", "b"):
                try:
                    async with store.atomic() as tx:
                        await tx.save_user_lang(platform="p", user=f"{n}{attempt}", lang="en", chosen=False)
                except Exception:
                    continue
                acknowledged.append(f"{n}{attempt}")
            assert store.writer_pid != first
        assert [r[0] for r in await store.fetch("SELECT user_id FROM user_langs ORDER BY user_id")] == acknowledged
        assert len(acknowledged) >= 3
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_processes_starting_together_migrate_once(pg_database: str) -> None:
    stores = await asyncio.gather(*(PostgresStore.connect(pg_database, schema=MIGRATIONS) for _ in range(4)))
    try:
        rows = await stores[0].fetch("SELECT version FROM schema_version")
        assert [r[0] for r in rows] == [len(MIGRATIONS)]
    finally:
        for store in stores:
            await store.close()



class _BrokenConn:
    """A writing connection that breaks at the N-th statement batch or SAVEPOINT (for the committer alone)."""

    begin = "BEGIN"

    def __init__(self, *, break_on: str) -> None:
        self.break_on = break_on
        self.sent: list[str] = []

    async def ready(self) -> None:
        pass

    async def control(self, sql: str, *, now: bool = False) -> None:
        self.sent.append(sql)
        if sql.startswith(self.break_on):
            raise ConnectionResetError("the server went away")

    async def flush(self) -> None:
        pass

    async def rollback_to(self, savepoint: str) -> None:
        await self.control(f"ROLLBACK TO SAVEPOINT {savepoint}")

    async def statements(self, jobs: Any, savepoint: str, *, commit: bool) -> list[BaseException | None]:
        self.sent.append("statements")
        if self.break_on == "statements":
            raise ConnectionResetError("the server went away")
        if commit:
            await self.control("COMMIT")
        return [None] * len(jobs)


@pytest.mark.asyncio
@pytest.mark.parametrize("break_on", ["statements", "SAVEPOINT", "COMMIT"])
async def test_a_broken_connection_fails_every_waiter_of_the_batch_and_none_hangs(break_on: str) -> None:
    from bot.store.batch import GroupCommit

    group = GroupCommit(_BrokenConn(break_on=break_on))

    async def block() -> None:
        async with group.block():
            pass

    results = await asyncio.wait_for(asyncio.gather(
        *(group.statement("INSERT", ()) for _ in range(3)), block(), block(), return_exceptions=True), 5)
    if break_on == "statements":  # the batch of statements failed; the blocks waiting after it, in the next one
        assert [isinstance(r, StoreError) for r in results] == [True] * 3 + [False] * 2, results
        assert group.stats.transactions == 1 and group.stats.items == 2
    else:
        assert all(isinstance(r, StoreError) for r in results), results
        assert group.stats.transactions == 0
    await group.close()


@pytest.mark.asyncio
async def test_listening_goes_on_after_the_server_ends_the_listen_connection(pg_database: str) -> None:
    store = await PostgresStore.connect(pg_database, schema=MIGRATIONS)
    try:
        heard: asyncio.Queue[str] = asyncio.Queue()
        await store.listen("tables", heard.put_nowait)
        listener = store.listen_pid
        assert listener is not None
        await store.fetch("SELECT pg_terminate_backend(?)", (listener,))
        for _ in range(500):  # until it listens again, on a new connection
            await asyncio.sleep(0.01)
            if store.listen_pid not in (None, listener):
                break
        assert store.listen_pid not in (None, listener)
        await store.notify("tables", "again")
        assert await asyncio.wait_for(heard.get(), 5) == "again"
    finally:
        await store.close()



@pytest.mark.asyncio
async def test_every_acknowledged_write_survives_kill_9(opener: Opener, tmp_path: Path,
                                                        request: pytest.FixtureRequest) -> None:
    """A process writes through group commit (100 writers, blocks and record_action) and prints each
    write once its await returned; it is killed with SIGKILL mid-stream: every write it printed is there."""
    store = await opener()  # the database, migrated; the writer opens it again
    where = str(tmp_path / "store.db") if store.dialect == "sqlite" else request.getfixturevalue("pg_database")
    await store.close()
    writer = await asyncio.create_subprocess_exec(
        sys.executable, str(STORE_WRITER), where, stdout=asyncio.subprocess.PIPE)
    assert writer.stdout is not None
    acked: list[int] = []
    hand_id = None
    try:
        while len(acked) < 3000:
            line = (await asyncio.wait_for(writer.stdout.readline(), 30)).decode()
            assert line, "the writer stopped"
            if line.startswith("hand "):
                hand_id = int(line.split()[1])
            elif line.startswith("ack "):
                acked.append(int(line.split()[1]))
    finally:
        writer.kill()  # SIGKILL: no clean shutdown
        await writer.wait()
    store = await opener()
    try:
        stored = {r[0] for r in await store.fetch("SELECT seq FROM actions WHERE hand_id = ?", (hand_id,))}
        assert not set(acked) - stored, f"{len(set(acked) - stored)} acknowledged writes lost"
        langs = {int(r[0]) for r in await store.fetch("SELECT user_id FROM user_langs WHERE platform = 'p'")}
        assert {seq for seq in stored if seq % 2 == 0} == langs  # each block whole, or not at all
        print(f"{store.dialect}: {len(acked)} acknowledged, {len(stored)} stored when killed")
    finally:
        await store.close()


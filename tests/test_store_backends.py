"""The store port on both backends: SQLite (a file) and PostgreSQL (a fresh database per test).

Every Store and Tx method, every migration, group commit (many blocks, fewer transactions,
each block durable when its ``async with`` returns, a failing block rolled back alone),
notifications, and the bot itself playing on PostgreSQL. PostgreSQL comes from the
``pg_database`` fixture (tests/conftest.py): a test that needs it fails if it cannot start.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_console import Table

from bot import dealer
from bot import store as store_module
from bot.audit import audit
from bot.audit import main as audit_main
from bot.clock import ManualClock
from bot.config import ConfigError, Settings
from bot.ledger import HOUSE, Transfer, seat_account, wallet_account
from bot.model import HandSetup, Seat
from bot.store import MIGRATIONS, Store, StoreError, Tx, open_store
from bot.store.postgres import PostgresStore
from engine import Stakes

Opener = Callable[[], Awaitable[Store]]
BACKENDS = ["sqlite", "postgresql"]
T0 = 1_700_000_000.0


@pytest.fixture(params=BACKENDS)
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Opens (and reopens) one database of the backend the test runs on."""
    if request.param == "sqlite":
        path = str(tmp_path / "store.db")
        return lambda: Store.open(path)
    dsn: str = request.getfixturevalue("pg_database")
    return lambda: PostgresStore.connect(dsn, pool_size=3)


def _stakes() -> Stakes:
    return Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10)


async def _exercise(store: Store) -> dict[str, Any]:
    """Every Tx and Store method, on one store; what they read back (no ids that differ by backend)."""
    async with store.atomic() as tx:
        table_id = await tx.create_table(platform="console", community="console:c", channel="main", creator="ann",
                                         stakes=_stakes(), timer=60, now=T0, lang="pl")
        for user, name in (("ann", "Ann"), ("bob", "Bob")):
            assert await tx.ensure_wallet(community="console:c", user=user, name=name, balance=1000, now=T0) == 1000
        assert await tx.ensure_wallet(community="console:c", user="ann", name="Anna", balance=5, now=T0) == 1000
        for seat_no, user in enumerate(("ann", "bob")):
            await tx.buy_in(table_id=table_id, community="console:c", user=user, amount=200, now=T0)
            await tx.save_seat(table_id, Seat(seat_no=seat_no, user=user, name=user.title(), stack=200))
        await tx.save_user_lang(platform="console", user="ann", lang="ru", chosen=True)
        await tx.save_user_lang(platform="console", user="ann", lang="pl", chosen=False)
    tables = await store.open_tables()
    assert [t.id for t in tables] == [table_id] and sorted(tables[0].seats) == [0, 1]
    table = tables[0]
    table.running, table.hand_no, table.board_ref, table.next_hand_at, table.view = True, 1, "m1", T0 + 5, "text"
    setup = HandSetup(hand_no=1, stakes=_stakes(), players=[(0, "ann", "Ann", 200), (1, "bob", "Bob", 200)],
                      deck=["As", "Kd"])
    async with store.atomic() as tx:
        await tx.save_table(table)
        hand_id = await tx.begin_hand(table_id=table_id, setup=setup, now=T0 + 1)
        await tx.add_action(hand_id=hand_id, seq=0, action="bring-in", seat_no=0, by_timeout=False, now=T0 + 2,
                            deadline=T0 + 62)
        await tx.set_deadline(hand_id=hand_id, deadline=T0 + 62)
    await store.record_action(hand_id=hand_id, seq=1, action="call", seat_no=1, by_timeout=True, now=T0 + 3,
                              deadline=T0 + 63)
    playing = await store.playing_hand(table_id)
    assert playing is not None and playing.actions == ["bring-in", "call"] and playing.deadline == T0 + 63
    assert playing.setup.players == setup.players
    async with store.atomic() as tx:
        await tx.post([Transfer("bet", seat_account(table_id, "ann"), f"pot:{hand_id}", 10, hand_id),
                       Transfer("win", f"pot:{hand_id}", seat_account(table_id, "ann"), 10, hand_id)], now=T0 + 4)
        await tx.finish_hand(hand_id=hand_id, hand_file='{"x": 1}', summary="Ann wins", now=T0 + 4)
        second = await tx.begin_hand(table_id=table_id, setup=replace(setup, hand_no=2), now=T0 + 5)
        await tx.void_hand(hand_id=second, now=T0 + 6)
        assert await tx.refilled_on(community="console:c", user="bob") is None
        await tx.cash_out(table_id=table_id, community="console:c", user="bob", amount=200, kind="cash-out",
                          now=T0 + 7)
        await tx.remove_seat(table_id, 1)
        await tx.execute("UPDATE wallets SET balance = 0 WHERE user_id = ?", ("bob",))  # lost elsewhere
        await tx.post([Transfer("bet", wallet_account("console:c", "bob"), HOUSE, 1000)], now=T0 + 7)
        await tx.refill(community="console:c", user="bob", balance=1000, day="2026-12-01", now=T0 + 8)
        assert await tx.refilled_on(community="console:c", user="bob") == "2026-12-01"
        # the feature repositories' own statements
        row = await tx.one("SELECT COUNT(*) AS n FROM seats WHERE table_id = ?", (table_id,))
        assert row is not None and row["n"] == row[0] == 1
        ids = await tx.new_ids("ledger_transfers", 3)
        assert len(set(ids)) == 3 and ids == sorted(ids)
        await tx.executemany("INSERT INTO user_langs (platform, user_id, lang, chosen) VALUES (?, ?, ?, ?)",
                             [("tg", "x", "en", 0), ("tg", "y", "ru", 1)])
        assert [r["user_id"] for r in await tx.all("SELECT user_id FROM user_langs WHERE platform = ? "
                                                   "ORDER BY user_id", ("tg",))] == ["x", "y"]
    await store.execute("UPDATE tables SET channel = ? WHERE id = ?", ("main", table_id))
    out = {
        "tables": [(t.channel, t.lang, t.view, t.running, t.hand_no, t.board_ref, t.next_hand_at,
                    sorted((s.seat_no, s.user, s.stack) for s in t.seats.values())) for t in await store.open_tables()],
        "langs": await store.user_langs(),
        "wallet": await store.wallet("console:c", "bob"),
        "leaderboard": await store.leaderboard("console:c"),
        "recent": await store.recent_hands(table_id, 5),
        "file": await store.hand_file(table_id, 1),
        "chips": await store.chip_total(),
        "playing": await store.playing_hand(table_id),
        "audit": (await audit(store)).summary(),
        "statuses": [tuple(r) for r in await store.fetch("SELECT hand_no, status, finished_at FROM hands "
                                                          "ORDER BY hand_no")],
        "ledger": [tuple(r) for r in await store.fetch(
            "SELECT t.kind, e.account, e.amount FROM ledger_transfers t JOIN ledger_entries e "
            "ON e.transfer_id = t.id ORDER BY t.id, e.account")],
    }
    async with store.atomic() as tx:
        await tx.close_table(table_id)
    assert await store.open_tables() == []
    return out


@pytest.mark.asyncio
async def test_every_method_reads_back_what_it_wrote(opener: Opener) -> None:
    store = await opener()
    try:
        got = await _exercise(store)
    finally:
        await store.close()
    assert got["langs"] == {("console", "ann"): ("pl", False), ("tg", "x"): ("en", False), ("tg", "y"): ("ru", True)}
    assert got["wallet"] == (1000, "2026-12-01")
    assert got["leaderboard"] == [("Anna", 1000), ("Bob", 1000)]  # renamed by ensure_wallet; 800 + her seat
    assert got["recent"] == [(1, "Ann wins")] and got["file"] == '{"x": 1}' and got["playing"] is None
    assert got["chips"] == 2000
    assert got["audit"].startswith("audit passed"), got["audit"]
    assert got["statuses"] == [(1, "done", T0 + 4), (2, "void", T0 + 6)]


@pytest.mark.asyncio
async def test_both_backends_read_back_the_same_rows(tmp_path: Path, pg_database: str) -> None:
    results = []
    for open_it in (lambda: Store.open(str(tmp_path / "s.db")), lambda: PostgresStore.connect(pg_database)):
        store = await open_it()
        try:
            results.append(await _exercise(store))
        finally:
            await store.close()
    sqlite, postgres = results
    assert sqlite == postgres
    assert all(isinstance(total, int) for _, total in postgres["leaderboard"])  # SUM is an int on both


@pytest.mark.asyncio
async def test_a_new_database_is_at_the_latest_version_and_reopens(opener: Opener) -> None:
    store = await opener()
    try:
        assert store.schema_version == len(MIGRATIONS) == 9
        if store.dialect == "sqlite":
            assert (await store.fetch("PRAGMA user_version"))[0][0] == 9
        else:
            assert (await store.fetch("SELECT version FROM schema_version"))[0]["version"] == 9
        tables = {"wallets", "tables", "seats", "hands", "actions", "user_langs", "ledger_transfers",
                  "ledger_entries", "pending_answers", "tournaments", "tourney_players", "fair_seeds",
                  "fair_player_seeds", "fair_tables", "hand_players"}
        for table in tables:  # every table of every migration exists (and is empty)
            assert (await store.fetch(f"SELECT COUNT(*) FROM {table}"))[0][0] == 0
    finally:
        await store.close()
    store = await opener()  # migrations run once
    try:
        assert store.commit_stats.transactions == 1  # only the version check
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_previous_version_migrates_with_a_hand_in_progress(opener: Opener,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 8 (before the stats rows) with a settled hand and one in progress: the new build
    backfills the settled hand's stats rows and the hand in progress carries on."""
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:8])

    async def before_stats(*args: object, **kw: object) -> None:
        """The build of version 8 wrote no stats rows."""

    monkeypatch.setattr(dealer, "record_hand", before_stats)
    clock = ManualClock()
    async with Table(Path("unused"), clock=clock, opener=opener) as t:
        assert t.store.schema_version == 8
        await t.say("ann", "new")
        await t.say("ann", "join")
        await t.say("bob", "join")
        await t.say("ann", "start")
        await t.call_down()
        await t.wait(6)
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        chips = await t.store.chip_total()
    monkeypatch.undo()
    async with Table(Path("unused"), clock=clock, opener=opener) as t:
        assert t.store.schema_version == 9
        assert t.runtime.hand is not None and len(t.runtime.hand.actions) == 1
        assert [tuple(r) for r in await t.store.fetch("SELECT user_id FROM hand_players ORDER BY user_id")] \
            == [("ann",), ("bob",)]
        await t.call_down()
        assert await t.store.chip_total() == chips
        report = await audit(t.store, replay=True)
        assert report.ok, report.summary()


@pytest.mark.asyncio
async def test_the_bot_plays_hands_on_each_backend(opener: Opener) -> None:
    """House bots play hands by themselves; chips are conserved and the audit (with replays) passes."""
    async with Table(Path("unused"), opener=opener) as t:
        await t.say("ann", "new")
        for _ in range(3):
            await t.say("ann", "addbot")
        total = await t.store.chip_total()
        await t.say("ann", "start")
        for _ in range(8):
            await t.wait(5)
        assert t.runtime.table.hand_no >= 4
        assert await t.store.chip_total() == total
        report = await audit(t.store, replay=True)
        assert report.ok and report.replayed >= 3, report.summary()
        assert (await t.store.fetch("SELECT COUNT(*) FROM hand_players"))[0][0] >= 12


# ---------------------------------------------------------------- group commit


async def _table(store: Store) -> int:
    async with store.atomic() as tx:
        return await tx.create_table(platform="p", community="p:c", channel="ch", creator="u", stakes=_stakes(),
                                     timer=60, now=T0)


@pytest.mark.asyncio
async def test_blocks_that_arrive_together_share_a_transaction_and_are_durable(opener: Opener) -> None:
    store = await opener()
    blocks = 300
    try:
        await _table(store)
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
        table_id = await _table(store)
        async with store.atomic() as tx:
            hand_ids = [await tx.begin_hand(table_id=table_id, now=T0,
                                            setup=HandSetup(hand_no=n, stakes=_stakes(), players=[], deck=[]))
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
        await _table(store)
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
        table_id = await _table(store)
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
        await store.unlisten("tables", heard.put_nowait)
        await store.notify("tables", "9")
        await asyncio.sleep(0.2)
        assert heard.empty()
    finally:
        await store.close()


# ---------------------------------------------------------------- several processes on PostgreSQL


@pytest.mark.asyncio
async def test_two_stores_on_one_postgresql_wait_for_each_others_row_locks(pg_database: str) -> None:
    a = await PostgresStore.connect(pg_database)
    b = await PostgresStore.connect(pg_database)
    try:
        table_id = await _table(a)
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
        await asyncio.sleep(0.2)
        assert not waiting.done()  # b waits for a's row lock
        release.set()
        await asyncio.gather(held, waiting)
        assert (await a.fetch("SELECT hand_no FROM tables"))[0][0] == 11
    finally:
        await a.close()
        await b.close()


@pytest.mark.asyncio
async def test_a_deadlock_between_processes_rolls_back_one_block_which_can_be_retried(pg_database: str) -> None:
    a = await PostgresStore.connect(pg_database)
    b = await PostgresStore.connect(pg_database)
    try:
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
    finally:
        await a.close()
        await b.close()


# ---------------------------------------------------------------- settings


def test_the_database_url_comes_from_dotenv_exactly(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("STUDBOT_DATABASE_URL='postgresql://bot:p#ss=\"w@db.example:5432/studbot'  # the cluster\n"
                   "STUDBOT_DB_POOL_SIZE=12\n", encoding="utf-8")
    settings = Settings.from_env({}, dotenv=env)
    assert settings.database_url == "postgresql://bot:p%23ss%3D%22w@db.example:5432/studbot"
    assert settings.db_pool_size == 12
    assert "p#ss" not in repr(settings)
    with pytest.raises(ConfigError) as bad:
        Settings.from_env({"STUDBOT_DATABASE_URL": "postgresql://bot:s3cret#@db:54x2/studbot"})
    assert "STUDBOT_DATABASE_URL" in str(bad.value) and "s3cret" not in str(bad.value)
    with pytest.raises(ConfigError, match="STUDBOT_DB_POOL_SIZE"):
        Settings.from_env({"STUDBOT_DB_POOL_SIZE": "0"})


@pytest.mark.asyncio
async def test_open_store_picks_the_backend(tmp_path: Path, pg_database: str) -> None:
    store = await open_store(Settings(db_path=str(tmp_path / "x.db")))
    assert store.dialect == "sqlite"
    await store.close()
    store = await open_store(Settings(db_path=str(tmp_path / "y.db"), database_url=pg_database, db_pool_size=2))
    try:
        assert store.dialect == "postgresql"
        assert json.loads(json.dumps(await store.user_langs())) == {}
    finally:
        await store.close()
    assert not (tmp_path / "y.db").exists()


@pytest.mark.asyncio
async def test_a_database_before_the_ledger_gets_opening_balances(opener: Opener,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 4 (before the ledger) with wallets and a seat: the ledger opens with their balances
    (the function migration of bot/ledger.py, on each backend) and the audit passes."""
    monkeypatch.setattr(store_module, "MIGRATIONS", MIGRATIONS[:4])
    store = await opener()
    try:
        table_id = await _table(store)
        async with store.atomic() as tx:
            await tx.executemany("INSERT INTO wallets (community, user_id, name, balance) VALUES (?, ?, ?, ?)",
                                 [("p:c", "ann", "Ann", 700), ("p:c", "bob", "Bob", 0)])
            await tx.save_seat(table_id, Seat(seat_no=0, user="ann", name="Ann", stack=300))
    finally:
        await store.close()
    monkeypatch.undo()
    store = await opener()
    try:
        assert store.schema_version == len(MIGRATIONS)
        rows = await store.fetch("SELECT account, amount FROM ledger_entries ORDER BY account")
        assert [tuple(r) for r in rows] == [("house", -1000), (seat_account(table_id, "ann"), 300),
                                            ("wallet:p:c:ann", 700)]
        report = await audit(store)
        assert report.ok and report.issued == 1000, report.summary()
        async with store.atomic() as tx:  # the next transfer's id follows the opening one's
            await tx.post([Transfer("grant", HOUSE, "wallet:p:c:bob", 5)], now=T0)
        ids = [r[0] for r in await store.fetch("SELECT id FROM ledger_transfers ORDER BY id")]
        assert ids == [1, 2]
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_studbot_audit_reads_postgresql_when_the_url_is_set(pg_database: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    store = await PostgresStore.connect(pg_database)
    try:
        await _exercise(store)
    finally:
        await store.close()
    settings = Settings(db_path=str(tmp_path / "none.db"), database_url=pg_database)
    status = await asyncio.to_thread(audit_main, [], default_db=settings.db_path, settings=settings)
    assert status == 0
    assert capsys.readouterr().out.startswith("audit passed: ")


@pytest.mark.asyncio
async def test_a_sit_and_go_plays_the_same_on_both_backends(tmp_path: Path, pg_database: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The console's script mode, same seed: the same transcript on SQLite and on PostgreSQL
    (tournaments, fairness seeds, stats rows, the ledger), and the audit with replays passes on both."""
    from tests.test_tourney import SETUP
    from tests.tourney_script import play_sng

    sqlite = await play_sng(db=str(tmp_path / "sng.db"), seed=57, setup=SETUP)
    monkeypatch.setattr(Store, "open", classmethod(lambda cls, path: PostgresStore.connect(pg_database)))
    postgres = await play_sng(db="unused", seed=57, setup=SETUP)
    assert postgres.lines == sqlite.lines
    assert any(line.startswith("[table] 🏆 ") for line in postgres.lines)
    store = await PostgresStore.connect(pg_database)
    try:
        report = await audit(store, replay=True)
        assert report.ok and report.tournaments == 1 and report.replayed >= 10, report.summary()
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_lost_postgresql_connection_is_opened_again(pg_database: str) -> None:
    """The server ends the writing connection: the next transaction reconnects (or, if the loss is
    noticed only inside it, that one fails and the next reconnects); whatever was acknowledged is there."""
    store = await PostgresStore.connect(pg_database)
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
    stores = await asyncio.gather(*(PostgresStore.connect(pg_database) for _ in range(4)))
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


COMMANDS = """
    ann: new
    ann: join
    bob: join
    ann: seed apples
    ann: addbot
    ann: start
"""
AFTER = ["top", "top net", "top net week", "stats", "stats bob", "history", "hand 1", "lang pl", "config reveal=stop",
         "seed pears", "leave"]


async def _session(opener: Opener | None, db: Path) -> list[str]:
    async with Table(db, seed=11, opener=opener) as t:
        for line in COMMANDS.strip().splitlines():
            user, _, text = line.strip().partition(":")
            await t.say(user.strip(), text.strip())
        for _ in range(3):
            await t.call_down()
            await t.wait(6)
        for text in AFTER:
            t.out.append(f"> ann: {text}\n" + await t.say("ann", text))
        await t.call_down()
        await t.wait(6)
        await t.say("bob", "stop")
        report = await audit(t.store, replay=True)
        assert report.ok and report.replayed >= 3, report.summary()
        return t.out


@pytest.mark.asyncio
async def test_the_commands_answer_the_same_on_both_backends(tmp_path: Path, pg_database: str) -> None:
    """Hands, then every reading command (top, stats, history, hand, seeds, reveal): the same transcript."""
    sqlite = await _session(None, tmp_path / "s.db")
    postgres = await _session(lambda: PostgresStore.connect(pg_database), tmp_path / "unused.db")
    assert postgres == sqlite
    assert any("Hand #1" in line for line in sqlite)


@pytest.mark.asyncio
async def test_listening_goes_on_after_the_server_ends_the_listen_connection(pg_database: str) -> None:
    store = await PostgresStore.connect(pg_database)
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
        sys.executable, str(Path(__file__).parent / "store_writer.py"), where, stdout=asyncio.subprocess.PIPE)
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

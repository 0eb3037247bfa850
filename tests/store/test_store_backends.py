"""The store port on both backends: SQLite (a file) and PostgreSQL (a fresh database per test).

Every Store and Tx method and every migration on each backend, the same rows and the same
transcripts (hands, commands, a sit-and-go) on both, and the settings that pick the backend.
Group commit, notifications and several processes: tests/store/test_store_commit.py.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from old_builds import before_schema_14
from store_fixtures import T0, Opener, new_table, opener, stakes
from test_console import Table

from bot.bootstrap import AUDIT_CHECKS, audit_main, open_store
from bot.chips import wallets
from bot.chips.audit import audit
from bot.chips.ledger import HOUSE, Transfer, seat_account, wallet_account
from bot.core.clock import ManualClock
from bot.core.config import ConfigError, Settings
from bot.core.model import HandSetup, Player, Seat
from bot.schema import MIGRATIONS
from bot.stats import rows as stats_rows
from bot.store import Store, open_sqlite
from bot.store.postgres import PostgresStore
from bot.store.sqlite import SqliteStore

__all__ = ["opener"]  # the fixture, used by name

async def _exercise(store: Store) -> dict[str, Any]:
    """Every Tx and Store method, on one store; what they read back (no ids that differ by backend)."""
    async with store.atomic() as tx:
        table_id = await tx.create_table(platform="console", community="console:c", channel="main", creator="ann",
                                         stakes=stakes(), timer=60, now=T0, lang="pl")
        for user, name in (("ann", "Ann"), ("bob", "Bob")):
            assert await wallets.ensure_wallet(tx, community="console:c", user=user, name=name, balance=1000,
                                               now=T0) == 1000
        assert await wallets.ensure_wallet(tx, community="console:c", user="ann", name="Anna", balance=5,
                                           now=T0) == 1000
        for seat_no, user in enumerate(("ann", "bob")):
            await wallets.buy_in(tx, table_id=table_id, community="console:c", user=user, amount=200, now=T0)
            await tx.save_seat(table_id, Seat(seat_no=seat_no, user=user, name=user.title(), stack=200))
        await tx.save_user_lang(platform="console", user="ann", lang="ru", chosen=True)
        await tx.save_user_lang(platform="console", user="ann", lang="pl", chosen=False)
    tables = await store.open_tables()
    assert [t.id for t in tables] == [table_id] and sorted(tables[0].seats) == [0, 1]
    table = tables[0]
    table.running, table.hand_no, table.board_ref, table.next_hand_at, table.view = True, 1, "m1", T0 + 5, "text"
    setup = HandSetup(hand_no=1, stakes=stakes(), players=[Player(0, "ann", "Ann", 200), Player(1, "bob", "Bob", 200)],
                      deck=["As", "Kd"])
    async with store.atomic() as tx:
        await tx.save_table(table)
        hand_id = await tx.begin_hand(table_id=table_id, setup=setup, now=T0 + 1, deadline=T0 + 61)
    playing = await store.playing_hand(table_id)  # dealt: the first turn's deadline is the hand's
    assert playing is not None and playing.actions == [] and playing.deadline == T0 + 61
    async with store.atomic() as tx:
        await tx.add_action(hand_id=hand_id, seq=0, action="bring-in", seat_no=0, by_timeout=False, now=T0 + 2,
                            deadline=T0 + 62)
    await store.record_action(hand_id=hand_id, seq=1, action="call", seat_no=1, by_timeout=True, now=T0 + 3,
                              deadline=T0 + 63)
    playing = await store.playing_hand(table_id)
    assert playing is not None and playing.actions == ["bring-in", "call"] and playing.deadline == T0 + 63
    assert playing.setup.players == setup.players
    async with store.atomic() as tx:
        await wallets.post(tx, [Transfer("bet", seat_account(table_id, "ann"), f"pot:{hand_id}", 10, hand_id),
                       Transfer("win", f"pot:{hand_id}", seat_account(table_id, "ann"), 10, hand_id)], now=T0 + 4)
        await tx.finish_hand(hand_id=hand_id, hand_file='{"x": 1}', summary="Ann wins", now=T0 + 4)
        second = await tx.begin_hand(table_id=table_id, setup=replace(setup, hand_no=2), now=T0 + 5)
        await tx.void_hand(hand_id=second, now=T0 + 6)
        assert await wallets.refilled_on(tx, community="console:c", user="bob") is None
        await wallets.cash_out(tx, table_id=table_id, community="console:c", user="bob", amount=200, kind="cash-out",
                          now=T0 + 7)
        await tx.remove_seat(table_id, 1)
        await tx.execute("UPDATE wallets SET balance = 0 WHERE user_id = ?", ("bob",))  # lost elsewhere
        await wallets.post(tx, [Transfer("bet", wallet_account("console:c", "bob"), HOUSE, 1000)], now=T0 + 7)
        await wallets.refill(tx, community="console:c", user="bob", balance=1000, day="2026-12-01", now=T0 + 8)
        assert await wallets.refilled_on(tx, community="console:c", user="bob") == "2026-12-01"
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
        "chips": await wallets.chip_total(store),
        "playing": await store.playing_hand(table_id),
        "audit": (await audit(store, checks=AUDIT_CHECKS)).summary(),
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
    for open_it in (lambda: open_sqlite(str(tmp_path / "s.db"), schema=MIGRATIONS),
                    lambda: PostgresStore.connect(pg_database, schema=MIGRATIONS)):
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
        assert store.schema_version == len(MIGRATIONS) == 20
        if store.dialect == "sqlite":
            assert (await store.fetch("PRAGMA user_version"))[0][0] == 20
        else:
            assert (await store.fetch("SELECT version FROM schema_version"))[0]["version"] == 20
        tables = {"wallets", "tables", "seats", "hands", "actions", "user_langs", "ledger_transfers",
                  "ledger_entries", "pending_answers", "tournaments", "tourney_players", "fair_seeds",
                  "fair_player_seeds", "fair_tables", "hand_players", "table_leases", "inbox", "platform_updates",
                  "table_clocks", "time_banks"}
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
    before_schema_14(monkeypatch)  # the seats and tables of the build of version 8

    async def before_stats(*args: object, **kw: object) -> None:
        """The build of version 8 wrote no stats rows."""

    monkeypatch.setattr(stats_rows, "record_hand", before_stats)  # the hook looks it up there
    clock = ManualClock()
    async with Table(Path("unused"), clock=clock, opener=lambda: opener(schema=MIGRATIONS[:8])) as t:
        assert t.store.schema_version == 8
        await t.say("ann", "new")
        await t.say("ann", "join")
        await t.say("bob", "join")
        await t.start()
        await t.call_down()
        await t.wait(6)
        player, _, _ = t.to_act()
        await t.say(player, "bring-in")
        chips = await wallets.chip_total(t.store)
    monkeypatch.undo()
    async with Table(Path("unused"), clock=clock, opener=opener) as t:
        assert t.store.schema_version == len(MIGRATIONS)
        assert t.runtime.hand is not None and len(t.runtime.hand.actions) == 1
        assert [tuple(r) for r in await t.store.fetch("SELECT user_id FROM hand_players ORDER BY user_id")] \
            == [("ann",), ("bob",)]
        await t.call_down()
        assert await wallets.chip_total(t.store) == chips
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok, report.summary()


@pytest.mark.asyncio
async def test_the_bot_plays_hands_on_each_backend(opener: Opener) -> None:
    """House bots play hands by themselves; chips are conserved and the audit (with replays) passes."""
    async with Table(Path("unused"), opener=opener) as t:
        await t.say("ann", "new")
        for _ in range(3):
            await t.say("ann", "addbot")
        total = await wallets.chip_total(t.store)
        await t.start()
        for _ in range(8):
            await t.wait(5)
        assert t.runtime.table.hand_no >= 4
        assert await wallets.chip_total(t.store) == total
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.replayed >= 3, report.summary()
        assert (await t.store.fetch("SELECT COUNT(*) FROM hand_players"))[0][0] >= 12


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
    (the function migration of bot/chips/ledger.py, on each backend) and the audit passes."""
    before_schema_14(monkeypatch)
    store = await opener(schema=MIGRATIONS[:4])
    try:
        table_id = await new_table(store)
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
        report = await audit(store, checks=AUDIT_CHECKS)
        assert report.ok and report.issued == 1000, report.summary()
        async with store.atomic() as tx:  # the next transfer's id follows the opening one's
            await wallets.post(tx, [Transfer("grant", HOUSE, "wallet:p:c:bob", 5)], now=T0)
        ids = [r[0] for r in await store.fetch("SELECT id FROM ledger_transfers ORDER BY id")]
        assert ids == [1, 2]
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_studbot_audit_reads_postgresql_when_the_url_is_set(pg_database: str, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    store = await PostgresStore.connect(pg_database, schema=MIGRATIONS)
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
    from test_tourney import SETUP
    from tourney_script import play_sng

    sqlite = await play_sng(db=str(tmp_path / "sng.db"), seed=57, setup=SETUP)
    monkeypatch.setattr(SqliteStore, "connect", classmethod(
        lambda cls, path, *, schema: PostgresStore.connect(pg_database, schema=schema)))
    postgres = await play_sng(db="unused", seed=57, setup=SETUP)
    assert postgres.lines == sqlite.lines
    assert any(line.startswith("[table] 🏆 ") for line in postgres.lines)
    store = await PostgresStore.connect(pg_database, schema=MIGRATIONS)
    try:
        report = await audit(store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.tournaments == 1 and report.replayed >= 10, report.summary()
    finally:
        await store.close()




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
        report = await audit(t.store, checks=AUDIT_CHECKS, replay=True)
        assert report.ok and report.replayed >= 3, report.summary()
        return t.out


@pytest.mark.asyncio
async def test_the_commands_answer_the_same_on_both_backends(tmp_path: Path, pg_database: str) -> None:
    """Hands, then every reading command (top, stats, history, hand, seeds, reveal): the same transcript."""
    sqlite = await _session(None, tmp_path / "s.db")
    postgres = await _session(lambda: PostgresStore.connect(pg_database, schema=MIGRATIONS), tmp_path / "unused.db")
    assert postgres == sqlite
    assert any("Hand #1" in line for line in sqlite)


"""Discord shards end to end: the real discord.py AutoShardedClient against a sharded loopback Discord.

The fake gateway (tests/support/fakes/discord_gateway.py) routes a guild's events to shard
``(guild_id >> 22) % count`` and direct messages to shard 0, as Discord does; the test server
``GUILD_ID`` is on shard 1 of 2 and ``OTHER_GUILD_ID`` on shard 0. One process runs both shards
here; tests/slow/test_scale_e2e.py splits them between two processes.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from discord_harness import (
    ANN,
    BOB,
    CAT,
    cat_folds_to_a_completion,
    recorded_bots,
    say,
    start_bot,
    table_of_three,
    until,
)
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_gateway import INVALID_SHARD, shard_of
from fakes.discord_server import CHANNEL_ID, GUILD_ID, OTHER_CHANNEL_ID, OTHER_GUILD_ID, FakeDiscord, Interaction

from adapters.discord.shards import IDENTIFY_WINDOW, IdentifyPacer, ShardPlan, guild_of
from bot.bootstrap import AUDIT_CHECKS
from bot.chips.audit import audit
from bot.core.ports import BoardView, TableAddress


def interactions_by_shard(fake: FakeDiscord) -> dict[str | None, set[int]]:
    """guild id (None: a direct message) -> the shards its interactions were dispatched on."""
    seen: dict[str | None, set[int]] = {}
    for shard, event, guild in fake.shard_events:
        if event == "INTERACTION_CREATE":
            seen.setdefault(guild, set()).add(shard)
    return seen


@pytest.mark.asyncio
async def test_one_process_with_both_shards_plays_a_hand_in_each_and_answers_a_dm(
        fake: FakeDiscord, tmp_path: Path, fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert (shard_of(GUILD_ID, 2), shard_of(OTHER_GUILD_ID, 2)) == (1, 0)
    fake.shard_count = 2
    fake.add_guild(OTHER_GUILD_ID, OTHER_CHANNEL_ID)
    bots = recorded_bots(monkeypatch)
    running = await start_bot(fake, tmp_path / "stud.db", discord_guild_id=None, discord_shard_count=2,
                              discord_shard_ids=(0, 1))
    try:
        assert sorted(fake.identifies) == [(0, 2), (1, 2)]  # one IDENTIFY per shard, each with the count
        assert fake.connected_shards == {0, 1}
        assert any(c.path == "/gateway/bot" for c in fake.calls)
        # each shard's READY and GUILD_CREATE carry its own guild only
        created = {(shard, guild) for shard, event, guild in fake.shard_events if event == "GUILD_CREATE"}
        assert created == {(1, str(GUILD_ID)), (0, str(OTHER_GUILD_ID))}

        for channel in (CHANNEL_ID, OTHER_CHANNEL_ID):
            await table_of_three(fake, channel=channel)
            await cat_folds_to_a_completion(fake, channel=channel)
            assert "Ann shows" in fake.lines(channel) and "Cat folds" in fake.lines(channel)

        answer = await say(fake, BOB, "help", dm=True)  # in Bob's DMs: shard 0 carries it
        assert answer.startswith("Commands: new, join"), answer
        assert interactions_by_shard(fake) == {str(GUILD_ID): {1}, str(OTHER_GUILD_ID): {0}, None: {0}}
        # the two tables are the bot's, one per guild; the players' cards came by DM
        bot = bots[-1]
        communities = {rt.table.community for rt in bot.tables.values()}
        assert communities == {f"discord:{GUILD_ID}", f"discord:{OTHER_GUILD_ID}"}
        assert all(fake.dms.get(user) for user in (ANN, BOB, CAT))
        assert (await audit(bot.store, checks=AUDIT_CHECKS)).ok
    finally:
        await running.stop()
    assert not fake.connected_shards


@pytest.mark.asyncio
async def test_a_shard_outside_the_count_is_refused_by_the_gateway(fake: FakeDiscord) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session, session.ws_connect(fake.gateway_url) as ws:
        await ws.receive_json()  # HELLO
        await ws.send_json({"op": 2, "d": {"token": "x", "shard": [2, 2], "intents": 1, "properties": {}}})
        await ws.receive()
        assert ws.close_code == INVALID_SHARD
    assert not fake.connected_shards and not fake.identifies


def test_a_shard_plan_of_the_settings() -> None:
    assert ShardPlan.of(count=None, ids=None) is None
    assert ShardPlan.of(count=4, ids=None) == ShardPlan(count=4, ids=(0, 1, 2, 3))
    plan = ShardPlan.of(count=4, ids=(2, 3))
    assert plan is not None and not plan.has_direct_messages
    assert "shards 2,3 of 4" in plan.describe()


@pytest.mark.asyncio
async def test_identifies_wait_for_their_bucket_only() -> None:
    now = [100.0]
    waited: list[float] = []

    async def sleep(seconds: float) -> None:
        waited.append(seconds)
        now[0] += seconds

    pacer = IdentifyPacer(max_concurrency=2, clock=lambda: now[0], sleep=sleep)
    assert await pacer.wait(0) == 0 and await pacer.wait(1) == 0  # two buckets: at once
    now[0] += 1.0
    assert await pacer.wait(2) == pytest.approx(IDENTIFY_WINDOW - 1.0)  # bucket 0 again: 5 s after shard 0
    assert waited == [pytest.approx(IDENTIFY_WINDOW - 1.0)]
    single = IdentifyPacer(max_concurrency=1, clock=lambda: now[0], sleep=sleep)
    assert await single.wait(0) == 0 and await single.wait(1) == pytest.approx(IDENTIFY_WINDOW)


@pytest.mark.asyncio
async def test_a_process_sends_to_a_guild_on_another_processes_shard(
        fake: FakeDiscord, tmp_path: Path, fast: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Boards, lines and DMs go out over REST to partial channels: no gateway cache of the guild needed."""
    fake.shard_count = 2
    fake.add_guild(OTHER_GUILD_ID, OTHER_CHANNEL_ID)
    bots = recorded_bots(monkeypatch)
    running = await start_bot(fake, tmp_path / "stud.db", discord_guild_id=None, discord_shard_count=2,
                              discord_shard_ids=(1,))
    try:
        assert fake.connected_shards == {1}
        assert not any(guild == str(OTHER_GUILD_ID) for _, _, guild in fake.shard_events)  # never seen here
        elsewhere = TableAddress(platform="discord", community=f"discord:{OTHER_GUILD_ID}",
                                 channel=str(OTHER_CHANNEL_ID))
        messenger = bots[-1].messenger
        board = BoardView(text="Hand #1 · third street", buttons=(), hand_no=1)
        ref = await messenger.publish_board(table=elsewhere, board=board, ref=None)
        await messenger.announce(table=elsewhere, text="Ann bets 10")
        assert await messenger.send_private(platform="discord", user=str(CAT), text="your cards") is True
        await until(lambda: "Ann bets 10" in fake.lines(OTHER_CHANNEL_ID), what="the line in the other guild")
        shown = fake.board(OTHER_CHANNEL_ID)
        assert shown is not None and str(shown.message_id) == ref and "third street" in shown.text
        assert fake.dms[CAT] == ["your cards"]
    finally:
        await running.stop()


@pytest.mark.asyncio
async def test_interactions_cut_off_by_a_crash_are_answered_by_the_process_of_their_shard(
        fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    """Each process answers after its restart only the interactions of its own shards: another
    process's interactions in flight are that process's to answer."""
    fake.shard_count = 2
    fake.add_guild(OTHER_GUILD_ID, OTHER_CHANNEL_ID)
    db = tmp_path / "stud.db"
    running = await start_bot(fake, db, discord_guild_id=None, discord_shard_count=2)
    try:
        for channel in (CHANNEL_ID, OTHER_CHANNEL_ID):
            assert "Table open" in await say(fake, ANN, "new", channel=channel)
    finally:
        await running.stop()
    cut: dict[int, Interaction] = {}
    for channel in (CHANNEL_ID, OTHER_CHANNEL_ID, 4242):  # 4242: a channel with no table (no known server)
        record = cut[channel] = Interaction(id=fake.new_id(), token=f"tok-cut-{channel}", user=BOB,
                                            sent_at=time.monotonic(), callback={"type": 5, "data": {}})
        fake.interactions[record.token] = record
        with sqlite3.connect(db) as con:
            con.execute("INSERT INTO pending_answers (platform, id, token, user_id, locale, channel, command, "
                        "received_at) VALUES ('discord', ?, ?, ?, 'en-US', ?, 'board', ?)",
                        (str(record.id), record.token, str(BOB), str(channel), time.time() - 5))

    def pending() -> set[str]:
        with sqlite3.connect(db) as con:
            return {str(r[0]) for r in con.execute("SELECT channel FROM pending_answers")}

    running = await start_bot(fake, db, discord_guild_id=None, discord_shard_count=2, discord_shard_ids=(1,))
    try:
        assert "restarted" in await cut[CHANNEL_ID].answer()  # GUILD_ID is on shard 1: answered here
        assert pending() == {str(OTHER_CHANNEL_ID), "4242"}
        assert not cut[OTHER_CHANNEL_ID].answers and not cut[4242].answers
    finally:
        await running.stop()
    running = await start_bot(fake, db, discord_guild_id=None, discord_shard_count=2, discord_shard_ids=(0,))
    try:
        for channel in (OTHER_CHANNEL_ID, 4242):
            assert "restarted" in await cut[channel].answer()
        assert pending() == set()
        assert len(cut[CHANNEL_ID].answers) == 1
    finally:
        await running.stop()


def test_which_process_runs_a_guild() -> None:
    plan = ShardPlan(count=4, ids=(2, 3))
    guilds = {shard: next(g for g in range(1 << 22, 1 << 30, 1 << 22) if (g >> 22) % 4 == shard) for shard in range(4)}
    assert [plan.runs(guilds[s]) for s in range(4)] == [False, False, True, True]
    assert not plan.runs(None) and ShardPlan(count=4, ids=(0,)).runs(None)  # DMs: shard 0
    assert guild_of(f"discord:{GUILD_ID}") == GUILD_ID
    assert guild_of("discord:dm-77") is None and guild_of(None) is None and guild_of("telegram:5") is None

"""Several bot processes against one fake platform and one database, end to end.

Each bot is a real process (``tests/support/procs/fast_bot.py``: ``adapters.run`` at the harnesses' pace)
configured only through the environment, as an operator would: ``DISCORD_SHARD_COUNT`` and
``DISCORD_SHARD_IDS`` split the fake gateway's shards between two processes; two Telegram
webhook workers (``TELEGRAM_WEBHOOK_PORT``, ``TELEGRAM_WEBHOOK_REGISTER``) stand behind one URL,
the fake Bot API delivering to them in turn like a load balancer. ``STUDBOT_INSTANCE`` names each
process (several processes on one database: bot/cluster/cluster.py). The test plays the users through
the fakes and reads what the fakes received, and the shared database.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from discord_harness import (
    ANN,
    BOB,
    CAT,
    ROOT,
    cat_folds_to_a_completion,
    next_board,
    say,
    started_fake,
    table_of_three,
    token,
    until,
)
from fakes.discord_server import CHANNEL_ID, GUILD_ID, OTHER_CHANNEL_ID, OTHER_GUILD_ID, FakeDiscord
from fakes.telegram_server import FakeBotAPI
from telegram_harness import GROUP, actor, buttons, free_port, next_turn, wait_listening
from telegram_harness import NAMES as TG_NAMES
from telegram_harness import press as tg_press

from bot.bootstrap import AUDIT_CHECKS
from bot.chips.audit import audit
from bot.schema import MIGRATIONS
from bot.store import Store, open_sqlite
from bot.store.postgres import PostgresStore

pytestmark = pytest.mark.asyncio

FAST_BOT = ROOT / "tests" / "support" / "procs" / "fast_bot.py"
GAME = {"STUDBOT_BOT_DELAY_MS": "0", "STUDBOT_NEXT_HAND_DELAY": "5", "STUDBOT_TURN_TIMER": "120",
        "STUDBOT_TIME_BANK": "0", "LOG_LEVEL": "INFO"}
"""The first hand is dealt after the table's pause (its commitment shown first): 5 s in these processes,
whose clock no test can move; a second hand would come as long after the first one's end."""


@dataclass
class BotProcess:
    """One ``tests/support/procs/fast_bot.py`` process; its log (stdout and stderr) in a file."""

    name: str
    process: asyncio.subprocess.Process
    log: Path

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def stop(self) -> str:
        """SIGTERM, as an operator stops it; its log. It must end cleanly."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
                raise AssertionError(f"{self.name} did not stop on SIGTERM:\n{self.text()[-3000:]}") from None
        return self.text()


class Processes:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.running: list[BotProcess] = []

    async def start(self, name: str, env: dict[str, str]) -> BotProcess:
        full = {**os.environ, "PYTHONPATH": str(ROOT), **GAME, **env}
        for unset in ("DISCORD_TOKEN", "TELEGRAM_TOKEN", "STUDBOT_DATABASE_URL"):
            if unset not in env:
                full.pop(unset, None)
        log = self.tmp_path / f"{name}.log"
        with log.open("wb") as out:
            process = await asyncio.create_subprocess_exec(sys.executable, str(FAST_BOT),
                                                           cwd=self.tmp_path, env=full, stdout=out, stderr=out)
        bot = BotProcess(name=name, process=process, log=log)
        self.running.append(bot)
        return bot

    async def stop_all(self) -> dict[str, str]:
        return {bot.name: await bot.stop() for bot in self.running}


@pytest_asyncio.fixture
async def processes(tmp_path: Path) -> AsyncIterator[Processes]:
    started = Processes(tmp_path)
    yield started
    for bot in started.running:
        if bot.process.returncode is None:
            bot.process.kill()
            await bot.process.wait()


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """A loopback Discord with two shards: ``GUILD_ID`` on shard 1, ``OTHER_GUILD_ID`` on shard 0."""
    server = await started_fake()
    server.shard_count = 2
    server.add_guild(OTHER_GUILD_ID, OTHER_CHANNEL_ID)
    yield server
    await server.stop()


@dataclass
class Database:
    """The database the processes share: a SQLite file, or a PostgreSQL database (``pg_database``)."""

    env: dict[str, str]
    path: Path
    url: str | None

    async def open(self) -> Store:
        return await (PostgresStore.connect(self.url, schema=MIGRATIONS,
                                            pool_size=2) if self.url else open_sqlite(str(self.path),
                                                                                      schema=MIGRATIONS))

    async def count(self, sql: str) -> int:
        store = await self.open()
        try:
            return int((await store.fetch(sql))[0][0])
        finally:
            await store.close()

    async def hands_done(self) -> dict[str, int]:
        """channel -> hands finished."""
        store = await self.open()
        try:
            rows = await store.fetch("SELECT t.channel, COUNT(h.id) FROM tables t JOIN hands h ON h.table_id = t.id "
                                     "WHERE h.status = 'done' GROUP BY t.channel")
        finally:
            await store.close()
        return {str(r[0]): int(r[1]) for r in rows}

    async def audit_ok(self) -> None:
        store = await self.open()
        try:
            report = await audit(store, checks=AUDIT_CHECKS)
            assert report.ok, report.summary()
        finally:
            await store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Database:
    path = tmp_path / "shared.db"
    if request.param == "sqlite":
        return Database(env={"STUDBOT_DB": str(path)}, path=path, url=None)
    url: str = request.getfixturevalue("pg_database")
    return Database(env={"STUDBOT_DB": str(path), "STUDBOT_DATABASE_URL": url}, path=path, url=url)


async def test_two_processes_each_hold_half_the_discord_shards(fake: FakeDiscord, database: Database,
                                                               processes: Processes) -> None:
    discord = {"DISCORD_TOKEN": "fake-token", "DISCORD_API_BASE": fake.api_base,
               "DISCORD_GATEWAY_URL": fake.gateway_url, "DISCORD_SHARD_COUNT": "2", **database.env}
    first = await processes.start("first", {**discord, "DISCORD_SHARD_IDS": "0", "STUDBOT_INSTANCE": "first"})
    await until(lambda: fake.connected_shards == {0} and "global" in fake.commands, timeout=30,
                what="the first process on shard 0")
    second = await processes.start("second", {**discord, "DISCORD_SHARD_IDS": "1", "STUDBOT_INSTANCE": "second"})
    await until(lambda: fake.connected_shards == {0, 1}, timeout=30, what="the second process on shard 1")
    assert sorted(fake.identifies) == [(0, 2), (1, 2)]

    async def one_hand(channel: int) -> None:
        await table_of_three(fake, channel=channel)
        await cat_folds_to_a_completion(fake, channel=channel)

    # a table in each guild, played at the same time: each by the process that holds its guild's shard
    await asyncio.gather(one_hand(CHANNEL_ID), one_hand(OTHER_CHANNEL_ID))
    for channel in (CHANNEL_ID, OTHER_CHANNEL_ID):
        assert "Ann shows" in fake.lines(channel) and "Cat folds" in fake.lines(channel)
    # a direct message reaches shard 0 only, so the first process answers it
    assert (await say(fake, BOB, "help", dm=True)).startswith("Commands: new, join")
    routed: dict[str | None, set[int]] = {}
    for shard, event, guild in fake.shard_events:
        if event == "INTERACTION_CREATE":
            routed.setdefault(guild, set()).add(shard)
    assert routed == {str(GUILD_ID): {1}, str(OTHER_GUILD_ID): {0}, None: {0}}
    assert all(fake.dms.get(user) for user in (ANN, BOB, CAT))  # everyone seated got their cards

    logs = await processes.stop_all()
    for bot in (first, second):
        assert bot.process.returncode == 0 and "Traceback" not in logs[bot.name], logs[bot.name][-3000:]
    assert "shards 0 of 2 (direct messages here)" in logs["first"]
    assert "shards 1 of 2 (direct messages on another process)" in logs["second"]
    assert await database.hands_done() == {str(CHANNEL_ID): 1, str(OTHER_CHANNEL_ID): 1}
    await database.audit_ok()



async def test_a_killed_processes_table_goes_on_in_the_other_and_its_shard_comes_back(
        fake: FakeDiscord, database: Database, processes: Processes) -> None:
    """kill -9 of the process that holds shard 1 mid-hand: the other process (shard 0 only) takes the
    table over and its turn timer acts, editing the board in the guild of shard 1 while no process
    runs that shard; a new process on shard 1 then receives the presses, forwarded to the holder,
    and the hand ends there."""
    discord = {"DISCORD_TOKEN": "fake-token", "DISCORD_API_BASE": fake.api_base,
               "DISCORD_GATEWAY_URL": fake.gateway_url, "DISCORD_SHARD_COUNT": "2", "STUDBOT_TURN_TIMER": "5",
               "STUDBOT_TIME_BANK": "0",
               # 8 s, not 5: the test asserts the live holder never loses the table, and a machine loaded by
               # other work once delayed its lease renewal past 5 s (a CI run); the takeover still comes in time
               "STUDBOT_LEASE_SECONDS": "8", **database.env}
    first = await processes.start("first", {**discord, "DISCORD_SHARD_IDS": "0", "STUDBOT_INSTANCE": "first"})
    await until(lambda: fake.connected_shards == {0} and "global" in fake.commands, timeout=30,
                what="the first process on shard 0")
    second = await processes.start("second", {**discord, "DISCORD_SHARD_IDS": "1", "STUDBOT_INSTANCE": "second"})
    await until(lambda: fake.connected_shards == {0, 1}, timeout=30, what="the second process on shard 1")

    await table_of_three(fake, channel=CHANNEL_ID)  # GUILD_ID: shard 1, the second process
    dealt = await next_board(fake, None, channel=CHANNEL_ID)
    second.process.send_signal(signal.SIGKILL)
    await second.process.wait()
    await until(lambda: fake.connected_shards == {0}, what="shard 1 to drop")
    edits = len(fake.channel_calls(CHANNEL_ID))

    moved = await next_board(fake, token(dealt), timeout=30, channel=CHANNEL_ID)  # the first process, by its timer
    assert fake.connected_shards == {0} and len(fake.channel_calls(CHANNEL_ID)) > edits
    assert "ran out of time" in fake.lines(CHANNEL_ID)

    third = await processes.start("third", {**discord, "DISCORD_SHARD_IDS": "1", "STUDBOT_INSTANCE": "third"})
    await until(lambda: fake.connected_shards == {0, 1}, timeout=30, what="a new process on shard 1")
    assert token(moved) is not None
    await cat_folds_to_a_completion(fake, channel=CHANNEL_ID)  # pressed through the third, played by the first
    assert await database.count("SELECT COUNT(*) FROM table_leases WHERE owner = 'first'") == 1

    logs = await processes.stop_all()
    for bot in (first, third):
        assert bot.process.returncode == 0 and "Traceback" not in logs[bot.name], logs[bot.name][-3000:]
    assert "first: took table" in logs["first"]  # the dead process's table, taken over
    assert "took table" not in logs["third"]  # its presses went to the holder (bot/cluster/cluster.py forwards them)
    assert await database.hands_done() == {str(CHANNEL_ID): 1}
    await database.audit_ok()


@pytest_asyncio.fixture
async def tg() -> AsyncIterator[FakeBotAPI]:
    api = await FakeBotAPI().start()
    api.group(GROUP)
    for uid, name in TG_NAMES.items():
        api.user(uid, name)
    yield api
    await api.close()
    assert not api.unknown, api.unknown


def hook(port: int) -> str:
    return f"http://127.0.0.1:{port}/tg/hook"


async def test_two_telegram_workers_take_the_updates_in_turn_and_one_twice(tg: FakeBotAPI, database: Database,
                                                                           processes: Processes) -> None:
    ports = free_port(), free_port()
    telegram = {"TELEGRAM_TOKEN": tg.token, "TELEGRAM_BASE_URL": tg.base_url, "TELEGRAM_WEBHOOK_URL": hook(ports[0]),
                "TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1", **database.env}
    first = await processes.start("first", {**telegram, "TELEGRAM_WEBHOOK_PORT": str(ports[0]),
                                            "STUDBOT_INSTANCE": "first"})
    await tg.wait_for(lambda: tg.webhook is not None or first.process.returncode is not None, timeout=30,
                      what="the first worker to set the webhook")
    second = await processes.start("second", {**telegram, "TELEGRAM_WEBHOOK_PORT": str(ports[1]),
                                              "TELEGRAM_WEBHOOK_REGISTER": "0", "STUDBOT_INSTANCE": "second"})
    await wait_listening(ports[1], asyncio.ensure_future(second.process.wait()))
    assert len(tg.sent("setWebhook")) == 1 and tg.webhook is not None
    assert tg.webhook["url"] == hook(ports[0]) and tg.webhook["max_connections"] == 40
    tg.balancer = [hook(ports[0]), hook(ports[1])]  # from now on: first, second, first ...
    ann, bob = 1101, 1102

    async def type_(uid: int, text: str, chat: int = GROUP) -> None:
        tg.command(chat, uid, text)
        await tg.delivered(max(tg.pushed))

    for uid in (ann, bob):
        await type_(uid, "/start", chat=uid)
    await type_(ann, "/stud new")
    await tg.wait_for(lambda: tg.boards(GROUP), what="the board")
    for uid in (ann, bob):
        assert (await tg_press(tg, uid, "Join"))["text"].startswith("Seated")
    await type_(ann, "/stud start")

    presses: list[int] = []
    twice: int | None = None
    turn: str | None = None
    while True:
        turn, board = await next_turn(tg, turn)
        if turn is None:
            break
        label = next(lb for p in ("Check", "Call", "Bring-in") for lb in buttons(board) if lb.startswith(p))
        answer = await tg_press(tg, actor(board), label)
        assert not answer.get("text"), answer
        presses.append(max(tg.pushed))
        if twice is None and len(presses) == 3:  # Telegram sends this press again, to the other worker
            twice = presses[-1]
            await tg.delivered(twice)
            went = next(url for u, url, _ in tg.routes if u == twice)
            assert await tg.deliver_again(twice, to=next(h for h in tg.balancer if h != went)) == 200

    assert twice is not None
    query = tg.pushed[twice]["callback_query"]["id"]
    assert [c.params["callback_query_id"] for c in tg.sent("answerCallbackQuery")].count(query) == 1
    assert all(status == 200 for _, status in tg.deliveries)
    workers = {url for _, url, _ in tg.routes}
    assert workers == set(tg.balancer)  # both workers took updates of the one table
    logs = await processes.stop_all()
    for bot in (first, second):
        assert bot.process.returncode == 0 and "Traceback" not in logs[bot.name], logs[bot.name][-3000:]
    assert await database.count("SELECT COUNT(*) FROM hands WHERE status = 'done'") == 1
    assert await database.count("SELECT COUNT(*) FROM actions") == len(presses)  # the press sent twice acted once
    assert await database.count("SELECT COUNT(*) FROM platform_updates WHERE done = 1") == len(tg.pushed)
    await database.audit_ok()

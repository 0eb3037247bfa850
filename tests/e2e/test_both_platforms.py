"""Discord and Telegram served by one process, one event loop and one database, at once.

Both fakes run on 127.0.0.1; ``adapters.run.serve`` gets both tokens. A table is
played to its showdown on each platform, interleaved; wallets stay apart per
platform; a stop closes both cleanly.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import discord_harness as dc
import pytest
import pytest_asyncio
import telegram_harness as tg
from backends import rows
from fakes.discord_server import GUILD_ID, FakeDiscord
from fakes.telegram_server import FakeBotAPI
from skip_clock import SkipClock, pass_the_pause

from adapters import run as run_module
from adapters.discord import messenger as discord_messenger
from adapters.discord.adapter import DiscordAdapter
from adapters.run import serve
from adapters.telegram.adapter import TelegramAdapter
from bot.core.config import Settings

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def fakes() -> AsyncIterator[tuple[FakeDiscord, FakeBotAPI]]:
    discord = FakeDiscord()
    await discord.start()
    for user, name in dc.NAMES.items():
        discord.user(user, name)
    telegram = await FakeBotAPI().start()
    telegram.group(tg.GROUP)
    for uid, name in tg.NAMES.items():
        telegram.user(uid, name)
    yield discord, telegram
    await discord.stop()
    await telegram.close()
    assert not telegram.unknown


@pytest.mark.usefixtures("store_backend")
async def test_one_process_serves_discord_and_telegram(fakes: tuple[FakeDiscord, FakeBotAPI], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    discord, telegram = fakes
    monkeypatch.setattr(DiscordAdapter, "rate_interval", 0.05)
    monkeypatch.setattr(discord_messenger, "LIMIT", 1000)
    monkeypatch.setattr(TelegramAdapter, "rate_interval", 0.15)
    monkeypatch.setattr(TelegramAdapter, "group_rate", (1000, 60))
    monkeypatch.setattr(TelegramAdapter, "poll_timeout", 1)
    monkeypatch.setattr(run_module, "RealClock", SkipClock)  # the test moves it to the deals after 'start'
    db = tmp_path / "both.db"
    settings = replace(
        Settings(), db_path=str(db), bot_delay=0.0, next_hand_delay=600.0, turn_timer=120, time_bank=0,
        discord_token="fake-token", discord_guild_id=GUILD_ID, discord_api_base=discord.api_base,
        discord_gateway_url=discord.gateway_url,
        telegram_token=telegram.token, telegram_base_url=telegram.base_url,
    )
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop=stop))
    deadline = time.monotonic() + 20
    while not (discord.identified.is_set() and telegram.sent("getUpdates", ok=False)):
        assert not task.done(), task.exception() if task.done() else ""
        assert time.monotonic() < deadline, "one platform never connected"
        await asyncio.sleep(0.05)
    try:
        # Open a table on each platform; the two conversations interleave in one loop.
        assert "Table open" in await dc.say(discord, dc.ANN, "new")
        for user in (dc.ANN, dc.BOB, dc.CAT):
            assert "Seated" in await dc.say(discord, user, "join")
        assert "Dealing" in await dc.say(discord, dc.ANN, "start")
        await tg.open_table(telegram, (tg.ANN, tg.BOB, tg.CAT))
        for uid in (tg.ANN, tg.BOB, tg.CAT):
            await tg.say(telegram, uid, "/join")
        await tg.say(telegram, tg.ANN, "/start")
        await pass_the_pause()  # the two deals, due one after the other: the first now,
        await dc.next_board(discord, None)
        await pass_the_pause()  # then the second (before the first hand's turn timer)
        # Play both hands to the showdown, one step on each platform at a time.
        last_discord: str | None = None
        last_telegram: str | None = None
        discord_done = telegram_done = False
        for _ in range(200):
            if discord_done and telegram_done:
                break
            if not discord_done:
                board = await dc.next_board(discord, last_discord)
                if "showdown" in dc.title(board):
                    discord_done = True
                else:
                    last_discord = dc.token(board)
                    await dc.press(discord, dc.actor(board), dc.passive(dc.action_buttons(board)))
            if not telegram_done:
                turn, message = await tg.next_turn(telegram, last_telegram)
                if turn is None:
                    telegram_done = True
                else:
                    last_telegram = turn
                    labels = tg.buttons(message)
                    choice = next(label for p in ("Check", "Call", "Bring-in") for label in labels
                                  if label.startswith(p))
                    await tg.press(telegram, tg.actor(message), choice)
        assert discord_done and telegram_done
        assert "shows" in discord.lines()
        assert any("shows" in text for text in telegram.group_texts(tg.GROUP))
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
    assert task.exception() is None
    platforms = sorted(r[0] for r in await rows(db, "SELECT platform FROM tables"))
    communities = {r[0] for r in await rows(db, "SELECT community FROM wallets")}
    [(done,)] = await rows(db, "SELECT COUNT(*) FROM hands WHERE status = 'done'")
    assert platforms == ["discord", "telegram"] and done == 2
    assert {c.split(":")[0] for c in communities} == {"discord", "telegram"}  # wallets stay apart

"""What an unlucky or hostile user meets on Discord, end to end against the loopback Discord.

Big numbers, presses on buttons that are none of ours, names built to disturb the
board, and a press whose answer a crash cut off. The helpers are those of
``test_discord_e2e`` (the real bootstrap, the real discord.py client, the fake server).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakes.discord_server import GUILD_ID, FakeDiscord
from test_discord_e2e import ANN, BOB, say, start_bot, until
from test_discord_e2e import fake as fake  # the fixtures
from test_discord_e2e import fast as fast
from test_names import HOSTILE, assert_columns, assert_contained

from bot.names import display_name
from bot.service import MAX_TIMER, MIN_TIMER, STAKE_LIMIT

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("fast")]


async def test_big_numbers_are_refused_for_what_they_are(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        [stud] = fake.commands[f"guild:{GUILD_ID}"]
        options = {o["name"]: {p["name"]: p for p in o.get("options", [])} for o in stud["options"]}
        assert options["join"]["buy_in"]["max_value"] == 1_000_000_000  # what Discord lets a user type
        assert {k: (options["config"][k]["min_value"], options["config"][k]["max_value"])
                for k in ("ante", "bring_in", "small", "big", "timer")} == {
            "ante": (0, STAKE_LIMIT), "bring_in": (0, STAKE_LIMIT), "small": (1, STAKE_LIMIT),
            "big": (1, STAKE_LIMIT), "timer": (MIN_TIMER, MAX_TIMER)}
        assert "Table open" in await say(fake, ANN, "new")
        answer = await say(fake, BOB, "join", buy_in=1_000_000_000)
        assert answer == "You have only 1000 chips in your wallet.", answer
        assert "У вас в кошельке всего 1000" in await say(fake, BOB, "join", buy_in=1_000_000_000, locale="ru")
        # the option's range is Discord's to enforce; a value past it still gets the core's reason
        answer = await say(fake, ANN, "config", ante=99999999999999999999)
        assert answer == f"ante must be from 0 to {STAKE_LIMIT}.", answer
        assert "Seated with 200 chips" in await say(fake, BOB, "join")
        await asyncio.sleep(0.2)
        assert "99999" not in fake.lines() and "Table set to" not in fake.lines()
    finally:
        await bot.stop()


async def test_a_button_that_is_none_of_ours_is_answered_as_stale(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        await until(lambda: fake.board() is not None, what="the board")
        board = fake.board()
        assert board is not None
        posts = len(fake.channel_posts())
        for custom_id, locale, expected in (("garbage", "en-US", "This button is no longer in use."),
                                            ("stud:", "ru", "Эта кнопка больше не работает."),
                                            ("stud:" + "x" * 95, "pl", "Ten przycisk już nie działa."),
                                            ("stud:call@1.2.3", "en-GB", "This button is no longer in use.")):
            interaction = await fake.press(BOB, custom_id, message_id=board.message_id, locale=locale)
            assert await interaction.answer() == expected, custom_id
            assert interaction.ephemeral and interaction.callback_status == 204
            assert interaction.callback is not None and interaction.callback["type"] == 4
        await asyncio.sleep(0.2)
        assert len(fake.channel_posts()) == posts  # nothing happened at the table
    finally:
        await bot.stop()


async def test_names_built_to_disturb_stay_inside_themselves(fake: FakeDiscord, tmp_path: Path) -> None:
    mallory, sun = fake.user(3001, HOSTILE["mallory"]), fake.user(3002, HOSTILE["sun"])
    zed = fake.user(3003, HOSTILE["zed"])
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, mallory, "new")
        assert await say(fake, mallory, "config", view="text") == "Done."
        for user in (mallory, sun, zed):
            assert "Seated" in await say(fake, user, "join")
        assert "Dealing" in await say(fake, mallory, "start")
        await until(lambda: "to act" in (fake.board().text if fake.board() else ""), what="the board")  # type: ignore[union-attr]
        assert_contained(fake.lines())
        assert f"{display_name(HOSTILE['mallory'])} opens a" in fake.lines()
        assert "Zed sits down" in fake.lines() and "\u200b" not in fake.lines()
        board = fake.board()
        assert board is not None
        assert_contained(board.text)
        assert_columns(board.text, [display_name(HOSTILE[k]) for k in ("mallory", "sun", "zed")])
    finally:
        await bot.stop()

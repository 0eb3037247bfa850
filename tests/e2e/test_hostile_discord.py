"""What an unlucky or hostile user meets on Discord, end to end against the loopback Discord.

Big numbers, presses on buttons that are none of ours, names built to disturb the
board, and a press whose answer a crash cut off. The helpers are those of
``discord_harness`` (the real bootstrap, the real discord.py client, the fake server).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from backends import Backend, execute, rows, rows_now
from discord_harness import (
    ANN,
    BOB,
    CAT,
    NAMES,
    ROOT,
    action_buttons,
    actor,
    next_board,
    passive,
    press,
    say,
    start_and_deal,
    start_bot,
    table_of_three,
    title,
    token,
    until,
)
from discord_harness import fake as fake  # the fixtures
from discord_harness import fast as fast
from fakes.discord_server import CHANNEL_ID, EPHEMERAL, GUILD_ID, FakeDiscord, Interaction
from test_names import HOSTILE, assert_columns, assert_contained

from bot.core.limits import MAX_TIMER, MIN_TIMER, STAKE_LIMIT
from bot.core.names import display_name

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("fast", "store_backend")]


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


async def test_item3_a_kick_does_not_fold_the_player_facing_a_bet(fake: FakeDiscord, tmp_path: Path) -> None:
    """Issue 19 item 3 on Discord: Ann completes, Bob faces it, Ann kicks Bob. He used to be folded at
    once and Ann took the pot; now his buttons stay, he is told privately, he calls, the hand ends
    normally, and only then is he removed with his stack."""
    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db)
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "Seated" in await say(fake, ANN, "join")
        assert "Seated" in await say(fake, BOB, "join")
        await start_and_deal(fake)
        last: str | None = None
        for _ in range(30):  # passive until Ann may bet, then she does
            board = await next_board(fake, last)
            buttons, who, last = action_buttons(board), actor(board), token(board)
            bets = [b for b in ("complete", "bet", "raise") if b in buttons]
            await press(fake, who, buttons[bets[0]] if who == ANN and bets else passive(buttons))
            if who == ANN and bets:
                break
        board = await next_board(fake, last)
        facing = action_buttons(board)
        assert actor(board) == BOB and "fold" in facing and "call" in facing
        answer = await say(fake, ANN, "kick", name="Bob")
        await until(lambda: "Bob is removed from the table after this hand." in fake.lines(), what="the kick line")
        await asyncio.sleep(0.3)
        board = fake.board()
        assert "Bob folds" not in fake.lines()
        assert board is not None and actor(board) == BOB and action_buttons(board) == facing  # his turn still
        assert "They play this hand out as usual" in answer
        await until(lambda: any("removed from the table after this hand" in t for t in fake.dms.get(BOB, [])),
                    what="Bob told privately")
        last = token(board)
        await press(fake, BOB, facing["call"])
        while True:
            board = await next_board(fake, last)
            if "showdown" in title(board):
                break
            last = token(board)
            await press(fake, actor(board), passive(action_buttons(board)))
        await until(lambda: "Bob is removed from the table with" in fake.lines()
                    or "Bob leaves the table, out of chips" in fake.lines(), what="Bob removed after the hand")
        assert "Bob calls" in fake.lines()
        assert rows_now(db, "SELECT user_id FROM seats") == [(str(ANN),)]
    finally:
        await bot.stop()


async def test_item9_addbot_by_anyone_but_the_owner_is_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    """Issue 19 item 9: anyone could seat house bots at a cash table (filling it, taking an absent
    player's name). Only the table's creator or an admin may; anyone else is told so, nothing changes."""
    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db)
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "Seated" in await say(fake, ANN, "join")
        for options in ({}, {"name": "Dora"}):
            answer = await say(fake, BOB, "addbot", **options)
            assert answer == "Only the table's creator or an admin can do that.", answer
        await asyncio.sleep(0.2)
        assert "House bot" not in fake.lines()
        assert rows_now(db, "SELECT user_id FROM seats") == [(str(ANN),)]
        assert rows_now(db, "SELECT COUNT(*) FROM wallets WHERE user_id LIKE 'bot:%'") == [(0,)]
        interaction = await fake.slash(CAT, "addbot", admin=True, name="Dora")  # an admin may
        assert "Dora is seated" in await interaction.answer()
        assert "Robo is seated" in await say(fake, ANN, "addbot", name="Robo")  # and the creator
        await until(lambda: "House bot Robo sits down" in fake.lines(), what="the creator's bot")
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
                                            ("stud:call@1.2.3", "en-GB", "This button is no longer in use."),
                                            ("stud:stop", "en-US", "This button is no longer in use.")):
            interaction = await fake.press(BOB, custom_id, message_id=board.message_id, locale=locale)
            assert await interaction.answer() == expected, custom_id
            assert interaction.ephemeral and interaction.callback_status == 204
            assert interaction.callback is not None and interaction.callback["type"] == 4
        await asyncio.sleep(0.2)
        assert len(fake.channel_posts()) == posts  # nothing happened at the table
    finally:
        await bot.stop()


async def test_redteam_a_forged_button_runs_no_command_but_the_boards(fake: FakeDiscord, tmp_path: Path) -> None:
    """A custom_id with a turn ran any command ('stud:stop@1.1' stopped the creator's table, 'stud:addbot@1.1'
    seated a bot): only the board's actions carry a turn, and only they, 'join' and 'cards' run."""
    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db)
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "Seated" in await say(fake, ANN, "join")
        await asyncio.sleep(1)  # the join's line and board are out
        board = fake.board()
        assert board is not None
        posts = len(fake.channel_posts())
        for custom_id in ("stud:stop@1.1", "stud:addbot@1.1", "stud:new@1.1", "stud:config@1.1", "stud:leave@1.1"):
            interaction = await fake.press(ANN, custom_id, message_id=board.message_id)
            assert await interaction.answer() == "This button is no longer in use.", custom_id
        await asyncio.sleep(0.2)
        assert len(fake.channel_posts()) == posts  # nothing happened at the table
        assert rows_now(db, "SELECT user_id FROM seats") == [(str(ANN),)]
        assert "Seated" in await say(fake, BOB, "join")  # the table is open as it was
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
        await start_and_deal(fake, user=mallory)
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


class BotProcess:
    """The real entry point (adapters.run) at the harness's pace (tests/support/procs/fast_bot.py: a 0.05 s
    coalescing interval, not the real 2.5 s) against the fake, on a database that outlives it (killed with
    SIGKILL)."""

    def __init__(self, fake: FakeDiscord, db: Path, backend: Backend) -> None:
        self.fake, self.db, self.backend = fake, db, backend
        self.process: asyncio.subprocess.Process | None = None
        self.logs: list[Path] = []
        """The stderr (the log) of each start, in order."""

    async def start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "fake-token",
               "DISCORD_GUILD_ID": str(GUILD_ID), "DISCORD_API_BASE": self.fake.api_base,
               "DISCORD_GATEWAY_URL": self.fake.gateway_url, "LOG_LEVEL": "INFO",
               "STUDBOT_BOT_DELAY_MS": "0", "STUDBOT_NEXT_HAND_DELAY": "2", "STUDBOT_TURN_TIMER": "600",
               **self.backend.env(self.db)}
        env.pop("TELEGRAM_TOKEN", None)
        identified = self.fake.identify_count
        self.logs.append(self.db.parent / f"bot-{len(self.logs) + 1}.log")
        with self.logs[-1].open("wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, str(ROOT / "tests" / "support" / "procs" / "fast_bot.py"), cwd=self.db.parent, env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=log)
        await until(lambda: self.fake.identify_count > identified and self.fake.identified.is_set(), timeout=30,
                    what="the bot process to connect")

    async def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()
        await until(lambda: not self.fake.identified.is_set(), what="the gateway to drop")

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 20)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


def actions_stored(db: Path) -> int:
    [(count,)] = rows_now(db, "SELECT COUNT(*) FROM actions")
    return int(count)


async def test_a_press_cut_off_by_kill_9_is_announced_and_answered_after_the_restart(
        fake: FakeDiscord, tmp_path: Path, store_backend: Backend) -> None:
    db = tmp_path / "stud.db"
    bot = BotProcess(fake, db, store_backend)
    await bot.start()
    try:
        await table_of_three(fake)
        board = await next_board(fake, None)
        who, choice = actor(board), passive(action_buttons(board))
        await until(lambda: "Door cards:" in fake.lines(), what="the lines of the deal")
        before = fake.lines()
        # Discord stops answering: the press is deferred, the action committed, its line and answer hang
        fake.held = {"channel", "answer"}
        interaction = await fake.press(who, choice, message_id=board.message_id)
        await until(lambda: actions_stored(db) == 1, what="the action to be committed")
        await until(lambda: interaction.callback is not None, what="the defer")
        await asyncio.sleep(0.5)
        await bot.kill()
        fake.release()
        assert fake.lines() == before and not interaction.answers  # nothing of the press reached Discord
        said = f"{NAMES[who]} brings in"
        assert said not in before

        await bot.start()  # the same database
        await until(lambda: said in fake.lines(), timeout=15, what="the line of the action cut off")
        lines = fake.lines()[len(before):]
        assert lines.index("After a restart, what had not reached the table yet:") < lines.index(said)
        await interaction.answer(timeout=15)
        assert not interaction.answers  # taken: nothing to say, the board moves (as after any taken press)
        after = await next_board(fake, token(board))
        assert actor(after) != who and actions_stored(db) == 1  # applied once, and the hand goes on
        await bot.stop()
        await bot.start()  # a clean restart says nothing again
        await asyncio.sleep(1)  # nothing comes: twenty coalescing intervals at this pace
        assert fake.lines().count(said) == 1
    finally:
        await bot.stop()


async def test_item13_an_answer_given_before_a_kill_is_not_touched_after_the_restart(
        fake: FakeDiscord, tmp_path: Path, store_backend: Backend) -> None:
    """Killed after Discord took the answer (the 'thinking' message edited for a command) but before the bot
    forgot the interaction: the restart finds it kept, and must not write 'the bot restarted' over an answer.
    A press answered as the board's update (issue 24) has no answer of its own: it is forgotten once handled,
    and the restart touches nothing of it."""
    db = tmp_path / "stud.db"
    bot = BotProcess(fake, db, store_backend)
    await bot.start()
    try:
        await table_of_three(fake)
        board = await next_board(fake, None)
        who, choice = actor(board), passive(action_buttons(board))
        fake.hang_applied = {"answer"}  # Discord applies the answers, the bot never hears back
        pressed = await fake.press(who, choice, message_id=board.message_id)
        asked = await fake.slash(ANN, "help")
        await until(lambda: asked.answers and actions_stored(db) == 1, what="the answer to be applied")
        await until(lambda: rows_now(db, "SELECT COUNT(*) FROM pending_answers") == [(1,)],
                    what="the command kept, the press forgotten")
        await bot.kill()
        fake.release()
        help_text = asked.content
        assert "join" in help_text
        before = {r.token: len(fake.original_calls(r)) for r in (pressed, asked)}

        await bot.start()  # the same database: the command is still kept
        await until(lambda: rows_now(db, "SELECT COUNT(*) FROM pending_answers") == [(0,)],
                    what="the kept interaction to be settled")
        assert [c.method for c in fake.original_calls(asked)[before[asked.token]:]] == ["GET"]  # looked at only
        assert all(c.method == "PATCH" for c in fake.original_calls(pressed)[before[pressed.token]:])  # boards
        assert " ERROR " not in bot.logs[-1].read_text(encoding="utf-8")
        assert not pressed.answers  # an accepted press says nothing
        assert [(k, text) for _, k, text, _ in asked.answers] == [("edit", help_text)]
        assert actions_stored(db) == 1
    finally:
        await bot.stop()


async def test_a_press_not_taken_before_the_crash_is_told_so(fake: FakeDiscord, tmp_path: Path) -> None:
    """A press deferred and kept but killed before its action was committed: after the restart it
    is answered 'press again' (its token still lives); one older than 15 minutes is not answered."""
    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db)
    try:
        await table_of_three(fake)
        board = await next_board(fake, None)
        who, choice = actor(board), passive(action_buttons(board))
    finally:
        await bot.stop()
    fresh, old = (Interaction(id=fake.new_id(), token=f"tok-cut-{i}", user=who, sent_at=time.monotonic(),
                              custom_id=choice, callback={"type": 5, "data": {"flags": EPHEMERAL}})
                  for i in range(2))
    for record, age in ((fresh, 10), (old, 16 * 60)):
        fake.interactions[record.token] = record
        await execute(db, "INSERT INTO pending_answers (platform, id, token, user_id, locale, channel, command, "
                      "received_at) VALUES ('discord', ?, ?, ?, 'pl', ?, ?, ?)",
                      (str(record.id), record.token, str(who), str(CHANNEL_ID),
                       choice.removeprefix("stud:").replace("@", " @"), time.time() - age))
    bot = await start_bot(fake, db)
    try:
        assert await fresh.answer() == ("Bot zrestartował się, zanim przyjął to kliknięcie: spójrz na stół i "
                                        "kliknij ponownie, jeśli to wciąż twój ruch.")
        await asyncio.sleep(0.5)
        assert not old.answers
        assert await rows(db, "SELECT COUNT(*) FROM pending_answers") == [(0,)]
        assert actions_stored(db) == 0 and token(fake.board()) == token(board)
    finally:
        await bot.stop()


async def test_redteam_table_commands_in_a_dm_open_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    """/stud is meant for servers (guild_only), but a command that reaches the bot from a DM (an app
    installed for the user, a command list cached from before) opened a table in the DM, seated the user
    with chips and a house bot, and dealt. Now only help, rules and lang answer there, as on Telegram."""
    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db, discord_guild_id=None)  # global commands: the fake lets them into DMs
    try:
        refusal = "Table commands work in the server channel of the table; your cards come here."
        for command in ("new", "join", "addbot", "start", "cards"):
            assert await say(fake, BOB, command, dm=True) == refusal, command
        assert (await say(fake, BOB, "help", dm=True)).startswith("Commands: new, join")
    finally:
        await bot.stop()
    assert await rows(db, "SELECT COUNT(*) FROM tables") == [(0,)]
    assert await rows(db, "SELECT COUNT(*) FROM seats") == [(0,)]

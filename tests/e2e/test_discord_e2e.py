"""The Discord adapter end to end: the real discord.py client against a loopback Discord.

Each test starts ``tests/support/fakes/discord_server.FakeDiscord`` on 127.0.0.1 and the
real bootstrap (``adapters.run.serve``) with the real StudBot, a SQLite file in
``tmp_path`` and the real clock; users act only through the fake (slash commands
and button presses over the gateway), and every check reads what the fake
received over REST.

Most flows run at a fast pace (``fast`` fixture: the coalescing interval and the
per-channel window shrunk) to keep the file short; ``test_rate_rules_over_a_fast_hand``
runs with the adapter's real values and counts the calls per channel per 5 s.

The harness (fixtures, helpers) is tests/support/discord_harness.py; the features built on the
table (board images, hand files, sit-and-go) are in tests/e2e/test_discord_features_e2e.py.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from discord_harness import (
    ANN,
    BOB,
    CARD,
    CAT,
    DAN,
    NAMES,
    ROOT,
    STREETS,
    action_buttons,
    actor,
    assert_fair_in_order,
    assert_no_public_leak,
    assert_rate_rules,
    cat_folds_to_a_completion,
    down_cards,
    next_board,
    passive,
    press,
    recorded_bots,
    say,
    start_and_deal,
    start_bot,
    table_of_three,
    title,
    token,
    until,
)
from discord_harness import fake as fake  # the fixture
from discord_harness import fast as fast  # the fixture
from fakes.discord_server import CHANNEL_ID, GUILD_ID, FakeDiscord

from adapters.discord.adapter import DiscordAdapter
from adapters.discord.buttons import StudButton

pytestmark = pytest.mark.asyncio
# Tests of the store run on both backends (store_backend); those about the platform's rates, timing,
# command lists and languages run once, on the default SQLite: their subject is the adapter.

# ---------------------------------------------------------------------- the tests


@pytest.mark.usefixtures("store_backend")
async def test_three_players_play_a_hand_to_the_showdown(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert [c.path for c in fake.calls if c.method == "PUT"] == [
            f"/applications/{900000000000000001}/guilds/{GUILD_ID}/commands"]
        await table_of_three(fake)
        seen_streets, presses = await cat_folds_to_a_completion(fake)
        assert seen_streets == set(STREETS)
        lines = fake.lines()
        assert "Cat folds" in lines
        assert "Ann shows" in lines and "Bob shows" in lines
        # Cat folded and nobody was all-in: exactly one pot (rule 11), named as one.
        assert len(re.findall(r"^Pot \d+: ", lines, re.M)) == 1, lines
        assert "Main pot" not in lines and "Side pot" not in lines
        final = fake.board()
        assert final is not None and not action_buttons(final) and "showdown" in title(final)
        edits = [p for p in fake.channel_posts() if p.kind == "edit"]
        assert len(edits) >= presses  # the board moved with every action
        assert len({p.message_id for p in fake.channel_posts() if p.embeds}) == 1  # one board, edited in place
        # DMs: each player's own cards, to that player only
        secret = down_cards(fake)
        assert set(fake.dms) == {ANN, BOB, CAT}
        assert len(secret[ANN]) == 3 and len(secret[BOB]) == 3 and len(secret[CAT]) == 2
        assert not secret[ANN] & secret[BOB] and not secret[ANN] & secret[CAT] and not secret[BOB] & secret[CAT]
        for user, texts in fake.dms.items():  # one DM a down card dealt: third and seventh street (Cat folded)
            assert sum("your cards" in t for t in texts) == (1 if user == CAT else 2)
            pictures = fake.dm_files.get(user, [])  # the table shows images: the cards come as pictures too
            assert [a.filename for a in pictures] == ["cards.png"] * (1 if user == CAT else 2)
            assert all(a.data.startswith(b"\x89PNG") for a in pictures)
        assert_no_public_leak(fake, secret)
        for record in fake.interactions.values():  # every answer was private
            assert record.private and all(ephemeral for _, _, _, ephemeral in record.answers)
        committed, seed = assert_fair_in_order(fake)
        answer = await say(fake, CAT, "verify", hand=1)
        assert "Hand #1 is fair" in answer and re.search(rf"{committed[:4]}[0-9a-f]{{56}}{committed[-4:]}", answer)
        assert re.search(rf"{seed[:4]}[0-9a-f]{{56}}{seed[-4:]}", answer)  # the whole values, privately
        assert "'export 1' gives you the hand file" in await say(fake, CAT, "verify", hand=1)
        assert 'Your seed is now "a b"' in await say(fake, CAT, "seed", text="a b")
    finally:
        await bot.stop()


@pytest.mark.usefixtures("store_backend")
async def test_closed_dms_get_their_cards_through_my_cards(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    fake.dms_closed.add(BOB)
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        await until(lambda: "I cannot message Bob privately" in fake.lines(), what="the unreachable notice")
        board = await next_board(fake, None)
        interaction = await press(fake, BOB, "stud:cards")
        assert "your cards" in interaction.content and interaction.ephemeral
        bob_cards = {"".join(m) for m in CARD.findall(interaction.content)}
        assert len(bob_cards) == 2
        assert BOB not in fake.dms  # nothing reached his closed DMs
        assert_no_public_leak(fake, {**down_cards(fake), BOB: bob_cards})
        assert "your cards" in await say(fake, BOB, "cards")  # /stud cards too
        assert token(fake.board()) == token(board)  # looking at cards changes nothing
    finally:
        await bot.stop()


@pytest.mark.usefixtures("store_backend")
async def test_a_button_on_the_old_board_works_after_a_restart(fake: FakeDiscord, tmp_path: Path, fast: None,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pressed: list[str] = []
    callback = StudButton.callback

    async def spy(self: StudButton, interaction: Any) -> None:
        pressed.append(self.command)
        await callback(self, interaction)

    db = tmp_path / "stud.db"
    bot = await start_bot(fake, db)
    await table_of_three(fake)
    board = await next_board(fake, None)
    await press(fake, actor(board), passive(action_buttons(board)))
    board = await next_board(fake, token(board))
    await bot.stop()
    assert not fake.identified.is_set()

    bot = await start_bot(fake, db)  # same database, same (old) board message
    monkeypatch.setattr(StudButton, "callback", spy)
    try:
        assert (tmp_path / "stud.db.discord-commands.json").is_file()
        assert sum(c.method == "PUT" for c in fake.calls) == 1  # the command tree did not change: no sync
        old = board
        assert fake.board() is not None and fake.board().message_id == old.message_id  # type: ignore[union-attr]
        who, choice = actor(old), passive(action_buttons(old))
        assert choice in fake.board().custom_ids  # type: ignore[union-attr]
        interaction = await press(fake, who, choice)
        assert interaction.content == ""
        assert pressed == [choice.removeprefix("stud:").replace("@", " @")]  # through the registered DynamicItem
        after = await next_board(fake, token(old))
        assert after.message_id == old.message_id and token(after) != token(old)
        assert actor(after) != who
    finally:
        await bot.stop()


@pytest.mark.usefixtures("store_backend")
async def test_a_deleted_board_is_posted_again(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        await until(lambda: fake.board() is not None, what="the first board")
        gone = fake.board()
        assert gone is not None
        fake.delete_message(gone.message_id)
        await say(fake, ANN, "join")
        await until(lambda: fake.board().message_id != gone.message_id, what="a new board")  # type: ignore[union-attr]
        again = fake.board()
        assert again is not None and "Ann 200" in again.text
        await say(fake, BOB, "join")
        await until(lambda: "Bob 200" in fake.board().text, what="the board to follow")  # type: ignore[union-attr]
        assert fake.board().message_id == again.message_id  # type: ignore[union-attr]
        assert [c.status for c in fake.calls if c.path == f"/channels/{CHANNEL_ID}/messages/{gone.message_id}"] \
            == [404]
    finally:
        await bot.stop()


@pytest.mark.usefixtures("store_backend")
async def test_stale_and_foreign_presses_change_nothing(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        first = await next_board(fake, None)
        first_actor, first_choice = actor(first), passive(action_buttons(first))
        await press(fake, first_actor, first_choice)
        second = await next_board(fake, token(first))
        lines_before, posts_before = fake.lines(), len(fake.channel_posts())

        # the first board's button again, pressed from the message as it stood then (its custom_id is gone now)
        stale = await fake.press(first_actor, first_choice, version=first)
        assert "turn is over" in (await stale.answer()).lower() and stale.private
        # the same press, with the message as it stands now (discord.py's dynamic items skip it; we answer)
        stale = await fake.press(first_actor, first_choice, message_id=second.message_id)
        assert first_choice not in second.custom_ids
        assert "turn is over" in (await stale.answer()).lower() and stale.private
        # the button on the current board, pressed by someone whose turn it is not
        intruder = next(u for u in NAMES if u != actor(second))
        foreign = await press(fake, intruder, passive(action_buttons(second)))
        assert "not yours" in foreign.content and foreign.private
        # and somebody who is not at the table at all
        fake.user(4242, "Zed")
        outsider = await press(fake, 4242, passive(action_buttons(second)))
        assert "not in this hand" in outsider.content
        await asyncio.sleep(0.3)
        assert fake.lines() == lines_before and len(fake.channel_posts()) == posts_before
        assert token(fake.board()) == token(second)
    finally:
        await bot.stop()


async def test_a_429_on_a_board_edit_is_retried(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        board = await next_board(fake, None)
        fake.edit_429s, fake.retry_after = 2, 0.25
        fake.token_lifetime = 0.0  # the press's token no longer edits the board: the bot edits it as itself
        await press(fake, actor(board), passive(action_buttons(board)))
        after = await next_board(fake, token(board))
        edits = [c for c in fake.calls if c.method == "PATCH" and c.path.startswith("/channels/")]
        statuses = [c.status for c in edits]
        assert statuses[-3:] == [429, 429, 200], statuses
        assert edits[-1].at - edits[-3].at >= 0.45  # discord.py waited retry_after each time
        assert after.message_id == board.message_id
    finally:
        await bot.stop()


async def test_a_slow_command_is_deferred_within_three_seconds(fake: FakeDiscord, tmp_path: Path,
                                                               fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        fake.dm_delay = 3.5  # 'join' sends a DM before it answers: it takes longer than Discord's 3 s
        interaction = await fake.slash(ANN, "join")
        answer = await interaction.answer(timeout=15)
        assert "Seated" in answer
        assert interaction.callback_status == 204 and interaction.callback_at is not None
        assert interaction.callback_at - interaction.sent_at < 1.0  # the defer went out first, at once
        assert interaction.answers[0][0] - interaction.sent_at >= 3.5  # the answer came later, as an edit
        assert interaction.answers[0][1] == "edit" and interaction.ephemeral
    finally:
        await bot.stop()


async def test_rate_rules_over_a_fast_hand(fake: FakeDiscord, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight players raise and call as fast as they can: 50+ actions in one hand, at the adapter's real pace.

    The players answer before the board catches up (with /stud act action:raise|call|check, which
    need no turn token): the test reads whose turn it is from the bot itself, the one
    thing a fast human would know by watching the table.
    """
    bots = recorded_bots(monkeypatch)
    players = {fake.user(2001 + i, f"P{i + 1}"): f"P{i + 1}" for i in range(8)}
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        first = next(iter(players))
        assert "Table open" in await say(fake, first, "new")
        for user in players:
            assert "Seated" in await say(fake, user, "join")
        await start_and_deal(fake, user=first)
        rt = bots[-1].tables[f"discord:{CHANNEL_ID}"]
        hand, setup = rt.hand, rt.setup
        assert hand is not None and setup is not None
        started, actions = time.monotonic(), 0
        while not hand.is_over:
            assert hand.actor is not None
            user = int(setup.players[hand.actor].user)
            legal = {a.value for a in hand.legal_actions()}
            choice = next(a for a in ("raise", "bet", "complete", "call", "check", "bring-in") if a in legal)
            assert await say(fake, user, "act", action=choice) == ""  # /stud act action:raise ...
            actions += 1
            await asyncio.sleep(0.12)  # quick players: about six actions a second, for ten seconds
        played = time.monotonic() - started
        assert actions >= 50, actions
        await until(lambda: "showdown" in title(fake.board()), timeout=15, what="the final board")  # type: ignore[arg-type]
        await until(lambda: fake.board().footer.startswith("Deck #2 "),  # type: ignore[union-attr]
                    timeout=15, what="the next hand's commitment on the final board")
        await until(lambda: fake.lines().rstrip().splitlines()[-1] == "seed "  # hand #1's seed ends its result
                    f"{rt.fair.server_seed.hex()[:4]}…{rt.fair.server_seed.hex()[-4:]} · verify 1", timeout=15,
                    what="the last line: hand #1's seed, after the showdown")
        assert fake.lines().rstrip().splitlines()[-2].startswith(("Pot", "Side pot"))
    finally:
        await running.stop()
    edits = [p for p in fake.channel_posts() if p.kind == "edit"]
    assert len(edits) <= played / DiscordAdapter.rate_interval + 3, (len(edits), played)
    busiest = assert_rate_rules(fake)
    assert busiest >= 2
    assert all(c.status < 400 for c in fake.channel_calls())
    final = fake.board()
    assert final is not None and "showdown" in title(final) and not action_buttons(final)
    assert_no_public_leak(fake, down_cards(fake))
    for user in players:  # a DM a down card: third street, and seventh for whoever is still in
        assert sum("your cards" in t for t in fake.dms[user]) in (1, 2)


async def test_options_become_grammar_commands(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert "join [buy-in]: take a seat" in await say(fake, BOB, "help", command="join")
        assert "Only the table's creator or an admin" in await say(fake, BOB, "config", ante=2)
        assert await say(fake, CAT, "config", ante=2, timer=30, admin=True) == "Done."  # a server admin may
        await until(lambda: "Table set to ante 2, bring-in 2, bets 5/10, timer 30s" in fake.lines(),
                    what="the new stakes")
        assert "Hal is seated" in await say(fake, ANN, "addbot", name="Hal")
        assert "Seated with 100 chips" in await say(fake, BOB, "join", buy_in=100)
        assert "100 chips back in" in await say(fake, ANN, "kick", name="Bob")
        assert "No hand has finished" in await say(fake, ANN, "history", count=3)
        assert "Seven Card Stud Hi-Lo" in await say(fake, ANN, "help", command="rules")  # /stud help command:rules
        await until(lambda: "Bob is removed from the table with 100 chips" in fake.lines(), what="the kick")
    finally:
        await bot.stop()


async def test_the_time_bank_options_and_pause_resume(fake: FakeDiscord, tmp_path: Path, fast: None) -> None:
    """Issue 22 on Discord: /stud config timebank= timebank_refill= and /stud pause (resume:True to resume)."""
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        assert "Table open" in await say(fake, ANN, "new")
        assert await say(fake, ANN, "config", timebank=20, timebank_refill="3/5") == "Done."
        await until(lambda: "Time bank: 20 s for each player, 3 s back every 5 hands (every bank is full now)."
                    in fake.lines(), what="the time bank line")
        assert "Only the table's creator or an admin" in await say(fake, BOB, "pause")
        assert "Paused." in await say(fake, ANN, "pause")
        await until(lambda: "Ann paused the table" in fake.lines(), what="the pause")
        assert "already" in await say(fake, ANN, "pause")
        assert "Resumed." in await say(fake, CAT, "pause", resume=True, admin=True)  # a server admin may
        assert "The table is not paused." in await say(fake, ANN, "pause", resume=True)
        await until(lambda: "Cat resumed the table" in fake.lines(), what="the resume")
    finally:
        await bot.stop()


async def test_a_russian_user_is_answered_in_russian(fake: FakeDiscord, tmp_path: Path, fast: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    adapters: list[DiscordAdapter] = []
    init = DiscordAdapter.__init__

    def keep(self: DiscordAdapter, **kw: Any) -> None:
        init(self, **kw)
        adapters.append(self)

    monkeypatch.setattr(DiscordAdapter, "__init__", keep)
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        [stud] = fake.commands[f"guild:{GUILD_ID}"]  # what Discord shows Russian and Polish users
        join = next(o for o in stud["options"] if o["name"] == "join")
        assert join["name_localizations"]["ru"] == "сесть" and join["name_localizations"]["pl"] == "usiądź"
        assert set(stud["description_localizations"]) == {"ru", "pl"}
        assert set(join["options"][0]["description_localizations"]) == {"ru", "pl"}
        # the core's answers in the user's language, the English user's unchanged
        assert "сесть" in await say(fake, ANN, "help", command="join", locale="ru")
        assert "usiądź" in await say(fake, CAT, "help", command="join", locale="pl")
        assert "join [buy-in]: take a seat" in await say(fake, BOB, "help", command="join")
        assert "Table open" in await say(fake, BOB, "new")
        # 'lang' overrides the locale, for the adapter's words too
        await say(fake, ANN, "lang", language="pl", locale="ru")
        # the adapter's own words too
        adapters[0]._stopping = True
        assert await say(fake, DAN, "board", locale="ru") == "Бот перезапускается, попробуйте ещё раз через минуту."
        assert await say(fake, ANN, "board", locale="ru") == "Bot się restartuje, spróbuj ponownie za chwilę."
        assert await say(fake, CAT, "board", locale="pl") == "Bot się restartuje, spróbuj ponownie za chwilę."
        assert await say(fake, BOB, "board") == "The bot is restarting; try again in a moment."
        adapters[0]._stopping = False
    finally:
        await bot.stop()


@pytest.mark.usefixtures("store_backend")
async def test_an_interaction_that_cannot_be_acknowledged_changes_nothing(fake: FakeDiscord, tmp_path: Path,
                                                                          fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        fake.interaction_deadline = 0.0  # every callback comes too late: Discord says 10062 Unknown interaction
        late = await fake.slash(ANN, "new")
        await until(lambda: late.callback_status == 404, what="the refused callback")
        await asyncio.sleep(0.3)
        assert not late.answers and not fake.channel_posts()  # no table was opened
        fake.interaction_deadline = 3.0
        assert "Table open" in await say(fake, ANN, "new")
    finally:
        await bot.stop()


@pytest.mark.parametrize(("sig", "gateway_from_env"), [(signal.SIGTERM, True), (signal.SIGINT, False)])
async def test_a_signal_stops_the_process_cleanly(fake: FakeDiscord, tmp_path: Path, sig: signal.Signals,
                                                  gateway_from_env: bool, store_backend: Backend) -> None:
    """The real entry point (python -m adapters.run) against the fake; SIGTERM or Ctrl-C ends it with status 0.

    Without DISCORD_GATEWAY_URL the adapter asks the REST base for the gateway (GET /gateway/bot).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "fake-token", "DISCORD_GUILD_ID": str(GUILD_ID),
           "DISCORD_API_BASE": fake.api_base, "LOG_LEVEL": "INFO", **store_backend.env(tmp_path / "stud.db")}
    if gateway_from_env:
        env["DISCORD_GATEWAY_URL"] = fake.gateway_url
    env.pop("TELEGRAM_TOKEN", None)
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "adapters.run", cwd=tmp_path, env=env,
                                                   stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        await until(lambda: fake.identified.is_set(), timeout=20, what="the bot process to connect")
        assert "Table open" in await say(fake, ANN, "new")
        process.send_signal(sig)
        _, stderr = await asyncio.wait_for(process.communicate(), 20)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = stderr.decode()
    assert process.returncode == 0, log
    assert any(c.path == "/gateway/bot" for c in fake.calls) != gateway_from_env
    assert "stopped" in log and "Traceback" not in log and "Unclosed" not in log, log
    await until(lambda: not fake.identified.is_set(), what="the gateway to close")
    # the hash of the commands synced: beside the SQLite file, or in the working directory on PostgreSQL
    assert (tmp_path / "stud.db.discord-commands.json").is_file() != store_backend.postgresql
    assert (tmp_path / "studbot.discord-commands.json").is_file() == store_backend.postgresql

"""The Discord adapter end to end: the real discord.py client against a loopback Discord.

Each test starts ``tests/fakes/discord_server.FakeDiscord`` on 127.0.0.1 and the
real bootstrap (``adapters.run.serve``) with the real StudBot, a SQLite file in
``tmp_path`` and the real clock; users act only through the fake (slash commands
and button presses over the gateway), and every check reads what the fake
received over REST.

Most flows run at a fast pace (``fast`` fixture: the coalescing interval and the
per-channel window shrunk) to keep the file short; ``test_rate_rules_over_a_fast_hand``
runs with the adapter's real values and counts the calls per channel per 5 s.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.discord_server import CHANNEL_ID, GUILD_ID, FakeDiscord, Interaction, Posted
from PIL import Image

from adapters import run as run_module
from adapters.discord import messenger as discord_messenger
from adapters.discord.adapter import DiscordAdapter
from adapters.discord.buttons import StudButton
from adapters.run import serve
from bot import images
from bot.config import Settings
from bot.service import StudBot

ROOT = Path(__file__).resolve().parents[1]
ANN, BOB, CAT, DAN = 1001, 1002, 1003, 1004
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan"}
STREETS = ("third street", "fourth street", "fifth street", "sixth street", "seventh street")
pytestmark = pytest.mark.asyncio
CARD = re.compile(r"\[([2-9TJQKA]|10)([♣♦♥♠])\]")


async def until(predicate: Callable[[], object], timeout: float = 10.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


@dataclass
class Running:
    """One ``serve()`` of the bot against the fake, until :meth:`stop`."""

    fake: FakeDiscord
    settings: Settings
    stop_event: asyncio.Event
    task: asyncio.Task[None]

    async def stop(self) -> None:
        self.stop_event.set()
        await asyncio.wait_for(self.task, 20)


async def start_bot(fake: FakeDiscord, db: Path, **overrides: object) -> Running:
    values: dict[str, object] = {"bot_delay": 0.0, "next_hand_delay": 600.0, "turn_timer": 120, **overrides}
    settings = replace(Settings(), db_path=str(db), discord_token="fake-token", discord_guild_id=GUILD_ID,
                       discord_api_base=fake.api_base, discord_gateway_url=fake.gateway_url,
                       **values)  # type: ignore[arg-type]
    identified = fake.identify_count
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop=stop))
    deadline = time.monotonic() + 15
    while fake.identify_count == identified or not fake.identified.is_set():
        if task.done():
            task.result()
            raise AssertionError("serve() ended before connecting")
        assert time.monotonic() < deadline, "the bot never identified"
        await asyncio.sleep(0.02)
    return Running(fake=fake, settings=settings, stop_event=stop, task=task)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    for user, name in NAMES.items():
        server.user(user, name)
    yield server
    await server.stop()


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flows at test speed: coalesce every 0.05 s, no per-channel window."""
    monkeypatch.setattr(DiscordAdapter, "rate_interval", 0.05)
    monkeypatch.setattr(discord_messenger, "LIMIT", 1000)


# ---------------------------------------------------------------------- reading the board


def action_buttons(board: Posted) -> dict[str, str]:
    """{'call': 'stud:call@1.2', ...}: the board's action buttons."""
    return {cid.split(":", 1)[1].split("@")[0]: cid for cid in board.custom_ids if "@" in cid}


def token(board: Posted | None) -> str | None:
    if board is None:
        return None
    return next((cid.split("@", 1)[1] for cid in board.custom_ids if "@" in cid), None)


def actor(board: Posted) -> int:
    """Who is to act: the "NAME to act" line (in the text board, and in the image board's summary)."""
    m = re.search(r"^(\S+) to act", board.text, re.M)
    assert m, board.text
    return next(u for u, n in NAMES.items() if n == m.group(1))


def title(board: Posted) -> str:
    return str(board.embeds[0].get("title", "")) if board.embeds else ""


async def next_board(fake: FakeDiscord, after: str | None, timeout: float = 10.0) -> Posted:
    """The board once it shows a turn other than ``after``, or the end of the hand."""
    def moved() -> bool:
        board = fake.board()
        return board is not None and (token(board) not in (None, after) or "showdown" in title(board))

    await until(moved, timeout, f"the board after turn {after}")
    board = fake.board()
    assert board is not None
    return board


async def say(fake: FakeDiscord, user: int, sub: str, *, locale: str = "en-US", **options: int | str) -> str:
    interaction = await fake.slash(user, sub, locale=locale, **options)
    answer = await interaction.answer()
    assert interaction.ephemeral, f"/stud {sub} was not deferred ephemerally"
    return answer


async def press(fake: FakeDiscord, user: int, custom_id: str, **kw: object) -> Interaction:
    board = fake.board()
    assert board is not None
    interaction = await fake.press(user, custom_id, message_id=board.message_id, **kw)  # type: ignore[arg-type]
    await interaction.answer()
    assert interaction.ephemeral
    return interaction


async def table_of_three(fake: FakeDiscord, *, join_bob: bool = True) -> None:
    assert "Table open" in await say(fake, ANN, "new")
    assert "Seated with 200 chips" in await say(fake, ANN, "join", buy_in=200)
    if join_bob:
        assert "Seated" in await say(fake, BOB, "join")
    assert "Seated" in await say(fake, CAT, "join")
    assert "Dealing" in await say(fake, ANN, "start")


def passive(buttons: dict[str, str]) -> str:
    for name in ("check", "call", "bring-in"):
        if name in buttons:
            return buttons[name]
    raise AssertionError(f"no passive action in {buttons}")


async def cat_folds_to_a_completion(fake: FakeDiscord) -> tuple[set[str], int]:
    """Play the hand to the showdown with buttons: Ann or Bob completes, Cat folds to it, the rest
    check or call. Returns the streets the board showed and how many buttons were pressed."""
    seen_streets: set[str] = set()
    last: str | None = None
    presses = 0
    while True:
        board = await next_board(fake, last)
        if "showdown" in title(board):
            return seen_streets, presses
        seen_streets |= {s for s in STREETS if s in title(board)}
        buttons = action_buttons(board)
        who = actor(board)
        if who == CAT and "fold" in buttons:
            choice = buttons["fold"]  # Cat gives up facing the completion
        elif who != CAT and "complete" in buttons:
            choice = buttons["complete"]
        else:
            choice = passive(buttons)
        last = token(board)
        interaction = await press(fake, who, choice)
        assert interaction.content == "", interaction.content  # accepted: the 'thinking' message is removed
        assert interaction.callback is not None and interaction.callback["type"] == 5
        presses += 1


def down_cards(fake: FakeDiscord) -> dict[int, set[str]]:
    """Each user's down cards, read from their DMs ('[K♣]')."""
    return {user: {"".join(m) for text in texts for m in CARD.findall(text)} for user, texts in fake.dms.items()}


def assert_no_public_leak(fake: FakeDiscord, secret: dict[int, set[str]]) -> None:
    """No channel message (post or edit, text or embed) shows a down card before the showdown."""
    cards = set().union(*secret.values()) if secret else set()
    for post in fake.channel_posts():
        if " shows " in post.text or "showdown" in post.text:
            break
        leaked = {c for c in cards if c in post.text}
        assert not leaked, f"down cards {leaked} in a public message: {post.text!r}"


def assert_rate_rules(fake: FakeDiscord, *, window: float = 5.0, limit: int = 5) -> int:
    """At most ``limit`` channel posts and edits in any ``window`` seconds; returns the busiest count."""
    times = sorted(c.at for c in fake.channel_calls() if c.status < 400)
    busiest = 0
    for i, start in enumerate(times):
        count = sum(1 for t in times[i:] if t < start + window)
        busiest = max(busiest, count)
    assert busiest <= limit, f"{busiest} channel messages/edits within {window}s"
    return busiest


# ---------------------------------------------------------------------- the tests


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
        for user, texts in fake.dms.items():
            assert sum("your cards" in t for t in texts) == (1 if user == CAT else 5)
            pictures = fake.dm_files.get(user, [])  # the table shows images: the cards come as pictures too
            assert [a.filename for a in pictures] == ["cards.png"] * (1 if user == CAT else 5)
            assert all(a.data.startswith(b"\x89PNG") for a in pictures)
        assert_no_public_leak(fake, secret)
        for record in fake.interactions.values():  # every answer was private
            assert record.ephemeral and all(ephemeral for _, _, _, ephemeral in record.answers)
        assert_fair_in_order(lines)
        assert "Hand #1 is fair" in await say(fake, CAT, "verify", hand=1)
        assert "'export 1' gives you the hand file" in await say(fake, CAT, "verify", hand=1)
        assert 'Your seed is now "a b"' in await say(fake, CAT, "seed", text="a b")
    finally:
        await bot.stop()


def assert_fair_in_order(lines: str) -> None:
    """The commitment of hand #1 is in the channel before its deal; the seed revealed after it opens it."""
    committed = re.search(r"Hand #1 is dealt from a committed deck: ([0-9a-f]{64})", lines)
    assert committed is not None, lines[:2000]
    assert committed.start() < lines.index("Door cards")
    revealed = re.search(r"Hand #1: server seed ([0-9a-f]{64})\. Its SHA-256 is the commitment ([0-9a-f]{64})", lines)
    assert revealed is not None and revealed.start() > lines.index(" shows ")
    assert revealed.group(2) == committed.group(1)
    assert hashlib.sha256(bytes.fromhex(revealed.group(1))).hexdigest() == committed.group(1)


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
        assert "turn is over" in (await stale.answer()).lower() and stale.ephemeral
        # the same press, with the message as it stands now (discord.py's dynamic items skip it; we answer)
        stale = await fake.press(first_actor, first_choice, message_id=second.message_id)
        assert first_choice not in second.custom_ids
        assert "turn is over" in (await stale.answer()).lower() and stale.ephemeral
        # the button on the current board, pressed by someone whose turn it is not
        intruder = next(u for u in NAMES if u != actor(second))
        foreign = await press(fake, intruder, passive(action_buttons(second)))
        assert "not yours" in foreign.content and foreign.ephemeral
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
    bots: list[StudBot] = []

    class Recorded(StudBot):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            bots.append(self)

    monkeypatch.setattr(run_module, "StudBot", Recorded)
    players = {fake.user(2001 + i, f"P{i + 1}"): f"P{i + 1}" for i in range(8)}
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        first = next(iter(players))
        assert "Table open" in await say(fake, first, "new")
        for user in players:
            assert "Seated" in await say(fake, user, "join")
        assert "Dealing" in await say(fake, first, "start")
        rt = bots[-1].tables[f"discord:{CHANNEL_ID}"]
        hand, setup = rt.hand, rt.setup
        assert hand is not None and setup is not None
        started, actions = time.monotonic(), 0
        while not hand.is_over:
            assert hand.actor is not None
            user = int(setup.players[hand.actor][1])
            legal = {a.value for a in hand.legal_actions()}
            choice = next(a for a in ("raise", "bet", "complete", "call", "check", "bring-in") if a in legal)
            assert await say(fake, user, "act", action=choice) == ""  # /stud act action:raise ...
            actions += 1
            await asyncio.sleep(0.12)  # quick players: about six actions a second, for ten seconds
        played = time.monotonic() - started
        assert actions >= 50, actions
        await until(lambda: "showdown" in title(fake.board()), timeout=15, what="the final board")  # type: ignore[arg-type]
        await until(lambda: fake.lines().rstrip().splitlines()[-1].startswith("Hand #2 is dealt from a committed"),
                    timeout=15, what="the last line: the next hand's commitment, after the showdown")
        assert fake.lines().rstrip().splitlines()[-3].startswith(("Pot", "Side pot"))  # then hand #1's seed
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
    for user in players:
        assert sum("your cards" in t for t in fake.dms[user]) == 5


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
        assert "Seven Card Stud Hi-Lo" in await say(fake, ANN, "rules")
        await until(lambda: "Bob is removed from the table with 100 chips" in fake.lines(), what="the kick")
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
                                                  gateway_from_env: bool) -> None:
    """The real entry point (python -m adapters.run) against the fake; SIGTERM or Ctrl-C ends it with status 0.

    Without DISCORD_GATEWAY_URL the adapter asks the REST base for the gateway (GET /gateway/bot).
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DISCORD_TOKEN": "fake-token", "DISCORD_GUILD_ID": str(GUILD_ID),
           "DISCORD_API_BASE": fake.api_base, "STUDBOT_DB": str(tmp_path / "stud.db"), "LOG_LEVEL": "INFO"}
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


async def test_the_board_is_an_image_until_config_view_text(fake: FakeDiscord, tmp_path: Path, fast: None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A new table shows its board as a PNG in the embed (posts and edits upload it); view=text stops that."""
    bots: list[StudBot] = []

    class Recorded(StudBot):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            bots.append(self)

    monkeypatch.setattr(run_module, "StudBot", Recorded)
    running = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        last: str | None = None
        for _ in range(3):
            board = await next_board(fake, last)
            last = token(board)
            await press(fake, actor(board), passive(action_buttons(board)))
        board = await next_board(fake, last)
        boards = [p for p in fake.channel_posts() if p.embeds]
        assert boards[0].kind == "post" and any(p.kind == "edit" for p in boards)
        for post in boards:
            assert post.image is not None, post
            with Image.open(io.BytesIO(post.image)) as img:
                assert img.format == "PNG" and img.width > 0
            assert post.embeds[0]["image"]["url"] == "attachment://board.png"
        assert "to act" in board.text and "Pot " in board.text  # the text summary stays
        assert not any(ln.startswith("→") for ln in board.text.splitlines())  # the seats are in the picture
        uploads = [c for c in fake.channel_calls() if c.files]
        assert len(uploads) == len(boards) and all(f.filename == "board.png" and f.size > 1000
                                                   for c in uploads for f in c.files)
        # the public image is drawn from a layout without a face-up down card, and it is what is shown
        rt = bots[-1].tables[f"discord:{CHANNEL_ID}"]
        layout = images.board_layout(rt.table, rt.hand, names=rt.names)
        down = [s for seat in layout.seats for s in seat.slots if s.down]
        assert len(down) == 2 * len(layout.seats) and all(not s.face_up and s.card is None for s in down)
        await until(lambda: fake.board().image == images.board_png(rt.table, rt.hand,  # type: ignore[union-attr]
                                                                    names=rt.names), what="the current image")
        # view=text: the board goes back to text, the attachment is dropped
        assert await say(fake, ANN, "config", view="text") == "Done."
        await until(lambda: fake.board().image is None, what="a text board")  # type: ignore[union-attr]
        switched = len(fake.channel_posts())
        board = fake.board()
        assert board is not None and "```" in board.text and any(ln.startswith("→") for ln in board.text.splitlines())
        assert "image" not in board.embeds[0]
        last = token(board)
        await press(fake, actor(board), passive(action_buttons(board)))
        await next_board(fake, last)
        after = [p for p in fake.channel_posts()[switched:] if p.embeds]
        assert after and all(p.image is None and not p.attachments for p in after)
        assert "The board is shown as text now." in fake.lines()
    finally:
        await running.stop()
    assert all(c.status < 400 for c in fake.channel_calls())
    assert_no_public_leak(fake, down_cards(fake))


# ---------------------------------------------------------------------- hand history (issue 12)


async def test_hand_and_export_answer_privately_with_ephemeral_files(fake: FakeDiscord, tmp_path: Path,
                                                                     fast: None) -> None:
    import sqlite3

    from pokerstars_reader import read_file
    from test_export_phh import pokerkit_replay

    from engine import HandFile, replay_hand

    bot = await start_bot(fake, tmp_path / "stud.db")
    try:
        await table_of_three(fake)
        await cat_folds_to_a_completion(fake)
        secret = down_cards(fake)
        with sqlite3.connect(tmp_path / "stud.db") as db:
            [(stored,)] = db.execute("SELECT hand_file FROM hands WHERE hand_no = 1").fetchall()
        hand = replay_hand(HandFile.from_json(stored))
        story = await say(fake, CAT, "hand", number=1)
        assert story.startswith("Hand #1 — ") and "Cat folds" in story
        assert all(card in story for card in secret[CAT])  # her own, though she folded
        assert "Your down cards" in story and " shows " in story
        # export: the answer carries both files, ephemeral, read back as the bot played the hand
        interaction = await fake.slash(ANN, "export")
        assert (await interaction.answer()).startswith("Hand #1: PokerStars text and PHH")
        assert [(f.filename, ephemeral) for f, ephemeral in interaction.files] == [
            ("stud-hand-1.txt", True), ("stud-hand-1.phh", True)]
        [read] = read_file(interaction.files[0][0].data.decode())
        assert read.viewer == "Ann" and read.up["Ann"][:2] == [str(c) for c in hand.cards[0][:2]]
        assert len(read.acts) == len(hand.actions)
        paid: dict[str, int] = {}
        for award in hand.pot_results:
            for seat, chips in award.shares.items():
                paid[hand.names[seat]] = paid.get(hand.names[seat], 0) + chips
        assert read.collected_by() == paid
        stacks, refused, why = pokerkit_replay(interaction.files[1][0].data.decode())
        assert refused is None and stacks == list(hand.stacks), why
        # bad input: answered, no file
        for options, answer in (({"number": 9}, "There is no finished hand #9"), ({"last": 1000}, "at most 100"),
                                ({"number": 1, "last": 2}, "usage: export")):
            bad = await fake.slash(ANN, "export", **options)  # type: ignore[arg-type]
            assert answer in await bad.answer() and not bad.files and bad.ephemeral
        # nothing went to the channel: its only files are the board pictures
        assert {a.filename for p in fake.channel_posts() for a in p.attachments} <= {"board.png"}
    finally:
        await bot.stop()


async def test_a_sit_and_go_registered_by_button_played_to_its_standings(fake: FakeDiscord, tmp_path: Path,
                                                                          fast: None) -> None:
    bot = await start_bot(fake, tmp_path / "stud.db", next_hand_delay=0.01)
    try:
        stud = next(c for c in fake.commands[f"guild:{GUILD_ID}"] if c["name"] == "stud")
        spec = next(o for o in stud["options"] if o["name"] == "tourney")
        choices = {o["name"]: [c["value"] for c in o.get("choices", [])] for o in spec["options"]}
        assert choices["pace"] == ["normal", "turbo"] and choices["payout"] == ["winner", "65/35", "50/30/20"]
        assert "is open for registration" in await say(fake, ANN, "tourney", seats=3, stack=200, buyin=50,
                                                       levels="hands:1", payout="winner")
        lobby = fake.board()
        assert lobby is not None and "stud:register" in lobby.custom_ids and "registration 0/3" in lobby.text
        for user in (ANN, BOB):
            interaction = await press(fake, user, "stud:register")
            assert "You are registered" in interaction.content, interaction.content
        assert "Already registered" in await say(fake, BOB, "tourney", action="register")
        assert "registered" in await say(fake, ANN, "addbot", name="Robo")
        await until(lambda: "starts: 3 players" in fake.lines(), what="the start")
        await say(fake, ANN, "sitout")
        await say(fake, BOB, "sitout")
        await until(lambda: "final standings" in fake.lines(), timeout=60, what="the final standings")
        lines = fake.lines()
        assert "Level 2 from this hand" in lines and "is out in place 3 of 3" in lines
        assert re.search(r"1\. \S+ — 150 chips", lines), lines[-600:]
        assert "final standings" in await say(fake, CAT, "tourney", action="results")
    finally:
        await bot.stop()

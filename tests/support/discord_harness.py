"""What the Discord end-to-end tests share: the loopback Discord, the served bot, helpers that play and read.

``start_bot`` runs the real bootstrap (``adapters.run.serve``) with the real StudBot and a
SQLite file against ``tests/support/fakes/discord_server.FakeDiscord`` (the ``fake`` fixture, on
127.0.0.1); the helpers act only through the fake and read only what it received. The
``fast`` fixture shrinks the coalescing interval and the per-channel window.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.discord_server import CHANNEL_ID, GUILD_ID, FakeDiscord, Interaction, Posted
from skip_clock import SkipClock, pass_the_pause

from adapters import run as run_module
from adapters.discord import messenger as discord_messenger
from adapters.discord.adapter import DiscordAdapter
from adapters.run import serve
from bot import bootstrap
from bot.app import StudBot
from bot.core.config import Settings

ROOT = Path(__file__).resolve().parents[2]
ANN, BOB, CAT, DAN = 1001, 1002, 1003, 1004
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan"}
STREETS = ("third street", "fourth street", "fifth street", "sixth street", "seventh street")
CARD = re.compile(r"\[([2-9TJQKA]|10)([♣♦♥♠])\]")
DECK = re.compile(r"Deck #(\d+) ([0-9a-f]{4}…[0-9a-f]{4}) · verify")
"""The board's footer: a hand's commitment, short."""
SEED = re.compile(r"seed ([0-9a-f]{4}…[0-9a-f]{4}) · verify (\d+)")
"""The last line of a hand's result: its server seed, short."""


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
    values: dict[str, object] = {"bot_delay": 0.0, "next_hand_delay": 600.0, "turn_timer": 120, "time_bank": 0,
                                 "discord_guild_id": GUILD_ID, **overrides}
    settings = replace(Settings(), db_path=str(db), discord_token="fake-token",
                       discord_api_base=fake.api_base, discord_gateway_url=fake.gateway_url,
                       **values)  # type: ignore[arg-type]
    identified = fake.identify_count
    shards = len(settings.discord_shard_ids or range(settings.discord_shard_count or 1))
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, stop=stop))
    deadline = time.monotonic() + 15
    while fake.identify_count < identified + shards or not fake.identified.is_set():
        if task.done():
            task.result()
            raise AssertionError("serve() ended before connecting")
        assert time.monotonic() < deadline, "the bot never identified"
        await asyncio.sleep(0.02)
    return Running(fake=fake, settings=settings, stop_event=stop, task=task)



def recorded_bots(monkeypatch: pytest.MonkeyPatch) -> list[StudBot]:
    """The StudBots the bootstrap builds from now on (the test reads the bot's state through them)."""
    bots: list[StudBot] = []

    class Recorded(StudBot):
        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            bots.append(self)

    monkeypatch.setattr(bootstrap, "StudBot", Recorded)  # where build_bot makes it
    return bots

async def started_fake() -> FakeDiscord:
    """A loopback Discord, started, that knows the players of :data:`NAMES`."""
    server = FakeDiscord()
    await server.start()
    for user, name in NAMES.items():
        server.user(user, name)
    return server


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await started_fake()
    with pytest.MonkeyPatch.context() as patch:  # a clock the test can move to the deal after 'start'
        patch.setattr(run_module, "RealClock", SkipClock)
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


async def next_board(fake: FakeDiscord, after: str | None, timeout: float = 10.0, *,
                     channel: int = CHANNEL_ID) -> Posted:
    """The board once it shows a turn other than ``after``, or the end of the hand."""
    def moved() -> bool:
        board = fake.board(channel)
        return board is not None and (token(board) not in (None, after) or "showdown" in title(board))

    await until(moved, timeout, f"the board after turn {after}")
    board = fake.board(channel)
    assert board is not None
    return board


async def say(fake: FakeDiscord, user: int, sub: str, *, locale: str = "en-US", channel: int = CHANNEL_ID,
              dm: bool = False, **options: int | str) -> str:
    interaction = await fake.slash(user, sub, locale=locale, channel=channel, dm=dm, **options)
    answer = await interaction.answer()
    assert interaction.ephemeral, f"/stud {sub} was not deferred ephemerally"
    return answer


async def press(fake: FakeDiscord, user: int, custom_id: str, *, channel: int = CHANNEL_ID,
                **kw: object) -> Interaction:
    board = fake.board(channel)
    assert board is not None
    interaction = await fake.press(user, custom_id, message_id=board.message_id, **kw)  # type: ignore[arg-type]
    await interaction.answer()
    assert interaction.private  # an action: the board's own update, a refusal to the presser alone
    return interaction


async def table_of_three(fake: FakeDiscord, *, join_bob: bool = True, channel: int = CHANNEL_ID) -> None:
    assert "Table open" in await say(fake, ANN, "new", channel=channel)
    assert "Seated with 200 chips" in await say(fake, ANN, "join", buy_in=200, channel=channel)
    if join_bob:
        assert "Seated" in await say(fake, BOB, "join", channel=channel)
    assert "Seated" in await say(fake, CAT, "join", channel=channel)
    await start_and_deal(fake, channel=channel)


async def start_and_deal(fake: FakeDiscord, *, user: int = ANN, channel: int = CHANNEL_ID) -> None:
    """'start': the first hand's commitment on the board; then the table's pause passes and it is dealt."""
    assert "Dealing" in await say(fake, user, "start", channel=channel)
    await until(lambda: _deck_shown(fake, channel, 1), what="hand #1's commitment on the board")
    await pass_the_pause()
    await until(lambda: "Hand #1 · " in (fake.board(channel).text if fake.board(channel) else ""),  # type: ignore[union-attr]
                what="hand #1 dealt")


def _deck_shown(fake: FakeDiscord, channel: int, no: int) -> bool:
    board = fake.board(channel)
    return board is not None and DECK.search(board.footer or "") is not None and f"Deck #{no} " in board.footer


def passive(buttons: dict[str, str]) -> str:
    for name in ("check", "call", "bring-in"):
        if name in buttons:
            return buttons[name]
    raise AssertionError(f"no passive action in {buttons}")


async def cat_folds_to_a_completion(fake: FakeDiscord, *, channel: int = CHANNEL_ID) -> tuple[set[str], int]:
    """Play the hand to the showdown with buttons: Ann or Bob completes, Cat folds to it, the rest
    check or call. Returns the streets the board showed and how many buttons were pressed."""
    seen_streets: set[str] = set()
    last: str | None = None
    presses = 0
    while True:
        board = await next_board(fake, last, channel=channel)
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
        interaction = await press(fake, who, choice, channel=channel)
        assert interaction.content == "", interaction.content  # accepted: nothing said, the board moves
        assert interaction.callback is not None and interaction.callback["type"] == 6  # deferred as its update
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


def assert_fair_in_order(fake: FakeDiscord, *, channel: int = CHANNEL_ID) -> tuple[str, str]:
    """Hand #1's commitment is on the board's footer (never a message of its own) before its deal; its seed,
    short, ends the message with the hand's result. Returns both, short: (commitment, seed)."""
    boards = [p for p in fake.channel_posts(channel) if p.embeds]
    first = next(i for i, p in enumerate(boards) if DECK.search(p.footer))
    assert DECK.search(boards[first].footer).group(1) == "1"  # type: ignore[union-attr]
    assert "third street" not in boards[first].text  # shown before the deal
    committed = DECK.search(boards[first].footer).group(2)  # type: ignore[union-attr]
    assert all(DECK.search(p.footer).group(2) == committed  # type: ignore[union-attr]
               for p in boards if "Hand #1 ·" in p.text and "showdown" not in p.text)
    lines = fake.lines(channel)
    assert not re.search(r"[0-9a-f]{64}", lines) and "committed deck" not in lines and "server seed" not in lines
    said = [p.content for p in fake.channel_posts(channel) if SEED.search(p.content)]
    assert len(said) == 1 and "Pot" in said[0], said  # one message: the result, its seed last
    seed = SEED.search(said[0])
    assert seed is not None and seed.group(2) == "1"
    return committed, seed.group(1)

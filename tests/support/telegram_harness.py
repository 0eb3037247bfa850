"""What the Telegram end-to-end tests share: the fake Bot API, the served bot, helpers that play and read.

``Served`` runs the real bootstrap (``adapters.run.serve``) with TELEGRAM_* settings aimed
at ``tests/support/fakes/telegram_server.FakeBotAPI`` (the ``fake`` fixture, on loopback), the real
StudBot and a SQLite file; the helpers push commands and presses as the users, and read
what the bot sent.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.telegram_server import BOARD_METHODS, FakeBotAPI, text_of
from skip_clock import SkipClock, pass_the_pause

import adapters.run
from adapters.telegram.adapter import TelegramAdapter
from adapters.telegram.codec import link_key, start_payload
from bot import bootstrap
from bot.app import StudBot
from bot.core.config import Settings

GROUP = -1001234567890
ANN, BOB, CAT, DAN, EVE, FAY, GUS, HAL = 1101, 1102, 1103, 1104, 1105, 1106, 1107, 1108
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan", EVE: "Eve", FAY: "Fay", GUS: "Gus", HAL: "Hal"}
STRANGER = 1999
CARD = re.compile(r"(?:[2-9TJQKA]|10)[♣♦♥♠]")
DOWN = re.compile(r"\[((?:[2-9TJQKA]|10)[♣♦♥♠])\]")
PREFERENCE = ("Check", "Call", "Bring-in")
DECK = re.compile(r"Deck #(\d+) ([0-9a-f]{4}…[0-9a-f]{4}) · verify")
"""The line under the board: a hand's commitment, short."""
SEED = re.compile(r"seed ([0-9a-f]{4}…[0-9a-f]{4}) · verify (\d+)")
"""The last line of a hand's result: its server seed, short."""


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeBotAPI]:
    api = await FakeBotAPI().start()
    api.group(GROUP)
    for uid, name in NAMES.items():
        api.user(uid, name)
    api.user(STRANGER, "Zed")
    with pytest.MonkeyPatch.context() as patch:  # a clock the test can move to the deal after 'start'
        patch.setattr(adapters.run, "RealClock", SkipClock)
        yield api
    await api.close()
    assert not api.unknown, f"the adapter called methods the fake does not know: {api.unknown}"


class Served:
    """``adapters.run.serve`` in a task, with the Telegram settings pointing at the fake."""

    def __init__(self, fake: FakeBotAPI, db: Path, monkeypatch: pytest.MonkeyPatch, *, interval: float = 0.15,
                 group_rate: tuple[float, float] = (1000, 60), webhook: str | None = None,
                 webhook_port: int = 8443, webhook_register: bool = True,
                 next_hand_delay: float = 600, **settings: Any) -> None:
        self.fake = fake
        self.settings = replace(Settings(), db_path=str(db), telegram_token=fake.token,
                                telegram_base_url=fake.base_url, telegram_webhook_url=webhook,
                                telegram_webhook_listen="127.0.0.1", telegram_webhook_port=webhook_port,
                                telegram_webhook_register=webhook_register,
                                next_hand_delay=next_hand_delay, bot_delay=0.0, turn_timer=60,
                                **{"time_bank": 0, **settings})
        monkeypatch.setattr(TelegramAdapter, "rate_interval", interval)
        monkeypatch.setattr(TelegramAdapter, "group_rate", group_rate)
        monkeypatch.setattr(TelegramAdapter, "private_rate", (1000, 1.0))  # the tests read answers at once
        monkeypatch.setattr(TelegramAdapter, "poll_timeout", 1)
        self.bots: list[StudBot] = []
        bots = self.bots

        class SpyBot(StudBot):
            def __init__(self, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                bots.append(self)

        monkeypatch.setattr(bootstrap, "StudBot", SpyBot)  # where build_bot makes it

    async def __aenter__(self) -> Served:
        self.stop = asyncio.Event()
        method = "setWebhook" if self.settings.telegram_webhook_url else "getUpdates"
        polls = len(self.fake.sent(method, ok=False))
        self.task = asyncio.create_task(adapters.run.serve(self.settings, stop=self.stop))
        if self.settings.telegram_webhook_url and not self.settings.telegram_webhook_register:
            await wait_listening(self.settings.telegram_webhook_port, self.task)
        else:
            await self.fake.wait_for(lambda: len(self.fake.sent(method, ok=False)) > polls or self.task.done(),
                                     what="polling")
        if self.task.done():
            self.task.result()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, 20)

    @property
    def bot(self) -> StudBot:
        return self.bots[-1]

    def runtime(self, channel: str = str(GROUP)) -> Any:
        return self.bot.tables[f"telegram:{channel}"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def wait_listening(port: int, task: asyncio.Task[None], timeout: float = 15.0) -> None:
    """Until a worker listens on ``port`` (or its serve() ended)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not task.done():
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            assert asyncio.get_running_loop().time() < deadline, f"nothing listens on port {port}"
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return


def payload(fake: FakeBotAPI, *, join: bool, channel: str = str(GROUP)) -> str:
    """The signed deep-link payload the bot makes for a table (what ``/start <payload>`` carries)."""
    return start_payload(channel, join=join, key=link_key(fake.token))


async def say(fake: FakeBotAPI, uid: int, text: str, *, chat: int = GROUP, thread: int | None = None) -> None:
    """A user types a command; wait until the bot has taken it (the next getUpdates confirms it)."""
    fake.command(chat, uid, text, thread=thread)
    await fake.wait_for(lambda: not fake.updates, what=f"the bot to take {text!r}")
    await asyncio.sleep(0.3)


async def start_and_deal(fake: FakeBotAPI, uid: int = ANN, text: str = "/stud start", *, chat: int = GROUP) -> None:
    """'start': the first hand's commitment under the board; then the table's pause passes and it is dealt."""
    await say(fake, uid, text, chat=chat)
    await fake.wait_for(lambda: DECK.search(text_of(fake.board(chat))), what="hand #1's commitment under the board")
    await pass_the_pause()
    await fake.wait_for(lambda: "Hand #1 · " in text_of(fake.board(chat)), what="hand #1 dealt")


async def press(fake: FakeBotAPI, uid: int, label: str | None = None, *, data: str | None = None,
                message_id: int | None = None, chat: int = GROUP) -> dict[str, Any]:
    mid = message_id if message_id is not None else fake.board(chat)["message_id"]
    qid = fake.press(chat, mid, uid, label=label, data=data)
    return await fake.answer(qid)


def buttons(message: dict[str, Any]) -> dict[str, str]:
    """label -> callback data (or url) of a message's keyboard."""
    return {b["text"]: b.get("callback_data") or b.get("url", "")
            for row in message.get("reply_markup", {}).get("inline_keyboard", []) for b in row}


def turn_of(message: dict[str, Any]) -> str | None:
    return next((d.rsplit("|", 1)[1] for d in buttons(message).values() if d.count("|") == 2), None)


async def next_turn(fake: FakeBotAPI, last: str | None, chat: int = GROUP) -> tuple[str | None, dict[str, Any]]:
    """Wait for the board to show a new turn (or the hand's end); (turn, board)."""
    def ready() -> tuple[str | None, dict[str, Any]] | None:
        board = fake.board(chat)
        turn = turn_of(board)
        if turn is not None and turn != last:
            return turn, board
        if turn is None and "showdown" in text_of(board):
            return None, board
        return None
    result: tuple[str | None, dict[str, Any]] = await fake.wait_for(ready, what=f"a turn after {last}")
    return result


def actor(board: dict[str, Any]) -> int:
    m = re.search(r"^→ (\w+)", text_of(board), re.M)
    assert m, text_of(board)
    return next(uid for uid, name in NAMES.items() if name == m.group(1))


def down_cards(fake: FakeBotAPI, uid: int) -> set[str]:
    return {c for text in fake.private_texts(uid) for c in DOWN.findall(text)}


async def open_table(fake: FakeBotAPI, players: tuple[int, ...]) -> None:
    for uid in players:
        await say(fake, uid, "/start", chat=uid)
    await say(fake, players[0], "/stud new")
    await fake.wait_for(lambda: fake.boards(GROUP), what="the board")


async def play_out(fake: FakeBotAPI, *, preference: tuple[str, ...] = PREFERENCE) -> list[str]:
    """Press the preferred legal button for whoever is to act, until the showdown; the labels pressed."""
    pressed: list[str] = []
    turn: str | None = None
    while True:
        turn, board = await next_turn(fake, turn)
        if turn is None:
            return pressed
        labels = buttons(board)
        label = next(lb for p in preference for lb in labels if lb.startswith(p))
        answer = await press(fake, actor(board), label)
        assert not answer.get("text"), answer
        pressed.append(label)


def assert_no_down_card_in_group(fake: FakeBotAPI, players: tuple[int, ...]) -> None:
    """No group message before a hand's showdown holds a down card (at the showdown: only shown hands)."""
    secret = {c: uid for uid in players for c in down_cards(fake, uid)}
    assert secret
    for text in fake.group_texts(GROUP):
        if "showdown" in text:
            shown = {c for line in text.splitlines() if " shows " in line for c in CARD.findall(line)}
            leaked = set(secret) & (set(CARD.findall(text)) - shown)
        else:
            leaked = set(secret) & set(CARD.findall(text))
        assert not leaked, (leaked, text)


def assert_budget(fake: FakeBotAPI, *, per_minute: int = 20) -> int:
    """At most ``per_minute`` messages and edits in the group in any 60 s window; returns the busiest count."""
    times = sorted(c.t for c in fake.calls if c.method in BOARD_METHODS
                   and int(c.params.get("chat_id", 0)) == GROUP)
    busiest = max((sum(1 for u in times if t <= u < t + 60) for t in times), default=0)
    assert busiest <= per_minute, busiest
    return busiest

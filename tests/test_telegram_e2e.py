"""The Telegram adapter end to end: a real python-telegram-bot Application against a fake Bot API.

Everything is real but Telegram: ``adapters.run.serve`` with TELEGRAM_* settings
pointing at :class:`tests.fakes.telegram_server.FakeBotAPI` on loopback, the real
StudBot, a SQLite file in ``tmp_path`` and the real clock. The test plays the users:
it pushes commands and button presses, and reads what the bot sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakes.telegram_server import BOARD_METHODS, NOT_MODIFIED, FakeBotAPI, text_of, text_of_call
from PIL import Image

import adapters.run
from adapters.telegram.adapter import TelegramAdapter
from bot import images
from bot.commands import ALIASES, usage_text
from bot.config import Settings
from bot.i18n import translator
from bot.service import StudBot

GROUP = -1001234567890
ANN, BOB, CAT, DAN, EVE, FAY, GUS, HAL = 1101, 1102, 1103, 1104, 1105, 1106, 1107, 1108
NAMES = {ANN: "Ann", BOB: "Bob", CAT: "Cat", DAN: "Dan", EVE: "Eve", FAY: "Fay", GUS: "Gus", HAL: "Hal"}
STRANGER = 1999
CARD = re.compile(r"(?:[2-9TJQKA]|10)[♣♦♥♠]")
DOWN = re.compile(r"\[((?:[2-9TJQKA]|10)[♣♦♥♠])\]")
PREFERENCE = ("Check", "Call", "Bring-in")


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeBotAPI]:
    api = await FakeBotAPI().start()
    api.group(GROUP)
    for uid, name in NAMES.items():
        api.user(uid, name)
    api.user(STRANGER, "Zed")
    yield api
    await api.close()
    assert not api.unknown, f"the adapter called methods the fake does not know: {api.unknown}"


class Served:
    """``adapters.run.serve`` in a task, with the Telegram settings pointing at the fake."""

    def __init__(self, fake: FakeBotAPI, db: Path, monkeypatch: pytest.MonkeyPatch, *, interval: float = 0.15,
                 group_rate: tuple[float, float] = (1000, 60), webhook: str | None = None,
                 webhook_port: int = 8443,
                 next_hand_delay: float = 600) -> None:
        self.fake = fake
        self.settings = replace(Settings(), db_path=str(db), telegram_token=fake.token,
                                telegram_base_url=fake.base_url, telegram_webhook_url=webhook,
                                telegram_webhook_listen="127.0.0.1", telegram_webhook_port=webhook_port,
                                next_hand_delay=next_hand_delay, bot_delay=0.0, turn_timer=60)
        monkeypatch.setattr(TelegramAdapter, "rate_interval", interval)
        monkeypatch.setattr(TelegramAdapter, "group_rate", group_rate)
        monkeypatch.setattr(TelegramAdapter, "poll_timeout", 1)
        self.bots: list[StudBot] = []
        bots = self.bots

        class SpyBot(StudBot):
            def __init__(self, **kwargs: Any) -> None:
                super().__init__(**kwargs)
                bots.append(self)

        monkeypatch.setattr(adapters.run, "StudBot", SpyBot)

    async def __aenter__(self) -> Served:
        self.stop = asyncio.Event()
        method = "setWebhook" if self.settings.telegram_webhook_url else "getUpdates"
        polls = len(self.fake.sent(method, ok=False))
        self.task = asyncio.create_task(adapters.run.serve(self.settings, stop=self.stop))
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


async def say(fake: FakeBotAPI, uid: int, text: str, *, chat: int = GROUP, thread: int | None = None) -> None:
    """A user types a command; wait until the bot has taken it (the next getUpdates confirms it)."""
    fake.command(chat, uid, text, thread=thread)
    await fake.wait_for(lambda: not fake.updates, what=f"the bot to take {text!r}")
    await asyncio.sleep(0.3)


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


# ---------------------------------------------------------------------- tests


@pytest.mark.asyncio
async def test_three_players_play_a_hand_with_buttons(fake: FakeBotAPI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        assert {c["command"] for c in fake.commands} >= {"stud", "join", "fold", "check", "call", "bet", "raise",
                                                         "complete", "seed", "verify"}
        await open_table(fake, (ANN, BOB, CAT))
        assert "opens a Seven Card Stud Hi-Lo table" in text_of(fake.board(GROUP))
        await say(fake, ANN, "/join@studbot_test 200")
        assert (await press(fake, BOB, "Join"))["text"].startswith("Seated")
        await say(fake, CAT, "/stud join")
        await say(fake, ANN, "/start@studbot_test")
        pressed = await play_out(fake)
        final = fake.board(GROUP)
        assert "showdown" in text_of(final) and " shows " in text_of(final)
        assert re.search(r"Pot \d+", text_of(final))
        streets = {s for s in ("third", "fourth", "fifth", "sixth", "seventh")
                   if any(f"{s} street" in t for t in fake.group_texts(GROUP))}
        assert len(streets) == 5
        assert {p.split()[0] for p in pressed} >= {"Bring-in", "Call", "Check"}
        hand = served.runtime().hand
        assert hand is not None and hand.is_over
        # each player got every one of their cards, privately, and nobody else's
        for seat, uid in enumerate((ANN, BOB, CAT)):
            texts = [t for t in fake.private_texts(uid) if "your cards" in t]
            assert len(texts) == 5, texts
            mine = {c.pretty for c in hand.cards[seat]}
            assert set(CARD.findall(texts[-1])) == mine
            for other, ouid in enumerate((ANN, BOB, CAT)):
                if ouid != uid:
                    hidden = {hand.cards[other][i].pretty for i in (0, 1, 6)}
                    assert not hidden & {c for t in fake.private_texts(uid) for c in CARD.findall(t)}
        assert_no_down_card_in_group(fake, (ANN, BOB, CAT))
        # the cards came as pictures too (the table shows images): one per deal, each player their own
        shots = {uid: fake.private_photos(uid) for uid in (ANN, BOB, CAT)}
        assert all(len(v) == 5 for v in shots.values()) and not set(shots[ANN]) & set(shots[BOB])
        with Image.open(io.BytesIO(images.private_png(hand, 0))) as want:
            size = want.size  # seven cards: the size of the last picture
        for data in shots[ANN]:
            with Image.open(io.BytesIO(data)) as img:
                assert img.format == "PNG"
        with Image.open(io.BytesIO(shots[ANN][-1])) as img:
            assert img.size == size
        assert len(set(shots[ANN])) == 5  # a new picture for every new card
        assert not any(data in shots[uid] for uid in (ANN, BOB, CAT) for data in fake.photos_in(GROUP))
        # every board edit went to the one board message of the hand
        edits = fake.board_edits(GROUP)
        assert len(edits) >= 10 and {int(c.params["message_id"]) for c in edits} == {final["message_id"]}
        # provably fair: hand #1's commitment is in the board's caption before the deal; the seed after it opens it
        said = "\n".join(fake.group_texts(GROUP))
        committed = re.search(r"Hand #1 is dealt from a committed deck: ([0-9a-f]{64})", said)
        assert committed is not None and committed.start() < said.index("Door cards")
        assert any(committed.group(1) in text_of_call(c) for c in edits)  # shown under the board itself
        revealed = re.search(r"Hand #1: server seed ([0-9a-f]{64})\. Its SHA-256 is the commitment", said)
        assert revealed is not None and revealed.start() > said.index(" shows ")
        assert hashlib.sha256(bytes.fromhex(revealed.group(1))).hexdigest() == committed.group(1)
        await say(fake, CAT, "/verify@studbot_test 1")
        assert any("Hand #1 is fair" in t for t in fake.private_texts(CAT))
        await say(fake, CAT, "/seed lucky 7")
        assert any('Your seed is now "lucky 7"' in t for t in fake.private_texts(CAT))


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


@pytest.mark.asyncio
async def test_a_user_who_never_started_the_bot(fake: FakeBotAPI, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        # Dan never started the bot: his Join press opens the private chat, which finishes the join there
        answer = await press(fake, DAN, "Join")
        assert answer["url"] == "https://t.me/studbot_test?start=jm1001234567890", answer
        assert served.runtime().table.seat_of(str(DAN)) is None
        fake.command(DAN, DAN, "/start jm1001234567890")
        await fake.wait_for(lambda: any("cards" in t and "Seated" in t for t in fake.private_texts(DAN)),
                            what="Dan's confirmation")
        seat = served.runtime().table.seat_of(str(DAN))
        assert seat is not None and not seat.unreachable
        # Eve joins by typing: seated, but her cards cannot reach her
        await say(fake, EVE, "/join")
        eve = served.runtime().table.seat_of(str(EVE))
        assert eve is not None and eve.unreachable
        assert any("I cannot message Eve privately" in t for t in fake.group_texts(GROUP))
        await say(fake, ANN, "/start")
        turn, _ = await next_turn(fake, None)
        assert turn is not None
        hand = served.runtime().hand
        es = served.runtime().engine_seat(str(EVE))
        eve_cards = {c.pretty for c in hand.cards[es]}
        # My cards: an alert only she sees, with all her cards
        alert = await press(fake, EVE, "My cards")
        assert alert["show_alert"] is True and len(alert["text"]) <= 200
        assert set(CARD.findall(alert["text"])) == eve_cards
        assert not fake.private_texts(EVE)
        # a private answer to a typed command never lands in the group: a link instead
        await say(fake, EVE, "/cards")
        notice = fake.sent("sendMessage", chat_id=GROUP)[-1].params
        assert "privately" in notice["text"] and not CARD.findall(notice["text"])
        assert notice["reply_markup"]["inline_keyboard"][0][0]["url"].startswith("https://t.me/studbot_test?start=c")
        # the private chat, once started, gets her cards; My cards then goes there too
        fake.command(EVE, EVE, "/start cm1001234567890")
        await fake.wait_for(lambda: any("your cards" in t for t in fake.private_texts(EVE)), what="Eve's cards")
        assert set(CARD.findall(fake.private_texts(EVE)[-1])) == eve_cards
        answer = await press(fake, EVE, "My cards")
        assert "private chat" in answer["text"] and not answer.get("show_alert")
        assert len([t for t in fake.private_texts(EVE) if "your cards" in t]) == 2
        # Dan gets his cards by DM like anyone who started the bot
        assert any("your cards" in t for t in fake.private_texts(DAN))
        await play_out(fake)
        last = [t for t in fake.private_texts(EVE) if "your cards" in t][-1]
        assert len(CARD.findall(last.splitlines()[0])) == 7  # every street reached her privately after /start
        assert_no_down_card_in_group(fake, (ANN, DAN, EVE))


@pytest.mark.asyncio
async def test_a_restart_in_the_middle_of_a_hand(fake: FakeBotAPI, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "t.db"
    async with Served(fake, db, monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        await say(fake, ANN, "/stud start")
        turn, board = await next_turn(fake, None)
        await press(fake, actor(board), next(lb for lb in buttons(board) if lb.startswith("Bring-in")))
        turn, board = await next_turn(fake, turn)
        actions_before = len(served.runtime().hand.actions)
    old_board = board
    async with Served(fake, db, monkeypatch) as served:
        assert len(served.runtime().hand.actions) == actions_before
        label = next(lb for lb in buttons(old_board) if lb.startswith("Call"))
        answer = await press(fake, actor(old_board), label, message_id=old_board["message_id"])
        assert not answer.get("text"), answer
        assert len(served.runtime().hand.actions) == actions_before + 1
        turn, board = await next_turn(fake, turn)
        assert board["message_id"] == old_board["message_id"]
        await play_out(fake)
        assert served.runtime().hand.is_over
    assert_no_down_card_in_group(fake, (ANN, BOB))


@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:.*retry_after.*")  # python-telegram-bot's own, raising RetryAfter
async def test_stale_and_foreign_presses_and_a_429(fake: FakeBotAPI, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB, CAT))
        await say(fake, ANN, "/stud config view=text")  # this test checks the text board's edits
        for uid in (ANN, BOB, CAT):
            await press(fake, uid, "Join")
        await say(fake, ANN, "/stud start")
        turn, board = await next_turn(fake, None)
        first = actor(board)
        other = next(uid for uid in (ANN, BOB, CAT) if uid != first)
        label = next(lb for lb in buttons(board) if lb.startswith("Bring-in"))
        rt = served.runtime()
        # someone else presses the actor's button; a stranger presses it
        answer = await press(fake, other, label)
        assert "not yours" in answer["text"] and len(rt.hand.actions) == 0
        answer = await press(fake, STRANGER, label)
        assert "not in this hand" in answer["text"] and len(rt.hand.actions) == 0
        assert (await press(fake, STRANGER, data="s|raise|nonsense"))["text"] == "This button is no longer in use."
        assert not (await press(fake, first, label)).get("text")
        assert len(rt.hand.actions) == 1
        # the same button again: that turn is over
        answer = await press(fake, first, label, message_id=board["message_id"])
        assert answer["text"] == "That turn is over." and len(rt.hand.actions) == 1
        # an old board's button whose turn is over, pressed by the right player
        turn, board = await next_turn(fake, turn)
        stale = fake.press(GROUP, board["message_id"], actor(board), data=f"s|call|{rt.table.hand_no}.0")
        assert (await fake.answer(stale))["text"] == "That turn is over."
        # a 429 on the next edit: the rate limiter waits retry_after and sends it again
        fake.fail_next("editMessageText", retry_after=1)
        label = next(lb for lb in buttons(board) if lb.startswith("Call"))
        assert not (await press(fake, actor(board), label)).get("text")
        turn, board = await next_turn(fake, turn)
        edits = fake.sent("editMessageText", ok=False)
        failed = next(i for i, c in enumerate(edits) if c.status == 429)
        assert edits[failed + 1].status == 200 and edits[failed + 1].t - edits[failed].t >= 1.0
        # an edit that changes nothing is answered 400 "message is not modified", and that is fine
        outbox: Any = served.bot.messenger._by_platform["telegram"]  # type: ignore[attr-defined]
        messenger = outbox.inner
        view = messenger._boards[f"telegram:{GROUP}"]
        view.shown = None
        before = len(fake.sent("sendMessage", chat_id=GROUP))
        from bot.ports import BoardView, TableAddress
        from bot.render import board as render_board
        text, keys = render_board(rt.table, rt.hand, names=rt.names, turn=rt.turn, seconds_left=None)
        address = TableAddress("telegram", str(GROUP), str(GROUP))
        ref = str(board["message_id"])
        view.lines = []
        await messenger.publish_board(table=address, board=BoardView(text, keys, rt.table.hand_no), ref=ref)
        view.shown = None
        assert await messenger.publish_board(table=address, board=BoardView(text, keys, rt.table.hand_no),
                                             ref=ref) == ref
        last = fake.calls[-1]
        assert (last.method, last.status) == ("editMessageText", 400) and "not modified" in NOT_MODIFIED
        assert len(fake.sent("sendMessage", chat_id=GROUP)) == before


@pytest.mark.asyncio
async def test_a_fast_fifty_action_hand_stays_within_the_group_budget(fake: FakeBotAPI, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Seven players raise and call as fast as they can for 50 actions over ~12 s (about 250 a minute).

    The adapter's own pacing is measured: the rate limiter's group budget is lifted so that
    it cannot hide an excess by queueing. One flush per ``rate_interval`` is one edit
    (the lines are folded into the board), plus the final board at once.
    """
    assert 60 / TelegramAdapter.rate_interval + 2 <= 20
    players = (ANN, BOB, CAT, DAN, EVE, FAY, GUS)
    async with Served(fake, tmp_path / "t.db", monkeypatch, interval=TelegramAdapter.rate_interval,
                      group_rate=(1000, 60)) as served:
        await open_table(fake, players)
        for uid in players:
            assert (await press(fake, uid, "Join"))["text"].startswith("Seated")
        await say(fake, ANN, "/stud start")
        rt = served.runtime()
        started = time.monotonic()
        while not rt.hand.is_over:
            hand = rt.hand
            legal = [a.value for a in hand.legal_actions()]
            action = next(a for a in ("raise", "complete", "bet", "bring-in", "call", "check") if a in legal)
            uid = int(rt.setup.players[hand.actor][1])
            answer = await press(fake, uid, data=f"s|{action}|{rt.turn}")
            assert not answer.get("text"), answer
            await asyncio.sleep(0.2)
        assert len(rt.hand.actions) >= 50 and time.monotonic() - started < 30
        final = await fake.wait_for(lambda: "showdown" in text_of(fake.board(GROUP)) and fake.board(GROUP),
                                    what="the final board")
        assert " shows " in text_of(final) and "Pot " in text_of(final)
        busiest = assert_budget(fake)
        assert busiest < len(rt.hand.actions) / 2
        print(f"{len(rt.hand.actions)} actions in {time.monotonic() - started:.1f}s: {busiest} group messages")
    assert_no_down_card_in_group(fake, players)


@pytest.mark.asyncio
async def test_one_table_per_forum_topic(fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forum = -1009999
    fake.group(forum, "Forum", forum=True)
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await say(fake, ANN, "/start", chat=ANN)
        await say(fake, ANN, "/stud new", chat=forum, thread=7)
        await say(fake, ANN, "/stud new", chat=forum, thread=9)
        assert {f"telegram:{forum}:7", f"telegram:{forum}:9"} <= set(served.bot.tables)
        posts = [c for c in fake.sent(chat_id=forum) if c.method in ("sendMessage", "sendPhoto")
                 and "<pre>" in text_of_call(c)]
        assert sorted(int(c.params["message_thread_id"]) for c in posts) == [7, 9]
        topic9 = next(m for m in fake.boards(forum) if m.get("message_thread_id") == 9)
        answer = await press(fake, ANN, "Join", message_id=topic9["message_id"], chat=forum)
        assert answer["text"].startswith("Seated")
        assert served.runtime(f"{forum}:9").table.seat_of(str(ANN)) is not None
        assert served.runtime(f"{forum}:7").table.seat_of(str(ANN)) is None
        # the Telegram community is the group: one wallet for both topics
        assert served.runtime(f"{forum}:9").table.community == served.runtime(f"{forum}:7").table.community


@pytest.mark.asyncio
async def test_webhook_mode(fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    import aiohttp

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/tg/hook"
    async with Served(fake, tmp_path / "t.db", monkeypatch, webhook=url, webhook_port=port) as served:
        assert fake.webhook is not None and fake.webhook["url"] == url and fake.webhook["secret_token"]
        assert not fake.sent("getUpdates", ok=False)
        await open_table(fake, (ANN,))
        await press(fake, ANN, "Join")
        assert served.runtime().table.seat_of(str(ANN)) is not None
        assert fake.deliveries and all(status == 200 for _, status in fake.deliveries)
        async with aiohttp.ClientSession() as session, session.post(url, json={"update_id": 1}) as response:
            assert response.status == 403  # no secret token: not from Telegram


@pytest.mark.asyncio
async def test_each_hand_keeps_its_final_board(fake: FakeBotAPI, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch, next_hand_delay=0.5) as served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        await say(fake, ANN, "/stud start")
        for _ in range(2):
            turn, board = await next_turn(fake, None)
            hand_no = served.runtime().table.hand_no
            await press(fake, actor(board), next(lb for lb in buttons(board) if lb.startswith("Bring-in")))
            turn, board = await next_turn(fake, turn)
            assert not (await press(fake, actor(board), "Fold")).get("text")
            following = f"Hand #{hand_no + 1} · "  # its board (the line with its commitment comes before it)
            await fake.wait_for(lambda: following in text_of(fake.board(GROUP)), what=following)  # noqa: B023
        boards = fake.boards(GROUP)
        assert len(boards) == 3  # the lobby became hand 1; hands 2 and 3 are new messages
        for no, message in ((1, boards[0]), (2, boards[1])):
            assert f"Hand #{no} · showdown" in text_of(message) and "Pot " in text_of(message), text_of(message)
        assert "Hand #3 · third street" in text_of(boards[2])


@pytest.mark.asyncio
async def test_owner_commands_ask_telegram_who_is_admin(fake: FakeBotAPI, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch):
        await open_table(fake, (ANN,))
        await say(fake, BOB, "/stud config timer=30")
        assert "creator or an admin" in fake.sent("sendMessage", chat_id=GROUP)[-1].params["text"]
        fake.admins.add((GROUP, BOB))
        await say(fake, BOB, "/stud config timer=30")
        assert fake.sent("sendMessage", chat_id=GROUP)[-1].params["text"] == "Done."
        assert len(fake.sent("getChatMember")) == 2
        await say(fake, BOB, "/join@someotherbot")
        await say(fake, BOB, "/weather")
        assert fake.sent("sendMessage", chat_id=GROUP)[-1].params["text"] == "Done."
        # lines with no board to fold into (the table closes) are posted on their own, soon after
        await say(fake, ANN, "/stud stop")
        closed = await fake.wait_for(lambda: [c for c in fake.sent("sendMessage", chat_id=GROUP)
                                              if "the table is closed" in c.params["text"].lower()],
                                     what="the closing line")
        assert "<pre>" not in closed[0].params["text"]


@pytest.mark.asyncio
async def test_boards_are_photos_until_config_view_text(fake: FakeBotAPI, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new table's board is a photo with the text as caption; edits replace the image; view=text goes back."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        for uid in (ANN, BOB):
            await press(fake, uid, "Join")
        await say(fake, ANN, "/stud start")
        turn, board = await next_turn(fake, None)
        for _ in range(2):
            label = next(lb for p in PREFERENCE for lb in buttons(board) if lb.startswith(p))
            await press(fake, actor(board), label)
            turn, board = await next_turn(fake, turn)
        assert "photo" in board and "text" not in board and text_of(board).startswith("<pre>")
        assert "Pot " in text_of(board) and " to act" in text_of(board)
        photos = fake.sent("sendPhoto", chat_id=GROUP)
        media = fake.sent("editMessageMedia", chat_id=GROUP)
        assert photos and media and not fake.sent("editMessageText", chat_id=GROUP)
        for call in photos + media:
            data = call.params["photo"] if call.method == "sendPhoto" else call.params[
                call.params["media"]["media"].removeprefix("attach://")]
            with Image.open(io.BytesIO(data)) as img:
                assert img.format == "PNG"
            caption = text_of_call(call)
            assert caption.startswith("<pre>") and len(caption) <= 1024
        # the public image comes from a layout without a face-up down card, and it is the one shown
        rt = served.runtime()
        layout = images.board_layout(rt.table, rt.hand, names=rt.names)
        down = [s for seat in layout.seats for s in seat.slots if s.down]
        assert down and all(not s.face_up and s.card is None for s in down)
        await fake.wait_for(lambda: fake.photos[(GROUP, board["message_id"])]
                            == images.board_png(rt.table, rt.hand, names=rt.names), what="the current image")
        # the same image with another caption: only the caption is edited; the same again: nothing is sent
        outbox: Any = served.bot.messenger._by_platform["telegram"]  # type: ignore[attr-defined]
        messenger = outbox.inner
        from bot.ports import BoardView, TableAddress
        from bot.render import board as render_board
        text, keys = render_board(rt.table, rt.hand, names=rt.names, turn=rt.turn, seconds_left=7)
        image = images.board_png(rt.table, rt.hand, names=rt.names)
        address, ref = TableAddress("telegram", str(GROUP), str(GROUP)), str(board["message_id"])
        view = BoardView(text, keys, rt.table.hand_no, image=image)
        state = messenger._boards[f"telegram:{GROUP}"]
        await fake.wait_for(lambda: state.image == image, what="the edit in flight to be answered")
        calls = len(fake.sent(chat_id=GROUP, ok=False))
        assert await messenger.publish_board(table=address, board=view, ref=ref) == ref
        assert [(c.method, c.status) for c in fake.sent(chat_id=GROUP, ok=False)[calls:]] == [
            ("editMessageCaption", 200)]
        calls = len(fake.sent(chat_id=GROUP, ok=False))
        assert await messenger.publish_board(table=address, board=view, ref=ref) == ref
        assert len(fake.sent(chat_id=GROUP, ok=False)) == calls
        # view=text: a new text board, and text edits from then on
        await say(fake, ANN, "/stud config view=text")
        await fake.wait_for(lambda: "text" in fake.board(GROUP), what="a text board")
        turn, board = await next_turn(fake, None)
        assert "<pre>" in text_of(board) and "→" in text_of(board)
        sent = len(fake.calls)
        label = next(lb for p in PREFERENCE for lb in buttons(board) if lb.startswith(p))
        await press(fake, actor(board), label)
        turn, board = await next_turn(fake, turn)
        later = [c.method for c in fake.calls[sent:] if int(c.params.get("chat_id", 0)) == GROUP]
        assert "editMessageText" in later and not {"sendPhoto", "editMessageMedia", "editMessageCaption"} & set(later)
        privately = [c.method for c in fake.calls[sent:] if int(c.params.get("chat_id", 0)) in (ANN, BOB)]
        assert "sendPhoto" not in privately  # a text table sends the cards as text
        assert any("The board is shown as text now." in t for t in fake.group_texts(GROUP))
    assert_no_down_card_in_group(fake, (ANN, BOB))


@pytest.mark.asyncio
async def test_each_language_has_its_command_list(fake: FakeBotAPI, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch):
        lists = fake.commands_by_language
        assert set(lists) == {"", "ru", "pl"}  # the default (English), and one list per language we speak
        assert fake.commands is lists[""]
        names = [c["command"] for c in lists[""]]
        assert names[0] == "stud"
        assert [c["command"] for c in lists["ru"]] == [c["command"] for c in lists["pl"]] == names
        en, ru, pl = ({c["command"]: c["description"] for c in lists[k]} for k in ("", "ru", "pl"))
        assert en["stud"] == "stud COMMAND: any table command, e.g. /stud join 200"
        assert en["join"] == "join [buy-in]: take a seat, buying in from your wallet"
        assert en["bringin"] == usage_text(translator("en"), "bring-in")
        for lang, described in (("ru", ru), ("pl", pl)):
            tr = translator(lang)
            assert all(described[c] == usage_text(tr, ALIASES.get(c, c)) for c in names
                       if c not in ("stud", "register", "unregister"))
            assert described["register"] == tr("usage.register")  # 'tourney register' for short
            assert all(described[c] != en[c] for c in ("join", "fold", "leave", "stud")), (lang, described)
        assert ru["stud"].startswith("stud КОМАНДА") and pl["stud"].startswith("stud KOMENDA")


@pytest.mark.asyncio
async def test_a_polish_user_hears_the_adapter_in_polish(fake: FakeBotAPI, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    ola = 1201
    fake.user(ola, "Ola", language_code="pl")
    async with Served(fake, tmp_path / "t.db", monkeypatch):
        await open_table(fake, (ANN,))
        private_link = fake.board(GROUP)["reply_markup"]["inline_keyboard"][-1][0]
        assert private_link["text"] == "🔒 Cards in private chat"  # the table's language, not a player's
        await say(fake, ANN, "/join")
        await say(fake, ola, "/join")  # she never started the bot: seated, her cards cannot reach her
        await say(fake, ANN, "/stud start")
        turn, _ = await next_turn(fake, None)
        assert turn is not None
        # a private answer in the group: a link instead, in her language
        await say(fake, ola, "/cards")
        notice = fake.sent("sendMessage", chat_id=GROUP)[-1].params
        assert notice["text"] == ("Na to mogę odpowiedzieć tylko prywatnie: otwórz nasz czat prywatny "
                                  "(albo naciśnij „Moje karty” pod stołem).")
        assert notice["reply_markup"]["inline_keyboard"][0][0]["text"] == "Otwórz czat prywatny"
        assert (await press(fake, ola, data="s|raise|nonsense"))["text"] == "Ten przycisk już nie działa."
        # the join link, pressed once more: she sits there already; her cards from now on come privately
        fake.command(ola, ola, "/start jm1001234567890")
        here = "Od teraz twoje karty z tego stołu będą przychodzić tutaj."
        await fake.wait_for(lambda: any(here in t for t in fake.private_texts(ola)), what="Ola's welcome")
        assert [t for t in fake.private_texts(ola) if here in t] == [f"Siedzisz już przy tym stole.\n{here}"]
        assert any(len(CARD.findall(t)) == 3 for t in fake.private_texts(ola))  # and her cards
        answer = await press(fake, ola, "My cards")
        assert answer["text"] == "Twoje karty są na naszym czacie prywatnym." and not answer.get("show_alert")
        await say(fake, ola, "/fold", chat=ola)
        assert fake.private_texts(ola)[-1] == ("Komendy stołu działają w grupie, w której toczy się gra; "
                                               "tutaj przychodzą twoje karty.")
        await say(fake, ola, "/start", chat=ola)
        assert fake.private_texts(ola)[-1].startswith("Cześć! Dodaj mnie do grupy i wpisz tam /stud new")
        # an English user, meanwhile, hears English
        await say(fake, BOB, "/start", chat=BOB)
        assert fake.private_texts(BOB)[-1].startswith("Hi! Add me to a group and type /stud new there")
        # the table in Polish: the link under its board too
        await say(fake, ANN, "/stud config lang=pl")
        await fake.wait_for(lambda: fake.board(GROUP)["reply_markup"]["inline_keyboard"][-1][0]["text"]
                            == "🔒 Karty na czacie prywatnym", what="the Polish board")


# ---------------------------------------------------------------------- hand history (issue 12)


@pytest.mark.asyncio
async def test_hand_and_export_go_to_the_private_chat(fake: FakeBotAPI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from pokerstars_reader import read_file
    from test_export_phh import pokerkit_replay

    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        assert {"hand", "export"} <= {c["command"] for c in fake.commands}
        await open_table(fake, (ANN, BOB, CAT))
        for uid in (ANN, BOB, CAT):
            await say(fake, uid, "/join")
        await say(fake, ANN, "/start")
        await play_out(fake)
        hand = served.runtime().hand
        assert hand is not None and hand.is_over
        in_group = len(fake.group_texts(GROUP))
        await say(fake, BOB, "/hand 1")
        story = await fake.wait_for(lambda: [t for t in fake.private_texts(BOB) if t.startswith("Hand #1 — ")],
                                    what="the story in Bob's private chat")
        assert "Your down cards" in story[0]
        await say(fake, ANN, "/export@studbot_test")
        docs = await fake.wait_for(lambda: len(fake.documents) >= 2 and fake.documents, what="two documents")
        assert [(d.chat_id, d.filename) for d in docs] == [(ANN, "stud-hand-1.txt"), (ANN, "stud-hand-1.phh")]
        [read] = read_file(docs[0].data.decode())
        assert read.viewer == "Ann" and read.up["Ann"][:2] == [str(c) for c in hand.cards[0][:2]]
        assert len(read.acts) == len(hand.actions)
        stacks, refused, why = pokerkit_replay(docs[1].data.decode())
        assert refused is None and stacks == list(hand.stacks), why
        assert any(t.startswith("Hand #1: PokerStars text and PHH") for t in fake.private_texts(ANN))
        assert len(fake.group_texts(GROUP)) == in_group  # nothing of it in the group
        # Dan never opened the private chat: no file anywhere, and the group tells him how to open it
        await say(fake, DAN, "/export")
        await fake.wait_for(lambda: len(fake.group_texts(GROUP)) > in_group, what="the answer to Dan")
        assert len(fake.documents) == 2
        answer = fake.sent("sendMessage", chat_id=GROUP)[-1]
        assert "open our private chat" in text_of_call(answer)
        assert "url" in str(answer.params.get("reply_markup"))
        # bad input is answered in the group, and sends nothing
        await say(fake, ANN, "/export last 1000")
        assert "at most 100 hands" in text_of_call(fake.sent("sendMessage", chat_id=GROUP)[-1])
        assert len(fake.documents) == 2


@pytest.mark.asyncio
async def test_a_sit_and_go_registered_by_button_played_to_its_standings(fake: FakeBotAPI, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch, next_hand_delay=0.01) as served:
        assert {"tourney", "register", "unregister"} <= {c["command"] for c in fake.commands}
        for uid in (ANN, BOB):
            await say(fake, uid, "/start", chat=uid)
        await say(fake, ANN, "/tourney new seats=3 stack=200 buyin=50 levels=hands:1 payout=winner")
        lobby = fake.board(GROUP)
        assert "registration 0/3" in text_of(lobby) and "Register" in buttons(lobby)
        assert (await press(fake, ANN, "Register"))["text"].startswith("You are registered")
        assert (await press(fake, BOB, "Register"))["text"].startswith("You are registered")
        await say(fake, BOB, "/register")  # twice: refused, nothing changes
        await say(fake, ANN, "/addbot Robo")
        await fake.wait_for(lambda: any("starts: 3 players" in t for t in fake.group_texts(GROUP)), what="the start")
        await say(fake, ANN, "/sitout")
        await say(fake, BOB, "/sitout")
        await fake.wait_for(lambda: any("final standings" in t for t in fake.group_texts(GROUP)), timeout=60,
                            what="the final standings")
        texts = "\n".join(fake.group_texts(GROUP))
        assert "Level 2 from this hand" in texts and "is out in place 3 of 3" in texts
        assert re.search(r"1\. \S+ — 150 chips", texts), texts[-600:]
        assert not served.bot.tables
        await say(fake, ANN, "/tourney results")
        assert any("final standings" in t for t in fake.private_texts(ANN) + fake.group_texts(GROUP))

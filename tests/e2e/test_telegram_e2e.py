"""The Telegram adapter end to end: a real python-telegram-bot Application against a fake Bot API.

Everything is real but Telegram: ``adapters.run.serve`` with TELEGRAM_* settings
pointing at :class:`tests.fakes.telegram_server.FakeBotAPI` on loopback, the real
StudBot, a SQLite file in ``tmp_path`` and the real clock. The test plays the users:
it pushes commands and button presses, and reads what the bot sent.

The harness (fixture, helpers) is tests/support/telegram_harness.py; the features built on the
table (board photos, hand files, sit-and-go) are in tests/e2e/test_telegram_features_e2e.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import NOT_MODIFIED, FakeBotAPI, text_of, text_of_call
from PIL import Image
from skip_clock import pass_the_pause
from telegram_harness import (
    ANN,
    BOB,
    CARD,
    CAT,
    DAN,
    DECK,
    EVE,
    FAY,
    GROUP,
    GUS,
    SEED,
    STRANGER,
    Served,
    actor,
    assert_budget,
    assert_no_down_card_in_group,
    buttons,
    next_turn,
    open_table,
    payload,
    play_out,
    press,
    say,
    start_and_deal,
    turn_of,
)
from telegram_harness import fake as fake  # the fixture

from adapters.telegram.adapter import TelegramAdapter
from bot.core.i18n import translator
from bot.text import images
from bot.text.grammar import ALIASES, usage_text

# Tests of the store run on both backends (store_backend); those about the platform's rates, timing,
# command lists and languages run once, on the default SQLite: their subject is the adapter.

# ---------------------------------------------------------------------- tests


@pytest.mark.usefixtures("store_backend")
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
        await start_and_deal(fake, text="/start@studbot_test")
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
        # each player got every one of their cards, privately, and nobody else's: a message a down card dealt
        # (third and seventh street; the up cards are on the board)
        for seat, uid in enumerate((ANN, BOB, CAT)):
            texts = [t for t in fake.private_texts(uid) if "your cards" in t]
            assert len(texts) == 2, texts
            mine = {c.pretty for c in hand.cards[seat]}
            assert set(CARD.findall(texts[-1])) == mine
            for other, ouid in enumerate((ANN, BOB, CAT)):
                if ouid != uid:
                    hidden = {hand.cards[other][i].pretty for i in (0, 1, 6)}
                    assert not hidden & {c for t in fake.private_texts(uid) for c in CARD.findall(t)}
        assert_no_down_card_in_group(fake, (ANN, BOB, CAT))
        # the cards came as pictures too (the table shows images): one a down card, each player their own
        shots = {uid: fake.private_photos(uid) for uid in (ANN, BOB, CAT)}
        assert all(len(v) == 2 for v in shots.values()) and not set(shots[ANN]) & set(shots[BOB])
        with Image.open(io.BytesIO(images.private_png(hand, 0))) as want:
            size = want.size  # seven cards: the size of the last picture
        for data in shots[ANN]:
            with Image.open(io.BytesIO(data)) as img:
                assert img.format == "PNG"
        with Image.open(io.BytesIO(shots[ANN][-1])) as img:
            assert img.size == size
        assert len(set(shots[ANN])) == 2  # a new picture for every new down card
        assert not any(data in shots[uid] for uid in (ANN, BOB, CAT) for data in fake.photos_in(GROUP))
        # every board edit went to the one board message of the hand
        edits = fake.board_edits(GROUP)
        assert len(edits) >= 10 and {int(c.params["message_id"]) for c in edits} == {final["message_id"]}
        # provably fair: hand #1's commitment, short, under the board (in its caption) before the deal; its seed,
        # short, the last line of the result; no long value and no message of their own in the group
        said = fake.group_texts(GROUP)
        assert not any(re.search(r"[0-9a-f]{64}|committed deck|server seed", t) for t in said)
        shown = next(i for i, t in enumerate(said) if DECK.search(t))
        assert DECK.search(said[shown]).group(1) == "1" and "Door cards" not in said[shown]  # type: ignore[union-attr]
        committed = DECK.search(said[shown]).group(2)  # type: ignore[union-attr]
        assert all(DECK.search(text_of_call(c)).group(2) == committed  # type: ignore[union-attr]
                   for c in edits if "Hand #1 · " in text_of_call(c) and "showdown" not in text_of_call(c))
        seed = next(m for t in said if (m := SEED.search(t)))
        assert seed.group(2) == "1" and any(" shows " in t and seed.group(0) in t for t in said)
        assert not [c for c in fake.sent(chat_id=GROUP) if c.method in ("sendMessage", "sendPhoto")
                    and DECK.search(text_of_call(c)) and "<pre>" not in text_of_call(c)]  # never a line alone
        fair = served.runtime().fair
        assert hashlib.sha256(fair.server_seed).hexdigest() == fair.commitment
        assert (committed, seed.group(1)) == (f"{fair.commitment[:4]}…{fair.commitment[-4:]}",
                                              f"{fair.server_seed.hex()[:4]}…{fair.server_seed.hex()[-4:]}")
        await say(fake, CAT, "/verify@studbot_test 1")
        assert any("Hand #1 is fair" in t and fair.commitment in t and fair.server_seed.hex() in t
                   for t in fake.private_texts(CAT))
        await say(fake, CAT, "/seed lucky 7")
        assert any('Your seed is now "lucky 7"' in t for t in fake.private_texts(CAT))


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_a_user_who_never_started_the_bot(fake: FakeBotAPI, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        # Dan never started the bot: his Join press opens the private chat, which finishes the join there
        answer = await press(fake, DAN, "Join")
        assert answer["url"] == f"https://t.me/studbot_test?start={payload(fake, join=True)}", answer
        assert served.runtime().table.seat_of(str(DAN)) is None
        fake.command(DAN, DAN, f"/start {payload(fake, join=True)}")
        await fake.wait_for(lambda: any("cards" in t and "Seated" in t for t in fake.private_texts(DAN)),
                            what="Dan's confirmation")
        seat = served.runtime().table.seat_of(str(DAN))
        assert seat is not None and not seat.unreachable
        # Eve joins by typing: seated, but her cards cannot reach her
        await say(fake, EVE, "/join")
        eve = served.runtime().table.seat_of(str(EVE))
        assert eve is not None and eve.unreachable
        assert any("I cannot message Eve privately" in t for t in fake.group_texts(GROUP))
        await start_and_deal(fake, text="/start")
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
        fake.command(EVE, EVE, f"/start {payload(fake, join=False)}")
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


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_a_restart_in_the_middle_of_a_hand(fake: FakeBotAPI, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "t.db"
    async with Served(fake, db, monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        await start_and_deal(fake)
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


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
@pytest.mark.filterwarnings("ignore:.*retry_after.*")  # python-telegram-bot's own, raising RetryAfter
async def test_stale_and_foreign_presses_and_a_429(fake: FakeBotAPI, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB, CAT))
        await say(fake, ANN, "/stud config view=text")  # this test checks the text board's edits
        for uid in (ANN, BOB, CAT):
            await press(fake, uid, "Join")
        await start_and_deal(fake)
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
        from bot.core.ports import BoardView, TableAddress
        from bot.text.render import board as render_board
        text, keys = render_board(rt.table, rt.hand, names=rt.names, turn=rt.turn, seconds_left=None)
        address = TableAddress("telegram", str(GROUP), str(GROUP))
        ref = f"{board['message_id']}#{rt.table.hand_no}"  # the message and the hand it shows
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
        await start_and_deal(fake)
        rt = served.runtime()
        started = time.monotonic()
        while not rt.hand.is_over:
            hand = rt.hand
            legal = [a.value for a in hand.legal_actions()]
            action = next(a for a in ("raise", "complete", "bet", "bring-in", "call", "check") if a in legal)
            uid = int(rt.setup.players[hand.actor].user)
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


@pytest.mark.usefixtures("store_backend")
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


@pytest.mark.usefixtures("store_backend")
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


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_each_hand_keeps_its_final_board(fake: FakeBotAPI, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch, next_hand_delay=0.5) as served:
        await open_table(fake, (ANN, BOB))
        await press(fake, ANN, "Join")
        await press(fake, BOB, "Join")
        await start_and_deal(fake)
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
            text = text_of(message)
            assert f"Hand #{no} · Stud Hi-Lo · showdown" in text and "Pot " in text, text
        assert "Hand #3 · Stud Hi-Lo · third street" in text_of(boards[2])


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
async def test_the_host_pauses_and_resumes_with_slash_commands(fake: FakeBotAPI, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 22: /pause and /resume are owner commands (Telegram is asked who is an admin); a paused
    table's board says so, and no timer runs; /resume starts the clocks again."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        assert {c["command"] for c in fake.commands} >= {"pause", "resume"}
        await open_table(fake, (ANN, BOB))
        await say(fake, ANN, "/join 200")
        await say(fake, BOB, "/join 200")
        await start_and_deal(fake)
        turn = turn_of(fake.board(GROUP))
        await say(fake, BOB, "/pause")
        assert "creator or an admin" in fake.sent("sendMessage", chat_id=GROUP)[-1].params["text"]
        await say(fake, ANN, "/pause@studbot_test")
        await fake.wait_for(lambda: "⏸ Paused by Ann since" in text_of(fake.board(GROUP)), what="the paused board")
        assert "(paused, " in text_of(fake.board(GROUP)) and served.runtime().clocks.paused
        await pass_the_pause()  # no clock of the table is waiting: nothing happens
        await asyncio.sleep(0.3)
        assert turn_of(fake.board(GROUP)) == turn and "ran out of time" not in "\n".join(fake.group_texts(GROUP))
        fake.admins.add((GROUP, BOB))
        await say(fake, BOB, "/resume")
        await fake.wait_for(lambda: "Paused by" not in text_of(fake.board(GROUP)), what="the board running again")
        assert not served.runtime().clocks.paused and turn_of(fake.board(GROUP)) == turn
        assert any("resumed the table" in t for t in fake.group_texts(GROUP))


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
        await start_and_deal(fake)
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
        fake.command(ola, ola, f"/start {payload(fake, join=True)}")
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

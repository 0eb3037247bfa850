"""Features on Telegram end to end: the board as a photo, hand history and export in the private chat, a sit-and-go.

Same harness as tests/e2e/test_telegram_e2e.py (tests/support/telegram_harness.py): the real bootstrap and
python-telegram-bot against the fake Bot API, every check read from what the fake received.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from fakes.telegram_server import FakeBotAPI, text_of, text_of_call
from PIL import Image
from telegram_harness import (
    ANN,
    BOB,
    CAT,
    DAN,
    GROUP,
    PREFERENCE,
    Served,
    actor,
    assert_no_down_card_in_group,
    buttons,
    next_turn,
    open_table,
    play_out,
    press,
    say,
    start_and_deal,
)
from telegram_harness import fake as fake  # the fixture

from bot.text import images
from engine import HandFile
from engine.verify import verify_hand_file

pytestmark = pytest.mark.usefixtures("store_backend")


@pytest.mark.asyncio
async def test_boards_are_photos_until_config_view_text(fake: FakeBotAPI, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new table's board is a photo with the text as caption; edits replace the image; view=text goes back."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        for uid in (ANN, BOB):
            await press(fake, uid, "Join")
        await start_and_deal(fake)
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
        from bot.core.ports import BoardView, TableAddress
        from bot.text.render import board as render_board
        text, keys = render_board(rt.table, rt.hand, names=rt.names, turn=rt.turn, seconds_left=7)
        image = images.board_png(rt.table, rt.hand, names=rt.names)
        address, ref = TableAddress("telegram", str(GROUP), str(GROUP)), f"{board['message_id']}#{rt.table.hand_no}"
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
        await start_and_deal(fake, text="/start")
        await play_out(fake)
        hand = served.runtime().hand
        assert hand is not None and hand.is_over
        in_group = len(fake.group_texts(GROUP))
        await say(fake, BOB, "/hand 1")
        story = await fake.wait_for(lambda: [t for t in fake.private_texts(BOB) if t.startswith("Hand #1 — ")],
                                    what="the story in Bob's private chat")
        assert "Your down cards" in story[0]
        await say(fake, ANN, "/export@studbot_test")
        docs = await fake.wait_for(lambda: len(fake.documents) >= 4 and fake.documents, what="four documents")
        assert [(d.chat_id, d.filename) for d in docs] == [(ANN, "stud-hand-1.txt"), (ANN, "stud-hand-1.phh"),
                                                           (ANN, "stud-hand-1.json"), (ANN, "stud-hand-1.html")]
        checked = HandFile.from_json(docs[2].data)  # the hand file with its fair record (issue 19, item 5)
        assert checked.fair is not None and verify_hand_file(checked).ok
        [read] = read_file(docs[0].data.decode())
        assert read.viewer == "Ann" and read.up["Ann"][:2] == [str(c) for c in hand.cards[0][:2]]
        assert len(read.acts) == len(hand.actions)
        stacks, refused, why = pokerkit_replay(docs[1].data.decode())
        assert refused is None and stacks == list(hand.stacks), why
        assert any(t.startswith("Hand #1: PokerStars text and PHH") for t in fake.private_texts(ANN))
        assert len(fake.group_texts(GROUP)) == in_group  # nothing of it in the group
        # Dan never opened the private chat: no file anywhere, and the group tells him how to open it
        await say(fake, DAN, "/export 1")  # hand 1 by number: Dan did not play it (issue 25)
        await fake.wait_for(lambda: len(fake.group_texts(GROUP)) > in_group, what="the answer to Dan")
        assert len(fake.documents) == 4
        answer = fake.sent("sendMessage", chat_id=GROUP)[-1]
        assert "open our private chat" in text_of_call(answer)
        assert "url" in str(answer.params.get("reply_markup"))
        # bad input is answered in the group, and sends nothing
        await say(fake, ANN, "/export last 1000")
        assert "at most 100 hands" in text_of_call(fake.sent("sendMessage", chat_id=GROUP)[-1])
        assert len(fake.documents) == 4
        # replay (issue 23): the page as a document in the private chat, nothing in the group
        in_group = len(fake.group_texts(GROUP))
        await say(fake, BOB, "/replay 1")
        pages = await fake.wait_for(lambda: fake.documents[4:], what="the replayer page")
        assert [(d.chat_id, d.filename) for d in pages] == [(BOB, "stud-hand-1.html")]
        assert pages[0].data.startswith(b"<!DOCTYPE html>") and b'"you"' in pages[0].data
        assert len(fake.group_texts(GROUP)) == in_group
        assert "replay" in {c["command"] for c in fake.commands}


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
        # Levels rise and are announced on the board (a level every hand: some level past the first;
        # a whole hand played between two flushes can leave one line under a board replaced at once).
        assert re.search(r"Level ([2-9]|\d\d+) from this hand", texts) and "is out in place 3 of 3" in texts
        assert re.search(r"1\. \S+ — 150 chips", texts), texts[-600:]
        assert not served.bot.tables
        await say(fake, ANN, "/tourney results")
        assert any("final standings" in t for t in fake.private_texts(ANN) + fake.group_texts(GROUP))

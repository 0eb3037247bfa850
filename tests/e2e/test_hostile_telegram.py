"""What an unlucky or hostile user meets on Telegram, end to end against the fake Bot API.

Big numbers, a ``/join`` from a user who never opened the private chat, names built
to disturb the board, and the announcement of an action a crash cut off. The helpers
are those of ``telegram_harness`` (the real bootstrap, python-telegram-bot, the fake).
"""

from __future__ import annotations

import asyncio
import html
import os
import signal
import sys
from pathlib import Path

import pytest
from backends import Backend, rows
from fakes.telegram_server import FakeBotAPI, text_of
from telegram_harness import (
    ANN,
    BOB,
    CARD,
    CAT,
    DAN,
    DECK,
    GROUP,
    NAMES,
    STRANGER,
    Served,
    actor,
    buttons,
    next_turn,
    open_table,
    pass_the_pause,
    payload,
    play_out,
    press,
    say,
    start_and_deal,
    turn_of,
)
from telegram_harness import fake as fake  # the fixture
from test_hostile_discord import actions_stored
from test_names import HOSTILE, assert_columns, assert_contained

from bot.bootstrap import AUDIT_CHECKS
from bot.chips.audit import audit
from bot.core.limits import STAKE_LIMIT
from bot.core.names import display_name

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("store_backend")]
ROOT = Path(__file__).resolve().parents[2]


def last_group_message(fake: FakeBotAPI) -> dict[str, object]:
    return fake.sent("sendMessage", chat_id=GROUP)[-1].params


async def test_big_numbers_are_refused_for_what_they_are(fake: FakeBotAPI, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        await say(fake, BOB, "/join 1000000000")
        assert last_group_message(fake)["text"] == "You have only 1000 chips in your wallet."
        await say(fake, BOB, "/stud join 99999999999999999999999999999999999999999999")
        assert last_group_message(fake)["text"] == "You have only 1000 chips in your wallet."
        await say(fake, ANN, "/stud config ante=99999999999999999999")
        assert last_group_message(fake)["text"] == f"ante must be from 0 to {STAKE_LIMIT}."
        await say(fake, ANN, "/stud config big=-10000000000")
        assert last_group_message(fake)["text"] == f"big must be from 1 to {STAKE_LIMIT}."
        await say(fake, ANN, "/stud config timer=10000000000")
        assert last_group_message(fake)["text"] == "The timer must be 10 to 600 seconds."
        assert served.runtime().table.seat_of(str(BOB)) is None
        assert served.runtime().table.stakes.ante == 1 and served.runtime().table.timer == 60
        assert not any("not a whole number" in t for t in fake.group_texts(GROUP))


async def test_redteam_hand_numbers_no_database_holds_are_no_hand(fake: FakeBotAPI, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """'/hand', '/verify' and '/export' with a number past 2**63 - 1: the answer of a hand not played,
    not the apology of a bug (the number reached the database driver, which refused it)."""
    async with Served(fake, tmp_path / "t.db", monkeypatch):
        await open_table(fake, (ANN, BOB))
        for command in ("/hand", "/verify", "/export"):
            await say(fake, ANN, f"{command} 99999999999999999999999")
        texts = [str(m.params.get("text", "")) for m in fake.sent("sendMessage")]
        assert not any("went wrong" in t for t in texts), texts
        assert sum("No hand has been finished" in t or "no finished hand" in t for t in texts) == 3, texts


async def test_an_unstarted_join_is_told_in_the_group(fake: FakeBotAPI, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    pl_user = 1301
    fake.user(pl_user, "Ola", language_code="pl")
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        await say(fake, BOB, "/join")  # Bob never opened the private chat
        seat = served.runtime().table.seat_of(str(BOB))
        assert seat is not None and seat.unreachable
        told = last_group_message(fake)
        assert str(told["text"]).startswith("You are seated.") and "My cards" in str(told["text"])
        assert "only answer that privately" not in str(told["text"])
        assert told["reply_parameters"]["message_id"]  # type: ignore[index]  # an answer to his /join
        [[link]] = told["reply_markup"]["inline_keyboard"]  # type: ignore[index]
        assert link["url"].startswith("https://t.me/studbot_test?start=c")
        await say(fake, pl_user, "/join")
        assert str(last_group_message(fake)["text"]).startswith("Siedzisz przy stole. Nie mogę pisać")
        await start_and_deal(fake)
        await fake.wait_for(lambda: served.runtime().hand is not None, what="the hand")
        hand, rt = served.runtime().hand, served.runtime()
        secret = {c.pretty for es in range(hand.seat_count) for i, c in enumerate(hand.cards[es]) if i in (0, 1)}
        assert not secret & {c for t in fake.group_texts(GROUP) for c in CARD.findall(t)}
        # the link does what the message says: Start there, and his cards come privately
        fake.command(BOB, BOB, f"/start {link['url'].split('start=')[1]}")
        await fake.wait_for(lambda: any("your cards" in t for t in fake.private_texts(BOB)), what="Bob's cards")
        mine = {c.pretty for c in hand.cards[rt.engine_seat(str(BOB))]}
        assert set(CARD.findall(fake.private_texts(BOB)[-1])) <= mine


async def table_state(served: Served, fake: FakeBotAPI) -> tuple[object, ...]:
    """What a refused link must leave as it was: seats, wallets, the group's messages and its board."""
    seats = await served.bot.store.fetch("SELECT user_id, stack FROM seats ORDER BY user_id")
    wallets = await served.bot.store.fetch("SELECT user_id, balance FROM wallets ORDER BY user_id")
    return (tuple(map(tuple, seats)), tuple(map(tuple, wallets)), len(fake.sent("sendMessage", chat_id=GROUP)),
            len(fake.board_edits(GROUP)), text_of(fake.board(GROUP)))


async def answer_in_private(fake: FakeBotAPI, uid: int, text: str) -> str:
    """A user sends ``text`` in their private chat with the bot; the bot's answer there."""
    before = len(fake.private_texts(uid))
    fake.command(uid, uid, text)
    await fake.wait_for(lambda: len(fake.private_texts(uid)) > before, what=f"the answer to {text!r}")
    return fake.private_texts(uid)[-1]


async def test_item7_a_forged_join_link_seats_nobody(fake: FakeBotAPI, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    ru_user = 1302
    fake.user(ru_user, "Дима", language_code="ru")
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        before = await table_state(served, fake)
        refusal = ("This link is not valid: it is not one I made, or it was changed. "
                   "Press Join under the table's board in the group for a new one.")
        valid = payload(fake, join=True)
        signature = valid.rsplit("-", 1)[1]
        for forged in ("jm1001234567890",  # unsigned, as the links were before
                       "jm1001234567890-AAAAAAAAAAAAAAAA",  # a made-up signature
                       f"jm1009876543210-{signature}",  # another group, a signature copied from a real link
                       f"jm1001234567890_5-{signature}"):  # another topic of the group
            assert await answer_in_private(fake, BOB, f"/start {forged}") == refusal
        assert await answer_in_private(fake, ru_user, "/start jm1001234567890") == (
            "Эта ссылка недействительна: её создал не я, или её изменили. "
            "Нажмите «Сесть» под доской стола в группе, чтобы получить новую.")
        await asyncio.sleep(0.3)
        assert await table_state(served, fake) == before
        assert served.runtime().table.seat_of(str(BOB)) is None
        assert served.runtime().table.seat_of(str(ru_user)) is None
        assert not fake.sent("getChatMember")  # refused before anything is asked or done


async def test_item7_a_valid_link_seats_no_one_who_is_not_in_the_group(fake: FakeBotAPI, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    pl_user = 1303
    fake.user(pl_user, "Ola", language_code="pl")
    fake.leave(GROUP, STRANGER)  # never in the group (or left it), but holds a link someone passed on
    fake.leave(GROUP, BOB, banned=True)
    fake.leave(GROUP, pl_user)
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        before = await table_state(served, fake)
        link = payload(fake, join=True)
        refusal = ("You are not a member of that group, so you cannot sit at its table. "
                   "Join the group first, then press Join under the board there.")
        assert await answer_in_private(fake, STRANGER, f"/start {link}") == refusal
        assert await answer_in_private(fake, BOB, f"/start {link}") == refusal
        assert await answer_in_private(fake, pl_user, f"/start {link}") == (
            "Nie jesteś członkiem tej grupy, więc nie możesz usiąść przy jej stole. "
            "Najpierw dołącz do grupy, potem naciśnij „Usiądź” pod planszą.")
        await asyncio.sleep(0.3)
        assert await table_state(served, fake) == before
        for uid in (STRANGER, BOB, pl_user):
            assert served.runtime().table.seat_of(str(uid)) is None
        asked = {(int(c.params["chat_id"]), int(c.params["user_id"])) for c in fake.sent("getChatMember")}
        assert asked == {(GROUP, STRANGER), (GROUP, BOB), (GROUP, pl_user)}
        # a member with the same link is seated, as the link promises
        fake.command(DAN, DAN, f"/start {link}")
        await fake.wait_for(lambda: any(t.startswith("Seated with 200 chips.") for t in fake.private_texts(DAN)),
                            what="Dan seated")
        assert served.runtime().table.seat_of(str(DAN)) is not None


async def test_item9_a_non_player_cannot_fill_a_sit_and_go_with_bots(fake: FakeBotAPI, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19 item 9: someone who is not even registered filled a sit-and-go with house bots and so
    started it, although 'start' is refused to them. Only its creator or an admin may add bots."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        for uid in (ANN, BOB, CAT):
            await say(fake, uid, "/start", chat=uid)
        await say(fake, ANN, "/stud tourney new seats=2")
        await say(fake, BOB, "/register")
        t = served.bots[0].tourneys.of(served.runtime())
        await say(fake, CAT, "/stud addbot")
        assert last_group_message(fake)["text"] == "Only the table's creator or an admin can do that."
        await say(fake, CAT, "/stud addbot Ann")
        assert last_group_message(fake)["text"] == "Only the table's creator or an admin can do that."
        assert t.status == "registering" and list(t.entrants) == [str(BOB)]
        assert served.runtime().hand is None and not served.runtime().table.seats
        fake.admins.add((GROUP, CAT))  # an admin may
        await say(fake, CAT, "/stud addbot Robo")
        await fake.wait_for(lambda: t.status == "running", what="the sit-and-go to start")
        assert sorted(t.entrants) == sorted([str(BOB), "bot:robo"])


async def test_names_built_to_disturb_stay_inside_themselves(fake: FakeBotAPI, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    users = {4001: "mallory", 4002: "dawid", 4003: "li", 4004: "sun"}
    for uid, key in users.items():
        fake.user(uid, HOSTILE[key])
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, tuple(users))
        for uid in users:
            await say(fake, uid, "/join")
        await start_and_deal(fake, 4001)
        await fake.wait_for(lambda: "to act" in text_of(fake.board(GROUP)), what="the board")
        await fake.wait_for(lambda: any("Door cards" in t for t in fake.group_texts(GROUP)), what="the doors")
        for text in fake.group_texts(GROUP):
            assert_contained(html.unescape(text))
        names = [display_name(HOSTILE[key]) for key in users.values()]
        assert served.runtime().names == names
        board = html.unescape(text_of(fake.board(GROUP)).split("<pre>", 1)[1].split("</pre>", 1)[0])
        assert_columns(board, names)
        # the picture of the board is drawn from the same names, without their controls
        assert fake.photos_in(GROUP)


async def test_an_action_cut_off_by_kill_9_is_announced_after_the_restart(fake: FakeBotAPI, tmp_path: Path,
                                                                          store_backend: Backend) -> None:
    db = tmp_path / "t.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TELEGRAM_TOKEN": fake.token, "TELEGRAM_BASE_URL": fake.base_url,
           "STUDBOT_BOT_DELAY_MS": "0", "STUDBOT_NEXT_HAND_DELAY": "2",
           "STUDBOT_TURN_TIMER": "600", "LOG_LEVEL": "INFO", **store_backend.env(db)}
    env.pop("DISCORD_TOKEN", None)

    async def start() -> asyncio.subprocess.Process:
        polls = len(fake.sent("getUpdates", ok=False))
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(ROOT / "tests" / "support" / "procs" / "fast_bot.py"), cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await fake.wait_for(lambda: len(fake.sent("getUpdates", ok=False)) > polls, timeout=30, what="polling")
        return process

    process = await start()
    try:
        await open_table(fake, (ANN, BOB))
        await say(fake, ANN, "/join")
        await say(fake, BOB, "/join")
        await say(fake, ANN, "/stud start")
        turn, board = await next_turn(fake, None)
        who = actor(board)
        await fake.wait_for(lambda: any("Door cards" in t for t in fake.group_texts(GROUP)), what="the deal's lines")
        said = f"{NAMES[who]} brings in"
        assert not any(said in t for t in fake.group_texts(GROUP))
        fake.held_chats.add(GROUP)  # Telegram stops taking the group's messages: the line hangs
        await press(fake, who, next(label for label in buttons(board) if label.startswith("Bring-in")))
        await fake.wait_for(lambda: actions_stored(db) == 1, what="the action to be committed")
        await asyncio.sleep(0.5)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        fake.release()
        assert not any(said in t for t in fake.group_texts(GROUP))  # the committed action never reached the group

        process = await start()  # the same database
        await fake.wait_for(lambda: any(said in t for t in fake.group_texts(GROUP)), timeout=20,
                            what="the line of the action cut off")
        text = html.unescape(next(t for t in fake.group_texts(GROUP) if said in t))
        assert text.index("After a restart, what had not reached the table yet:") < text.index(said)
        assert actions_stored(db) == 1 and turn_of(fake.board(GROUP)) != turn
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 20)


async def test_item2_two_alexes_and_hostile_names_fill_a_sit_and_go_that_deals_and_cancels(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 19, item 2: two Telegram users both named 'Alex', one whose name is only invisible
    characters and one built to disturb (bidi override, newline, 4,000 characters) register; the
    sit-and-go fills, starts and deals, each shown as a cash seat would be, unlike the others; its
    creator then cancels it mid-hand: every buy-in back, the audit passes."""
    users = {4101: "Alex", 4102: "Alex", 4103: "\u200b\u2060", 4104: "\u202eAl\nex" + "x" * 4000}
    for uid, name in users.items():
        fake.user(uid, name)
    db = tmp_path / "t.db"
    async with Served(fake, db, monkeypatch) as served:
        for uid in users:
            await say(fake, uid, "/start", chat=uid)
        await say(fake, 4101, "/tourney new seats=4 buyin=100 stack=500")
        for uid in users:
            await say(fake, uid, "/register")
        await fake.wait_for(lambda: DECK.search(text_of(fake.board(GROUP))), what="hand #1's commitment")
        await pass_the_pause()
        await fake.wait_for(lambda: any("Hand #1:" in t for t in fake.group_texts(GROUP)), what="the first deal")
        assert not any("appears twice" in t for uid in users for t in fake.private_texts(uid) + fake.group_texts(GROUP))
        names = dict(await rows(db, "SELECT user_id, name FROM tourney_players"))
        assert names == {"4101": "Alex", "4102": "Alex2", "4103": "player",
                         "4104": display_name("\u202eAl ex" + "x" * 4000)}
        assert sorted(served.runtime().names) == sorted(names.values())
        for text in fake.group_texts(GROUP):
            assert_contained(html.unescape(text))
            assert "x" * 25 not in text
        await say(fake, 4102, "/stop")  # not the creator: refused
        assert served.runtime().table.running
        await say(fake, 4101, "/stop")
        await fake.wait_for(lambda: any("sit-and-go #1 is cancelled" in t for t in fake.group_texts(GROUP)),
                            what="the cancel")
        assert not served.bot.tables
        assert sorted(b for (b,) in await rows(db, "SELECT balance FROM wallets")) == [1000] * 4
        report = await audit(served.bot.store, checks=AUDIT_CHECKS)
        assert report.ok and report.tournaments == 1, report.summary()


async def test_item15_a_played_turns_button_on_an_old_board_is_refused_and_that_boards_buttons_go(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board message that is not the table's board any more (a crash can leave one with live-looking
    buttons: bot/platform/outbox.py) answers a press of a played turn with "That turn is over", and loses its
    buttons; the same press on the table's board is answered alike, and its buttons stay."""
    async with Served(fake, tmp_path / "t.db", monkeypatch, next_hand_delay=1) as served:
        await open_table(fake, (ANN, BOB))
        await say(fake, ANN, "/join")
        await say(fake, BOB, "/join")
        await say(fake, ANN, "/stud start")
        await play_out(fake)
        old = fake.board(GROUP)
        await fake.wait_for(lambda: fake.board(GROUP)["message_id"] != old["message_id"]
                            and turn_of(fake.board(GROUP)) is not None, what="hand 2's board")
        current = fake.board(GROUP)
        played = f"s|call|{served.runtime().table.hand_no - 1}.0"  # a turn of hand 1, long played
        answer = await press(fake, BOB, data=played, message_id=current["message_id"])
        assert answer["text"] == "That turn is over."
        await asyncio.sleep(0.3)
        assert buttons(fake.messages[(GROUP, current["message_id"])])  # the table's board keeps them
        answer = await press(fake, BOB, data=played, message_id=old["message_id"])
        assert answer["text"] == "That turn is over."
        await fake.wait_for(lambda: not buttons(fake.messages[(GROUP, old["message_id"])]),
                            what="the old board's buttons to go")
        assert buttons(fake.messages[(GROUP, current["message_id"])])


async def test_redteam_a_forged_press_in_a_private_chat_opens_no_table_and_seats_no_one(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Callback data is whatever the client sends ("a bad client can send arbitrary data"): 's|new' and
    's|join' pressed on the bot's message in a private chat opened a table there and moved chips onto it,
    which the same words typed in that chat are refused. ('new' is no button's any more: a forged
    's|new' is a stale button anywhere; the board's own commands are refused outside a group.)"""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        hello = await answer_in_private(fake, BOB, "/start")
        assert hello.startswith("Hi!")
        mid = max(m for (chat, m) in fake.messages if chat == BOB)
        before = await table_state(served, fake)
        answers = [await press(fake, BOB, data=data, message_id=mid, chat=BOB)
                   for data in ("s|join", "s|cards", "s|call|1.1", "s|new")]
        assert [a["text"] for a in answers] == [
            "Table commands work in the group of the table; your cards come here."] * 3 + [
            "This button is no longer in use."]
        assert list(served.bot.tables) == [f"telegram:{GROUP}"]
        assert not await served.bot.store.fetch("SELECT id FROM tables WHERE channel = ?", (str(BOB),))
        assert await table_state(served, fake) == before


async def test_redteam_forged_callback_data_runs_no_command_but_the_boards(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Callback data ran any command ('s|stop' by the creator stopped the table, 's|addbot' seated a bot):
    only the board's actions (with their turn), 'join' and 'cards' run from a button."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN, BOB))
        await say(fake, ANN, "/join")
        before = await table_state(served, fake)
        for data in ("s|stop", "s|stop|1.1", "s|addbot", "s|leave", "s|new", "s|join|1.1", "s|fold"):
            assert (await press(fake, ANN, data=data))["text"] == "This button is no longer in use.", data
        await asyncio.sleep(0.3)
        assert await table_state(served, fake) == before
        assert served.runtime().table.seat_of(str(ANN)) is not None


async def test_redteam_a_channel_or_an_anonymous_admin_sits_nobody_down(
        fake: FakeBotAPI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A channel's post forwarded into its discussion group comes from user 777000 ('Telegram', not a bot),
    with sender_chat the channel: '/stud join' in it seated 'Telegram' (one account for every channel). An
    anonymous admin's command (from GroupAnonymousBot, sender_chat the group) got no answer at all."""
    async with Served(fake, tmp_path / "t.db", monkeypatch) as served:
        await open_table(fake, (ANN,))
        await say(fake, ANN, "/join")
        before = await table_state(served, fake)
        forwarded = fake._message(GROUP, {"id": 777000, "is_bot": False, "first_name": "Telegram"}, "/stud join")
        forwarded.update(sender_chat={"id": -1009, "type": "channel", "title": "News"}, is_automatic_forward=True,
                         entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        fake._push({"message": forwarded})
        await fake.wait_for(lambda: not fake.updates, what="the forward to be taken")
        await asyncio.sleep(0.5)
        assert await table_state(served, fake) == before  # not seated, and not answered (nobody typed it)
        anonymous = fake._message(GROUP, {"id": 1087968824, "is_bot": True, "first_name": "Group",
                                          "username": "GroupAnonymousBot"}, "/stud join")
        anonymous.update(sender_chat=fake.chats[GROUP], entities=[{"type": "bot_command", "offset": 0, "length": 5}])
        fake._push({"message": anonymous})
        await fake.wait_for(lambda: fake.group_texts(GROUP)[-1].startswith("To play, write as yourself:"),
                            what="the anonymous admin's answer")
        assert str(last_group_message(fake)["reply_parameters"]["message_id"]) == str(anonymous["message_id"])  # type: ignore[index]
        assert [tuple(r) for r in await served.bot.store.fetch("SELECT user_id FROM seats")] == [(str(ANN),)]

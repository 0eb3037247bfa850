"""Small unit tests of the Telegram adapter's pure parts: callback data, deep links, text that fits."""

from __future__ import annotations

import doctest

import pytest

import adapters.telegram.adapter as adapter_module
import adapters.telegram.codec as codec
import adapters.telegram.commands as commands_module
from adapters.telegram.adapter import TelegramMessenger, _base_urls, grammar_text, split_command
from adapters.telegram.codec import (
    MAX_ALERT,
    MAX_TEXT,
    compose,
    decode_callback,
    encode_callback,
    fit_alert,
    link_key,
    parse_payload,
    start_payload,
    utf16_len,
)
from bot.core.ports import Button
from bot.text.grammar import COMMANDS, TURN_ACTIONS, parse


def test_doctests() -> None:
    for module in (codec, adapter_module, commands_module):
        failed, _ = doctest.testmod(module)
        assert failed == 0


@pytest.mark.parametrize("action", TURN_ACTIONS)
def test_every_action_button_round_trips_within_64_bytes(action: str) -> None:
    command = f"{action} @999999999.999999"
    data = encode_callback(command)
    assert len(data.encode()) <= 64
    assert decode_callback(data) == command
    assert parse(decode_callback(data) or "").turn == "999999999.999999"


def test_buttons_without_a_turn_and_foreign_data() -> None:
    assert decode_callback(encode_callback("join")) == "join"
    assert decode_callback(encode_callback("cards")) == "cards"
    for data in (None, "", "x|call|1.2", "s|call|1.2|3", "s|call|now", "s|CALL", "s|call me|1.2"):
        assert decode_callback(data) is None
    with pytest.raises(ValueError):
        encode_callback("config ante=1")
    with pytest.raises(ValueError):
        encode_callback("call @" + "9" * 80 + ".1")


@pytest.mark.parametrize("channel", ["-1001234567890", "-1001234567890:42", "-5", "123"])
def test_deep_link_payloads(channel: str) -> None:
    key, other = link_key("123:TOKEN"), link_key("123:OTHER")
    for join in (True, False):
        payload = start_payload(channel, join=join, key=key)
        assert len(payload) <= 64 and payload.replace("_", "").replace("-", "").isalnum()
        assert parse_payload(payload, key=key) == (channel, join)
        assert parse_payload(payload, key=other) is None  # another bot's link
        body, _, signature = payload.rpartition("-")
        assert parse_payload(body, key=key) is None  # unsigned, as the links were before issue 19
        flipped = ("c" if join else "j") + body[1:]
        assert parse_payload(f"{flipped}-{signature}", key=key) is None  # another kind, the same signature
    assert parse_payload("hello", key=key) is None and parse_payload("", key=key) is None


def test_item7_a_payload_for_another_table_cannot_be_made_from_a_signed_one() -> None:
    key = link_key("123:TOKEN")
    mine = start_payload("-1001234567890", join=True, key=key)
    signature = mine.rsplit("-", 1)[1]
    for body in ("jm1009999999999", "jm1001234567890_7", "jm100123456789", "j1001234567890"):
        assert parse_payload(f"{body}-{signature}", key=key) is None
    longest = start_payload("-99999999999999999999:999999999999", join=True, key=key)
    assert len(longest) <= 64 and parse_payload(longest, key=key) == ("-99999999999999999999:999999999999", True)


def test_a_private_view_fits_an_alert() -> None:
    worst = ("Hand #123456, your cards: [10♠] [10♥] 10♦ 10♣ 9♠ 9♥ [9♦] + community 8♣\n"
             "High: full house, tens full of nines, with a very long description · Low: 8-7-6-5-4 and more words "
             "that go on and on and on and on and on and on and on")
    text = fit_alert(worst)
    assert utf16_len(text) <= MAX_ALERT
    assert text.startswith("#123456: [10♠] [10♥] 10♦ 10♣ 9♠ 9♥ [9♦] + community 8♣")
    assert fit_alert("Hand #1, your cards: [A♠] [2♠] 3♠\nHigh: ace high · drawing to 3-2-A") == (
        "#1: [A♠] [2♠] 3♠\nHigh: ace high · drawing to 3-2-A")
    # any language: the cards line first, compacted to '#N: cards' when it reads '<words> N<words>: cards'
    assert fit_alert("Раздача №7, ваши карты: [A♠] [2♠] 3♠\nХай: туз\nЛоу: 3-2-A") == (
        "#7: [A♠] [2♠] 3♠\nХай: туз Лоу: 3-2-A")
    assert fit_alert("Rozdanie #12, twoje karty: [K♦] [K♣] 2♦") == "#12: [K♦] [K♣] 2♦"
    long_pl = fit_alert("Rozdanie #5, twoje karty: [10♠] [10♥] 10♦ 10♣ 9♠ 9♥ [9♦]\n" + "Hi: kareta dziesiątek " * 20)
    assert utf16_len(long_pl) <= MAX_ALERT and long_pl.startswith("#5: [10♠] [10♥] 10♦ 10♣ 9♠ 9♥ [9♦]\nHi: kareta")
    assert fit_alert("no number here\nsecond") == "no number here\nsecond"  # anything else: just clipped


def test_compose_escapes_and_keeps_the_latest_lines() -> None:
    text = compose("Seats: <b>Ann</b> & co", ["old"] + ["x" * 100] * 60 + ["newest"])
    assert text.startswith("<pre>Seats: &lt;b&gt;Ann&lt;/b&gt; &amp; co</pre>")
    assert utf16_len(text) <= MAX_TEXT and text.endswith("newest") and "old" not in text


def test_a_caption_keeps_1024_characters_dropping_the_oldest_lines_first() -> None:
    board = "Hand #1 · third street\n" + "\n".join(f"  P{i}   200  🂠 🂠 K♠" for i in range(8))
    text = compose(board, ["oldest"] + ["y" * 80] * 20 + ["newest"], codec.MAX_CAPTION)
    assert utf16_len(text) <= codec.MAX_CAPTION and text.endswith("newest") and "oldest" not in text
    assert text.startswith(f"<pre>{board}</pre>")
    alone = compose("row & more\n" * 200, ["a line"], codec.MAX_CAPTION)  # the board alone is too long
    assert utf16_len(alone) <= codec.MAX_CAPTION and alone.startswith("<pre>") and alone.endswith("…</pre>")


def test_item6_the_caption_carries_the_decks_commitment_under_the_board() -> None:
    deck = "Deck #4 2fe4…d4db · verify after the hand"
    board = "Hand #4 · third street\n" + "\n".join(f"  P{i}   200  🂠 🂠 K♠" for i in range(8))
    text = compose(board, ["oldest"] + ["y" * 80] * 20 + ["newest"], codec.MAX_CAPTION, footer=deck)
    assert text.startswith(f"<pre>{board}</pre>\n{deck}\n\n") and text.endswith("newest")
    assert utf16_len(text) <= codec.MAX_CAPTION
    alone = compose("row & more\n" * 200, ["a line"], codec.MAX_CAPTION, footer=deck)  # the board cut, not the deck
    assert utf16_len(alone) <= codec.MAX_CAPTION and alone.endswith(f"…</pre>\n{deck}")
    assert compose(board, [], codec.MAX_CAPTION) == f"<pre>{board}</pre>"  # none: nothing under the board


def test_keyboard_rows() -> None:
    messenger = TelegramMessenger.__new__(TelegramMessenger)
    messenger.username = "studbot"
    messenger.link_key = link_key("123:TOKEN")
    buttons = (Button("Call 5", "call @3.4"), Button("Raise to 10", "raise @3.4"), Button("Fold", "fold @3.4"),
               Button("Complete to 5", "complete @3.4"), Button("Join", "join"), Button("My cards", "cards"))
    rows = messenger.keyboard(buttons, "-100123:7").inline_keyboard
    assert [[b.text for b in row] for row in rows] == [
        ["Call 5", "Raise to 10", "Fold"], ["Complete to 5"], ["Join", "My cards"], ["🔒 Cards in private chat"]]
    assert rows[0][0].callback_data == "s|call|3.4"
    signed = start_payload("-100123:7", join=False, key=link_key("123:TOKEN"))
    assert rows[-1][0].url == f"https://t.me/studbot?start={signed}"
    assert rows[-1][0].url.startswith("https://t.me/studbot?start=cm100123_7-")


def test_commands_and_their_grammar_text() -> None:
    assert split_command("/stud@StudBot join 200", "studbot") == ("stud", "join 200")
    assert split_command("/fold@SomeoneElse", "studbot") is None
    assert split_command("hello", "studbot") is None
    assert grammar_text("stud", "") == "help"
    assert grammar_text("bringin", "") == "bringin" and parse("bringin").name == "bring-in"
    for name in COMMANDS:
        text = grammar_text(name.replace("-", ""), "")
        assert text is not None
    assert set(adapter_module.SHORT_COMMANDS) == {c.replace("-", "") for c in COMMANDS}


def test_base_urls() -> None:
    assert _base_urls("http://127.0.0.1:8081") == ("http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/file/bot")
    assert _base_urls("http://127.0.0.1:8081/bot/") == ("http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/file/bot")

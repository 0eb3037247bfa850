"""Display names built to disturb: bidi controls, right-to-left letters, zero-width characters, emoji.

A name is shown as its owner meant it (their characters, even an override of their
own name) and cannot reach the text around it: every bidi control it holds is closed
inside it, and a name that could reorder its neighbours sits in an isolate. The text
board pads its columns by width on screen; the pictures draw no control character.
"""

from __future__ import annotations

import random
import re
import unicodedata

import pytest
from test_console import Table as ConsoleTable

from bot.core.model import Table
from bot.core.names import FSI, PDI, display_name, pad, plain, width
from bot.core.ports import Inbound
from bot.text import images, render
from engine import Deck, DeckDealer, Hand, Stakes

OPENERS = {"\u202a": "\u202c", "\u202b": "\u202c", "\u202d": "\u202c", "\u202e": "\u202c",
           "\u2066": "\u2069", "\u2067": "\u2069", "\u2068": "\u2069"}
HOSTILE = {
    "mallory": "\u202emallory",  # a right-to-left override, never closed: would reverse the rest of each line
    "eve": "eve\u2069\u202c\u2069",  # closers nobody opened: would end an isolate around the name early
    "dawid": "דוד\u200f",  # Hebrew letters and a right-to-left mark
    "zed": "Z\u200be\u200bd\ufeff\u2060",  # zero-width junk
    "sun": "☀️🌞👩‍💻",  # emoji, one of them a ZWJ sequence
    "li": "李小龙",  # wide letters
    "zoe": "Zoe\u0301",  # a combining accent
}


def assert_contained(text: str) -> None:
    """Every line ends with no embedding, override or isolate open, and none closes what it did not open."""
    for line in text.splitlines():
        stack: list[str] = []
        for ch in line:
            if ch in OPENERS:
                stack.append(OPENERS[ch])
            elif ch in ("\u202c", "\u2069"):
                assert stack and stack[-1] == ch, f"a stray closer in {line!r}"
                stack.pop()
        assert not stack, f"{line!r} leaves {stack} open"


def assert_columns(board: str, names: list[str]) -> None:
    """Each of the board's seat rows starts with its name, and the stacks after them end in one column."""
    rows = [ln for ln in board.splitlines() if ln[:2] in ("→ ", "  ")]
    assert len(rows) == len(names), board
    ends = set()
    for row, name in zip(rows, names, strict=True):
        assert row[2:].startswith(name), (row, name)
        m = re.match(r"\s*(\d+)  ", row[2 + len(name):])
        assert m, row
        ends.add(width(row[:2 + len(name) + m.end(1)]))
    assert len(ends) == 1, f"the stacks end in different columns: {ends}\n{board}"


def test_display_name_keeps_the_owner_s_characters_and_contains_them() -> None:
    assert display_name(HOSTILE["mallory"]) == f"{FSI}\u202emallory\u202c{PDI}"
    assert display_name(HOSTILE["eve"]) == "eve"  # closers that close nothing of hers are dropped
    assert display_name(HOSTILE["dawid"]) == f"{FSI}דוד\u200f{PDI}"
    assert display_name(HOSTILE["zed"]) == "Zed"
    assert display_name(HOSTILE["sun"]) == HOSTILE["sun"] and display_name("Ann") == "Ann"
    assert display_name("\u202e\u2069\u200b") == "" and display_name("a\nb\tc\x00") == "a b c"
    assert display_name("x" * 40) == "x" * 24
    for raw in HOSTILE.values():
        assert_contained(f"before {display_name(raw)} after")
    assert plain(display_name(HOSTILE["mallory"])) == "mallory"


def test_width_counts_columns_on_screen() -> None:
    assert [width(display_name(HOSTILE[k])) for k in ("mallory", "zed", "sun", "li", "zoe")] == [7, 3, 6, 6, 3]
    assert width(pad("李", 4)) == 4 and pad("ab", 1) == "ab"
    assert all(unicodedata.east_asian_width(c) in ("W", "F") for c in "🌞👩💻李")


def test_the_text_board_keeps_its_columns_and_the_pictures_draw_no_control() -> None:
    names = [display_name(raw) for raw in HOSTILE.values()]
    hand = hand_of(len(names))
    table = Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30)
    text, _ = render.board(table, hand, names=names, turn="1.0", seconds_left=None)
    assert_contained(text)
    assert_columns(text, names)
    # the pictures: a name's controls are not drawn (the same pixels as without them)
    shown = [display_name(HOSTILE["mallory"]), display_name(HOSTILE["zed"]), display_name("Zed\u2069")]
    assert images.board_png(table, hand_of(2), names=[plain(shown[0]), "Zed"]) == \
        images.board_png(table, hand_of(2), names=shown[:2])
    assert images.board_png(table, hand_of(2), names=[FSI + "Ann" + PDI, "Bob"]) == \
        images.board_png(table, hand_of(2), names=["Ann", "Bob"])


def hand_of(n: int) -> Hand:
    return Hand(stakes=Stakes(), names=[f"p{i}" for i in range(n)], stacks=[100 + 1000 * i for i in range(n)],
                dealer=DeckDealer(Deck.shuffled(rng=random.Random(n))))


@pytest.mark.usefixtures("store_backend")
@pytest.mark.asyncio
async def test_hostile_names_at_a_table(tmp_path: pytest.TempPathFactory) -> None:
    async with ConsoleTable(tmp_path / "t.db") as t:  # type: ignore[operator]
        async def say(user: str, text: str) -> str:
            reply = await t.bot.handle(Inbound(platform="console", community="local", channel="main", user=user,
                                               name=HOSTILE.get(user, user), text=text))
            return reply.text

        await say("mallory", "new")
        for user in HOSTILE:
            assert "Seated" in await say(user, "join 100"), user
        assert "Dealing" in await say("mallory", "start")
        public = "\n".join(line for line in t.out if line.startswith("[table]"))
        assert_contained(public)
        assert f"{FSI}\u202emallory\u202c{PDI} sits down with 100 chips" in public
        assert "Zed sits down" in public and "Z\u200b" not in public
        seats = {s.user: s.name for s in t.runtime.table.seats.values()}
        assert seats["mallory"] == f"{FSI}\u202emallory\u202c{PDI}" and seats["zed"] == "Zed"
        # a name is found by what it reads, whatever controls it holds or is typed with
        assert t.runtime.table.seat_named("mallory") is t.runtime.table.seat_named("\u202emallory") is not None
        # a second 'Zed' is told apart by what shows, not by invisible characters
        reply = await t.bot.handle(Inbound(platform="console", community="local", channel="main", user="zed2",
                                           name="Zed\u200b", text="join 100"))
        assert reply.ok and t.runtime.table.seat_of("zed2").name == "Zed2"  # type: ignore[union-attr]

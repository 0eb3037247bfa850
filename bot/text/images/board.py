"""The public board picture: every seat's cards (down cards as backs until the showdown),
stacks, bets, the pot and whose turn it is.

The board is first reduced to a :class:`BoardLayout`: exactly what the image shows
(every card slot with its card, or None for a back). The drawing reads only the layout,
so a down card can reach the picture only through a face-up slot, and the layout of an
unchanged board (its texts and language included) is also the key of a small render
cache.

>>> from engine import Stakes
>>> from bot.core.model import Table
>>> table = Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30)
>>> board_png(table, None, names=[])[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.core.i18n import EN, Translator
from bot.core.model import MIX, Table
from bot.text.images.drawing import (
    BADGE_GREY,
    BADGE_H,
    BADGE_ORANGE,
    CARD_GAP,
    CARD_H,
    CARD_W,
    CARDS_X,
    CHIP_W,
    DOWN_INDICES,
    FELT,
    FOOTER_H,
    GOLD,
    HEADER_H,
    INFO_W,
    INK,
    MUTED,
    PAD,
    PANEL,
    PANEL_FOLDED,
    PANEL_TURN,
    ROW_GAP,
    ROW_H,
    TEXT,
    WIDTH,
    Box,
    _badge,
    _chip,
    _encode,
    _paste,
    _text,
    _text_w,
    card_back,
    card_face,
    clear_tiles,
    text_font,
)
from bot.text.render import action_options, pots_text, stakes_text, street_name
from bot.text.results import game_name
from engine import Card, Hand

# ------------------------------------------------------------------ the render model


@dataclass(frozen=True, slots=True)
class Slot:
    """One card place: the card face up, or None for a card back."""

    card: Card | None
    face_up: bool
    box: Box
    down: bool = False
    """A card dealt face down (indices 0, 1, 6)."""


@dataclass(frozen=True, slots=True)
class SeatLayout:
    seat: int
    name: str
    stack: int
    stack_text: str
    bet: int
    folded: bool
    all_in: bool
    to_act: bool
    note: str
    box: Box
    slots: tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class Words:
    """The fixed words of a board image, in its language."""

    to_act: str
    folded: str
    all_in: str
    community: str

    @classmethod
    def of(cls, tr: Translator) -> Words:
        return cls(to_act=tr("img.to_act"), folded=tr("img.folded"), all_in=tr("img.all_in"),
                   community=tr("img.community_card"))


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Everything the public board image shows, and where, and in which language."""

    lang: str
    words: Words
    width: int
    height: int
    title: str
    subtitle: str
    pot: str
    pot_detail: str
    footer: str
    community: Slot | None
    seats: tuple[SeatLayout, ...]
    four_colour: bool

    def face_up_cards(self, seat: int) -> list[Card]:
        return [s.card for s in self.seats[seat].slots if s.face_up and s.card is not None]


def table_game(table: Table, tr: Translator) -> str:
    """What the table deals, for the board between hands: its game, or the mix with the next hand's game
    (G8: a change of game shows on the board before the hand it applies to).

    >>> from engine import Stakes
    >>> table = Table(id=1, platform="p", community="c", channel="c", creator="u", stakes=Stakes(), timer=30,
    ...               game="mix", mix_hands=2, hand_no=2)
    >>> table_game(table, EN), table_game(Table(id=1, platform="p", community="c", channel="c", creator="u",
    ...                                         stakes=Stakes(), timer=30), EN)
    ('Stud mix · Stud', 'Stud Hi-Lo')
    """
    if table.game != MIX:
        return game_name(tr, table.game)
    return tr("img.mix_next", mix=game_name(tr, MIX), game=game_name(tr, table.game_of_hand(table.hand_no + 1).value))


def _shows(hand: Hand) -> bool:
    """True when the live hands are shown: the hand is over and went to a showdown."""
    return hand.is_over and len(hand.live_seats) > 1


def _winnings(hand: Hand) -> dict[int, int]:
    won: dict[int, int] = {}
    for result in hand.pot_results:
        for s, c in result.shares.items():
            won[s] = won.get(s, 0) + c
    return won


def board_layout(table: Table, hand: Hand | None, *, names: Sequence[str], four_colour: bool = True,
                 tr: Translator = EN) -> BoardLayout:
    """The public board as data, in the language of ``tr``. A down card is face up only at a
    showdown, for live seats."""
    seats: list[SeatLayout] = []
    y = PAD + HEADER_H
    words = Words.of(tr)
    if hand is None:
        for n, (_, sat) in enumerate(sorted(table.seats.items())):
            box = (PAD, y, WIDTH - PAD, y + ROW_H)
            seats.append(SeatLayout(seat=n, name=sat.name, stack=sat.stack, stack_text=tr("img.stack", stack=sat.stack),
                                    bet=0, folded=False, all_in=False, to_act=False,
                                    note=tr("img.sitting_out") if sat.sitting_out else "", box=box, slots=()))
            y += ROW_H + ROW_GAP
        footer = tr("board.hint_running") if table.running else tr("board.hint_idle")
        height = y + FOOTER_H + PAD
        return BoardLayout(lang=tr.lang, words=words, width=WIDTH, height=height, title=table_game(table, tr),
                           subtitle=stakes_text(table, tr), pot="" if seats else tr("img.no_players"), pot_detail="",
                           footer=footer, community=None, seats=tuple(seats), four_colour=four_colour)
    shown = _shows(hand)
    for seat in range(hand.seat_count):
        box = (PAD, y, WIDTH - PAD, y + ROW_H)
        slots = []
        for i, card in enumerate(hand.cards[seat]):
            down = i in DOWN_INDICES
            face_up = not down or (shown and not hand.folded[seat])
            x = CARDS_X + i * (CARD_W + CARD_GAP)
            cy = y + (ROW_H - CARD_H) // 2
            slots.append(Slot(card=card if face_up else None, face_up=face_up, box=(x, cy, x + CARD_W, cy + CARD_H),
                              down=down))
        seats.append(SeatLayout(
            seat=seat, name=names[seat], stack=hand.stacks[seat], stack_text=tr("img.stack", stack=hand.stacks[seat]),
            bet=0 if hand.is_over else hand.round_bets[seat], folded=hand.folded[seat],
            all_in=hand.is_all_in(seat), to_act=hand.actor == seat, note="", box=box, slots=tuple(slots),
        ))
        y += ROW_H + ROW_GAP
    community = None
    footer_h = FOOTER_H
    if hand.community is not None:
        community = Slot(card=hand.community, face_up=True, box=(PAD + 260, y + 4, PAD + 260 + CARD_W, y + 4 + CARD_H))
        footer_h = CARD_H + 8 + FOOTER_H
    if hand.actor is not None:
        options = " · ".join(label.lower() for _, label in action_options(hand, tr))
        footer = tr("board.to_act", name=names[hand.actor], options=options)
    elif hand.is_over:
        wins = ", ".join(tr("img.wins", name=names[s], amount=c) for s, c in sorted(_winnings(hand).items()))
        footer = tr("img.hand_over", wins=wins)
    else:
        footer = ""
    street = street_name(tr, "showdown" if hand.is_over else hand.street)
    pot, _, detail = pots_text(hand, tr).partition(" (")
    return BoardLayout(
        lang=tr.lang, words=words, width=WIDTH, height=y + footer_h + PAD,
        title=tr("img.hand_title", no=table.hand_no, street=street),
        subtitle=tr("img.subtitle", game=game_name(tr, hand.game.value), stakes=stakes_text(table, tr)), pot=pot,
        pot_detail=detail.removesuffix(")"),
        footer=footer, community=community, seats=tuple(seats), four_colour=four_colour,
    )


def _draw_board(layout: BoardLayout) -> Image.Image:
    img = Image.new("RGB", (layout.width, layout.height), FELT)
    d = ImageDraw.Draw(img)
    right = layout.width - PAD
    lang, words = layout.lang, layout.words
    _text(d, (PAD, PAD), layout.title, 34, lang, TEXT, "lt")
    _text(d, (right, PAD), layout.pot, 34, lang, GOLD, "rt", stroke=1)
    detail_w = 0
    if layout.pot_detail:
        _text(d, (right, PAD + 50), layout.pot_detail, 22, lang, MUTED, "rt")
        detail_w = _text_w(layout.pot_detail, text_font(layout.pot_detail, 22, lang)) + 24
    # the stakes take what the side pots leave (Russian and Polish run longer than English)
    _text(d, (PAD, PAD + 50), layout.subtitle, 22, lang, MUTED, "lt",
          width=max(layout.width // 2, layout.width - 2 * PAD - detail_w))
    for seat in layout.seats:
        x0, y0, _, y1 = seat.box
        panel = PANEL_TURN if seat.to_act else PANEL_FOLDED if seat.folded else PANEL
        d.rounded_rectangle(seat.box, radius=14, fill=panel, outline=GOLD if seat.to_act else None,
                            width=4 if seat.to_act else 0)
        name_colour = MUTED if seat.folded else TEXT
        _text(d, (x0 + 16, y0 + 14), seat.name, 30, lang, name_colour, "lt", width=INFO_W - 24)
        _text(d, (x0 + 16, y0 + 54), seat.stack_text, 24, lang, MUTED, "lt", width=INFO_W - 24)
        bx, by = x0 + 16, y1 - BADGE_H - 14
        if seat.to_act:
            bx = _badge(d, bx, by, words.to_act, GOLD, INK, lang=lang) + 6
        if seat.folded:
            bx = _badge(d, bx, by, words.folded, BADGE_GREY, TEXT, lang=lang) + 6
        elif seat.all_in:
            bx = _badge(d, bx, by, words.all_in, BADGE_ORANGE, TEXT, lang=lang) + 6
        if seat.note:
            _badge(d, bx, by, seat.note.upper(), BADGE_GREY, TEXT, lang=lang)
        if seat.bet:
            cx, cy = x0 + INFO_W + CHIP_W // 2 - 8, (y0 + y1) // 2 - 14
            _chip(d, cx, cy, 17)
            _text(d, (cx, cy + 24), str(seat.bet), 24, lang, TEXT, "mt")
        for slot in seat.slots:
            if slot.card is not None:
                tile = card_face(slot.card, CARD_W, CARD_H, layout.four_colour, False, seat.folded)
            else:
                tile = card_back(CARD_W, CARD_H, seat.folded)
            _paste(img, tile, slot.box)
    fy = layout.height - PAD - FOOTER_H
    if layout.community is not None and layout.community.card is not None:
        box = layout.community.box
        _text(d, (PAD, (box[1] + box[3]) // 2), words.community, 26, lang, TEXT, "lm", width=box[0] - PAD - 12)
        _paste(img, card_face(layout.community.card, CARD_W, CARD_H, layout.four_colour), box)
    if layout.footer:
        _text(d, (PAD, fy + FOOTER_H // 2), layout.footer, 26, lang, TEXT, "lm", width=layout.width - 2 * PAD)
    return img


@functools.lru_cache(maxsize=256)
def _render_board(layout: BoardLayout) -> bytes:
    return _encode(_draw_board(layout))


def board_png(table: Table, hand: Hand | None, *, names: Sequence[str], four_colour: bool = True,
              tr: Translator = EN) -> bytes:
    """The public board as a PNG in the language of ``tr``: down cards as backs until the showdown.

    An unchanged board (same layout, i.e. same visible state in the same language) comes
    from a cache.
    """
    return _render_board(board_layout(table, hand, names=names, four_colour=four_colour, tr=tr))



def clear_caches(*, tiles: bool = False) -> None:
    """Forget rendered boards, and with ``tiles`` the card tiles too."""
    _render_board.cache_clear()
    if tiles:
        clear_tiles()

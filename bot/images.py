"""Board images: the public board, a player's own cards and the showdown, as PNG bytes.

Pure functions over the engine's state; Pillow only, suits drawn as vector shapes.
Every word comes from the message catalogs (``images.po``, and ``core.po`` /
``hands.po`` through :mod:`bot.render`), in the language of the translator ``tr``
(the table's for the board and the showdown, the player's for the private view).
English text is set in Pillow's bundled scalable font (``ImageFont.load_default``),
which has no Cyrillic and no Polish letters; other languages, and any text with a
letter the bundled font lacks (a Cyrillic name at an English table), are set in
DejaVu Sans, shipped in ``bot/fonts`` with its licence. Everything is drawn at phone
density (about 2x) on an opaque felt-green background that reads on Discord's dark
and light themes.

The public board is first reduced to a :class:`BoardLayout`: exactly what the image
shows (every card slot with its card, or None for a back). The drawing reads only
the layout, so a down card can reach the picture only through a face-up slot, and
the layout of an unchanged board (its texts and language included) is also the key of
a small render cache.

>>> from engine import Stakes
>>> from bot.model import Table
>>> table = Table(id=1, platform="console", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30)
>>> board_png(table, None, names=[])[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from engine import ALL_CARDS, Card, Hand, best_high, best_low

from . import results
from .i18n import EN, Translator
from .model import Table
from .names import plain
from .render import action_options, pots_text, stakes_text, street_name, strength

Box = tuple[int, int, int, int]
"""x0, y0, x1, y1 in image pixels (x1, y1 exclusive)."""
RGB = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont

DOWN_INDICES = (0, 1, 6)

# ------------------------------------------------------------------ sizes (image pixels, ~2x)

WIDTH = 1120
PAD = 20
CARD_W, CARD_H = 84, 118
CARD_GAP = 10
ROW_H = CARD_H + 16
ROW_GAP = 8
HEADER_H = 96
FOOTER_H = 60
INFO_W = 270
CHIP_W = 90
CARDS_X = PAD + INFO_W + CHIP_W
BIG_W, BIG_H = 100, 140
BADGE_H = 26
SUPERSAMPLE = 3
PNG_LEVEL = 3

# ------------------------------------------------------------------ colours

FELT: RGB = (17, 92, 54)
PANEL: RGB = (12, 70, 41)
PANEL_TURN: RGB = (30, 112, 68)
PANEL_FOLDED: RGB = (22, 52, 38)
GOLD: RGB = (247, 196, 46)
TEXT: RGB = (255, 255, 255)
MUTED: RGB = (190, 222, 204)
FACE: RGB = (255, 255, 255)
EDGE: RGB = (150, 150, 150)
DOWN_FRAME: RGB = (52, 58, 82)
BACK: RGB = (150, 28, 44)
BACK_LINE: RGB = (184, 66, 82)
HIGH_MARK: RGB = GOLD
LOW_MARK: RGB = (96, 200, 255)
DIM = 0.45
"""Folded seats' cards are blended this far towards black."""
FOUR_COLOURS: tuple[RGB, ...] = ((22, 140, 60), (28, 96, 210), (212, 28, 40), (22, 22, 22))
TWO_COLOURS: tuple[RGB, ...] = ((22, 22, 22), (212, 28, 40), (212, 28, 40), (22, 22, 22))
RANK_LABELS = {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}


def dimmed(colour: RGB) -> RGB:
    """The colour of a folded seat's pixel that would be ``colour``."""
    r, g, b = colour
    return (round(r * (1 - DIM)), round(g * (1 - DIM)), round(b * (1 - DIM)))


def suit_colour(suit: int, four_colour: bool = True) -> RGB:
    return (FOUR_COLOURS if four_colour else TWO_COLOURS)[suit]


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
        return BoardLayout(lang=tr.lang, words=words, width=WIDTH, height=height, title=tr("img.game"),
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
        subtitle=tr("board.title_idle", stakes=stakes_text(table, tr)), pot=pot, pot_detail=detail.removesuffix(")"),
        footer=footer, community=community, seats=tuple(seats), four_colour=four_colour,
    )


# ------------------------------------------------------------------ drawing primitives


FONT_FILE = Path(__file__).with_name("fonts") / "DejaVuSans.ttf"
"""DejaVu Sans 2.37 (Bitstream Vera and Arev licences, ``bot/fonts/LICENSE``)."""
WIDE_SCALE = 0.9
"""DejaVu Sans at 90 % of the size has about the cap height of the bundled font."""


@functools.lru_cache(maxsize=32)
def font(size: int) -> Font:
    """Pillow's bundled font (scalable with FreeType, Pillow >= 10.1): Latin only."""
    return ImageFont.load_default(size=size)


@functools.lru_cache(maxsize=32)
def wide_font(size: int) -> Font:
    """DejaVu Sans, for Cyrillic, Polish and anything else the bundled font lacks."""
    return ImageFont.truetype(str(FONT_FILE), round(size * WIDE_SCALE))


@functools.lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    return bytes(font(20).getmask("\uffff"))


@functools.lru_cache(maxsize=4096)
def _bundled_has(ch: str) -> bool:
    """True if the bundled font draws ``ch`` as itself, not as its missing-glyph box."""
    return ch.isspace() or bytes(font(20).getmask(ch)) != _missing_glyph()


def text_font(text: str, size: int, lang: str = "en") -> Font:
    """The font for ``text`` in an image of language ``lang``: the bundled one for English
    (as before translation), DejaVu Sans for other languages and for text with a letter the
    bundled font does not have."""
    if lang == "en" and all(map(_bundled_has, text)):
        return font(size)
    return wide_font(size)


def _text_w(text: str, f: Font) -> int:
    x0, _, x1, _ = f.getbbox(text)
    return int(x1 - x0)


def _fit(text: str, f: Font, width: int) -> str:
    if _text_w(text, f) <= width:
        return text
    while text and _text_w(text + "…", f) > width:
        text = text[:-1]
    return text + "…"


def draw_suit(draw: ImageDraw.ImageDraw, suit: int, box: Box, fill: RGB) -> None:
    """A suit symbol as polygons and ellipses in the square ``box``."""
    x0, y0, x1, _ = box
    s = x1 - x0
    cx = x0 + s / 2

    def circle(x: float, y: float, r: float) -> None:
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def stem() -> None:
        draw.polygon([(cx, y0 + 0.5 * s), (cx - 0.2 * s, y0 + s), (cx + 0.2 * s, y0 + s)], fill=fill)

    if suit == 1:  # diamonds
        draw.polygon([(cx, y0), (x0 + 0.9 * s, y0 + s / 2), (cx, y0 + s), (x0 + 0.1 * s, y0 + s / 2)], fill=fill)
    elif suit == 2:  # hearts
        circle(x0 + 0.28 * s, y0 + 0.3 * s, 0.26 * s)
        circle(x0 + 0.72 * s, y0 + 0.3 * s, 0.26 * s)
        draw.polygon([(x0 + 0.03 * s, y0 + 0.38 * s), (x0 + 0.97 * s, y0 + 0.38 * s), (cx, y0 + 0.97 * s)], fill=fill)
    elif suit == 3:  # spades
        circle(x0 + 0.28 * s, y0 + 0.56 * s, 0.24 * s)
        circle(x0 + 0.72 * s, y0 + 0.56 * s, 0.24 * s)
        draw.polygon([(cx, y0), (x0 + 0.05 * s, y0 + 0.5 * s), (x0 + 0.95 * s, y0 + 0.5 * s)], fill=fill)
        stem()
    else:  # clubs
        circle(cx, y0 + 0.25 * s, 0.23 * s)
        circle(x0 + 0.25 * s, y0 + 0.58 * s, 0.23 * s)
        circle(x0 + 0.75 * s, y0 + 0.58 * s, 0.23 * s)
        circle(cx, y0 + 0.5 * s, 0.14 * s)
        stem()


def _finish(big: Image.Image, w: int, h: int, dim: bool) -> Image.Image:
    small = big.resize((w, h), Image.Resampling.LANCZOS)
    if dim:
        rgb = small.convert("RGB").point(lambda v: round(v * (1 - DIM)))
        rgb.putalpha(small.getchannel("A"))
        small = rgb
    return small


def card_face(card: Card, w: int, h: int, four_colour: bool = True, down: bool = False,
              dim: bool = False) -> Image.Image:
    """A card face (RGBA, rounded corners): the rank top left, the suit large bottom right.

    The centre stays white. ``down`` frames it dark with a lock (a player's own down card).
    Drawn once per card, size and variant (supersampled, then reduced) and cached.
    """
    return _card_face(card, w, h, four_colour, down, dim)  # one cache key however it is called


@functools.lru_cache(maxsize=1024)
def _card_face(card: Card, w: int, h: int, four_colour: bool, down: bool, dim: bool) -> Image.Image:
    k = SUPERSAMPLE
    big = Image.new("RGBA", (w * k, h * k), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    radius = int(0.09 * w * k)
    frame = DOWN_FRAME if down else EDGE
    width = (4 if down else 1) * k
    d.rounded_rectangle((0, 0, w * k - 1, h * k - 1), radius=radius, fill=(*FACE, 255), outline=(*frame, 255),
                        width=width)
    colour = suit_colour(card.suit, four_colour)
    label = RANK_LABELS.get(card.rank, str(card.rank))
    f = font(int(0.36 * h * k))
    d.text((0.09 * w * k, 0.04 * h * k), label, font=f, fill=colour, stroke_width=k, stroke_fill=colour)
    side = int(0.46 * w * k)
    sx, sy = int(0.46 * w * k), int(0.58 * h * k)
    draw_suit(d, card.suit, (sx, sy, sx + side, sy + side), colour)
    if down:  # a small padlock bottom left
        lx, ly, lw = int(0.1 * w * k), int(0.72 * h * k), int(0.24 * w * k)
        d.arc((lx + lw * 0.18, ly - lw * 0.45, lx + lw * 0.82, ly + lw * 0.35), 180, 360, fill=DOWN_FRAME,
              width=max(2, lw // 7))
        d.rounded_rectangle((lx, ly, lx + lw, ly + int(lw * 0.8)), radius=lw // 8, fill=DOWN_FRAME)
    return _finish(big, w, h, dim)


def card_back(w: int, h: int, dim: bool = False) -> Image.Image:
    """A card back (RGBA): a lattice in a white border, a solid medallion at the centre."""
    return _card_back(w, h, dim)


@functools.lru_cache(maxsize=16)
def _card_back(w: int, h: int, dim: bool) -> Image.Image:
    k = SUPERSAMPLE
    W, H = w * k, h * k
    big = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(big)
    d.rounded_rectangle((0, 0, W - 1, H - 1), radius=int(0.09 * W), fill=(*FACE, 255), outline=(*EDGE, 255),
                        width=k)
    inset = int(0.08 * W)
    d.rounded_rectangle((inset, inset, W - inset, H - inset), radius=int(0.05 * W), fill=(*BACK, 255))
    step = int(0.16 * W)
    for x in range(-H, W + H, step):
        d.line((x, inset, x + H, inset + H), fill=BACK_LINE, width=k)
        d.line((x, inset + H, x + H, inset), fill=BACK_LINE, width=k)
    d.rectangle((0, 0, W, inset), fill=FACE)
    d.rectangle((0, H - inset, W, H), fill=FACE)
    d.rectangle((0, 0, inset, H), fill=FACE)
    d.rectangle((W - inset, 0, W, H), fill=FACE)
    d.rounded_rectangle((0, 0, W - 1, H - 1), radius=int(0.09 * W), outline=(*EDGE, 255), width=k)
    r = int(0.22 * W)
    d.ellipse((W // 2 - r, H // 2 - r, W // 2 + r, H // 2 + r), fill=BACK, outline=FACE, width=2 * k)
    mask = Image.new("L", (W, H), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, W - 1, H - 1), radius=int(0.09 * W), fill=255)
    big.putalpha(mask)
    return _finish(big, w, h, dim)


def _paste(img: Image.Image, tile: Image.Image, box: Box) -> None:
    img.paste(tile, (box[0], box[1]), tile)


def _badge(draw: ImageDraw.ImageDraw, x: int, y: int, text: str, bg: RGB, fg: RGB, size: int = 18,
           lang: str = "en") -> int:
    """A rounded label at (x, y); returns its right edge."""
    f = text_font(text, size, lang)
    w = _text_w(text, f) + 16
    draw.rounded_rectangle((x, y, x + w, y + BADGE_H), radius=BADGE_H // 2, fill=bg)
    draw.text((x + 8, y + BADGE_H // 2), text, font=f, fill=fg, anchor="lm")
    return x + w


def _chip(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int) -> None:
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=CHIP_RED, outline=TEXT, width=3)
    draw.ellipse((cx - r // 2, cy - r // 2, cx + r // 2, cy + r // 2), outline=TEXT, width=2)


BADGE_GREY: RGB = (90, 96, 92)
BADGE_ORANGE: RGB = (230, 110, 20)
CHIP_RED: RGB = (200, 30, 40)
INK: RGB = (20, 20, 20)
_KEY_COLOURS: tuple[RGB, ...] = (
    FELT, PANEL, PANEL_TURN, PANEL_FOLDED, GOLD, TEXT, MUTED, FACE, EDGE, DOWN_FRAME, BACK, BACK_LINE, LOW_MARK,
    BADGE_GREY, BADGE_ORANGE, CHIP_RED, INK, *FOUR_COLOURS, *TWO_COLOURS,
)


@functools.lru_cache(maxsize=1)
def palette() -> Image.Image:
    """The fixed 256-colour palette of every image (built once from a sample of what we draw).

    The drawing colours are in it exactly; the anti-aliased blends come from an octree
    of a sample image. Mapping onto a fixed palette is cheap, and an indexed PNG skips
    the per-row filter search and is about a third of the size of an RGB one.
    """
    keys = list(dict.fromkeys([*_KEY_COLOURS, *(dimmed(c) for c in _KEY_COLOURS)]))
    sample = Image.new("RGB", (8 * (BIG_W + 8), 4 * (BIG_H + 8) + 160), FELT)
    d = ImageDraw.Draw(sample)
    cards = [Card(rank=r, suit=s) for s, r in enumerate((10, 12, 14, 8))]
    x = y = 0
    for four, dim in ((True, False), (False, False), (True, True), (False, True)):
        for i, card in enumerate(cards):
            _paste(sample, card_face(card, CARD_W, CARD_H, four, False, dim), (x + i * (CARD_W + 8), y, 0, 0))
        _paste(sample, card_back(CARD_W, CARD_H, dim), (x + 4 * (CARD_W + 8), y, 0, 0))
        _paste(sample, card_face(cards[y % 4], BIG_W, BIG_H, four, True), (x + 5 * (CARD_W + 8), y, 0, 0))
        y += CARD_H + 8
    for j, bg in enumerate((FELT, PANEL, PANEL_TURN, PANEL_FOLDED)):
        top = y + j * 40
        d.rectangle((0, top, sample.width, top + 40), fill=bg)
        xx = 4
        for colour in (TEXT, MUTED, GOLD, LOW_MARK):
            d.text((xx, top + 6), "Ag 10 stack", font=font(26), fill=colour)
            xx += 150
        for bgc, fg in ((GOLD, INK), (BADGE_GREY, TEXT), (BADGE_ORANGE, TEXT), (LOW_MARK, INK)):
            xx = _badge(d, xx, top + 6, "TO ACT", bgc, fg) + 4
        _chip(d, xx + 20, top + 20, 17)
    octree = sample.quantize(256 - len(keys), method=Image.Quantize.FASTOCTREE)
    colours = (octree.getpalette() or [])[: 3 * (256 - len(keys))]
    for key in keys:
        colours.extend(key)
    result = Image.new("P", (1, 1))
    result.putpalette(colours)
    return result


def _encode(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.quantize(palette=palette(), dither=Image.Dither.NONE).save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()


# ------------------------------------------------------------------ the public board


def _text(d: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, lang: str, fill: RGB, anchor: str,
          width: int | None = None, stroke: int = 0) -> None:
    """``text`` in the font for its language, cut to ``width`` with an ellipsis (no control character
    is drawn: a name's bidi controls would show as boxes)."""
    text = plain(text)
    f = text_font(text, size, lang)
    if width is not None:
        text = _fit(text, f, width)
    d.text(xy, text, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill if stroke else None)


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


def warm_up(four_colour: bool = True) -> None:
    """Draw the palette, the fonts and every board-size card tile now (about 0.2 s), so that
    no later image pays for them: call once at start-up, off the hot path."""
    palette()
    for size in (18, 22, 24, 26, 28, 30, 34):
        font(size)
        wide_font(size)
    card_back(CARD_W, CARD_H)
    for card in ALL_CARDS:
        card_face(card, CARD_W, CARD_H, four_colour)


def clear_caches(*, tiles: bool = False) -> None:
    """Forget rendered boards, and with ``tiles`` the card tiles too."""
    _render_board.cache_clear()
    if tiles:
        _card_face.cache_clear()
        _card_back.cache_clear()


# ------------------------------------------------------------------ own cards and the showdown


def _marks(cards: Sequence[Card], tr: Translator) -> tuple[set[Card], set[Card], str, str]:
    """The cards of the best high and low (5+ cards) and the two descriptions."""
    text = strength(cards, tr)
    high_text, _, low_text = text.partition(" · ")
    if len(cards) < 5:
        return set(), set(), high_text, low_text
    low = best_low(cards)
    return set(best_high(cards).cards), set(low.cards) if low else set(), high_text, low_text


@dataclass(frozen=True, slots=True)
class Marks:
    """The words on the HI and LO marks under the cards, and the image's language."""

    high: str
    low: str
    lang: str

    @classmethod
    def of(cls, tr: Translator) -> Marks:
        return cls(high=tr("img.high_mark"), low=tr("img.low_mark"), lang=tr.lang)


def _card_row(img: Image.Image, d: ImageDraw.ImageDraw, x: int, y: int, cards: Sequence[tuple[Card, bool]],
              high: set[Card], low: set[Card], w: int, h: int, gap: int, extra_gap: int = 0,
              extra_from: int | None = None, four_colour: bool = True, marks: Marks | None = None) -> None:
    """Cards face up from (x, y), down ones framed, with HI / LO marks under them."""
    marks = marks or Marks.of(EN)
    for i, (card, down) in enumerate(cards):
        cx = x + i * (w + gap) + (extra_gap if extra_from is not None and i >= extra_from else 0)
        _paste(img, card_face(card, w, h, four_colour, down), (cx, y, cx + w, y + h))
        my = y + h + 6
        half = (w - 4) // 2
        if card in high:
            d.rounded_rectangle((cx, my, cx + half, my + BADGE_H), radius=6, fill=HIGH_MARK)
            _text(d, (cx + half // 2, my + BADGE_H // 2), marks.high, 18, marks.lang, INK, "mm", width=half - 4)
        if card in low:
            d.rounded_rectangle((cx + w - half, my, cx + w, my + BADGE_H), radius=6, fill=LOW_MARK)
            _text(d, (cx + w - half // 2, my + BADGE_H // 2), marks.low, 18, marks.lang, INK, "mm", width=half - 4)


def private_png(hand: Hand, seat: int, *, four_colour: bool = True, tr: Translator = EN) -> bytes:
    """A player's own cards, all face up, down cards framed dark with a lock; the best high
    hand's five cards marked HI, the best low's marked LO, and both named; in the language
    of ``tr`` (the player's)."""
    own = hand.cards[seat]
    cards = [(c, i in DOWN_INDICES) for i, c in enumerate(own)]
    if hand.community is not None:
        cards.append((hand.community, False))
    high, low, high_text, low_text = _marks(hand.all_cards(seat), tr)
    extra = 40 if hand.community is not None else 0
    width = max(760, 2 * PAD + len(cards) * (BIG_W + CARD_GAP) - CARD_GAP + extra)
    top = PAD + 56
    height = top + BIG_H + 6 + BADGE_H + 20 + 2 * 40 + PAD
    img = Image.new("RGB", (width, height), FELT)
    d = ImageDraw.Draw(img)
    lang = tr.lang
    _text(d, (PAD, PAD), private_title(hand, seat, tr), 30, lang, TEXT, "lt", width=width - 2 * PAD)
    _card_row(img, d, PAD, top, cards, high, low, BIG_W, BIG_H, CARD_GAP, extra, len(own), four_colour, Marks.of(tr))
    if hand.community is not None:
        cx = PAD + len(own) * (BIG_W + CARD_GAP) + extra
        _text(d, (cx + BIG_W // 2, top - 4), tr("img.community"), 18, lang, MUTED, "mb")
    ty = top + BIG_H + 6 + BADGE_H + 20
    _text(d, (PAD, ty), high_text, 26, lang, GOLD, "lt", width=width - 2 * PAD)
    _text(d, (PAD, ty + 40), low_text, 26, lang, LOW_MARK, "lt", width=width - 2 * PAD)
    return _encode(img)


def private_title(hand: Hand, seat: int, tr: Translator = EN) -> str:
    """'Your cards, ann · fifth street', the private image's title."""
    street = street_name(tr, "showdown" if hand.is_over else hand.street)
    return tr("img.your_cards", name=hand.names[seat], street=street)


@dataclass(frozen=True, slots=True)
class ShowdownText:
    """Every word of the showdown image: its title, each shown hand's line, each pot's line."""

    title: str
    rows: tuple[tuple[int, str, str], ...]
    """(seat, 'ann wins 40', 'High: ... · Low: ...') per shown hand, in showing order."""
    pots: tuple[str, ...]


def showdown_text(hand: Hand, *, names: Sequence[str], tr: Translator = EN) -> ShowdownText:
    """The texts of :func:`showdown_png`, in the language of ``tr``."""
    shown = hand.show_order if _shows(hand) else []
    pot_lines = results.pot_lines(tr, hand, names, hands=False)  # each row names its hand
    won = _winnings(hand)
    rows = []
    for seat in shown:
        _, _, high_text, low_text = _marks(hand.all_cards(seat), tr)
        title = tr("img.wins", name=names[seat], amount=won[seat]) if seat in won else names[seat]
        rows.append((seat, title, f"{high_text} · {low_text}"))
    return ShowdownText(title=tr("img.showdown") if shown else tr("img.hand_over_title"), rows=tuple(rows),
                        pots=tuple(pot_lines))


def showdown_png(hand: Hand, *, names: Sequence[str], four_colour: bool = True, tr: Translator = EN) -> bytes:
    """Every shown hand (rule 15 order) with its high and low, and who won each pot's halves,
    in the language of ``tr`` (the table's)."""
    text = showdown_text(hand, names=names, tr=tr)
    lang = tr.lang
    row_h = 44 + CARD_H + 6 + BADGE_H + 16
    won = _winnings(hand)
    height = PAD + 56 + len(text.rows) * (row_h + ROW_GAP) + len(text.pots) * 38 + PAD + 8
    img = Image.new("RGB", (WIDTH, height), FELT)
    d = ImageDraw.Draw(img)
    _text(d, (PAD, PAD), text.title, 34, lang, TEXT, "lt")
    marks = Marks.of(tr)
    y = PAD + 56
    for seat, title, rest in text.rows:
        d.rounded_rectangle((PAD, y, WIDTH - PAD, y + row_h), radius=14, fill=PANEL_TURN if seat in won else PANEL,
                            outline=GOLD if seat in won else None, width=3 if seat in won else 0)
        high, low, _, _ = _marks(hand.all_cards(seat), tr)
        title = plain(title)
        f = text_font(title, 28, lang)
        d.text((PAD + 16, y + 10), title, font=f, fill=GOLD if seat in won else TEXT, anchor="lt")
        tx = PAD + 16 + _text_w(title, f) + 24
        _text(d, (tx, y + 14), rest, 22, lang, MUTED, "lt", width=WIDTH - PAD - 16 - tx)
        cards = [(c, False) for c in hand.cards[seat]]
        if hand.community is not None:
            cards.append((hand.community, False))
        _card_row(img, d, PAD + 16, y + 44, cards, high, low, CARD_W, CARD_H, CARD_GAP, 24, len(hand.cards[seat]),
                  four_colour, marks)
        y += row_h + ROW_GAP
    for line in text.pots:
        _text(d, (PAD, y + 8), line, 24, lang, TEXT, "lt", width=WIDTH - 2 * PAD)
        y += 38
    return _encode(img)

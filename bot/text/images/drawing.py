"""What every image draws with: sizes, colours, fonts, text, card tiles, badges, the palette
and the PNG encoder, and a row of face-up cards with their HI / LO marks.

English text is set in Pillow's bundled scalable font (``ImageFont.load_default``),
which has no Cyrillic and no Polish letters; other languages, and any text with a
letter the bundled font lacks (a Cyrillic name at an English table), are set in
DejaVu Sans, shipped in ``bot/fonts`` with its licence. Everything is drawn at phone
density (about 2x) on an opaque felt-green background that reads on Discord's dark
and light themes; suits are vector shapes.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.core.i18n import EN, Translator
from bot.core.names import plain
from bot.text.render import strength
from bot.text.results import razz_low_text
from engine import ALL_CARDS, Card, best_high, best_low
from engine.games import Scoring
from engine.lowball import best_razz

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


# ------------------------------------------------------------------ drawing primitives


FONT_FILE = Path(__file__).parents[2] / "fonts" / "DejaVuSans.ttf"
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



def _text(d: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, lang: str, fill: RGB, anchor: str,
          width: int | None = None, stroke: int = 0) -> None:
    """``text`` in the font for its language, cut to ``width`` with an ellipsis (no control character
    is drawn: a name's bidi controls would show as boxes)."""
    text = plain(text)
    f = text_font(text, size, lang)
    if width is not None:
        text = _fit(text, f, width)
    d.text(xy, text, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill if stroke else None)



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



def clear_tiles() -> None:
    """Forget the drawn card tiles."""
    _card_face.cache_clear()
    _card_back.cache_clear()


# ------------------------------------------------------------------ a row of cards with HI / LO marks


def _marks(cards: Sequence[Card], tr: Translator, *,
           scoring: Scoring = Scoring.HI_LO) -> tuple[set[Card], set[Card], str, str]:
    """The cards of the best high and low (5+ cards) and the two descriptions, as the game reads them:
    Stud Hi-Lo both; Stud the high alone (G6: no low is marked or named); Razz the ace-to-five low
    alone (G7: its five cards marked as the low, no high)."""
    if scoring is Scoring.LOW:
        low_text = razz_low_text(tr, cards)
        return set(), set(best_razz(cards).cards) if len(cards) >= 5 else set(), "", low_text
    text = strength(cards, tr)
    high_text, _, low_text = text.partition(" · ")
    if scoring is Scoring.HIGH:
        low_text = ""
    if len(cards) < 5:
        return set(), set(), high_text, low_text
    low = best_low(cards) if scoring is Scoring.HI_LO else None
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

"""A player's own cards, sent privately: every card face up, the down ones framed dark with a
lock, the best high and low marked and named."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.core.i18n import EN, Translator
from bot.text.images.drawing import (
    BADGE_H,
    BIG_H,
    BIG_W,
    CARD_GAP,
    DOWN_INDICES,
    FELT,
    GOLD,
    LOW_MARK,
    MUTED,
    PAD,
    TEXT,
    Marks,
    _card_row,
    _encode,
    _marks,
    _text,
)
from bot.text.render import street_name
from bot.text.results import game_name
from engine import Hand


def private_png(hand: Hand, seat: int, *, four_colour: bool = True, tr: Translator = EN) -> bytes:
    """A player's own cards, all face up, down cards framed dark with a lock; the best high
    hand's five cards marked HI, the best low's marked LO, and both named, as the hand's game
    reads them (Stud: no low; Razz: the ace-to-five low alone); in the language of ``tr`` (the player's)."""
    own = hand.cards[seat]
    cards = [(c, i in DOWN_INDICES) for i, c in enumerate(own)]
    if hand.community is not None:
        cards.append((hand.community, False))
    high, low, high_text, low_text = _marks(hand.all_cards(seat), tr, scoring=hand.scoring)
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
    """'Razz · Your cards, ann · fifth street', the private image's title: the hand's game first."""
    street = street_name(tr, "showdown" if hand.is_over else hand.street)
    return tr("img.game_title", game=game_name(tr, hand.game.value),
              title=tr("img.your_cards", name=hand.names[seat], street=street))

"""The showdown picture: the hand's game, every shown hand in showing order with its high and
low as the game reads them (Stud: the high alone; Razz: the ace-to-five low alone, marked LO),
and who won each pot (each half of a Stud Hi-Lo pot)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.core.i18n import EN, Translator
from bot.core.names import plain
from bot.text import results
from bot.text.images.board import _shows, _winnings
from bot.text.images.drawing import (
    BADGE_H,
    CARD_GAP,
    CARD_H,
    CARD_W,
    FELT,
    GOLD,
    MUTED,
    PAD,
    PANEL,
    PANEL_TURN,
    ROW_GAP,
    TEXT,
    WIDTH,
    Marks,
    _card_row,
    _encode,
    _marks,
    _text,
    _text_w,
    text_font,
)
from engine import Hand


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
        _, _, high_text, low_text = _marks(hand.all_cards(seat), tr, scoring=hand.scoring)
        title = tr("img.wins", name=names[seat], amount=won[seat]) if seat in won else names[seat]
        rows.append((seat, title, " · ".join(t for t in (high_text, low_text) if t)))
    title = tr("img.showdown") if shown else tr("img.hand_over_title")
    return ShowdownText(title=tr("img.game_title", game=results.game_name(tr, hand.game.value), title=title),
                        rows=tuple(rows), pots=tuple(pot_lines))


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
        high, low, _, _ = _marks(hand.all_cards(seat), tr, scoring=hand.scoring)
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

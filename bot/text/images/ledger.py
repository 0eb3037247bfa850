"""The night's ledger as a picture (PNG), drawn as the boards are: the felt, a panel, gold for the winners.

Plain rows in, bytes out: the words are the caller's, already in the reader's language
(bot/table/settling.py); nothing here knows a session.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.text.images.drawing import FELT, GOLD, MUTED, PANEL, PNG_LEVEL, TEXT, text_font

WIDTH = 960
PAD = 24
TITLE_H = 64
ROW_H = 40
SIZE = 22
LOSS = (230, 110, 20)
"""A net below zero (the boards' orange badge)."""


def ledger_png(*, title: str, header: Sequence[str], rows: Sequence[Sequence[str]], nets: Sequence[int],
               notes: Sequence[str] = (), lang: str = "en") -> bytes:
    """A table of ``rows`` under ``header`` (the first column left, the others right), each row's last cell
    gold if its net (``nets``, one per row) is above zero, orange below; then ``notes``, a line each."""
    height = TITLE_H + ROW_H * (len(rows) + 1) + PAD * 3 + ROW_H * len(notes)
    img = Image.new("RGB", (WIDTH, height), FELT)
    d = ImageDraw.Draw(img)
    d.text((PAD, PAD + 14), title, font=text_font(title, 28, lang), fill=TEXT, anchor="lm")
    top = TITLE_H + PAD // 2
    d.rounded_rectangle((PAD, top, WIDTH - PAD, top + ROW_H * (len(rows) + 1) + PAD // 2), radius=10, fill=PANEL)
    columns = len(header)
    first = (WIDTH - 2 * PAD) // 5  # the names' column; the numbers share the rest, the net twice as wide
    step = (WIDTH - 2 * PAD - first) // max(columns, 1)
    rights = [PAD + first + step * (i + 1) - 12 for i in range(columns - 2)] + [WIDTH - PAD - 14]
    for r, cells in enumerate([header, *rows]):
        y = top + PAD // 2 + ROW_H * r + ROW_H // 2
        colour = MUTED if r == 0 else TEXT
        name = str(cells[0])
        d.text((PAD + 14, y), name, font=text_font(name, SIZE, lang), fill=colour, anchor="lm")
        for i, cell in enumerate(cells[1:]):
            fill = colour
            if r and i == columns - 2:
                net = nets[r - 1]
                fill = GOLD if net > 0 else LOSS if net < 0 else TEXT
            d.text((rights[i], y), str(cell), font=text_font(str(cell), SIZE, lang), fill=fill, anchor="rm")
    y = top + ROW_H * (len(rows) + 1) + PAD + ROW_H // 2
    for note in notes:
        d.text((PAD, y), note, font=text_font(note, SIZE - 2, lang), fill=TEXT, anchor="lm")
        y += ROW_H
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()

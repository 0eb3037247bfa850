"""A player's net chips over their hands as a line chart (PNG), drawn as the boards are.

The same felt, panel, gold and fonts as :mod:`bot.text.images`; every word from the catalogs
in the reader's language. The line is the running total of the player's net, hand by
hand; with more hands than pixels across, each pixel column shows the range its hands
went through and ends where its last hand ended.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from itertools import accumulate

from PIL import Image, ImageDraw

from bot.core.i18n import EN, Translator
from bot.text.images import FELT, GOLD, LOW_MARK, MUTED, PANEL, PNG_LEVEL, TEXT, text_font

WIDTH, HEIGHT = 960, 480
PAD = 20
TITLE_H = 64
AXIS_W = 110
FOOT_H = 44
LOSS = (230, 110, 20)
"""The line below zero (the boards' orange badge)."""


def nice_step(span: float, ticks: int = 4) -> int:
    """The smallest round step (1, 2 or 5 times a power of ten) that cuts ``span`` into at most ``ticks`` parts.

    >>> nice_step(1000), nice_step(37), nice_step(0)
    (500, 10, 1)
    """
    raw = max(span / ticks, 1.0)
    power = 1
    while power * 10 <= raw:
        power *= 10
    return next(power * m for m in (1, 2, 5, 10) if power * m >= raw)


def net_png(nets: Sequence[int], *, name: str, tr: Translator = EN) -> bytes:
    """The chart of ``nets`` (the player's net of each hand, in order) as PNG bytes."""
    lang = tr.lang
    totals = [0, *accumulate(nets)]
    img = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    d = ImageDraw.Draw(img)
    title = tr("stats.chart_title", name=name)
    d.text((PAD, PAD + 14), title, font=text_font(title, 30, lang), fill=TEXT, anchor="lm")
    final = totals[-1]
    result = f"{final:+d}" if final else "0"
    d.text((WIDTH - PAD, PAD + 14), result, font=text_font(result, 30, lang), fill=GOLD if final >= 0 else LOSS,
           anchor="rm")
    x0, y0, x1, y1 = PAD + AXIS_W, TITLE_H, WIDTH - PAD, HEIGHT - FOOT_H
    d.rounded_rectangle((x0, y0, x1, y1), radius=10, fill=PANEL)
    low, high = min(totals), max(totals)
    step = nice_step(high - low)
    low, high = (low // step) * step, -((-high) // step) * step
    if high == low:
        high = low + step

    def y_of(value: int) -> int:
        return round(y1 - 8 - (value - low) * (y1 - y0 - 16) / (high - low))

    for tick in range(low, high + 1, step):
        y = y_of(tick)
        d.line((x0, y, x1, y), fill=MUTED if tick == 0 else (40, 100, 66), width=2 if tick == 0 else 1)
        label = f"{tick:+d}" if tick else "0"
        d.text((x0 - 10, y), label, font=text_font(label, 20, lang), fill=MUTED, anchor="rm")
    hands = tr("stats.chart_hands", count=len(nets))
    d.text(((x0 + x1) // 2, y1 + FOOT_H // 2), hands, font=text_font(hands, 22, lang), fill=MUTED, anchor="mm")
    d.text((x0, y1 + FOOT_H // 2), "0", font=text_font("0", 20, lang), fill=MUTED, anchor="lm")
    d.text((x1, y1 + FOOT_H // 2), str(len(nets)), font=text_font(str(len(nets)), 20, lang), fill=MUTED,
           anchor="rm")
    width = x1 - x0 - 16
    columns = min(width, len(totals) - 1) or 1
    points: list[tuple[int, int]] = []
    for c in range(columns + 1):
        first = (c - 1) * (len(totals) - 1) // columns + 1 if c else 0
        last = c * (len(totals) - 1) // columns
        x = x0 + 8 + round(c * width / columns)
        span = totals[first:last + 1] or [totals[last]]
        if len(span) > 1:
            d.line((x, y_of(min(span)), x, y_of(max(span))), fill=GOLD, width=2)
        points.append((x, y_of(totals[last])))
    if len(points) > 1:
        d.line(points, fill=GOLD, width=4, joint="curve")
    xe, ye = points[-1]
    d.ellipse((xe - 6, ye - 6, xe + 6, ye + 6), fill=LOW_MARK if final >= 0 else LOSS)
    out = io.BytesIO()
    img.save(out, format="PNG", compress_level=PNG_LEVEL)
    return out.getvalue()

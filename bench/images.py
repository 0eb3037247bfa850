"""Board images: milliseconds per PNG, against references measured in the same run.

``python -m bench.images`` plays seeded random hands (2-8 players, random legal
actions) and renders the public board at every state until it has the requested
number of boards, the board cache cleared before each one so every render is real
(the card tiles stay cached, as in the bot). It also renders the private image of
the player to act and the showdown image of every finished hand. References: the
text board of ``bot.text.render.board`` for the same states, and the PNG encode of a
blank image of the same size, plain RGB and through the boards' own indexed encoder
(the floor that any PNG of that size pays). ``--lang ru`` (or ``pl``) draws every
image and the text board in that language (DejaVu Sans instead of the bundled font).
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from collections.abc import Callable

from PIL import Image

from bot.core.i18n import LANGUAGES, translator
from bot.core.model import Table
from bot.text import images, render
from engine import Deck, DeckDealer, Hand, Stakes

TARGET_MS = 30.0


def _table(hand_no: int) -> Table:
    return Table(id=1, platform="bench", community="c", channel="ch", creator="u", stakes=Stakes(), timer=30,
                 hand_no=hand_no)


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _blank_png(width: int, height: int) -> bytes:
    """An RGB PNG of a blank image: what a plain ``Image.save`` of that size costs."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), images.FELT).save(out, format="PNG", compress_level=images.PNG_LEVEL)
    return out.getvalue()


def _blank_indexed_png(width: int, height: int) -> bytes:
    """The same blank image through the boards' own encoder (fixed palette, indexed PNG)."""
    return images.drawing._encode(Image.new("RGB", (width, height), images.FELT))


def _stats(name: str, ms: list[float], ref: list[float] | None = None, ref_name: str = "") -> str:
    med = statistics.median(ms)
    p95 = statistics.quantiles(ms, n=20)[-1] if len(ms) >= 20 else max(ms)
    line = f"{name:<28} n={len(ms):<4} median {med:7.2f} ms   p95 {p95:7.2f} ms"
    if ref:
        rmed = statistics.median(ref)
        line += f"   ({med / rmed:6.1f}x {ref_name} median {rmed:.3f} ms)"
    return line


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--lang", choices=LANGUAGES, default="en")
    args = parser.parse_args(argv)
    tr = translator(args.lang)
    rng = random.Random(args.seed)

    # Cold start: the first board pays for drawing the card tiles it uses.
    warm = Hand(stakes=Stakes(), names=["a", "b", "c"], stacks=[100] * 3, dealer=DeckDealer(Deck.shuffled(rng=rng)))
    images.clear_caches(tiles=True)
    cold = _timed(lambda: images.board_png(_table(0), warm, names=warm.names, tr=tr))
    images.clear_caches(tiles=True)
    warm_up = _timed(images.warm_up)  # as the bot would at start-up

    board_ms: list[float] = []
    blank_ms: list[float] = []
    blank_p_ms: list[float] = []
    text_ms: list[float] = []
    cached_ms: list[float] = []
    private_ms: list[float] = []
    showdown_ms: list[float] = []
    sizes: list[int] = []
    hand_no = 0
    while len(board_ms) < args.boards:
        hand_no += 1
        players = rng.randint(2, 8)
        names = [f"player{i}" for i in range(players)]
        stacks = [rng.choice([20, 60, 200, 400]) for _ in names]
        hand = Hand(stakes=Stakes(), names=names, stacks=stacks, dealer=DeckDealer(Deck.shuffled(rng=rng)))
        table = _table(hand_no)
        while True:
            if len(board_ms) < args.boards:
                images.clear_caches()
                start = time.perf_counter()
                png = images.board_png(table, hand, names=names, tr=tr)
                board_ms.append((time.perf_counter() - start) * 1000)
                cached_ms.append(_timed(lambda: images.board_png(table, hand, names=names, tr=tr)))  # noqa: B023
                sizes.append(len(png))
                width, height = Image.open(io.BytesIO(png)).size
                blank_ms.append(_timed(lambda: _blank_png(width, height)))  # noqa: B023
                blank_p_ms.append(_timed(lambda: _blank_indexed_png(width, height)))  # noqa: B023
                text_ms.append(_timed(lambda: render.board(table, hand, names=names, turn="t", seconds_left=30, tr=tr)))  # noqa: B023
                if hand.actor is not None:
                    seat = hand.actor
                    private_ms.append(_timed(lambda: images.private_png(hand, seat, tr=tr)))  # noqa: B023
            if hand.is_over:
                showdown_ms.append(_timed(lambda: images.showdown_png(hand, names=names, tr=tr)))  # noqa: B023
                break
            hand.act(rng.choice(hand.legal_actions()))

    print(f"board images ({args.lang}): {len(board_ms)} distinct boards from {hand_no} random hands (2-8 players), "
          f"board cache cleared before each render; PNG compress_level={images.PNG_LEVEL}")
    print(f"first board with empty caches: {cold:.1f} ms; images.warm_up() (fonts, 52 card tiles): {warm_up:.1f} ms")
    print(_stats("board_png (real render)", board_ms, blank_ms, "blank-PNG encode"))
    print(_stats("board_png (real render)", board_ms, blank_p_ms, "blank indexed encode"))
    print(_stats("board_png (real render)", board_ms, text_ms, "text board"))
    print(_stats("board_png (cache hit)", cached_ms))
    print(_stats("private_png", private_ms, blank_ms, "blank-PNG encode"))
    print(_stats("showdown_png", showdown_ms, blank_ms, "blank-PNG encode"))
    print(_stats("blank RGB PNG, same size", blank_ms))
    print(_stats("blank indexed PNG, same size", blank_p_ms))
    print(_stats("text board (bot.text.render)", text_ms))
    print(f"board PNG size: median {statistics.median(sizes) / 1024:.0f} KiB, max {max(sizes) / 1024:.0f} KiB")
    print("showdown_png times in order (ms):", " ".join(f"{t:.0f}" for t in showdown_ms))
    med = statistics.median(board_ms)
    print(f"target < {TARGET_MS:.0f} ms per board render: median {med:.1f} ms -> "
          + ("met" if med < TARGET_MS else "NOT met"))


if __name__ == "__main__":
    main()

"""The house bot's Razz (GAMES.md G2, G4, G7): the lowest hand wins, aces low, no qualifier.

Low cards are good, pairs and cards above eight are bad. It reads what the acting player may know,
as :mod:`bot.table.housebot` gathers it (:class:`~bot.table.housebot._View`): its own cards, and of
the others only their up cards.

* **Third street** sorts three cards by their highest card when they are three different ranks
  (5-high or better premium, 6 strong, 7 playable, 8 marginal, worse junk); a pair is junk, a small
  pair with a low card marginal.
* **Later streets** estimate the chance to end with the better low against each opponent still in:
  the best five different ranks held (or the chance to make an eight or better from the live low
  cards to come), against what each board shows: a board with a pair or a high card is behind, a
  board of small cards ahead. The betting then is Stud Hi-Lo's (:func:`~bot.table.housebot.bet_by_share`).

>>> import random
>>> from engine import Hand, ScriptedDealer, Stakes, parse_cards
>>> from engine.games import Game
>>> hand = Hand(stakes=Stakes(), names=["ann", "bob"], stacks=[100, 100], game=Game.RAZZ,
...             dealer=ScriptedDealer(cards=[parse_cards("Kd Qs Jc"), parse_cards("Ah 2h 3h")]))
>>> from bot.table.housebot import choose_action
>>> choose_action(hand, rng=random.Random(1)).value  # ann's jack brings in; K-Q-J only posts it
'bring-in'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

from bot.table.odds import p_make
from engine import Card


class Seen(Protocol):
    """What the acting player may know (:class:`bot.table.housebot._View`): own cards, up cards of others."""

    mine: list[Card]
    boards: list[list[Card]]
    seen_rank: list[int]
    to_come: int
    unseen: int

_QUALITY: Final = {5: 0.97, 6: 0.92, 7: 0.82, 8: 0.68, 9: 0.5, 10: 0.4, 11: 0.32, 12: 0.26, 13: 0.2}
"""Rough chance that a made low with this highest card beats another player's final low."""
_PAIRED: Final = 0.08
"""A hand left with a pair at the showdown."""


def third_tier(mine: Sequence[Card]) -> int:
    """0 junk, 1 marginal, 2 playable, 3 strong, 4 premium (as the Stud Hi-Lo tiers).

    >>> from engine import parse_cards
    >>> [third_tier(parse_cards(c)) for c in ("Ac 2d 3h", "6c 2d 4h", "7c 5d Ah", "8c 6d 2h", "Kc 2d 3h", "2c 2d 3h")]
    [4, 3, 2, 1, 0, 1]
    """
    ranks = sorted({c.low_rank for c in mine})
    if len(ranks) < len(mine):  # a pair (or trips): the hand starts with a card it cannot use
        return 1 if len(ranks) == 2 and ranks[-1] <= 5 else 0
    top = ranks[-1]
    return 4 if top <= 5 else 3 if top == 6 else 2 if top == 7 else 1 if top == 8 else 0


def _own(view: Seen) -> tuple[float, int, bool]:
    """(chance our low beats one unknown final low, its highest card as it stands or is likely to be,
    a good draw): the best five different ranks held, or the draw to an eight or better."""
    held = sorted({c.low_rank for c in view.mine})
    lows = [r for r in held if r <= 8]
    if len(lows) >= 5:
        return _QUALITY[max(lows[4], 5)], lows[4], False
    made = _QUALITY.get(held[4], 0.2) if len(held) >= 5 else _PAIRED
    need = 5 - len(lows)
    if need > view.to_come:
        return made, held[4] if len(held) >= 5 else 14, False
    missing = [r for r in range(1, 9) if r not in lows]
    outs = sum(4 - view.seen_rank[14 if r == 1 else r] for r in missing)
    p8 = p_make(need, view.to_come, outs, view.unseen, outs / len(missing))
    top = max(lows[-1] if lows else 8, 7 if need == 1 else 8)
    q = p8 * _QUALITY[top] + (1.0 - p8) * made
    return q, top, view.to_come >= 2 and p8 >= 0.45


def share(view: Seen) -> tuple[float, bool]:
    """The share of the pot to expect (one player takes it all in Razz), and whether it is a good draw."""
    q, top, drawing = _own(view)
    total = 1.0
    for board in view.boards:
        ranks = [c.low_rank for c in board]
        distinct = set(ranks)
        rough = len(ranks) - len(distinct) + sum(1 for r in distinct if r > 8)
        if rough >= 2:
            vs = 1.0 - (1.0 - q) * 0.45
        elif rough == 1:
            vs = 1.0 - (1.0 - q) * 0.75
        elif len(distinct) >= 2 and max(distinct) < top:
            vs = q * 0.75  # a smooth board already lower than our low
        else:
            vs = q
        total *= vs
    return total, drawing

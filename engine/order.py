"""Who goes first and who gets odd chips: the orderings of rules 4, 8, 15 and 19.

>>> from engine.cards import parse_cards
>>> board_key(parse_cards("Kd Kh")) > board_key(parse_cards("As Qh"))
True
>>> bring_in_card_key(Card.from_str("2c")) < bring_in_card_key(Card.from_str("2d"))
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import TypeVar

from engine.cards import ALL_CARDS, RANK_MASK, Card

_K = TypeVar("_K")


def bring_in_card_key(card: Card) -> tuple[int, int]:
    """Rule 4: the lowest door card brings in; aces high; clubs < diamonds < hearts < spades."""
    return (card.rank, card.suit)


BoardKey = tuple[tuple[int, ...], tuple[int, ...]]

_BOARD_KEYS: dict[int, BoardKey] = {}
"""The rank part of up to four cards' keys (see cards.py: it identifies their ranks, which are all a board
key depends on) -> their board key. At most 2,380 entries: every multiset of up to four ranks."""


def board_key(up_cards: Sequence[Card]) -> BoardKey:
    """Rule 8: strength of the up cards only; bigger is better.

    Four of a kind > three of a kind > two pair > one pair > high cards, by rank,
    kicker by kicker; straights and flushes do not count; aces are high.

    >>> from engine.cards import parse_cards
    >>> board_key(parse_cards("Kd 4c Kh")), board_key(parse_cards("4s Ks Kc"))
    (((2, 1), (13, 4)), ((2, 1), (13, 4)))
    """
    return memoised_by_ranks(up_cards, memo=_BOARD_KEYS, compute=_board_key)


def memoised_by_ranks(up_cards: Sequence[Card], *, memo: dict[int, _K],
                      compute: Callable[[Sequence[Card]], _K]) -> _K:
    """``compute(up_cards)`` for a value that depends on the cards' ranks alone, memoised in ``memo`` by the
    rank part of their keys (a board of up to four cards; more could overflow a rank's count: computed)."""
    if len(up_cards) > 4:
        return compute(up_cards)
    rank_key = 0
    for card in up_cards:
        rank_key += card.key
    rank_key &= RANK_MASK
    try:
        return memo[rank_key]
    except KeyError:
        value = memo[rank_key] = compute(up_cards)
        return value


def _board_key(up_cards: Sequence[Card]) -> BoardKey:
    counts: dict[int, int] = {}
    for card in up_cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return (tuple(c for _, c in groups), tuple(r for r, _ in groups))


_INDEX = attrgetter("index")
_HIGH_ORDER: tuple[tuple[int, int], ...] = tuple((c.rank, c.suit) for c in ALL_CARDS)
"""Each card's high odd-chip key by its index (the index orders the cards by rank, then suit)."""
_LOW_ORDER: tuple[tuple[int, int], ...] = tuple((c.low_rank, c.suit) for c in ALL_CARDS)
"""Each card's low odd-chip key by its index."""


def high_odd_chip_key(cards: Sequence[Card]) -> tuple[int, int]:
    """Rule 19, high split: the highest card by rank then suit (sort descending).

    >>> from engine.cards import parse_cards
    >>> high_odd_chip_key(parse_cards("Kd As Ah 2c"))
    (14, 3)
    """
    return _HIGH_ORDER[max(map(_INDEX, cards))]  # the showdown sorts by these: no Python call a card


def low_odd_chip_key(cards: Sequence[Card]) -> tuple[int, int]:
    """Rule 19, low split: the lowest card, ace low, then lowest suit (sort ascending).

    >>> from engine.cards import parse_cards
    >>> low_odd_chip_key(parse_cards("2c Ad As Kh"))
    (1, 1)
    """
    return min(map(_LOW_ORDER.__getitem__, map(_INDEX, cards)))


def clockwise(start: int, count: int) -> list[int]:
    """Seats from ``start`` round the table: ``clockwise(2, 4) == [2, 3, 0, 1]``."""
    return [(start + i) % count for i in range(count)]
